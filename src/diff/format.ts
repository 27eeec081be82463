/**
 * A diff for people: plain text for a terminal, Markdown for a pull-request comment. Each region once,
 * exact ones first, with its witness (exact) or why it is unknown, and the traffic it holds when the
 * diff was counted over packets.
 * @module
 */
import { changeText, decisionText } from './regions.js';
import { diffSummary } from './summary.js';
import { matchSetSummary } from './match-sets.js';
import type { DiffExample, TrafficDiff } from './counts.js';
import type { DiffRegion, RulesetDiff } from './types.js';

/** One compared pair of rulesets: its name (a file, a Terraform address), its diff and its counts. */
export interface DiffReport {
  name: string;
  diff: RulesetDiff;
  counts?: TrafficDiff;
  /**
   * What an example's index counts, to name it: `frame` (a capture) or `line` (NDJSON) or `entry` (a HAR
   * file), numbered from 1 as Wireshark and editors number them; else `#index`.
   */
  examplesAre?: 'frame' | 'line' | 'entry' | 'row';
  /**
   * Rules the counted input does not decide: they read a field its records lack (Logpush lines carry no
   * cookie, no body…), so the counts leave out what they would change.
   */
  undecided?: UndecidedRule[];
  /** The sides are `.rules` files, diffed as match sets (match-sets.ts, after `asMatchSetReport`): figures in its words. */
  matchSet?: boolean;
}

/** A rule of one side that reads a field `lines` of the `of` records counted lack. */
export interface UndecidedRule {
  /** The ruleset the rule is in. */
  side: 'old' | 'new';
  /** The rule's 0-based index in that ruleset. */
  rule: number;
  /** The rule field the records lack (`http.cookie`). */
  field: string;
  /** Records that lack it. */
  lines: number;
  /** Records counted. */
  of: number;
  /** The rule's line, for a `.rules` file: named by it. */
  line?: number;
}

/** Why a pair was not compared (its errors), or undefined when it was. */
function notCompared(diff: RulesetDiff): string | undefined {
  const errors = diff.diagnostics.filter((d) => d.severity === 'error');
  return errors.length && !diff.regions.length ? errors.map((d) => d.message).join('; ') : undefined;
}

/** An undecided rule as people read it. */
function undecidedText(u: UndecidedRule, unit: string): string {
  return `${u.line !== undefined ? `the ${u.side} file's line ${u.line}` : `the ${u.side} ruleset's rule ${u.rule}`} reads ${u.field}, which ${u.lines} of ${u.of} ${unit}s lack`;
}

/** The traffic line: the counts, and what they leave out when rules are not decided by the input. */
function trafficText(counts: TrafficDiff, unit: string, undecided: readonly UndecidedRule[] | undefined, matchSet?: boolean): string {
  const base = `${counts.changed} of ${counts.packets} ${unit}s change (${counts.verdictChanged} ${matchSet ? 'matched by a line on one side only' : 'change verdict'})`;
  return undecided?.length ? `${base} where the input decides the rules; not decided over it: ${undecided.map((u) => undecidedText(u, unit)).join('; ')}` : base;
}

/** An example as people read it: where it is in the input, and the fields the rules read (`frame 12 {"tcp.dstport":22}`). */
export function exampleText(e: DiffExample, examplesAre: DiffReport['examplesAre']): string {
  return `${examplesAre ? `${examplesAre} ${e.index + 1}` : `#${e.index}`} ${JSON.stringify(e.fields)}`;
}

const where = (r: DiffRegion, unit: string) => (r.conditions.length ? r.conditions.map((c) => c.text).join(', ') : r.reason?.startsWith('too large') ? `some ${unit}s` : `every ${unit}`);

/** The counted traffic of each region, by index. */
function trafficOf(counts: TrafficDiff | undefined): Map<number, number> {
  return new Map((counts?.regions ?? []).map((r) => [r.region, r.count]));
}

