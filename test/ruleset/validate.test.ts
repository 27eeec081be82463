import { describe, expect, it } from 'vitest';
import { validateRuleset, toEnvelope, numericCode, DIAGNOSTIC_CODES } from '../../src/index.js';

const good = {
  name: 'network firewall',
  description: 'example',
  kind: 'root',
  phase: 'network_transit',
  rules: [
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {8080}', description: 'allow 8080' },
    { action: 'block', expression: 'tcp.dstport in {1..65535}', description: 'block all ports' },
  ],
};

function codes(body: unknown, ctx = {}) {
  return validateRuleset(body, ctx).map((d) => `${d.code}@${d.pointer}`);
}

describe('validateRuleset', () => {
  it('accepts the service examples', () => {
    expect(validateRuleset(good)).toEqual([]);
    expect(validateRuleset({ name: 'zone', kind: 'zone', phase: 'http_log_custom_fields', description: 'x' })).toEqual([]);
    expect(
      validateRuleset(
        { rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'content-type' }], cookie_fields: [{ name: '__ga' }] } }] },
        { operation: 'update', phase: 'http_log_custom_fields' },
      ),
    ).toEqual([]);
  });

  it('structure: missing, unknown, wrong types, kind/phase', () => {
    expect(codes({})).toEqual(['ruleset-missing-member@', 'ruleset-missing-member@', 'ruleset-missing-member@']);
    expect(codes({ ...good, nmae: 'x' })).toContain('ruleset-unknown-member@/nmae');
    expect(codes({ ...good, kind: 'zone' })).toContain('ruleset-phase-kind@/kind');
    expect(codes({ name: 'z', kind: 'root', phase: 'http_log_custom_fields' })).toContain('ruleset-phase-kind@/kind');
    // The API's kinds are managed, custom, root and zone (rulesets_RulesetKind): custom and managed at either level.
    expect(codes({ name: 'z', kind: 'custom', phase: 'network_transit' })).toEqual([]);
    expect(codes({ name: 'z', kind: 'managed', phase: 'http_log_custom_fields' }, { scope: 'zone' })).toEqual([]);
    expect(codes({ name: 'z', kind: 'custom', phase: 'http_request_firewall_custom' }, { scope: 'account' })).toEqual([]);
    expect(codes({ name: 'z', kind: 'customs', phase: 'network_transit' })).toContain('ruleset-unknown-kind@/kind');
    expect(codes({ name: 'z', kind: 'zone', phase: 'http_request_firewall_custom' }, { scope: 'account' })).toEqual(['ruleset-scope@/kind']);
    expect(validateRuleset({ name: 'z', kind: 'zone', phase: 'http_request_firewall_custom' }, { scope: 'account' })[0]!.message).toBe('kind zone is for zone-level rulesets; at the account level the kinds are root, custom and managed');
    expect(codes({ name: 'z', kind: 'zone', phase: 'http_log_custom_fields' }, { scope: 'account' })).toContain('ruleset-scope@/phase');
    expect(codes({ name: 'z', kind: 'zone', phase: 'http_log_custom_fields' }, { scope: 'zone' })).toEqual([]);
    expect(codes({ ...good, phase: 'network_transitt' })).toContain('ruleset-unknown-phase@/phase');
    expect(codes({ ...good, rules: {} })).toContain('ruleset-member-type@/rules');
    expect(codes({ ...good, rules: [{ action: 'block', expression: 'sip', enabled: 'yes' }] })).toContain('ruleset-member-type@/rules/0/enabled');
    expect(codes({ ...good }, { scope: 'zone' })).toContain('ruleset-scope@/phase');
    expect(codes([])).toEqual(['ruleset-not-object@']);
    expect(codes({ rules: [] }, { operation: 'update' })).toEqual([]);
    expect(codes({}, { operation: 'update' })).toEqual(['ruleset-missing-member@']);
  });

  it('rules: actions, parameters, refs, limits', () => {
    const r = (rules: unknown[]) => codes({ ...good, rules });
    expect(r([{ action: 'blok', expression: 'sip' }])).toEqual(['rule-unknown-action@/rules/0/action']);
    expect(r([{ action: 'skip', expression: 'sip' }])).toEqual(['rule-action-parameters@/rules/0']);
    expect(r([{ action: 'skip', action_parameters: { ruleset: 'other' }, expression: 'sip' }])).toEqual(['rule-skip-target@/rules/0/action_parameters/ruleset']);
    expect(r([{ action: 'skip', action_parameters: { rulesets: 'current' }, expression: 'sip' }])).toContain('rule-action-parameters@/rules/0/action_parameters/rulesets');
    expect(r([{ action: 'block', action_parameters: { x: 1 }, expression: 'sip' }])).toEqual(['rule-action-parameters@/rules/0/action_parameters']);
    expect(r([{ action: 'log_custom_field', expression: 'true' }])).toEqual(['rule-action-phase@/rules/0/action']);
    expect(r([{ action: 'block' }])).toEqual(['ruleset-missing-member@/rules/0']);
    expect(r([{ action: 'block', expression: 'sip', ref: 'a' }, { action: 'block', expression: 'sip', ref: 'a' }])).toEqual(['ruleset-duplicate-ref@/rules/1/ref']);
    expect(r(Array.from({ length: 200 }, () => ({ action: 'block', expression: 'sip' })))).toEqual([]);
    expect(r(Array.from({ length: 201 }, () => ({ action: 'block', expression: 'sip' })))).toEqual(['ruleset-too-many-rules@/rules']);
    expect(codes({ ...good, rules: [{ action: 'block', expression: 'sip' }, { action: 'block', expression: 'sip' }] }, { maxRules: 1 })).toEqual(['ruleset-too-many-rules@/rules']);
    // Refused by its count alone: 100,000 empty rules are one error, not 200,000 (nor seconds of checking).
    expect(r(Array.from({ length: 100_000 }, () => ({})))).toEqual(['ruleset-too-many-rules@/rules']);
    expect(r([{ action: 'block', expression: 'sip', id: 'abc' }])).toEqual(['ruleset-read-only-member@/rules/0/id']);
    expect(r([null, 5])).toEqual(['ruleset-not-object@/rules/0', 'ruleset-not-object@/rules/1']);
  });

  it('the zone-wide 40 custom fields are counted over every log_custom_field rule of the ruleset', () => {
    const names = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ name: `${p}${i}` }));
    const lcf = (fields: Record<string, unknown>) => ({ action: 'log_custom_field', expression: 'true', action_parameters: fields });
    const ctx = { operation: 'update', phase: 'http_log_custom_fields' } as const;
    expect(validateRuleset({ rules: [lcf({ request_fields: names(20, 'a') }), lcf({ cookie_fields: names(20, 'C') })] }, ctx)).toEqual([]);
    const over = validateRuleset({ rules: [lcf({ request_fields: names(25, 'a') }), lcf({ response_fields: names(16, 'b') })] }, ctx);
    expect(over.map((d) => [d.code, d.pointer, d.data])).toEqual([['custom-field-limit', '/rules', { limit: 40, measured: 41 }]]);
    // one rule over the limit alone: its own diagnostic, not a second zone-wide one
    const single = validateRuleset({ rules: [lcf({ request_fields: names(41, 'a') }), lcf({ cookie_fields: names(1, 'C') })] }, ctx);
    expect(single.map((d) => [d.code, d.pointer])).toEqual([['custom-field-limit', '/rules/0/action_parameters']]);
  });

  it('expression diagnostics are re-based to the rule with ranges inside the expression', () => {
    const ds = validateRuleset({ ...good, rules: [{ action: 'block', expression: 'tcp.dst_port == 22' }] });
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ code: 'unknown-field', pointer: '/rules/0/expression', rangeIn: 'value', range: { start: 0, end: 12 } });
    expect(ds[0]!.message).toContain('did you mean tcp.dstport?');
  });

  it('JSON text gives document ranges, duplicate keys and JSON errors', () => {
    const text = '{"name":"a","kind":"root","phase":"network_transit","rules":[{"action":"block","expression":"ip.src == 10.0.0.0/8","enabled":1}],"name":"b"}';
    const ds = validateRuleset(text);
    const byCode = Object.fromEntries(ds.map((d) => [d.code, d]));
    expect(byCode['ruleset-duplicate-member']).toBeDefined();
    const typeErr = byCode['ruleset-member-type']!;
    expect(text.slice(typeErr.range!.start, typeErr.range!.end)).toBe('1');
    const cidr = byCode['cidr-outside-set']!;
    const docRange = cidr.data!['documentRange'] as { start: number; end: number };
    expect(text.slice(docRange.start, docRange.end)).toBe('10.0.0.0/8');
    expect(validateRuleset('{"name": ')[0]!.code).toBe('ruleset-invalid-json');
    expect(validateRuleset('[[[[' .repeat(5000))[0]!.code).toBe('ruleset-invalid-json');
  });

  it('hostile bodies never throw', () => {
    const hostile = [
      JSON.parse('{"__proto__": {"name": "x"}, "constructor": 1, "rules": [{"__proto__": null, "action": "block", "expression": "sip"}]}'),
      { name: 'a'.repeat(1 << 20), kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: '('.repeat(20000) }] },
      { name: 1, kind: [], phase: {}, rules: 'x' },
      Object.create(null),
    ];
    for (const h of hostile) expect(() => validateRuleset(h)).not.toThrow();
    expect(codes(hostile[0])).toContain('ruleset-unknown-member@/__proto__');
    expect(codes({ ...good, rules: [{ action: 'constructor', expression: 'sip' }], phase: 'toString' })).toEqual(['ruleset-unknown-phase@/phase', 'rule-unknown-action@/rules/0/action']);
  });

  it('the error envelope', () => {
    const env = toEnvelope({ id: 'x' }, validateRuleset({ ...good, rules: [{ action: 'block', expression: 'tcp.dstport == 99999' }] }));
    expect(env.success).toBe(false);
    expect(env.result).toBeNull();
    expect(env.errors[0]).toMatchObject({ code: numericCode('value-out-of-range'), source: { pointer: '/rules/0/expression' }, meta: { code: 'value-out-of-range' } });
    expect(toEnvelope({ id: 'x' }, [])).toEqual({ result: { id: 'x' }, success: true, errors: [], messages: [] });
  });

  it('numeric codes are unique across the catalog', () => {
    const all = Object.keys(DIAGNOSTIC_CODES);
    expect(new Set(all.map(numericCode)).size).toBe(all.length);
  });
});
