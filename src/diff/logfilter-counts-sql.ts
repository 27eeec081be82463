/**
 * The log line counts of a filter diff as one SQL query over a table of lines (one JSON column): per
 * line whether each filter pushes it (each filter's SQL from src/sql `logFilterToSql`, an empty filter
 * pushing every line), the region of the diff it lies in (each region's conjunction written over the
 * line's members as logfilter.ts reads a line), and the lines grouped by the two answers and the region,
 * with their count and first few line numbers. The figures are {@link LogFilterDiffCounter.addDecided}'s.
 * Text only, browser-safe.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { Cube, Domain } from '../analysis/index.js';
import { dialectOf, hasLoneSurrogate, logFilterToSql, type Dialect, type JsonValueSql, type SqlDialect } from '../sql/index.js';
import { logRegionCube, type LogFilterDiff } from './logfilter.js';

/** Options of {@link logFilterDiffCountsSql}. */
export interface LogFilterDiffCountsSqlOptions {
  dialect?: SqlDialect;
  /** The column holding each line as JSON (default `line`), and the one holding its number (default `rn`). */
  column?: string;
  rowNumber?: string;
  /** Line numbers kept per group (default 3). */
  examples?: number;
}

/** Rows `o`, `nw` (whether the old, the new filter pushes the line), `reg` (region index, −1 none), `n`, `first`, `ex`. */
export interface LogFilterDiffCountsSql {
  sql?: string;
  diagnostics: Diagnostic[];
}

const INT_MAX = (1n << 63n) - 1n;
const OTHER_INT = INT_MAX + 1n;

/** The lines of `from` (a parenthesised subquery with an alias) grouped as {@link LogFilterDiffCountsSql} says. */
export function logFilterDiffCountsSql(oldFilter: string, newFilter: string, diff: LogFilterDiff, from: string, options: LogFilterDiffCountsSqlOptions = {}): LogFilterDiffCountsSql {
  const d = dialectOf(options.dialect);
  const column = options.column ?? 'line';
  const diagnostics: Diagnostic[] = [];
  const pushes = (filter: string, side: string): string | undefined => {
    if (filter.trim() === '') return 'TRUE';
    const r = logFilterToSql(filter, { dialect: options.dialect, dataset: diff.dataset, column });
    diagnostics.push(...r.diagnostics.map((x) => ({ ...x, data: { ...x.data, side } })));
    // A filter with errors pushes nothing here, as in process (its diff has no regions).
    if (r.diagnostics.some((x) => x.severity === 'error' && !x.code.startsWith('sql-'))) return 'FALSE';
    return r.sql === undefined ? undefined : `COALESCE(${r.sql}, FALSE)`;
  };
  const o = pushes(oldFilter, 'old');
  const nw = pushes(newFilter, 'new');
  if (o === undefined || nw === undefined) return { diagnostics };
  const branches: [string, string][] = [];
  for (const [i, region] of diff.regions.entries()) {
    const cube = logRegionCube(region);
    if (cube === undefined) throw new Error('the diff was not made by diffLogFilters: its regions have no cubes');
    const inside = cube === null ? 'TRUE' : lineCubeSql(cube, d, d.identifier(column));
    if (inside === undefined) {
      diagnostics.push({ code: 'sql-no-exact-form', severity: 'error', message: `region ${i} of the diff (${region.text}) names a string SQL cannot hold (a lone surrogate)`, pointer: '' });
      return { diagnostics };
    }
    branches.push([`${region.change === 'pushed' ? 'NOT o AND nw' : 'o AND NOT nw'} AND ${inside}`, String(i)]);
  }
  const rn = d.identifier(options.rowNumber ?? 'rn');
  const n = Math.max(0, Math.floor(options.examples ?? 3));
  const decided = `SELECT ${rn} AS rn, ${d.identifier(column)}, ${o} AS o, ${nw} AS nw FROM ${from}`;
  const attributed = `SELECT rn, o, nw, ${branches.length ? d.firstOf(branches, '-1') : '-1'} AS reg FROM (${decided}) AS decided`;
  const ex = n === 0 ? d.emptyInt64Array : d.lowestIf('rn', n, 'TRUE');
  return { sql: `SELECT o, nw, reg, count(*) AS n, min(rn) AS first, ${ex} AS ex FROM (${attributed}) AS attributed GROUP BY o, nw, reg`, diagnostics };
}

/** A cube over a line's members, as logfilter.ts's lineInCube reads a parsed line. */
function lineCubeSql(cube: Cube, d: Dialect, col: string): string | undefined {
  const parts: string[] = [];
  for (const [key, domain] of cube) {
    if (key.startsWith('#')) continue;
    if (hasLoneSurrogate(key)) return undefined;
    const x = d.json(col, key);
    const inside = presentSql(x, domain, d);
    if (inside === undefined) return undefined;
    parts.push(domain.missing ? `(NOT COALESCE(${x.present}, FALSE) OR COALESCE(${inside}, FALSE))` : `(COALESCE(${x.present}, FALSE) AND COALESCE(${inside}, FALSE))`);
  }
  return parts.length ? `(${parts.join(' AND ')})` : 'TRUE';
}

/** Whether a present (not null) member lies in the domain: a value of another type is the key beyond the field's own. */
function presentSql(x: JsonValueSql, domain: Domain, d: Dialect): string | undefined {
  if (domain.kind === 'string') {
    const items = [...domain.items];
    if (items.some(hasLoneSurrogate)) return undefined;
    const isIn = items.length ? `${x.text} IN (${items.map((s) => d.string(s)).join(', ')})` : 'FALSE';
    return domain.cofinite ? `(NOT ${x.isString} OR NOT ${isIn})` : `(${x.isString} AND ${isIn})`;
  }
  const has = (k: bigint) => domain.values.some(([a, b]) => a <= k && k <= b);
  const bool = domain.universe.length === 1 && domain.universe[0]![0] === 0n && domain.universe[0]![1] === 2n;
  if (bool) {
    const keys = [has(1n) ? `(${x.isBool} AND ${x.boolTrue})` : '', has(0n) ? `(${x.isBool} AND NOT ${x.boolTrue})` : '', has(2n) ? `NOT ${x.isBool}` : ''].filter(Boolean);
    return keys.length ? `(${keys.join(' OR ')})` : 'FALSE';
  }
  const ranges = domain.values.map(([a, b]) => [a, b < INT_MAX ? b : INT_MAX] as const).filter(([a, b]) => a <= b);
  const numbers = ranges.length ? `(${x.isNumber} AND ${x.num} = floor(${x.num}) AND (${ranges.map(([a, b]) => `${x.num} BETWEEN ${a} AND ${b}`).join(' OR ')}))` : 'FALSE';
  return has(OTHER_INT) ? `(${numbers} OR NOT ${x.isNumber})` : numbers;
}
