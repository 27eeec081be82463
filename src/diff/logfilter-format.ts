/**
 * A filter diff for people and for gates: its figures (regions by kind, regions of lines newly pushed and
 * newly dropped), the gate on them, and the diff as plain text or Markdown with the lines counted per
 * region when it was counted. An unknown region counts wherever it may, as in a ruleset diff's gates.
 * @module
 */
import type { LogFilterCounts } from './logfilter-counts.js';
import type { LogFilterDiff, LogFilterRegion } from './logfilter.js';

/** The figures of a filter diff. */
export interface LogFilterDiffSummary {
  regions: number;
  exact: number;
  unknown: number;
  /** Regions of lines the new filter pushes and the old one dropped. */
  newlyPushed: number;
  /** Regions of lines the old filter pushed and the new one drops. */
  newlyDropped: number;
}

/** A gate on a filter diff: any change, lines newly pushed, lines newly dropped, or none. */
export type LogFilterGate = 'any' | 'newly-pushed' | 'newly-dropped' | 'none';

export const LOG_FILTER_GATES: readonly LogFilterGate[] = ['any', 'newly-pushed', 'newly-dropped', 'none'];

/** One compared pair of filters: its name (a file), its diff and its counts. */
export interface LogFilterDiffReport {
  name: string;
  diff: LogFilterDiff;
  counts?: LogFilterCounts;
}

/** The figures of one or more filter diffs. */
export function logFilterDiffSummary(diffs: readonly LogFilterDiff[]): LogFilterDiffSummary {
  const regions = diffs.flatMap((d) => d.regions);
  return {
    regions: regions.length,
    exact: regions.filter((r) => r.kind === 'exact').length,
    unknown: regions.filter((r) => r.kind === 'unknown').length,
    newlyPushed: regions.filter((r) => r.change === 'pushed').length,
    newlyDropped: regions.filter((r) => r.change === 'dropped').length,
  };
}

/** Whether the filter diffs fail the gate. */
export function failsLogFilterGate(summary: LogFilterDiffSummary, gate: LogFilterGate): boolean {
  switch (gate) {
    case 'any': return summary.regions > 0;
    case 'newly-pushed': return summary.newlyPushed > 0;
    case 'newly-dropped': return summary.newlyDropped > 0;
    case 'none': return false;
  }
}

const arrow = (r: LogFilterRegion) => (r.change === 'pushed' ? 'dropped → pushed' : 'pushed → dropped');
const where = (r: LogFilterRegion) => (r.conditions.length ? r.conditions.map((c) => c.text).join(', ') : r.reason?.startsWith('the filters are too large') ? 'some lines' : 'every line');
const trafficOf = (counts: LogFilterCounts | undefined) => new Map((counts?.regions ?? []).map((r) => [r.region, r.count]));

/** The filter diffs as text: a headline per pair of filters, then its regions, then the counted lines. */
export function formatLogFilterDiffText(reports: readonly LogFilterDiffReport[]): string {
  const out: string[] = [];
  for (const { name, diff, counts } of reports) {
    const s = logFilterDiffSummary([diff]);
    out.push(`${name} (${diff.dataset}): ${s.regions ? `${s.regions} region(s) of log lines that change (${s.exact} exact, ${s.unknown} unknown)` : 'no log line changes'}`);
    const traffic = trafficOf(counts);
    diff.regions.forEach((r, i) => {
      const n = traffic.get(i);
      out.push(`  ${r.kind === 'exact' ? '=' : '?'} ${r.text}${n !== undefined ? `  [${n} lines]` : ''}`);
      if (r.kind === 'exact' && r.witness) out.push(`      witness ${JSON.stringify(r.witness)}`);
      else if (r.reason) out.push(`      unknown: ${r.reason}`);
    });
    if (counts) {
      out.push(`  lines: ${counts.newlyPushed + counts.newlyDropped} of ${counts.lines} change (${counts.newlyPushed} newly pushed, ${counts.newlyDropped} newly dropped)`);
      for (const r of counts.regions) if (r.examples[0]) out.push(`    ${String(r.count).padStart(8)}  ${arrow(diff.regions[r.region]!)}  e.g. #${r.examples[0].index} ${JSON.stringify(r.examples[0].line)}`);
      if (counts.outside) out.push(`  ${counts.outside} changed line(s) lie in no region: please report this`);
    }
  }
  return out.join('\n') + '\n';
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => (s ? `\`${s.replace(/`/g, 'ˋ')}\`` : '');

/** The filter diffs as Markdown, for a pull-request comment: a table of regions per pair of filters. */
export function formatLogFilterDiffMarkdown(reports: readonly LogFilterDiffReport[]): string {
  const out: string[] = [];
  for (const { name, diff, counts } of reports) {
    const s = logFilterDiffSummary([diff]);
    out.push(`### ${cell(name)} (${cell(diff.dataset)})`, '');
    if (!s.regions) {
      out.push('No log line changes.', '');
      continue;
    }
    out.push(`${s.regions} region(s) of log lines that change: ${s.exact} exact, ${s.unknown} unknown; ${s.newlyPushed} newly pushed, ${s.newlyDropped} newly dropped.`, '');
    const traffic = trafficOf(counts);
    out.push(`| | Lines | Change |${counts ? ' Counted |' : ''} Witness or why unknown |`, `|---|---|---|${counts ? '---|' : ''}---|`);
    diff.regions.forEach((r, i) => {
      const why = r.kind === 'exact' && r.witness ? code(JSON.stringify(r.witness)) : cell(r.reason ?? '');
      out.push(`| ${r.kind} | ${code(where(r))} | ${arrow(r)} |${counts ? ` ${traffic.get(i) ?? 0} |` : ''} ${why} |`);
    });
    out.push('');
    if (counts) out.push(`Lines: ${counts.newlyPushed + counts.newlyDropped} of ${counts.lines} change (${counts.newlyPushed} newly pushed, ${counts.newlyDropped} newly dropped).`, '');
  }
  return out.join('\n');
}
