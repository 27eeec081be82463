/**
 * Match sets (src/diff/match-sets.ts), as the library gives them: a `.rules` file's lines diffed as the
 * ruleset whose every line ends the evaluation, then said as "matched by line N" / "matched by none".
 */
import { describe, expect, it } from 'vitest';
import { asMatchSetReport, countDiff, diffRulesets, failsMatchSetGate, matchSetRuleset, matchSetSummary, type MatchSetLine } from '../../src/diff/index.js';

const lines = (...xs: [number, string][]): MatchSetLine[] => xs.map(([line, expression]) => ({ line, expression }));

describe('match sets', () => {
  const old = lines([2, 'tcp.dstport in {22 80}'], [5, 'udp.dstport == 53'], [6, 'icmp.type == 8']);
  // Line 2 edited in its place (now line 1); lines 5 and 6 swapped and renumbered.
  const neu = lines([1, 'tcp.dstport == 22'], [2, 'icmp.type == 8'], [3, 'udp.dstport == 53']);

  it('the ruleset: one rule per line, in order, that ends the evaluation, without a ref (lines are paired by text)', () => {
    expect(matchSetRuleset(old.slice(0, 2))).toEqual({ rules: [{ action: 'block', expression: 'tcp.dstport in {22 80}' }, { action: 'block', expression: 'udp.dstport == 53' }] });
    expect(matchSetRuleset(old, 'http_request_firewall_custom').phase).toBe('http_request_firewall_custom');
  });

  it('a moved line is no change, an edited one keeps what it still matches; outcomes name the lines', () => {
    const o = matchSetRuleset(old, 'network_transit');
    const n = matchSetRuleset(neu, 'network_transit');
    const diff = diffRulesets(o, n);
    const counts = countDiff(o, n, [{ 'tcp.dstport': 80 }, { 'tcp.dstport': 22 }, { 'udp.dstport': 53 }, { 'icmp.type': 8 }], { diff });
    expect(diff.matches).toEqual([{ old: 0, new: 0 }, { old: 1, new: 2 }, { old: 2, new: 1 }]);
    asMatchSetReport(diff, counts, old, neu);
    expect(diff.regions.map((r) => r.text)).toEqual(['tcp.dstport 80: matched by line 2 `tcp.dstport in {22 80}` → by none']);
    expect(diff.regions[0]).toMatchObject({ old: { verdict: 'matched', rule: { index: 0, line: 2, action: 'match' } }, new: { verdict: 'unmatched' } });
    expect(counts.pairs.map((p) => [p.old.verdict, p.new.verdict, p.count])).toEqual([['matched', 'unmatched', 1]]);
    const s = matchSetSummary([diff]);
    expect(s).toEqual({ regions: 1, exact: 1, unknown: 0, newlyMatched: 0, newlyUnmatched: 1 });
    expect([failsMatchSetGate(s, 'any'), failsMatchSetGate(s, 'newly-matched'), failsMatchSetGate(s, 'newly-unmatched'), failsMatchSetGate(s, 'none')]).toEqual([true, false, true, false]);
  });

  it('a line with errors is left out, named by its line', () => {
    const bad = lines([4, 'tcp.dstport in {22,80}']);
    const diff = diffRulesets(matchSetRuleset(old), matchSetRuleset(bad));
    asMatchSetReport(diff, undefined, old, bad);
    expect(diff.diagnostics.map((d) => d.message)).toEqual(['line 4 of the new file is left out: set items are separated by spaces, not commas']);
  });
});
