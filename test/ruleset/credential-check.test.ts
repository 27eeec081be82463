import { describe, expect, it } from 'vitest';
import { validateRuleset, FUNCTIONS, RULESET_CODES } from '../../src/index.js';
import { CREDENTIAL_CHECK, checkRuleValueExpression, ruleValueExpressions } from '../../src/ruleset/index.js';

const body = (rule: Record<string, unknown>) => ({ name: 'c', kind: 'root', phase: 'http_request_firewall_custom', rules: [{ action: 'log', expression: 'http.request.method == "POST"', ...rule }] });
const check = (username: unknown, password: unknown = 'url_decode(http.request.body.form["password"][0])') => body({ exposed_credential_check: { username_expression: username, password_expression: password } });
const found = (b: unknown) => validateRuleset(b as never).map((d) => `${d.code} ${d.pointer}`);

describe('exposed_credential_check (configure-api.mdx of the WAF docs)', () => {
  it('takes the docs examples A and B', () => {
    expect(found(check('url_decode(http.request.body.form["username"][0])'))).toEqual([]);
    const b = body({
      action: 'block',
      exposed_credential_check: { username_expression: 'lookup_json_string(http.request.body.raw, "username")', password_expression: 'lookup_json_string(http.request.body.raw, "password")' },
    });
    expect(found(b)).toEqual([]);
  });

  it('needs both properties, as strings, and no others', () => {
    expect(found(body({ exposed_credential_check: { username_expression: 'lower(http.host)' } }))).toEqual(['ruleset-missing-member /rules/0/exposed_credential_check']);
    const d = validateRuleset(body({ exposed_credential_check: {} }) as never);
    expect(d.map((x) => x.data?.['member'])).toEqual(['username_expression', 'password_expression']);
    expect(d[0]!.fix?.title).toBe('add "username_expression"');
    expect(found(check(3))).toEqual(['ruleset-member-type /rules/0/exposed_credential_check/username_expression']);
    expect(found(body({ exposed_credential_check: { username_expression: 'lower(http.host)', password_expression: 'lower(http.host)', user_expression: 'x' } }))).toEqual([
      'ruleset-unknown-member /rules/0/exposed_credential_check/user_expression',
    ]);
  });

  it('goes only with rewrite, log, block, challenge and js_challenge', () => {
    for (const action of ['log', 'block', 'challenge', 'js_challenge']) expect(found({ ...check('lower(http.host)'), rules: [{ ...check('lower(http.host)').rules[0], action }] }), action).toEqual([]);
    const d = validateRuleset({ ...check('lower(http.host)'), rules: [{ ...check('lower(http.host)').rules[0], action: 'managed_challenge' }] } as never);
    expect(d.map((x) => `${x.code} ${x.pointer}`)).toEqual(['rule-credential-check-action /rules/0/action']);
    expect(d[0]!.fix?.title).toMatch(/set action to "log"/);
    // rewrite is one of them: in a phase that has it, no complaint about the pairing.
    expect(checkRuleValueExpression('lower(http.host)', 'credential', 'http_request_late_transform')).toEqual([]);
  });

  it('must give a String', () => {
    const d = validateRuleset(check('http.request.body.form["username"]') as never);
    expect(d.map((x) => `${x.code} ${x.pointer}`)).toEqual(['value-expression-type /rules/0/exposed_credential_check/username_expression']);
    expect(found(check('http.host == "a"'))).toEqual(['value-expression-type /rules/0/exposed_credential_check/username_expression']);
    expect(found(check('len(http.host)'))).toContain('value-expression-type /rules/0/exposed_credential_check/username_expression');
  });

  it('allows only upper, lower, url_decode and lookup_json_string, at the name of the call', () => {
    const text = 'regex_replace(http.host, "a", "b")';
    const d = validateRuleset(check(text) as never);
    expect(d.map((x) => `${x.code} ${x.pointer}`)).toEqual(['rule-credential-expression /rules/0/exposed_credential_check/username_expression']);
    expect(d[0]!.range).toEqual({ start: 0, end: 'regex_replace'.length });
    expect(d[0]!.rangeIn).toBe('value');
    for (const f of CREDENTIAL_CHECK.functions) expect(Object.hasOwn(FUNCTIONS, f), f).toBe(true);
    for (const [text, ok] of [
      ['upper(http.host)', true], ['lower(http.host)', true], ['url_decode(http.request.uri.query)', true], ['lookup_json_string(http.request.body.raw, "u")', true],
      ['to_string(cf.bot_management.score)', false], ['concat(http.host, "a")', false], ['http.host', true],
    ] as const) {
      expect(checkRuleValueExpression(text, 'credential', 'http_request_firewall_custom').map((x) => x.code), text).toEqual(ok ? [] : ['rule-credential-expression']);
    }
  });

  it('refuses nested functions, naming the outer one', () => {
    const text = 'lower(url_decode(http.request.body.form["username"][0]))';
    const d = checkRuleValueExpression(text, 'credential', 'http_request_firewall_custom');
    expect(d.map((x) => x.code)).toEqual(['rule-credential-expression']);
    expect(text.slice(d[0]!.range!.start, d[0]!.range!.end)).toBe('url_decode');
    expect(d[0]!.message).toMatch(/nested in lower\(\)/);
    // The same function chain is fine as a rewrite.
    expect(checkRuleValueExpression(text, 'rewrite', 'http_request_late_transform')).toEqual([]);
  });

  it('has at most 1024 characters, the excess marked', () => {
    const ok = `lookup_json_string(http.request.body.raw, "${'u'.repeat(1024 - 'lookup_json_string(http.request.body.raw, "")'.length)}")`;
    expect(ok.length).toBe(1024);
    expect(checkRuleValueExpression(ok, 'credential', 'http_request_firewall_custom')).toEqual([]);
    const long = ok.replace('"u', '"uu');
    const d = checkRuleValueExpression(long, 'credential', 'http_request_firewall_custom');
    expect(d.map((x) => x.code)).toEqual(['rule-credential-expression']);
    expect(d[0]!.range).toEqual({ start: 1024, end: 1025 });
    // Characters, not UTF-16 units: 1024 non-BMP characters fit.
    const astral = `lower("${'😀'.repeat(1024 - 'lower("")'.length)}")`;
    expect(checkRuleValueExpression(astral, 'credential', 'http_request_firewall_custom').map((x) => x.code)).not.toContain('rule-credential-expression');
  });

  it('reads HTTP fields: a packet field is an error that names the phase', () => {
    expect(found(check('lower(tcp.dstport)'))[0]).toBe('rule-field-phase /rules/0/exposed_credential_check/username_expression');
  });

  it('is one of the value expressions of a rule, with the codes registered', () => {
    const rule = { action_parameters: { uri: { path: { expression: 'a' } }, headers: { 'X-A': { expression: 'b' } } }, ratelimit: { counting_expression: 'c' }, exposed_credential_check: { username_expression: 'd', password_expression: 'e' } };
    expect(ruleValueExpressions(rule, '/rules/2').map((v) => `${v.slot} ${v.pointer} ${v.text}`)).toEqual([
      'rewrite /rules/2/action_parameters/uri/path/expression a',
      'rewrite /rules/2/action_parameters/headers/X-A/expression b',
      'counting /rules/2/ratelimit/counting_expression c',
      'credential /rules/2/exposed_credential_check/username_expression d',
      'credential /rules/2/exposed_credential_check/password_expression e',
    ]);
    expect(RULESET_CODES['rule-credential-expression'].severity).toBe('error');
  });
});
