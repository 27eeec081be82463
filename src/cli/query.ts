/**
 * `rulekit query --filter FILTER.json FILES…`: what a Logpush filter would have pushed from stored log
 * lines, run on DuckDB where the data is (NDJSON, plain or gzip, and Parquet; local paths and globs, or
 * s3:// URLs DuckDB can read), or with `--clickhouse-url` on a ClickHouse server's table. The running is
 * src/simulation's `queryLogs`; this module maps arguments and renders.
 * @module
 */
import { readFileSync } from 'node:fs';
import { renderDiagnostics } from '../index.js';
import { queryLogs } from '../simulation/index.js';
import { UsageError } from './io.js';
import { MissingPartError } from '../optional-parts.js';

export interface QueryOptions {
  filter: string;
  dataset?: string;
  /** The job's scope (`zone` or `account`), for a dataset both offer with different fields. */
  scope?: 'zone' | 'account';
  format?: 'text' | 'ndjson' | 'json';
  count?: boolean;
  limit?: number;
  /** A ClickHouse server's HTTP URL: the argument is then a table name. */
  clickhouseUrl?: string;
}

/** Run the command; returns the exit code. */
export async function queryCommand(files: string[], options: QueryOptions, write: (s: string) => void): Promise<number> {
  if (!files.length) throw new UsageError(options.clickhouseUrl ? 'give the ClickHouse table to query' : 'give the log files to query (NDJSON, .ndjson.gz or Parquet; globs allowed)');
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
  const engine = options.clickhouseUrl ? 'ClickHouse' : 'DuckDB';
  let r;
  try {
    r = await queryLogs(text, files, { dataset, scope: options.scope, clickhouseUrl: options.clickhouseUrl, countOnly: options.count, limit: options.format === 'ndjson' ? Infinity : options.limit ?? 10 });
  } catch (e) {
    if (e instanceof MissingPartError) throw e;
    const message = (e as Error).message.split('\n')[0]!;
    throw new UsageError(/clickhouse-url|ClickHouse table/.test(message) ? message : `${engine} could not read the ${options.clickhouseUrl ? 'table' : 'files'}: ${message}`);
  }
  if (!r.ok) {
    process.stderr.write(renderDiagnostics(text, r.diagnostics, { file: options.filter }) + '\n');
    return 1;
  }
  const { matched, total, lines } = r;
  if (options.count) {
    write(`${matched}\n`);
    return 0;
  }
  if (options.format === 'ndjson') for (const l of lines) write(l + '\n');
  else if (options.format === 'json') write(JSON.stringify({ matched, total, sample: lines.map((l) => JSON.parse(l) as unknown), sql: r.sql }, null, 2) + '\n');
  else {
    for (const l of lines) write(l + '\n');
    write(`${matched} of ${total} line(s) match (${total ? ((100 * matched) / total).toFixed(1) : '0.0'}%)${matched > lines.length ? `; ${lines.length} shown (--limit, or --format ndjson for all)` : ''}\n`);
  }
  return 0;
}
