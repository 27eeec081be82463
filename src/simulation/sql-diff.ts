/**
 * The traffic counts of a diff on a SQL engine (Node only): `rulekit diff --against FILES --engine
 * duckdb|clickhouse`. Rulesets over flow files (NDJSON packet objects or Parquet, read as `simulate
 * --engine` reads them: src/simulation/sql-engine.ts), Logpush filters over log lines (NDJSON, gzip or
 * not, or Parquet rows). One query each (src/diff `diffCountsSql`, `logFilterDiffCountsSql`) decides
 * both sides per row and groups the rows; the figures are made from the groups by the in-process
 * counters' own code, so they have its shape, and the example rows are read back by number.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { ListCatalog, type ListItems, type Packet } from '../expression/index.js';
import { compileRuleset } from '../engine/index.js';
import type { Rule } from '../ruleset/index.js';
import { DiffCounter, diffCountsSql, LogFilterDiffCounter, logFilterDiffCountsSql, type LogFilterCounts, type LogFilterDiff, type RulesetDiff, type TrafficDiff } from '../diff/index.js';
import { dialectOf, type Dialect } from '../sql/index.js';
import { flowSource, type FlowSource } from './sql-engine.js';
import { clickHouseTable, openClickHouseServer, openEngine, withQueryRoom, type SqlEngineName, type SqlRunner } from './sql-runner.js';
import { rowObject } from './parquet-rows.js';
import { ndjsonCompression } from './engine-compression.js';

/** Options of {@link countDiffOnEngine}. */
export interface EngineDiffOptions {
  engine: SqlEngineName;
  lists?: ListItems | ListCatalog;
  serviceToken?: string;
  phase?: string;
  /** The diff when already made (its regions are what rows are attributed to). */
  diff?: RulesetDiff;
  /** Examples kept per pair and per region (default 3). */
  examples?: number;
  /**
   * A ClickHouse server (`http://host:8123`) instead of chdb, with `engine: 'clickhouse'`: the files are
   * then one table name (`flows` or `db.flows`) with a column per field, as `simulateOnEngine` reads it.
   */
  clickhouseUrl?: string;
}

/** What {@link countDiffOnEngine} returns: the counts, or (not ok) the diagnostics that stopped it. */
export interface EngineDiffReport<C> {
  ok: boolean;
  counts?: C;
  diagnostics: Diagnostic[];
  /** The query as run. */
  sql?: string;
}

const isParquet = (f: string) => /\.parquet$/i.test(f);

/** Grouped rows as numbers (engines give BIGINTs as bigint or text), in the order of their first row. */
function groups(rows: Record<string, unknown>[]): { row: Record<string, unknown>; n: number; reg: number; ex: number[] }[] {
  return rows
    .map((row) => ({ row, n: Number(row['n']), reg: Number(row['reg']), first: Number(row['first']), ex: ((row['ex'] as unknown[]) ?? []).map(Number) }))
    .sort((a, b) => a.first - b.first);
}

/** The rows of the given numbers, as JSON text, from a numbered relation. */
async function readBack(run: SqlRunner, dialect: Dialect, relation: string, text: string, numbers: readonly number[], settings: string): Promise<Map<number, string>> {
  if (!numbers.length) return new Map();
  const got = await run.rows(`SELECT rn, ${text} AS t FROM ${dialect.source.keepNumbering(relation)} WHERE rn IN (${numbers.join(', ')})${settings}`);
  return new Map(got.map((r) => [Number(r['rn']), String(r['t'])]));
}

/** A row read back: JSON members, NULLs (Parquet's missing values) left out. */
const objectOf = rowObject;

/**
 * Count the packets of flow files whose outcome changes between two network-phase rulesets, on an
 * engine: the figures of `countDiff` over the same packets.
 *
 * ```ts
 * const r = await countDiffOnEngine(oldRuleset, newRuleset, ['flows.parquet'], { engine: 'duckdb' });
 * r.counts?.changed;
 * ```
 */
