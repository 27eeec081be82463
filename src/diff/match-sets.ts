/**
 * Match sets: a `.rules` file (one expression per line, no actions) diffed as the set of packets (or
 * requests) each line matches first. A packet's outcome is "matched by line N", or "matched by none"; the
 * diff of two files is the diff of two rulesets whose every rule ends the evaluation, so the regions say
 * which packets move from one line to another, or in or out of the file's reach.
 *
 * Lines are the same line when their expression text is (identity.ts pairs rules by action and
 * expression, and every rule of a match set has the same action): a moved or renumbered line is no
 * change; an edited line is paired with the edited line of the other side in the same place, as a text
 * diff pairs them. The diff and its counts are made on the rulesets ({@link matchSetRuleset}); then
 * {@link asMatchSetReport} says their outcomes in the match set's words, in place (the regions stay the
 * objects the counters attribute to).
 * @module
 */
import type { TrafficDiff } from './counts.js';
import { regionText } from './regions.js';
import type { Decision, RulesetDiff } from './types.js';

/** One expression of a match set, with its 1-based line in the file. */
export interface MatchSetLine {
  line: number;
  expression: string;
}

/** The verdicts of a match set's outcomes: a line matched the packet, or none did. */
export const MATCHED = 'matched';
export const UNMATCHED = 'unmatched';

/** The action standing for "matched": one that ends the evaluation in every phase (network and HTTP). */
const ENDS = 'block';

/**
 * The ruleset a match set is diffed and counted as: each line a rule that ends the evaluation, in the
 * file's order, no `ref` (so that lines are paired by their text).
 */
export function matchSetRuleset(lines: readonly MatchSetLine[], phase?: string): { rules: { action: string; expression: string }[]; phase?: string } {
  return { rules: lines.map((l) => ({ action: ENDS, expression: l.expression })), ...(phase !== undefined ? { phase } : {}) };
}

/** A decision of the match set's ruleset as the match set's outcome: matched by the line of the deciding rule, or by none. */
function outcome(d: Decision, lines: readonly MatchSetLine[]): Decision {
  if (d.verdict === MATCHED || d.verdict === UNMATCHED) return d;
  if (!d.rule) return { verdict: UNMATCHED };
  const at = lines[d.rule.index];
  return { verdict: MATCHED, rule: { index: d.rule.index, action: 'match', expression: d.rule.expression, ...(at ? { line: at.line } : {}) } };
}

/**
 * A diff of two match sets' rulesets (and its counts) said as match sets: every decision becomes
 * `matched` by a line (`rule.line`) or `unmatched`, and each region's text says so
 * (`tcp.dstport 22: matched by line 3 \`tcp.dstport in {22 80}\` → by none`). In place, after counting.
 */
export function asMatchSetReport(diff: RulesetDiff, counts: TrafficDiff | undefined, old: readonly MatchSetLine[], neu: readonly MatchSetLine[]): void {
  for (const r of diff.regions) {
    r.old = outcome(r.old, old);
    r.new = outcome(r.new, neu);
    r.text = regionText(r, diff.unit);
  }
  // A line left out (its expression has errors) is named by its line, not its rule index.
  for (const d of diff.diagnostics) {
    const side = d.data?.['side'];
    const at = /^\/rules\/(\d+)\//.exec(d.pointer ?? '');
    const line = at ? (side === 'old' ? old : neu)[Number(at[1])]?.line : undefined;
    if (d.code === 'diff-rule-left-out' && line !== undefined) d.message = d.message.replace(/^rule \d+ of the (old|new) ruleset/, `line ${line} of the $1 file`);
  }
  for (const p of counts?.pairs ?? []) {
    p.old = outcome(p.old, old);
    p.new = outcome(p.new, neu);
  }
}

/** A gate on a match-set diff: any change, packets a line now matches that none did, packets no line matches any more, or none. */
export type MatchSetGate = 'any' | 'newly-matched' | 'newly-unmatched' | 'none';
export const MATCH_SET_GATES: readonly MatchSetGate[] = ['any', 'newly-matched', 'newly-unmatched', 'none'];

/** The figures of match-set diffs (after {@link asMatchSetReport}): regions by kind, and those matched anew or no longer. */
export interface MatchSetSummary {
  regions: number;
  exact: number;
  unknown: number;
  /** Regions no line of the old side matched and a line of the new side does. */
  newlyMatched: number;
  /** Regions a line of the old side matched and no line of the new side does. */
  newlyUnmatched: number;
}

/** The figures of one or more match-set diffs (unknown regions count wherever they may). */
export function matchSetSummary(diffs: readonly RulesetDiff[]): MatchSetSummary {
  const regions = diffs.flatMap((d) => d.regions);
  return {
    regions: regions.length,
    exact: regions.filter((r) => r.kind === 'exact').length,
    unknown: regions.filter((r) => r.kind === 'unknown').length,
    newlyMatched: regions.filter((r) => r.old.verdict === UNMATCHED && r.new.verdict === MATCHED).length,
    newlyUnmatched: regions.filter((r) => r.old.verdict === MATCHED && r.new.verdict === UNMATCHED).length,
  };
}

/** Whether match-set diffs fail a gate. */
export function failsMatchSetGate(summary: MatchSetSummary, gate: MatchSetGate): boolean {
  switch (gate) {
    case 'any': return summary.regions > 0;
    case 'newly-matched': return summary.newlyMatched > 0;
    case 'newly-unmatched': return summary.newlyUnmatched > 0;
    case 'none': return false;
  }
}
