/**
 * The semantic diff of rulesets: its regions on hand-written changes, and its laws on generated pairs of
 * rulesets, checked by the simulator (which shares no code with the cube algebra): every packet decided
 * differently lies in a region of its pair of deciders (an exact one, or an unknown one), every packet
 * of an exact region is decided as the region says, and every exact region's witness really differs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRuleset, type Rule } from '../../src/index.js';
import { diffRulesets, regionContains, type DiffRegion, type RulesetDiff } from '../../src/diff/index.js';
import { rulesetPairArb, smallPacketArb, smallRuleArb } from '../helpers/rulesets.js';

const block = (expression: string, extra: Partial<Rule> = {}): Rule => ({ action: 'block', expression, ...extra });
const skip = (expression: string, extra: Partial<Rule> = {}): Rule => ({ action: 'skip', action_parameters: { ruleset: 'current' }, expression, ...extra });
const texts = (d: RulesetDiff) => d.regions.map((r) => r.text);

describe('regions of hand-written changes', () => {
  it('a port added to a block rule: that port goes from allow to block, with a witness', () => {
    const d = diffRulesets({ rules: [block('tcp.dstport in {22 80}')] }, { rules: [block('tcp.dstport in {22 80 443}')] });
    expect(texts(d)).toEqual(['tcp.dstport 443: allow → block by rule 0']);
    expect(d.regions[0]).toMatchObject({ kind: 'exact', change: 'verdict', witness: { 'tcp.dstport': 443 } });
  });

  it('a skip put in front: the blocked packets it lets through, and what it now decides of the allowed ones', () => {
    const d = diffRulesets({ rules: [block('tcp.dstport in {22 80 443}', { ref: 'web' })] }, { rules: [skip('ip.src in {10.0.0.0/8}', { ref: 'office' }), block('tcp.dstport in {22 80 443}', { ref: 'web' })] });
    expect(texts(d)).toEqual([
      'tcp.dstport in {22 80 443}, ip.src 10.0.0.0/8: block by rule 0 "web" → allow by rule 0 "office"',
      'ip.src 10.0.0.0/8, tcp.dstport outside {22 80 443} or missing: allow → allow by rule 0 "office"',
    ]);
    expect(d.regions.map((r) => r.change)).toEqual(['verdict', 'rule']);
    expect(d.matches).toEqual([{ old: 0, new: 1 }]);
  });

  it('an address range written out the shorter way: outside the excluded network', () => {
    const d = diffRulesets({ rules: [] }, { rules: [block('tcp.dstport == 443 and not ip.src in {10.0.0.0/8}', { description: 'web' })] });
    expect(texts(d)).toEqual(['tcp.dstport 443, ip.src outside {10.0.0.0/8} or missing: allow → block by rule 0 "web"']);
  });

  it('identical rulesets, and rules only moved where nothing overlaps, give no regions', () => {
    const rules = [block('tcp.dstport == 22'), skip('udp.dstport == 53'), block('ip.src in {192.0.2.0/24} and icmp.type == 8')];
    expect(diffRulesets({ rules }, { rules }).regions).toEqual([]);
    expect(diffRulesets({ rules }, { rules: [rules[1]!, rules[0]!, rules[2]!] }).regions).toEqual([]);
  });

  it('an edited rule keeps its identity: what it still decides is no change', () => {
    const d = diffRulesets({ rules: [block('tcp.dstport in {22 23}'), block('udp.dstport == 1')] }, { rules: [block('tcp.dstport == 22'), block('udp.dstport == 1')] });
    expect(texts(d)).toEqual(['tcp.dstport 23: block by rule 0 → allow']);
  });

  it('a changed action changes the verdict of all the rule decides, by the same rule', () => {
    const d = diffRulesets({ rules: [block('tcp.dstport == 22', { id: 'a' })] }, { rules: [skip('tcp.dstport == 22', { id: 'a' })] });
    expect(texts(d)).toEqual(['tcp.dstport 22: block by rule 0 "a" → allow by rule 0 "a"']);
  });

  it('a regex or a list not given makes a region unknown, naming what it assumes; never "no change"', () => {
    const d = diffRulesets({ rules: [block('ip.src in $blocklist')] }, { rules: [block('ip.src in $blocklist and tcp.dstport == 22')] });
    expect(d.regions).toHaveLength(1);
    expect(d.regions[0]).toMatchObject({ kind: 'unknown', assumes: ['ip.src in $blocklist is true'] });
    expect(d.regions[0]!.text).toBe('tcp.dstport outside {22} or missing: block by rule 0 → allow (unknown: assuming ip.src in $blocklist is true)');
    // Given the list, the same change is exact.
    const known = diffRulesets({ rules: [block('ip.src in $blocklist')] }, { rules: [block('ip.src in $blocklist and tcp.dstport == 22')] }, { lists: { blocklist: ['192.0.2.0/24'] } });
    expect(known.regions.map((r) => r.kind)).toEqual(['exact']);
    expect(known.regions[0]!.text).toBe('ip.src 192.0.2.0/24, tcp.dstport outside {22} or missing: block by rule 0 → allow');
  });

  it('an HTTP phase: requests, rate limits as unknowns', () => {
    const phase = 'http_request_firewall_custom';
    const d = diffRulesets({ phase, rules: [] }, { phase, rules: [{ action: 'managed_challenge', expression: 'http.host eq "a.example"' }] });
    expect(d.unit).toBe('request');
    expect(texts(d)).toEqual(['http.host "a.example": allow → managed_challenge by rule 0']);
    const rate = diffRulesets({ phase: 'http_ratelimit', rules: [] }, { phase: 'http_ratelimit', rules: [{ action: 'block', expression: 'http.host eq "a.example"', ratelimit: { period: 60 } } as never] });
    expect(rate.regions.map((r) => r.kind)).toEqual(['unknown']);
  });

  it('rules with errors are left out, as the simulator leaves them out, and said so', () => {
    const d = diffRulesets({ rules: [block('tcp.dstport ==')] }, { rules: [block('tcp.dstport == 1')] });
    expect(d.diagnostics.map((x) => [x.code, x.data?.['side']])).toEqual([['diff-rule-left-out', 'old']]);
    expect(texts(d)).toEqual(['tcp.dstport 1: allow → block by rule 0']);
  });

  it('a network ruleset against an HTTP one is an error, not an empty diff', () => {
    const d = diffRulesets({ rules: [] }, { phase: 'http_request_firewall_custom', rules: [] });
    expect(d.diagnostics[0]).toMatchObject({ code: 'diff-field-sets-differ', severity: 'error' });
  });

  it('never throws on odd input', () => {
    for (const x of [null, {}, { rules: 'x' }, { rules: [null, 1, 'x', { expression: 5 }, { action: 'block' }] }]) {
      expect(diffRulesets(x as never, { rules: [block('tcp.dstport == 1')] }).diagnostics[0]).toMatchObject({ code: 'simulation-invalid-ruleset', data: { side: 'old' } });
      expect(() => diffRulesets({ rules: [block('tcp.dstport == 1')] }, x as never)).not.toThrow();
    }
  });
});

// Pairs of rulesets: the new one an edit of the old (rules inserted, removed, changed, moved), or another.
const extra = [fc.constant('ip.src in $blocklist'), fc.constant('ip.src.country matches "^D"')];
const ruleArb = smallRuleArb(extra);
// Edits of longer rulesets too: a decider swept against many rules of the other side (pairs.ts).
const pairArb = fc.oneof({ weight: 3, arbitrary: rulesetPairArb(ruleArb) }, { weight: 1, arbitrary: rulesetPairArb(ruleArb, { rules: 12, edits: 4 }) });

/** Who decides a packet on each side, and whether that is a change for the diff (its rule matches). */
function outcomes(oldRules: Rule[], newRules: Rule[], d: RulesetDiff, packets: Record<string, unknown>[]) {
  const o = compileRuleset({ rules: oldRules });
  const n = compileRuleset({ rules: newRules });
  const same = new Map(d.matches.map((m) => [m.old, m.new]));
  return packets.map((p) => {
    const a = o.decide(p);
    const b = n.decide(p);
    const ruleChanged = a.decidedBy ? same.get(a.decidedBy.index) !== b.decidedBy?.index : b.decidedBy !== undefined;
    return { packet: p, old: a.decidedBy?.index, new: b.decidedBy?.index, changed: a.verdict !== b.verdict || ruleChanged };
  });
}
const samePair = (r: DiffRegion, o: { old?: number; new?: number }) => r.old.rule?.index === o.old && r.new.rule?.index === o.new;

