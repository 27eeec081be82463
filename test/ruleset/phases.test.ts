import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { simulate, ACTIONS, PHASES, PHASE_CATALOG, CATALOG_ACTIONS, validateRuleset, HTTP_FIELDS, HTTP_FIELD_ROWS, HTTP_SCHEME, NETWORK_FIELDS, checkExpression, compileExpression } from '../../src/index.js';
import { rulesetToSql } from '../../src/sql/index.js';
import { CHECKED_PHASES, checkExtracted, extractTerraform, extractYaml } from '../../src/lint/index.js';

const corpus = JSON.parse(readFileSync(new URL('../fixtures/http/docs-expressions.json', import.meta.url), 'utf8')) as { checked: string[]; unsupported: string[] };

const ruleset = (phase: string, rules: unknown[], kind = 'zone') => ({ name: 'r', kind, phase, rules });
const codes = (body: unknown) => validateRuleset(body).map((d) => `${d.code}@${d.pointer}`);

describe('the catalog of phases', () => {
  it('is the one table PHASES, the validator and lint read', () => {
    expect(Object.keys(PHASES)).toEqual(Object.keys(PHASE_CATALOG));
    expect(CHECKED_PHASES).toEqual(Object.fromEntries(Object.entries(PHASE_CATALOG).map(([k, p]) => [k, p.actions])));
    for (const [action, { phase }] of Object.entries(ACTIONS)) expect(PHASE_CATALOG[phase].actions as readonly string[]).toContain(action);
    for (const [name, p] of Object.entries(PHASE_CATALOG)) {
      expect(PHASES[name as keyof typeof PHASES].scope).toBe(p.scopes[0]);
      for (const a of p.actions) expect(CATALOG_ACTIONS).toContain(a);
    }
  });

  it('has the magic_transit family reading packet fields and the http_* phases reading HTTP fields', () => {
    for (const p of ['network_transit', 'magic_transit', 'magic_transit_managed', 'magic_transit_ratelimit', 'magic_transit_ids_managed', 'ddos_l4'] as const) expect(PHASE_CATALOG[p].fields).toBe('network');
    for (const [name, p] of Object.entries(PHASE_CATALOG)) if (name.startsWith('http_')) expect(p.fields, name).toBe('http');
  });

  it('takes a zone- or account-level kind as the phase allows', () => {
    expect(codes(ruleset('http_request_firewall_custom', [], 'root'))).toEqual([]);
    expect(codes(ruleset('http_request_firewall_custom', [], 'zone'))).toEqual([]);
    expect(codes(ruleset('http_request_transform', [], 'root'))).toEqual(['ruleset-phase-kind@/kind']);
    expect(codes(ruleset('magic_transit', [], 'zone'))).toEqual(['ruleset-phase-kind@/kind']);
    expect(validateRuleset(ruleset('http_request_transform', []), { scope: 'account' }).map((d) => d.code)).toEqual(['ruleset-scope']);
  });

  it('checks actions against the phase', () => {
    expect(codes(ruleset('http_request_transform', [{ action: 'block', expression: 'ssl' }]))).toEqual(['rule-action-phase@/rules/0/action']);
    expect(codes(ruleset('http_request_transform', [{ action: 'rewite', expression: 'ssl' }]))).toEqual(['rule-unknown-action@/rules/0/action']);
    const d = validateRuleset(ruleset('magic_transit', [{ action: 'managed_challenge', expression: 'tcp.dstport == 22' }], 'root'));
    expect(d[0]!.message).toContain('its actions are skip, block');
  });
});

