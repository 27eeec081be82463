/**
 * `rulekit query --filter FILTER.json FILES…`: what a Logpush filter would have pushed from stored log
 * lines, run on DuckDB where the data is (NDJSON, plain or gzip, and Parquet; local paths and globs, or
 * s3:// URLs DuckDB can read). The filter becomes one SQL expression (src/sql) over each line as JSON;
 * Parquet rows are turned into JSON objects first, so a value's type is judged the same way.
 * @module
 */
import { readFileSync } from 'node:fs';
import { logFilterToSql, renderDiagnostics, sqlString } from '../index.js';
import { UsageError } from './io.js';

export interface QueryOptions {
  filter: string;
  dataset?: string;
  format?: 'text' | 'ndjson' | 'json';
  count?: boolean;
  limit?: number;
}

/** The files as one relation with a JSON column `line`, by kind. */
function source(files: readonly string[]): string {
  const parquet = files.filter((f) => /\.parquet$/i.test(f));
  const ndjson = files.filter((f) => !/\.parquet$/i.test(f));
  const list = (xs: readonly string[]) => `[${xs.map((f) => sqlString(f)).join(', ')}]`;
  const parts: string[] = [];
  // read_ndjson_objects keeps each line as it is (gzip by extension), one JSON value per row.
  if (ndjson.length) parts.push(`SELECT json AS line FROM read_ndjson_objects(${list(ndjson)})`);
  if (parquet.length) parts.push(`SELECT CAST(to_json(p) AS JSON) AS line FROM read_parquet(${list(parquet)}) AS p`);
  return parts.join(' UNION ALL ');
}

/** Run the command; returns the exit code. */
export async function queryCommand(files: string[], options: QueryOptions, write: (s: string) => void): Promise<number> {
  if (!files.length) throw new UsageError('give the log files to query (NDJSON, .ndjson.gz or Parquet; globs allowed)');
  let text: string;
  try {
    text = readFileSync(options.filter, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the filter ${options.filter}: ${(e as Error).message}`);
  }
  const dataset = options.dataset ?? 'http_requests';
  // A job body with a filter member works too.
  try {
    const v = JSON.parse(text) as { filter?: unknown; dataset?: unknown };
    if (v && typeof v === 'object' && typeof v.filter === 'string') text = v.filter;
  } catch {
    // Not JSON: the filter check reports it with its position.
  }
  const compiled = logFilterToSql(text, { dataset, column: 'line' });
  if (!compiled.sql) {
    process.stderr.write(renderDiagnostics(text, compiled.diagnostics, { file: options.filter }) + '\n');
    return 1;
  }
  let duckdb: typeof import('@duckdb/node-api');
  try {
    duckdb = await import('@duckdb/node-api');
  } catch {
    throw new UsageError('rulekit query needs DuckDB: npm install @duckdb/node-api (an optional dependency of rulekit)');
  }
  const db = await duckdb.DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    const from = `(${source(files)}) AS lines`;
    const counted = (await con.runAndReadAll(`SELECT count(*) FILTER (WHERE ${compiled.sql}) AS matched, count(*) AS total FROM ${from}`)).getRowObjects()[0]!;
    const matched = Number(counted['matched']);
    const total = Number(counted['total']);
    if (options.count) {
      write(`${matched}\n`);
      return 0;
    }
    const limit = options.format === 'ndjson' ? '' : ` LIMIT ${Math.max(0, Math.floor(options.limit ?? 10))}`;
    const reader = await con.runAndReadAll(`SELECT CAST(line AS VARCHAR) AS line FROM ${from} WHERE ${compiled.sql}${limit}`);
    const lines = reader.getRowObjects().map((r) => String(r['line']));
    if (options.format === 'ndjson') for (const l of lines) write(l + '\n');
    else if (options.format === 'json') write(JSON.stringify({ matched, total, sample: lines.map((l) => JSON.parse(l) as unknown), sql: compiled.sql }, null, 2) + '\n');
    else {
      for (const l of lines) write(l + '\n');
      write(`${matched} of ${total} line(s) match (${total ? ((100 * matched) / total).toFixed(1) : '0.0'}%)${matched > lines.length ? `; ${lines.length} shown (--limit, or --format ndjson for all)` : ''}\n`);
    }
    return 0;
  } catch (e) {
    throw new UsageError(`DuckDB could not read the files: ${(e as Error).message.split('\n')[0]}`);
  } finally {
    con.closeSync();
    db.closeSync();
  }
}
