/**
 * Log line counts of a filter diff: each line run through both filters as a Logpush job compiles them,
 * those pushed differently counted in total and per region of the diff, with the first few as examples.
 * The filters decide; the regions only attribute, and `outside` would show a line the regions miss.
 * @module
 */
import { compileLogFilter, type LogLineMatcher } from '../logpush/index.js';
import { diffLogFilters, logRegionContains, type LogFilterDiff } from './logfilter.js';

/** What {@link countLogFilterDiff} and {@link LogFilterDiffCounter} return. */
export interface LogFilterCounts {
  lines: number;
  newlyPushed: number;
  newlyDropped: number;
  /** Per region of the diff (its index), the regions that hold changed lines, with the first few. */
  regions: { region: number; count: number; examples: { index: number; line: unknown }[] }[];
  /** Changed lines in no region (0 unless the analysis is wrong). */
  outside: number;
}

/**
 * The matcher of a filter as a job runs it: an empty filter pushes every line; one with errors pushes
 * none here, as its diff has no regions and its diagnostics say why.
 */
function matcherOf(filter: string, dataset: string): LogLineMatcher {
  if (filter.trim() === '') return () => true;
  return compileLogFilter(filter, { dataset }).matcher ?? (() => false);
}

/** Options of the counts: the diff when already made, and how many examples to keep per region (default 3). */
export interface LogFilterCountOptions {
  diff?: LogFilterDiff;
  examples?: number;
}

/** Counts log lines one by one (a file streamed through it); {@link countLogFilterDiff} for lines in memory. */
export class LogFilterDiffCounter {
  readonly diff: LogFilterDiff;
  private readonly old: LogLineMatcher;
  private readonly new: LogLineMatcher;
  private readonly examples: number;
  private readonly byRegion = new Map<number, LogFilterCounts['regions'][number]>();
  private readonly counts = { lines: 0, newlyPushed: 0, newlyDropped: 0, outside: 0 };

  constructor(oldFilter: string, newFilter: string, dataset: string, options: LogFilterCountOptions = {}) {
    this.diff = options.diff ?? diffLogFilters(oldFilter, newFilter, dataset);
    this.old = matcherOf(oldFilter, dataset);
    this.new = matcherOf(newFilter, dataset);
    this.examples = options.examples ?? 3;
  }

  /** Run one parsed log line through both filters and count it when they push it differently. */
  add(line: unknown, index = this.counts.lines): void {
    const a = this.old(line as Record<string, unknown>);
    const b = this.new(line as Record<string, unknown>);
    if (a === b) return void this.counts.lines++;
    const change = b ? 'pushed' : 'dropped';
    const at = this.diff.regions.findIndex((r) => r.change === change && logRegionContains(r, line));
    this.addDecided(a, b, 1, at, [{ index, line }]);
  }

  /**
   * Count `count` lines the old filter pushes or not (`oldPushes`) and the new one, that lie in region
   * `region` (−1: none), their first few `examples` in input order: the counts of an engine that decided
   * and grouped them (src/simulation/sql-diff.ts).
   */
  addDecided(oldPushes: boolean, newPushes: boolean, count: number, region: number, examples: readonly { index: number; line: unknown }[]): void {
    this.counts.lines += count;
    if (oldPushes === newPushes) return;
    if (newPushes) this.counts.newlyPushed += count;
    else this.counts.newlyDropped += count;
    if (region < 0) return void (this.counts.outside += count);
    let r = this.byRegion.get(region);
    if (!r) this.byRegion.set(region, (r = { region, count: 0, examples: [] }));
    r.count += count;
    r.examples.push(...examples);
    r.examples.sort((x, y) => x.index - y.index);
    r.examples.length = Math.min(r.examples.length, this.examples);
  }

  /** The counts so far. */
  result(): LogFilterCounts {
    return { ...this.counts, regions: [...this.byRegion.values()].sort((x, y) => x.region - y.region) };
  }
}

/**
 * Count log lines (parsed NDJSON objects) the two filters push differently, per region of their diff.
 * The filters decide (compiled as Logpush jobs run them); the regions only attribute.
 */
export function countLogFilterDiff(oldFilter: string, newFilter: string, dataset: string, lines: Iterable<unknown>, options: LogFilterCountOptions = {}): LogFilterCounts {
  const counter = new LogFilterDiffCounter(oldFilter, newFilter, dataset, options);
  let index = 0;
  for (const line of lines) counter.add(line, index++);
  return counter.result();
}
