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

describe('simulate with a geoip table', () => {
  const geoRules = {
    rules: [
      { action: 'block' as const, expression: 'ip.src.country == "AR"', description: 'from AR' },
      { action: 'block' as const, expression: 'ip.geoip.asnum == 64500', description: 'AS64500' },
      { action: 'block' as const, expression: 'ip.dst.country == "CL" and ip.dst.asnum == 64502', description: 'to CL' },
    ],
  };
  it('fills country/ASN from the addresses without changing the caller’s packets', async () => {
    const { geoIpFromCsv } = await import('../../src/capture/index.js');
    const geoip = geoIpFromCsv('cidr,country,asn\n192.0.2.0/24,BR,64500\n192.0.2.48/28,AR,64501\n192.0.2.54/32,CL,64502\n').lookup;
    const packets = [
      { 'ip.src': '192.0.2.50', 'ip.dst': '198.51.100.1' },
      { 'ip.src': '192.0.2.1' },
      { 'ip.src': '198.51.100.7', 'ip.dst': '192.0.2.54' },
      { 'ip.src': '192.0.2.50', 'ip.src.country': 'US' }, // the packet's own value wins
      { 'ip.src': '203.0.113.9' },
    ];
    const copy = JSON.parse(JSON.stringify(packets));
    const r = simulate(geoRules, packets, { geoip });
    expect(r.results.map((x) => x.decidedBy?.index ?? -1)).toEqual([0, 1, 2, -1, -1]);
    expect(packets).toEqual(copy);
    expect(r.diagnostics.filter((d) => d.code === 'simulation-no-geoip')).toEqual([]);
  });
  it('warns when the ruleset reads country/ASN fields and no table is given', () => {
    const r = simulate(geoRules, [{ 'ip.src': '192.0.2.50' }]);
    expect(r.diagnostics.map((d) => d.code)).toContain('simulation-no-geoip');
    expect(simulate({ rules: [{ action: 'block', expression: 'tcp.dstport == 1' }] }, []).diagnostics).toEqual([]);
  });
});