describe('laws on generated pairs of rulesets (checked by the simulator)', () => {
  it('every packet decided differently lies in a region of its pair; every packet of an exact region changes as it says; witnesses differ', () => {
    fc.assert(fc.property(pairArb, fc.array(smallPacketArb, { minLength: 60, maxLength: 60 }), ([oldRules, newRules], sample) => {
      const d = diffRulesets({ rules: oldRules }, { rules: newRules });
      const witnesses = d.regions.flatMap((r) => (r.witness && r.kind === 'exact' ? [r.witness] : []));
      for (const o of outcomes(oldRules, newRules, d, [...sample, ...witnesses])) {
        const holding = d.regions.filter((r) => regionContains(r, o.packet));
        if (o.changed) expect(holding.some((r) => samePair(r, o)), `${JSON.stringify(o)} in no region of ${JSON.stringify(texts(d))}`).toBe(true);
        for (const r of holding) if (r.kind === 'exact') expect({ packet: o.packet, region: r.text, changed: o.changed, pair: samePair(r, o) }).toMatchObject({ changed: true, pair: true });
      }
      for (const r of d.regions.filter((x) => x.kind === 'exact')) {
        const [o] = outcomes(oldRules, newRules, d, [r.witness!]);
        expect(o!.changed && samePair(r, o!), `witness of ${r.text}`).toBe(true);
      }
    }), { numRuns: process.env.CI ? 300 : 120 });
  });

  it('a ruleset against itself has no regions', () => {
    fc.assert(fc.property(fc.array(ruleArb, { maxLength: 6 }), (rules) => {
      expect(diffRulesets({ rules }, { rules: structuredClone(rules) }).regions).toEqual([]);
    }), { numRuns: 100 });
  });
});
