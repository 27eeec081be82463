import { describe, expect, it } from 'vitest';
import { simulate, compileRuleset } from '../../src/index.js';

const ruleset = {
  rules: [
    { action: 'skip' as const, action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {8080}', description: 'allow 8080', ref: 'r0' },
    { action: 'block' as const, expression: 'ip.src in $svc.anonymizer', description: 'anonymizers', id: 'id1' },
    { action: 'block' as const, expression: 'tcp.dstport in {22}', enabled: false },
    { action: 'skip' as const, action_parameters: { ruleset: 'other' }, expression: 'udp.dstport == 53' },
    { action: 'block' as const, expression: 'tcp.dstport in {1..65535}', description: 'block all ports' },
  ],
};
const lists = { 'svc.anonymizer': ['198.51.100.0/24'] };

describe('simulate', () => {
  it('order, skip current, block, disabled rules, default allow', () => {
    const { results, summary, diagnostics } = simulate(
      ruleset,
      [
        { 'tcp.dstport': 8080, 'ip.src': '198.51.100.1' }, // skipped before the anonymizer rule
        { 'tcp.dstport': 443, 'ip.src': '198.51.100.1' }, // anonymizer
        { 'tcp.dstport': 22, 'ip.src': '192.0.2.1' }, // rule 2 disabled → block all ports
        { 'udp.dstport': 53, 'ip.src': '192.0.2.1' }, // non-terminating skip matched, then allowed by default
      ],
      { lists },
    );
    expect(diagnostics).toEqual([]);
    expect(results.map((r) => [r.verdict, r.decidedBy?.index ?? null, r.matched])).toEqual([
      ['allow', 0, [0]],
      ['block', 1, [1]],
      ['block', 4, [4]],
      ['allow', null, [3]],
    ]);
    expect(results[1]!.decidedBy).toEqual({ index: 1, id: 'id1', description: 'anonymizers', action: 'block' });
    expect(summary.verdicts).toEqual({ allow: 2, block: 2 });
    expect(summary.defaultAllowed).toBe(1);
    expect(summary.rules.map((r) => [r.matched, r.decided])).toEqual([[1, 1], [1, 1], [0, 0], [1, 0], [1, 1]]);
    expect(summary.rules[1]!.examples).toEqual([{ index: 1, packet: { 'tcp.dstport': 443, 'ip.src': '198.51.100.1' } }]);
  });

  it('rules with errors are reported and left out', () => {
    const r = simulate({ rules: [{ action: 'block', expression: 'tcp.dst_port == 22' }] }, [{ 'tcp.dstport': 22 }]);
    expect(r.diagnostics[0]).toMatchObject({ code: 'unknown-field', pointer: '/rules/0/expression' });
    expect(r.results[0]!.verdict).toBe('allow');
  });

  it('fields used by the ruleset (for decoders)', () => {
    const c = compileRuleset({ rules: [{ action: 'block', expression: 'ip.geoip.country == "BR" and tcp.flags.syn' }] });
    expect([...c.fields].sort()).toEqual(['ip.dst.country', 'ip.geoip.country', 'ip.src.country', 'tcp.flags.syn']);
  });

  it('bad packets are reported', () => {
    const r = simulate(ruleset, [null as never, 5 as never, {}], { lists });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['simulation-invalid-packet', 'simulation-invalid-packet']);
    expect(r.results).toHaveLength(1);
  });
});