export async function countDiffOnEngine(oldRuleset: { rules: readonly Rule[]; phase?: unknown }, newRuleset: { rules: readonly Rule[]; phase?: unknown }, files: readonly string[], options: EngineDiffOptions): Promise<EngineDiffReport<TrafficDiff>> {
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const counter = new DiffCounter(oldRuleset, newRuleset, { lists, serviceToken: options.serviceToken, phase: options.phase, diff: options.diff, examples: options.examples });
  const dialect = dialectOf(options.engine);
  const server = options.clickhouseUrl;
  if (server !== undefined) {
    // Checked before connecting: a usage mistake, not a failure to read.
    if (options.engine !== 'clickhouse') throw new Error('a ClickHouse URL goes with the clickhouse engine');
    if (files.length !== 1) throw new Error('give one ClickHouse table (NAME or DATABASE.NAME) to count over');
    clickHouseTable(files[0]!, (s) => dialect.identifier(s));
  } else if (files.some(isParquet) && !files.every(isParquet)) throw new Error('give flows as NDJSON or as Parquet, not both in one run');
  const run = server !== undefined ? await openClickHouseServer(server) : await openEngine(options.engine);
  try {
    const read = new Set<string>();
    for (const side of [oldRuleset, newRuleset]) for (const f of compileRuleset(side, { lists, serviceToken: options.serviceToken }).fields) read.add(f);
    // The query's fields first (the regions name only fields the rules read; asked for all the same).
    const probe = diffCountsSql(oldRuleset, newRuleset, counter.diff, '(SELECT 1) AS flows', { dialect: options.engine, lists, serviceToken: options.serviceToken, examples: options.examples });
    if (!probe.sql) return { ok: false, diagnostics: probe.diagnostics };
    for (const f of probe.fields) read.add(f);
    const open = (wholeLines: boolean) => flowSource(run, dialect, files, read, server !== undefined, { wholeLines });
    const countsOver = async ({ from, settings }: FlowSource) => {
      const query = diffCountsSql(oldRuleset, newRuleset, counter.diff, from(false), { dialect: options.engine, lists, serviceToken: options.serviceToken, examples: options.examples });
      return { query, grouped: groups(await run.rows(withQueryRoom(query.sql!, settings, dialect))) };
    };
    let flows = await open(false);
    let counted: Awaited<ReturnType<typeof countsOver>>;
    try {
      counted = await countsOver(flows);
    } catch (e) {
      if (!flows.memberMaps) throw e;
      // The engine refused the files read as one map a line: whole lines, as the other path reads them.
      flows = await open(true);
      counted = await countsOver(flows);
    }
    const { query, grouped } = counted;
    const { from, settings } = flows;
    const changed = grouped.filter((g) => counter.changes(Number(g.row['od']), Number(g.row['nd'])));
    const packets = await readBack(run, dialect, from(true), 'packet', [...new Set(changed.flatMap((g) => g.ex))], settings);
    for (const g of grouped) {
      counter.addDecided(Number(g.row['od']), Number(g.row['nd']), g.n, g.reg, g.ex.map((index) => ({ index, packet: objectOf(packets.get(index)) as Packet })));
    }
    return { ok: true, counts: counter.result(), diagnostics: query.diagnostics, sql: query.sql };
  } finally {
    await run.close();
  }
}

/** Options of {@link countLogFilterDiffOnEngine}. */
export interface EngineLogDiffOptions {
  engine: SqlEngineName;
  diff?: LogFilterDiff;
  examples?: number;
}

/**
 * Count the log lines of files (NDJSON, gzip or not, or Parquet rows) two filters push differently, on
 * an engine: the figures of `countLogFilterDiff` over the same lines.
 */
export async function countLogFilterDiffOnEngine(oldFilter: string, newFilter: string, dataset: string, files: readonly string[], options: EngineLogDiffOptions): Promise<EngineDiffReport<LogFilterCounts>> {
  const counter = new LogFilterDiffCounter(oldFilter, newFilter, dataset, { diff: options.diff, examples: options.examples });
  const dialect = dialectOf(options.engine);
  const { source } = dialect;
  let relation: string;
  let settings: string;
  if (files.every(isParquet)) {
    const parquet = source.parquet(files);
    relation = `(SELECT ${source.rowNumber} AS rn, ${parquet.rowJson} AS line FROM ${parquet.from}) AS lines`;
    settings = source.readInOrder('rows');
  } else if (files.some(isParquet)) {
    throw new Error('give log lines as NDJSON or as Parquet, not both in one run');
  } else {
    relation = `(SELECT ${source.rowNumber} AS rn, ${source.lineColumn} AS line FROM ${source.objectLines(files, undefined, await ndjsonCompression(files))}) AS lines`;
    settings = source.readInOrder('lines');
  }
  const query = logFilterDiffCountsSql(oldFilter, newFilter, counter.diff, relation, { dialect: options.engine, examples: options.examples });
  if (!query.sql) return { ok: false, diagnostics: query.diagnostics };
  const run = await openEngine(options.engine);
  try {
    const truth = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true';
    const grouped = groups(await run.rows(withQueryRoom(query.sql, settings, dialect)));
    const changed = grouped.filter((g) => truth(g.row['o']) !== truth(g.row['nw']));
    const lines = await readBack(run, dialect, relation, textOf(dialect, 'line'), [...new Set(changed.flatMap((g) => g.ex))], settings);
    for (const g of grouped) counter.addDecided(truth(g.row['o']), truth(g.row['nw']), g.n, g.reg, g.ex.map((index) => ({ index, line: JSON.parse(lines.get(index) ?? '{}') as unknown })));
    return { ok: true, counts: counter.result(), diagnostics: query.diagnostics, sql: query.sql };
  } finally {
    await run.close();
  }
}

/** A JSON line column as text (DuckDB's JSON type cast; ClickHouse's String as it is). */
function textOf(dialect: Dialect, col: string): string {
  return dialect.source.lineText.replace(dialect.source.lineColumn, col);
}
