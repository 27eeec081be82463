/**
 * Logpush filters as DuckDB SQL, proven against rulekit's own matcher: generated filters over generated
 * log lines (missing members, nulls, wrong JSON types, hostile strings), row by row, in a real DuckDB
 * (@duckdb/node-api); and the quoting function read back through the engine for hostile strings.
 */
import fc from 'fast-check';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLogFilter } from '../../src/logpush/index.js';
import { hasLoneSurrogate, logFilterToSql, sqlIdentifier, sqlString } from '../../src/sql/index.js';
import { HOSTILE, lineArb, nodeArb } from '../helpers/logfilter-arbitraries.js';

let db: DuckDBInstance;
let con: DuckDBConnection;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
});
afterAll(() => {
  con?.closeSync();
  db?.closeSync();
});

/** Whether a value holds an unpaired surrogate anywhere (no UTF-8 form: not a line an NDJSON file can hold). */
function lone(v: unknown): boolean {
  if (typeof v === 'string') return hasLoneSurrogate(v);
  if (Array.isArray(v)) return v.some(lone);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => hasLoneSurrogate(k) || lone(x));
  return false;
}

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
}

describe('Logpush filters on DuckDB', () => {
  it('match exactly the lines the compiled matcher matches', async () => {
    let compared = 0;
    await fc.assert(fc.asyncProperty(nodeArb, fc.array(lineArb, { minLength: 1, maxLength: 12 }), async (where, lines) => {
      const text = JSON.stringify({ where });
      const compiled = compileLogFilter(text, { dataset: 'http_requests' });
      if (!compiled.matcher) return;
      const sql = logFilterToSql(text);
      if (!sql.sql) {
        // Only a value without a UTF-8 form may be refused, and it must say so.
        expect(sql.diagnostics.map((d) => d.code)).toContain('sql-no-exact-form');
        expect(lone(where)).toBe(true);
        return;
      }
      const usable = lines.filter((l) => !lone(l));
      if (!usable.length) return;
      const values = usable.map((l, i) => `(${i}, CAST(${sqlString(JSON.stringify(l))} AS JSON))`).join(', ');
      const got = await rows(`SELECT i, ${sql.sql} AS m FROM (VALUES ${values}) AS t(i, line) ORDER BY i`);
      expect(got.map((r) => r['m'])).toEqual(usable.map((l) => compiled.matcher!(l)));
      compared += usable.length;
    }), { numRuns: Number(process.env.SQL_RUNS ?? (process.env.CI ? 300 : 150)) });
    expect(compared).toBeGreaterThan(300);
  });

  it('NULL never leaks: a missing member makes negated operators false too', async () => {
    const f = JSON.stringify({ where: { or: [{ key: 'ClientCountry', operator: '!eq', value: 'us' }, { key: 'EdgeResponseStatus', operator: '!in', value: [500] }] } });
    const sql = logFilterToSql(f).sql!;
    const got = await rows(`SELECT (${sql}) AS m, NOT (${sql}) AS n FROM (VALUES (CAST('{}' AS JSON)), (CAST('{"ClientCountry":null}' AS JSON))) AS t(line)`);
    expect(got).toEqual([{ m: false, n: true }, { m: false, n: true }]);
  });

  it('the quoting functions survive hostile strings, read back through the engine', async () => {
    const hostile = fc.oneof(fc.constantFrom(...HOSTILE, "'; DROP TABLE x; --", "''", '\\\'', '/* */', '--', '\0', 'a\0b', '"', '""', 'ü', '😀'), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ maxLength: 20 }));
    await fc.assert(fc.asyncProperty(hostile, async (s) => {
      if (hasLoneSurrogate(s)) return;
      const [r] = await rows(`SELECT ${sqlString(s)} AS v`);
      expect(r!['v']).toBe(s);
      const name = s.replace(/\0/g, '');
      if (name === '') return;
      // Column names, not row objects: a column named __proto__ would not survive as an object key.
      const reader = await con.runAndReadAll(`SELECT 1 AS ${sqlIdentifier(s)}`);
      expect(reader.columnNames()).toEqual([name]);
    }), { numRuns: 300 });
  });
});
