/**
 * The per-rule part of a summary row an engine answers (`rulesetSummarySql`), written into the simulator's
 * summary: flows and Logpush requests read it alike.
 */
import type { SimulationSummary } from '../engine/index.js';
import { summaryRuleFigures } from '../sql/index.js';

/**
 * Sets each rule's `matched` and `decided` in `summary` from the row, and gives the row numbers of each
 * rule's examples (by the rule's index), which the caller reads back from the input.
 */
export function takeRuleFigures(summary: SimulationSummary, rules: Parameters<typeof summaryRuleFigures>[0], row: Parameters<typeof summaryRuleFigures>[1]): Map<number, number[]> {
  const wanted = new Map<number, number[]>();
  for (const f of summaryRuleFigures(rules, row)) {
    const s = summary.rules[f.index]!;
    s.matched = f.matched;
    s.decided = f.decided;
    wanted.set(f.index, f.examples);
  }
  return wanted;
}