describe('HTTP phases', () => {
  it('derive their fields from the source table, containers keeping their documented type', () => {
    for (const [name, type] of HTTP_FIELD_ROWS) {
      const f = HTTP_SCHEME.get(name)!;
      expect(f, name).toBeDefined();
      if (/^(Array|Map)</.test(type)) expect(f.container).toBe(type);
      else expect(f.container).toBeUndefined();
    }
    expect(new Set(HTTP_FIELDS.map((f) => f.name)).size).toBe(HTTP_FIELDS.length);
    expect(HTTP_SCHEME.get('ip.geoip.country')?.deprecated).toBeDefined();
    expect(HTTP_SCHEME.get('cf.threat_score')?.type).toBe('Int');
    expect(HTTP_SCHEME.get('ip.src')?.type).toBe('Ip');
    expect(HTTP_SCHEME.get('http.request.headers')?.container).toBe('Map<Array<String>>');
  });

  it('check the docs’ examples clean', () => {
    for (const e of corpus.checked) {
      expect(checkExpression(e, { scheme: HTTP_SCHEME }).diagnostics, e).toEqual([]);
      expect(compileExpression(e, { scheme: HTTP_SCHEME }).matcher, e).toBeDefined();
    }
  });

  it('check the docs’ examples with functions and indexing without a diagnostic (they were unsupported before issue 17)', () => {
    for (const e of corpus.unsupported) {
      const d = checkExpression(e, { scheme: HTTP_SCHEME }).diagnostics;
      expect(d.map((x) => `${x.code}:${x.severity}`), e).toEqual([]);
    }
  });

  it('check the field names inside functions and indexing', () => {
    const d = checkExpression('any(http.request.header.names[*] == "x") and lower(http.hots) eq "a"', { scheme: HTTP_SCHEME }).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['unknown-field', 'unknown-field']);
    expect(d[1]!.message).toContain('did you mean http.host?');
  });

  it('accept a whole-expression true in every phase, with an info that it matches everything', () => {
    expect(checkExpression(' true ', { scheme: HTTP_SCHEME }).diagnostics.map((d) => `${d.code}:${d.severity}`)).toEqual(['matches-everything:info']);
    expect(compileExpression('true', { scheme: HTTP_SCHEME }).matcher?.({})).toBe(true);
    expect(compileExpression('true').matcher?.({})).toBe(true);
    expect(checkExpression('true').diagnostics.map((d) => d.code)).toEqual(['matches-everything']);
    expect(checkExpression('ssl and true', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['boolean-literal']);
  });

  it('refuse an Array or Map field compared as a whole', () => {
    const d = checkExpression('http.request.headers.names eq "x"', { scheme: HTTP_SCHEME }).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['container-field']);
    expect(d[0]!.message).toContain('any(http.request.headers.names[*] == …)');
  });

  it('type their fields: operators and literals as for the network fields', () => {
    expect(checkExpression('cf.bot_management.score contains "x"', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['operator-type-mismatch']);
    expect(checkExpression('http.host eq 3', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['literal-type-mismatch']);
  });
});

describe('a field of the other field set', () => {
  it('in a network phase is an error that names the phase', () => {
    const d = validateRuleset(ruleset('magic_transit', [{ action: 'block', expression: 'tcp.dstport == 80 and http.host eq "a"' }], 'root'));
    expect(d.map((x) => `${x.code}@${x.pointer}`)).toEqual(['rule-field-phase@/rules/0/expression']);
    expect(d[0]!.message).toBe('http.host is a field of HTTP requests (the http_* phases); the magic_transit phase reads packet fields');
    expect(d[0]!.fix).toBeUndefined();
  });

  it('in an HTTP phase is an error that names the phase', () => {
    const d = validateRuleset(ruleset('http_request_firewall_custom', [{ action: 'block', expression: 'tcp.dstport == 80' }]));
    expect(d.map((x) => x.code)).toEqual(['rule-field-phase']);
    expect(d[0]!.message).toContain('the http_request_firewall_custom phase reads HTTP request fields');
  });

  it('is found beside functions and indexing too', () => {
    const d = validateRuleset(ruleset('http_request_firewall_custom', [{ action: 'block', expression: 'any(http.request.headers.names[*] == "x") and tcp.dstport == 80' }]));
    expect(d.map((x) => x.code)).toEqual(['rule-field-phase']);
  });

  it('leaves fields both sets have alone (ip.src, ip.src.country)', () => {
    expect(codes(ruleset('magic_transit', [{ action: 'block', expression: 'ip.src in {192.0.2.0/24} and ip.src.country eq "FR"' }], 'root'))).toEqual([]);
    expect(codes(ruleset('http_ratelimit', [{ action: 'block', expression: 'ip.src in {192.0.2.0/24} and ip.src.country eq "T1"', ratelimit: { period: 60 } }]))).toEqual([]);
  });
});

describe('HTTP rulesets as the API takes them', () => {
  it('validate with their members and note once that their action_parameters’ values are not checked', () => {
    const d = validateRuleset(ruleset('http_request_firewall_custom', [
      { action: 'skip', action_parameters: { phases: ['http_ratelimit'] }, logging: { enabled: true }, expression: 'ip.src in {192.0.2.1}' },
      { action: 'block', action_parameters: { response: { status_code: 403, content: 'no', content_type: 'text/plain' } }, expression: 'http.request.uri.path wildcard "/admin*"' },
      { action: 'managed_challenge', expression: '(http.request.uri.path contains "/wp-login.php" and ip.src.country ne "US")' },
    ]));
    expect(d.map((x) => `${x.code}:${x.severity}@${x.pointer}`)).toEqual(['rule-action-parameters-not-checked:info@/rules/0/action_parameters']);
  });

  it('keep network behaviour: skip still needs ruleset current in network_transit', () => {
    expect(codes(ruleset('network_transit', [{ action: 'skip', expression: 'tcp.dstport == 22' }], 'root'))).toEqual(['rule-action-parameters@/rules/0']);
  });

  it('network fields stay the default scheme', () => {
    expect(NETWORK_FIELDS.some((f) => f.name === 'http.host')).toBe(false);
  });
});

describe('simulation', () => {
  it('decides records of an HTTP-phase ruleset with the HTTP fields (a packet has none of them: allowed by default)', () => {
    const body = ruleset('http_request_firewall_custom', [{ action: 'block', expression: 'http.host eq "a"' }]) as never;
    const r = simulate(body, [{ 'tcp.dstport': 80 }, { 'http.host': 'a' }]);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.results.map((x) => x.verdict)).toEqual(['allow', 'block']);
  });

  it('the SQL back end still refuses an HTTP-phase ruleset with one clear error', () => {
    const body = ruleset('http_request_firewall_custom', [{ action: 'block', expression: 'http.host eq "a"' }]) as never;
    expect(rulesetToSql(body).diagnostics.map((d) => d.code)).toEqual(['simulation-http-phase']);
  });
});

