/**
 * A Logpush filter run where stored log lines are (Node only), for `rulekit query`: on DuckDB over files
 * (NDJSON, plain or gzip, and Parquet; local paths, globs or s3:// URLs DuckDB reads), or on a ClickHouse
 * server over a table. The filter becomes one SQL expression (src/sql).
 * - Files, counted: NDJSON is read with one column per field the filter reads, holding that member's value
 *   as JSON (member mode: the line parsed once, each clause testing a small value); where the engine
 *   refuses a file so (a line that is not an object, a key given twice), the whole lines are read instead
 *   (JSON mode). A Parquet column whose type holds the field's catalog type is compared as it is (column
 *   mode); any other column the filter reads becomes a JSON value first, so its type is judged as in a line.
 * - Files, lines returned: each line as JSON (JSON mode), Parquet rows turned into JSON objects first.
 * - A table: JSON mode when it has a `line` column (each line as it was pushed, a String); otherwise
 *   column mode, a typed column per dataset field named by the field, a field the table lacks being
 *   missing on every row.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { DatasetScope, FilterClause, FilterNode, LogFilter } from '../logpush/index.js';
import { checkLogFilter, getDataset } from '../logpush/index.js';
import { dialectOf, logFilterToSql, sqlString, type Dialect, type SqlDialect } from '../sql/index.js';
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

/** The fields a filter reads, each once, in the order they first appear. */
function fieldsRead(node: FilterNode, out: Set<string> = new Set()): string[] {
  if (node.kind === 'and' || node.kind === 'or') for (const c of node.children) fieldsRead(c, out);
  else out.add((node as FilterClause).key);
  return [...out];
}

/** One relation to count over, with the filter written for it. */
interface Counted {
  from: string;
  where: string;
  /** The same lines read another way, for when the engine refuses this one. */
  fallback?: Counted;
}

/**
 * The relations the lines of files are counted over, by kind: NDJSON in member mode (whole lines when the
 * filter reads no field, and as the fallback), Parquet with each field's column typed or as JSON.
 */
async function countedFiles(run: SqlRunner, dialect: Dialect, filter: LogFilter, scope: DatasetScope | undefined, files: readonly string[], jsonWhere: string): Promise<Counted[]> {
  const ndjson = files.filter((f) => !/\.parquet$/i.test(f));
  const parquet = files.filter((f) => /\.parquet$/i.test(f));
  const fields = fieldsRead(filter.where);
  const write = (options: { columns?: Record<string, string>; jsonColumns?: true | Record<string, string> }) => {
    // The member columns are read_json's and to_json's: text the engine wrote.
    const r = logFilterToSql(filter, { dialect: dialect.name as SqlDialect, scope, engineWrittenJson: true, ...options });
    if (!r.sql) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
    return r.sql;
  };
  const out: Counted[] = [];
  if (ndjson.length) {
    const lines: Counted = { from: `(${filesSource(ndjson)}) AS lines`, where: jsonWhere };
    out.push(fields.length ? { from: `${dialect.source.memberColumns(ndjson, fields)} AS lines`, where: write({ jsonColumns: true }), fallback: lines } : lines);
  }
  if (parquet.length) {
    const types = new Map((await run.rows(dialect.source.describeParquet(parquet))).map((r) => [String(r['column_name'] ?? r['name']), String(r['column_type'] ?? r['type'])]));
    const catalog = getDataset(filter.dataset, scope) ?? getDataset(filter.dataset);
    const typed: Record<string, string> = {};
    const asJson: Record<string, string> = {};
    const select: string[] = [];
    fields.forEach((f, i) => {
      const type = types.get(f);
      const fieldType = catalog?.byName.get(f)?.type;
      if (type !== undefined && fieldType !== undefined && dialect.holdsFieldType(type, fieldType)) {
        typed[f] = `t${i}`;
        select.push(`${dialect.identifier(f)} AS t${i}`);
      } else {
        asJson[f] = `j${i}`;
        select.push(`${dialect.source.columnJson(type === undefined ? undefined : dialect.identifier(f))} AS j${i}`);
      }
    });
    const { from } = dialect.source.parquet(parquet);
    out.push({ from: `(SELECT ${select.length ? select.join(', ') : '1 AS none'} FROM ${from}) AS lines`, where: write({ columns: typed, jsonColumns: asJson }) });
  }
  return out;
}

/** The lines one relation holds and those the filter keeps there; on a refusal, its fallback's. */
async function countOver(run: SqlRunner, dialect: Dialect, c: Counted): Promise<{ matched: number; total: number }> {
  try {
    const r = (await run.rows(`SELECT ${dialect.countIf(c.where)} AS matched, count(*) AS total FROM ${c.from}`))[0] ?? {};
    return { matched: Number(r['matched'] ?? 0), total: Number(r['total'] ?? 0) };
  } catch (e) {
    if (!c.fallback) throw e;
    return countOver(run, dialect, c.fallback);
  }
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
  let counted: Counted[] | undefined;
  if (!server) {
    const checked = checkLogFilter(filterText, { dataset, scope: options.scope });
    if (!checked.filter || checked.diagnostics.some((d) => d.severity === 'error')) return failed(checked.diagnostics);
    const compiled = logFilterToSql(checked.filter, { scope: options.scope, dialect: engine, column: 'line' });
    if (!compiled.sql) return failed([...checked.diagnostics, ...compiled.diagnostics]);
    sql = compiled.sql;
    diagnostics = [...checked.diagnostics, ...compiled.diagnostics];
    run = await openEngine(engine);
    from = `(${filesSource(inputs)}) AS lines`;
    lineOf = 'CAST(line AS VARCHAR)';
    try {
      counted = await countedFiles(run, dialect, checked.filter, options.scope, inputs, sql);
    } catch (e) {
      await run.close();
      throw e;
    }
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
    let matched = 0;
    let total = 0;
    for (const c of counted ?? [{ from, where: sql }]) {
      const n = await countOver(run, dialect, c);
      matched += n.matched;
      total += n.total;
    }
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
