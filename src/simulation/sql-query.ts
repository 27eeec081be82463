/**
 * A Logpush filter run where stored log lines are (Node only), for `rulekit query`: on DuckDB over files
 * (NDJSON, plain or gzip, and Parquet; local paths, globs or s3:// URLs DuckDB reads), or on a ClickHouse
 * server over a table. The filter becomes one SQL expression (src/sql).
 * - Files: each line as JSON (JSON mode); Parquet rows are turned into JSON objects first, so a value's
 *   type is judged as in a line.
 * - A table: JSON mode when it has a `line` column (each line as it was pushed, a String); otherwise
 *   column mode, a typed column per dataset field named by the field, a field the table lacks being
 *   missing on every row.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { DatasetScope } from '../logpush/index.js';
import { getDataset } from '../logpush/index.js';
import { dialectOf, logFilterToSql, sqlString, type SqlDialect } from '../sql/index.js';
import { clickHouseTable, openClickHouseServer, openEngine, type SqlRunner } from './sql-runner.js';

/** Options of {@link queryLogs}. */
export interface LogQueryOptions {
  /** Dataset of the lines (default `http_requests`). */
  dataset?: string;
  /** The job's scope, for a dataset both scopes offer with different fields (`firewall_events`). */
  scope?: DatasetScope;
  /** A ClickHouse server's HTTP URL: the inputs are then one table name, not files. */
  clickhouseUrl?: string;
  /** Matching lines returned (default 10); `Infinity` for all. */
  limit?: number;
  /** Only the counts. */
  countOnly?: boolean;
}

/** What {@link queryLogs} returns. */
export interface LogQueryResult {
  /** False when the filter has errors (then nothing ran). */
  ok: boolean;
  /** Lines the filter keeps. */
  matched: number;
  /** Lines read. */
  total: number;
  /** Matching lines as JSON text, up to the limit. */
  lines: string[];
  /** The filter as SQL (absent when the filter has errors). */
  sql?: string;
  /** The filter's diagnostics (warnings, or the errors that stopped it). */
  diagnostics: Diagnostic[];
}

/** The files as one relation with a JSON column `line`, by kind. */
function filesSource(files: readonly string[]): string {
  const parquet = files.filter((f) => /\.parquet$/i.test(f));
  const ndjson = files.filter((f) => !/\.parquet$/i.test(f));
  const list = (xs: readonly string[]) => `[${xs.map((f) => sqlString(f)).join(', ')}]`;
  const parts: string[] = [];
  // read_ndjson_objects keeps each line as it is (gzip by extension), one JSON value per row.
  if (ndjson.length) parts.push(`SELECT json AS line FROM read_ndjson_objects(${list(ndjson)})`);
  if (parquet.length) parts.push(`SELECT CAST(to_json(p) AS JSON) AS line FROM read_parquet(${list(parquet)}) AS p`);
  return parts.join(' UNION ALL ');
}

/** The ClickHouse type of a dataset field's column in column mode. */
function columnType(type: string): string {
  switch (type) {
    case 'int':
    case 'int_or_string':
      return 'Nullable(Int64)';
    case 'float':
      return 'Nullable(Float64)';
    case 'bool':
      return 'Nullable(Bool)';
    case 'array_string':
      return 'Array(String)';
    case 'array_int':
      return 'Array(Int64)';
    default:
      return 'Nullable(String)';
  }
}

/**
 * Count the lines a filter (its JSON text) keeps, and return the first of them.
 *
 * ```ts
 * const r = await queryLogs(filterText, ['logs/*.ndjson.gz'], { dataset: 'http_requests', limit: 5 });
 * const s = await queryLogs(filterText, ['logs.requests'], { clickhouseUrl: 'http://localhost:8123' });
 * ```
 */
export async function queryLogs(filterText: string, inputs: readonly string[], options: LogQueryOptions = {}): Promise<LogQueryResult> {
  const dataset = options.dataset ?? 'http_requests';
  const server = options.clickhouseUrl !== undefined;
  const failed = (diagnostics: Diagnostic[]): LogQueryResult => ({ ok: false, matched: 0, total: 0, lines: [], diagnostics });
  // Files are read by DuckDB, a table by the ClickHouse server that holds it.
  const engine: SqlDialect = server ? 'clickhouse' : 'duckdb';
  const dialect = dialectOf(engine);
  let run: SqlRunner;
  let from: string;
  let sql: string | undefined;
  let diagnostics: Diagnostic[];
  let lineOf: string;
  if (!server) {
    const compiled = logFilterToSql(filterText, { dataset, scope: options.scope, dialect: engine, column: 'line' });
    if (!compiled.sql) return failed(compiled.diagnostics);
    sql = compiled.sql;
    diagnostics = compiled.diagnostics;
    run = await openEngine(engine);
    from = `(${filesSource(inputs)}) AS lines`;
    lineOf = 'CAST(line AS VARCHAR)';
  } else {
    if (inputs.length !== 1) throw new Error('give one ClickHouse table (NAME or DATABASE.NAME) to query');
    const id = (s: string) => dialect.identifier(s);
    const table = clickHouseTable(inputs[0]!, id);
    run = await openClickHouseServer(options.clickhouseUrl!);
    try {
      const types = new Map((await run.rows(`DESCRIBE TABLE ${table}`)).map((r) => [String(r['name']), String(r['type'])]));
      if (types.has('line')) {
        const compiled = logFilterToSql(filterText, { dataset, scope: options.scope, dialect: engine, column: 'line' });
        ({ sql, diagnostics } = compiled);
        from = `${table} AS lines`;
        lineOf = 'line';
      } else {
        const compiled = logFilterToSql(filterText, { dataset, scope: options.scope, dialect: engine, columns: true });
        ({ sql, diagnostics } = compiled);
        // Fields the table has no column for are missing on every row: NULL columns of the catalog's type.
        const fields = (getDataset(dataset, options.scope) ?? getDataset(dataset))?.fields ?? [];
        const absent = fields.filter((f) => !types.has(f.name) && f.type !== 'object').map((f) => `, CAST(${f.type.startsWith('array') ? '[]' : 'NULL'} AS ${columnType(f.type)}) AS ${id(f.name)}`);
        from = `(SELECT *${absent.join('')} FROM ${table}) AS lines`;
        // The line as the table holds it: its own columns, not the NULL ones added for absent fields.
        lineOf = dialect.source.rowJson([...types.keys()]);
      }
    } catch (e) {
      await run.close();
      throw e;
    }
    if (!sql) {
      await run.close();
      return failed(diagnostics);
    }
  }
  try {
    const counted = (await run.rows(`SELECT ${dialect.countIf(sql)} AS matched, count(*) AS total FROM ${from}`))[0] ?? {};
    const matched = Number(counted['matched'] ?? 0);
    const total = Number(counted['total'] ?? 0);
    let lines: string[] = [];
    if (!options.countOnly) {
      const limit = options.limit ?? 10;
      const got = await run.rows(`SELECT ${lineOf} AS line FROM ${from} WHERE ${sql}${Number.isFinite(limit) ? ` LIMIT ${Math.max(0, Math.floor(limit))}` : ''}`);
      lines = got.map((r) => String(r['line']));
    }
    return { ok: true, matched, total, lines, sql, diagnostics };
  } finally {
    await run.close();
  }
}
