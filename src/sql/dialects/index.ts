/**
 * The table of SQL dialects: every engine rulekit writes SQL for, by the name options give. A generator
 * resolves the name here once and then asks the {@link Dialect} object; nothing else names an engine.
 * A new engine is a file beside these (an object implementing {@link Dialect}) and its line in this table.
 * @module
 */
import type { Dialect } from '../dialect.js';
import { CLICKHOUSE } from './clickhouse.js';
import { DUCKDB } from './duckdb.js';

/** SQL dialects rulekit writes: DuckDB, and ClickHouse (a server, a cluster, or chdb embedded). */
export type SqlDialect = 'duckdb' | 'clickhouse';

/** Each dialect by its name. */
export const DIALECTS: { readonly [name in SqlDialect]: Dialect } = {
  duckdb: DUCKDB,
  clickhouse: CLICKHOUSE,
};

/** The dialects, for validating options. */
export const SQL_DIALECTS: readonly SqlDialect[] = Object.keys(DIALECTS) as SqlDialect[];

/**
 * The dialect of a name (DuckDB when none is given). A name outside the table (from JavaScript, past the
 * types) is refused rather than written as some other engine's SQL.
 */
export function dialectOf(name: SqlDialect = 'duckdb'): Dialect {
  if (!Object.hasOwn(DIALECTS, name)) throw new RangeError(`no SQL dialect ${JSON.stringify(name)}; the dialects are ${SQL_DIALECTS.join(', ')}`);
  return DIALECTS[name];
}