describe('lint of bodies and Terraform', () => {
  it('checks a YAML ruleset body of an HTTP phase with the HTTP fields, positions in the file', () => {
    const yaml = 'name: waf\nkind: zone\nphase: http_request_firewall_custom\nrules:\n  - action: block\n    expression: http.request.uri.path eq "/admin" and tcp.dstport == 80\n  - action: block\n    expression: cf.bot_management.score lt 30\n';
    const d = checkExtracted(extractYaml(yaml));
    expect(d.map((x) => x.code)).toEqual(['rule-field-phase']);
    expect(yaml.slice(d[0]!.range!.start, d[0]!.range!.end)).toBe('tcp.dstport');
  });

  it('checks each Terraform ruleset with its own phase, and a Terraform interpolation in an HTTP rule with an HTTP stand-in', () => {
    const tf = 'resource "cloudflare_ruleset" "w" {\n  phase = "http_request_firewall_custom"\n  rules = [{ action = "block", expression = "${var.cond} and http.host eq \\"a\\"" }]\n}\n' +
      'resource "cloudflare_ruleset" "m" {\n  phase = "magic_transit"\n  rules = [{ action = "block", expression = "ip.src.country eq \\"FR\\" and http.host eq \\"a\\"" }]\n}\n';
    const d = checkExtracted(extractTerraform(tf));
    expect(d.map((x) => x.code)).toEqual(['lint-interpolation', 'rule-field-phase']);
    expect(d[0]!.message).toContain('checked with ssl in its place');
    expect(tf.slice(d[1]!.range!.start, d[1]!.range!.end)).toBe('http.host');
  });
});
