/**
 * Traffic counts of a diff: equal to two simulations of the same packets (each one whose outcome
 * changes counted once, in a region of its pair), on hand-written and generated rulesets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/index.js';
import { countDiff, diffRulesets } from '../../src/diff/index.js';
import { rulesetPairArb, smallPacketArb, smallRuleArb } from '../helpers/rulesets.js';

type Rules = Parameters<typeof simulate>[0]['rules'];

/** The diff's counts over the packets, and what two simulations of them say: each side's results and the changed ones. */
function countedAndSimulated(oldRules: Rules, newRules: Rules, packets: Parameters<typeof simulate>[1]) {
  const diff = diffRulesets({ rules: oldRules }, { rules: newRules });
  const counts = countDiff({ rules: oldRules }, { rules: newRules }, packets, { diff });
  const a = simulate({ rules: oldRules }, packets).results;
  const b = simulate({ rules: newRules }, packets).results;
  const same = new Map(diff.matches.map((m) => [m.old, m.new]));
  const changed = a.filter((x, i) => {
    const y = b[i]!;
    return x.verdict !== y.verdict || (x.decidedBy ? same.get(x.decidedBy.index) !== y.decidedBy?.index : y.decidedBy !== undefined);
  });
  return { counts, a, b, changed };
}

describe('countDiff', () => {
  it('counts the packets that change, per region and per pair of rules, with examples', () => {
    const old = { rules: [{ action: 'block', expression: 'tcp.dstport in {22 80}' }] };
    const next = { rules: [{ action: 'block', expression: 'tcp.dstport in {22 80 443}' }] };
    const packets = [22, 443, 443, 8080, 443].map((p) => ({ 'ip.proto': 'tcp', 'tcp.dstport': p }));
    const counts = countDiff(old, next, packets, { examples: 2 });
    expect(counts).toMatchObject({ packets: 5, changed: 3, verdictChanged: 3, outside: 0 });
    // An example shows the fields the rules read (here tcp.dstport only), and keeps the whole record.
    expect(counts.regions).toEqual([{ region: 0, count: 3, examples: [{ index: 1, fields: { 'tcp.dstport': 443 }, record: packets[1] }, { index: 2, fields: { 'tcp.dstport': 443 }, record: packets[2] }] }]);
    expect(counts.pairs).toMatchObject([{ old: { verdict: 'allow' }, new: { verdict: 'block', rule: { index: 0 } }, count: 3 }]);
  });

  it('decides a value of the wrong type as missing, as the simulator does (and attributes it so)', () => {
    const next = { rules: [{ action: 'block' as const, expression: 'not tcp.dstport in {0..8}' }] };
    const packets = [{ 'tcp.dstport': '3' }, { 'tcp.dstport': 3 }, { 'tcp.dstport': 2.5 }];
    const counts = countDiff({ rules: [] }, next, packets);
    expect(simulate(next, packets).results.map((r) => r.verdict)).toEqual(['block', 'allow', 'block']);
    expect(counts).toMatchObject({ changed: 2, outside: 0 });
    expect(counts.regions[0]?.examples.map((e) => e.index)).toEqual([0, 2]);
  });

  it('equals two simulations over packets with values of the wrong type (checked where the pair decider loads them)', () => {
    // A bad value put in a field the rules read: the generated pair decider tests each value it loads and
    // decides on the checked copy only when one is bad (pair-decider.ts), as simulate() checks each packet.
    const bad = fc.constantFrom<unknown>('3', 2.5, 70000, -1, 'not an address', '10.0.0.300', 7, null, true, 'tcp', [1], 'DE');
    const field = fc.constantFrom('ip.src', 'tcp.dstport', 'udp.dstport', 'tcp.flags.syn', 'icmp.type', 'ip.proto', 'ip.src.country');
    const packetArb = fc.tuple(smallPacketArb, fc.array(fc.tuple(field, bad), { maxLength: 2 })).map(([p, edits]) => {
      const out = { ...p };
      for (const [f, v] of edits) out[f] = v;
      return out;
    });
    // An ordering of addresses makes the decider check them first; `in`, `==` and `!=` alone do not (their
    // tests are false for text that is no address, as for a missing field).
    const ipTests = fc.constantFrom('ip.src != 10.0.1.7', 'ip.src == 10.0.1.7', 'ip.src > 10.0.2.0', 'ip.src.country matches "^D"');
    const pairs = fc.oneof(rulesetPairArb(smallRuleArb([ipTests]), { rules: 10, edits: 4 }), rulesetPairArb(smallRuleArb(), { rules: 10, edits: 4 }));
    fc.assert(fc.property(pairs, fc.array(packetArb, { maxLength: 60 }), ([oldRules, newRules], packets) => {
      const { counts, a, b, changed } = countedAndSimulated(oldRules, newRules, packets);
      expect(counts.changed).toBe(changed.length);
      expect(counts.verdictChanged).toBe(a.filter((x, i) => x.verdict !== b[i]!.verdict).length);
      expect(counts.outside).toBe(0);
    }), { numRuns: process.env.CI ? 200 : 80 });
  });

  it('equals two simulations over the same packets, every change in a region', () => {
    const extra = [fc.constant('ip.src in $blocklist'), fc.constant('ip.src.country matches "^D"')];
    // Edits of longer rulesets too: the rules both sides share are tested once for both (pair-decider.ts).
    const pairs = fc.oneof(rulesetPairArb(smallRuleArb(extra)), rulesetPairArb(smallRuleArb(extra), { rules: 12, edits: 4 }));
    fc.assert(fc.property(pairs, fc.array(smallPacketArb, { maxLength: 80 }), ([oldRules, newRules], packets) => {
      const { counts, a, b, changed } = countedAndSimulated(oldRules, newRules, packets);
      expect(counts.packets).toBe(packets.length);
      expect(counts.changed).toBe(changed.length);
      expect(counts.verdictChanged).toBe(a.filter((x, i) => x.verdict !== b[i]!.verdict).length);
      expect(counts.outside).toBe(0);
      expect(counts.regions.reduce((n, r) => n + r.count, 0)).toBe(changed.length);
      expect(counts.pairs.reduce((n, r) => n + r.count, 0)).toBe(changed.length);
    }), { numRuns: process.env.CI ? 200 : 80 });
  });
});
