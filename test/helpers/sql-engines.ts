/**
 * The two SQL engines the SQL tests hold rulekit's compiled SQL to: DuckDB (@duckdb/node-api) and
 * ClickHouse embedded (chdb), each behind `rows(sql)` returning plain objects, plus a way to write a table
 * of given rows as a relation (VALUES in DuckDB, the `values` table function in ClickHouse).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { describe, it } from 'vitest';
import { sqlString, type SqlDialect } from '../../src/sql/index.js';
import { mutationRun } from './tools.js';

export interface Engine {
  dialect: SqlDialect;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): void;
}

export async function duckdbEngine(): Promise<Engine> {
  const db = await DuckDBInstance.create(':memory:');
  const con: DuckDBConnection = await db.connect();
  return {
    dialect: 'duckdb',
    rows: async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[],
    close: () => {
      con.closeSync();
      db.closeSync();
    },
  };
}

export async function chdbEngine(): Promise<Engine> {
  // Loaded here, not at the top: mutation runs never load the native addon (see SQL_ENGINES).
  const { query: chdbQuery } = await import('chdb');
  return {
    dialect: 'clickhouse',
    rows: async (sql) => {
      const out = chdbQuery(`${sql} SETTINGS output_format_json_quote_64bit_integers = 0, output_format_json_named_tuples_as_objects = 1`, 'JSONEachRow');
      return out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    close: () => undefined,
  };
}

/** A SQL boolean read back as a JavaScript one (ClickHouse's UInt8/Bool arrive as 0/1 or true/false). */
export function bool(v: unknown): boolean {
  if (v === true || v === 1 || v === '1') return true;
  if (v === false || v === 0 || v === '0') return false;
  throw new Error(`not a boolean: ${JSON.stringify(v)}`);
}

/** A literal of a JavaScript value for a column of the given SQL type (NULL for undefined/null). */
export function literal(v: unknown, dialect: SqlDialect): string {
  if (v === undefined || v === null) return 'NULL';
  if (typeof v === 'string') return sqlString(v, dialect);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : `${v}`;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map((x) => literal(x, dialect)).join(', ')}]`;
  throw new Error(`no literal for ${typeof v}`);
}

/**
 * Rows as a relation `(SELECT …) AS t` with an `i` column (row number) and the given typed columns.
 * `types` maps column name to [DuckDB type, ClickHouse type].
 */
export function relation(rows: readonly Record<string, unknown>[], columns: readonly [name: string, duckdb: string, clickhouse: string][], dialect: SqlDialect, quote: (n: string) => string): string {
  if (dialect === 'clickhouse') {
    const structure = ['i UInt32', ...columns.map(([n, , t]) => `${quote(n)} ${t}`)].join(', ');
    const tuples = rows.map((r, i) => `(${[String(i), ...columns.map(([n]) => literal(r[n], dialect))].join(', ')})`).join(', ');
    return `(SELECT * FROM values(${sqlString(structure, dialect)}, ${tuples})) AS t`;
  }
  const tuples = rows.map((r, i) => `(${[String(i), ...columns.map(([n, t]) => `CAST(${literal(r[n], dialect)} AS ${t})`)].join(', ')})`).join(', ');
  return `(VALUES ${tuples}) AS t(i, ${columns.map(([n]) => quote(n)).join(', ')})`;
}

/**
 * The engines the SQL tests run on. Under mutation testing (never in CI) DuckDB only: Stryker runs vitest
 * in worker threads, where chdb's native library crashes the process (SIGSEGV) once its tests have run,
 * which failed the full run's initial test run. {@link describeSkippedEngines} says so in a test title.
 */
export const SQL_ENGINES: readonly (() => Promise<Engine>)[] = mutationRun() ? [duckdbEngine] : [duckdbEngine, chdbEngine];

/** Under mutation testing, a skipped group naming the engine left out (see {@link SQL_ENGINES}). */
export function describeSkippedEngines(what: string): void {
  if (!mutationRun()) return;
  describe.skip(`${what} on ClickHouse (chdb) (skipped under mutation testing: chdb crashes in Stryker's worker threads)`, () => {
    it('runs outside mutation testing', () => undefined);
  });
}