/** The diff as text: a headline per pair of rulesets, then its regions. */
export function formatDiffText(reports: readonly DiffReport[]): string {
  const out: string[] = [];
  for (const { name, diff, counts, examplesAre, undecided, matchSet } of reports) {
    const s = diffSummary([diff]);
    // A pair that could not be compared (one ruleset reads packets, the other requests) has no regions: saying "no changes" would be false.
    const refused = notCompared(diff);
    if (refused) {
      out.push(`${name}: not compared: ${refused}`);
      continue;
    }
    out.push(`${name}: ${s.regions ? `${s.regions} region(s) of ${diff.unit}s that change (${s.exact} exact, ${s.unknown} unknown)` : `no ${diff.unit} changes`}`);
    const traffic = trafficOf(counts);
    diff.regions.forEach((r, i) => {
      const n = traffic.get(i);
      out.push(`  ${r.kind === 'exact' ? '=' : '?'} ${r.text}${n !== undefined ? `  [${n} ${diff.unit}s]` : ''}`);
      if (r.kind === 'exact' && r.witness) out.push(`      witness ${JSON.stringify(r.witness)}`);
      else if (r.reason) out.push(`      unknown: ${r.reason}`);
    });
    if (counts) {
      out.push(`  traffic: ${trafficText(counts, diff.unit, undecided, matchSet)}`);
      for (const p of counts.pairs) out.push(`    ${String(p.count).padStart(8)}  ${changeText(p.old, p.new)}${p.examples.length ? `  e.g. ${exampleText(p.examples[0]!, examplesAre)}` : ''}`);
      if (counts.outside) out.push(`  ${counts.outside} changed ${diff.unit}(s) lie in no region: please report this`);
    }
  }
  return out.join('\n') + '\n';
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => (s ? `\`${s.replace(/`/g, 'ˋ')}\`` : '');

/** The diff as Markdown, for a pull-request comment: a table of regions per pair of rulesets. */
export function formatDiffMarkdown(reports: readonly DiffReport[]): string {
  const out: string[] = [];
  for (const { name, diff, counts, examplesAre, undecided, matchSet } of reports) {
    const s = diffSummary([diff]);
    out.push(`### ${cell(name)}`, '');
    const refused = notCompared(diff);
    if (refused) {
      out.push(`Not compared: ${cell(refused)}.`, '');
      continue;
    }
    if (!s.regions) {
      out.push(`No ${diff.unit} changes.`, '');
      continue;
    }
    const m = matchSet ? matchSetSummary([diff]) : undefined;
    const moves = m ? `${m.newlyMatched} matched by a line where none matched, ${m.newlyUnmatched} matched by none where a line matched` : `${s.blocksAdded} block what was allowed, ${s.allowsAdded} allow what was blocked`;
    out.push(`${s.regions} region(s) of ${diff.unit}s that change: ${s.exact} exact, ${s.unknown} unknown; ${moves}.`, '');
    const traffic = trafficOf(counts);
    const example = new Map((counts?.regions ?? []).map((r) => [r.region, r.examples[0]]));
    out.push(`| | ${diff.unit[0]!.toUpperCase() + diff.unit.slice(1)}s | Before | After |${counts ? ' Traffic | Example |' : ''} Witness or why unknown |`, `|---|---|---|---|${counts ? '---|---|' : ''}---|`);
    diff.regions.forEach((r, i) => {
      const why = r.kind === 'exact' && r.witness ? code(JSON.stringify(r.witness)) : cell(r.reason ?? '');
      const e = example.get(i);
      const shown = e ? cell(`${examplesAre ? `${examplesAre} ${e.index + 1}` : `#${e.index}`} ${code(JSON.stringify(e.fields))}`) : '';
      out.push(`| ${r.kind} | ${code(where(r, diff.unit))} | ${cell(decisionText(r.old))} | ${cell(decisionText(r.new))} |${counts ? ` ${traffic.get(i) ?? 0} | ${shown} |` : ''} ${why} |`);
    });
    out.push('');
    if (counts) out.push(`Traffic: ${trafficText(counts, diff.unit, undecided, matchSet)}.`, '');
  }
  return out.join('\n');
}
