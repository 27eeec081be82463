/**
 * The SQL engines rulekit runs its SQL on (Node only), each behind one small interface — a query in, plain
 * row objects out: DuckDB (`@duckdb/node-api`), ClickHouse embedded (`chdb`), or a ClickHouse server
 * through its HTTP interface (`@clickhouse/client`). All three are loaded on first use, so a command that
 * runs none of them never pays for loading them, and one that is not installed is a MissingPartError
 * naming the line that installs it (src/optional-parts.ts).
 * @module
 */
import { loadPart } from '../optional-parts.js';
import type { Dialect } from '../sql/index.js';

/** The engines `rulekit simulate --engine` runs on. */
export type SqlEngineName = 'duckdb' | 'clickhouse';

/** A connection that answers a query with plain row objects. */
export interface SqlRunner {
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/**
 * Credentials for a ClickHouse server: those written in the URL win; else `CLICKHOUSE_USER` and
 * `CLICKHOUSE_PASSWORD` from the environment (so a password need not appear on a command line); else the
 * client's defaults (user `default`, no password).
 */
export function clickHouseCredentials(url: string, env: NodeJS.ProcessEnv = process.env): { username?: string; password?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`--clickhouse-url takes an http(s) URL such as http://localhost:8123, not ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`--clickhouse-url takes an http:// or https:// URL (ClickHouse's HTTP interface), not ${parsed.protocol}`);
  if (parsed.username !== '' || parsed.password !== '') return {};
  return { username: env['CLICKHOUSE_USER'] || undefined, password: env['CLICKHOUSE_PASSWORD'] ?? undefined };
}

/** A ClickHouse server (its HTTP interface), rows read as JSONEachRow. */
export async function openClickHouseServer(url: string): Promise<SqlRunner> {
  const credentials = clickHouseCredentials(url);
  const { createClient, ClickHouseLogLevel } = await loadPart(['clickhouse'], () => import('@clickhouse/client'));
  // The client's own log would print each failed query's error a second time: the caller reports it.
  // Responses gzip-compressed: `query --format ndjson` may fetch millions of lines over a network.
  const client = createClient({ url, ...credentials, application: 'rulekit', compression: { response: true }, log: { level: ClickHouseLogLevel.OFF } });
  return {
    rows: async (sql) => {
      const result = await client.query({ query: sql, format: 'JSONEachRow' });
      return result.json<Record<string, unknown>>();
    },
    close: () => client.close(),
  };
}

/** DuckDB in memory (`@duckdb/node-api`). */
async function openDuckDb(): Promise<SqlRunner> {
  const duckdb = await loadPart(['duckdb'], () => import('@duckdb/node-api'));
  const db = await duckdb.DuckDBInstance.create(':memory:');
  const con = await db.connect();
  return {
    rows: async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
    close: async () => {
      con.closeSync();
      db.closeSync();
    },
  };
}

/** ClickHouse embedded (`chdb`). */
async function openChdb(): Promise<SqlRunner> {
  const chdb = (await loadPart(['chdb'], () => import('chdb'))) as { queryAsync(q: string, o?: { format?: string }): Promise<{ text(): string }> };
  return {
    rows: async (sql) => {
      const text = (await chdb.queryAsync(sql, { format: 'JSONEachRow' })).text();
      return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    close: async () => undefined,
  };
}

/** The embedded client of each engine. */
const EMBEDDED: { readonly [engine in SqlEngineName]: () => Promise<SqlRunner> } = { duckdb: openDuckDb, clickhouse: openChdb };

/** The engine, loaded on demand: both embedded engines are optional installs. */
export async function openEngine(engine: SqlEngineName): Promise<SqlRunner> {
  return EMBEDDED[engine]();
}

/**
 * A table name as given on a command line (`flows` or `logs.flows`) as a quoted ClickHouse name: each
 * part quoted on its own, so a name cannot carry SQL.
 */
export function clickHouseTable(name: string, quote: (part: string) => string): string {
  const parts = name.split('.');
  if (parts.length > 2 || parts.some((p) => p === '')) throw new Error(`give a ClickHouse table as NAME or DATABASE.NAME, not ${JSON.stringify(name)}`);
  return parts.map(quote).join('.');
}

/** Items added to a query's one `SETTINGS` clause, opening it when the query has none. */
export function addSettings(clause: string, items: readonly string[]): string {
  if (!items.length) return clause;
  return clause.trim() ? `${clause}, ${items.join(', ')}` : ` SETTINGS ${items.join(', ')}`;
}

/** The query with its settings clause, and the settings its engine needs to parse a query that long. */
export function withQueryRoom(sql: string, settings: string, dialect: Dialect, more: readonly string[] = []): string {
  return sql + addSettings(settings, [...more, ...dialect.querySizeSettings(sql.length)]);
}
