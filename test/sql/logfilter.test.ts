/**
 * Logpush filters as SQL, proven against rulekit's own matcher on both engines (DuckDB, and ClickHouse
 * through chdb): generated filters over generated log lines (missing members, nulls, wrong JSON types,
 * hostile strings), row by row, in JSON mode and in column mode; and each dialect's quoting functions read
 * back through its engine for hostile strings.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLogFilter, getDataset } from '../../src/logpush/index.js';
import { dialectOf, hasLoneSurrogate, logFilterToSql, sqlIdentifier, sqlString } from '../../src/sql/index.js';
import { FIELDS, HOSTILE, lineArb, nodeArb } from '../helpers/logfilter-arbitraries.js';
import { bool, describeSkippedEngines, duckdbEngine, SQL_ENGINES, relation, type Engine } from '../helpers/sql-engines.js';

/** Whether a value holds an unpaired surrogate anywhere (no UTF-8 form: not a line an NDJSON file can hold). */
function lone(v: unknown): boolean {
  if (typeof v === 'string') return hasLoneSurrogate(v);
  if (Array.isArray(v)) return v.some(lone);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => hasLoneSurrogate(k) || lone(x));
  return false;
}

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 200 : 100));
const dataset = getDataset('http_requests')!;
const TYPES: Record<string, [string, string]> = {
  string: ['VARCHAR', 'Nullable(String)'],
  int: ['BIGINT', 'Nullable(Int64)'],
  int_or_string: ['BIGINT', 'Nullable(Int64)'],
  bool: ['BOOLEAN', 'Nullable(Bool)'],
  array_string: ['VARCHAR[]', 'Array(Nullable(String))'],
  array_int: ['BIGINT[]', 'Array(Nullable(Int64))'],
};
/** A line's value kept only when it has its column's type (column mode holds typed values or NULL). */
function typed(type: string, v: unknown): unknown {
  const ok =
    type === 'string' ? typeof v === 'string'
      : type === 'bool' ? typeof v === 'boolean'
        : type === 'int' || type === 'int_or_string' ? Number.isSafeInteger(v)
          : type === 'array_string' ? Array.isArray(v) && v.every((e) => typeof e === 'string')
            : type === 'array_int' ? Array.isArray(v) && v.every((e) => Number.isSafeInteger(e))
              : false;
  return ok ? v : undefined;
}

describeSkippedEngines('Logpush filters');
for (const make of SQL_ENGINES) {
  describe(`Logpush filters on ${make === duckdbEngine ? 'DuckDB' : 'ClickHouse (chdb)'}`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await make();
    });
    afterAll(() => engine?.close());

    it('JSON mode: match exactly the lines the compiled matcher matches', async () => {
      let compared = 0;
      await fc.assert(fc.asyncProperty(nodeArb, fc.array(lineArb, { minLength: 1, maxLength: 12 }), async (where, lines) => {
        const text = JSON.stringify({ where });
        const compiled = compileLogFilter(text, { dataset: 'http_requests' });
        if (!compiled.matcher) return;
        const sql = logFilterToSql(text, { dialect: engine.dialect });
        if (!sql.sql) {
          // Only a value without a UTF-8 form may be refused, and it must say so.
          expect(sql.diagnostics.map((d) => d.code)).toContain('sql-no-exact-form');
          expect(lone(where)).toBe(true);
          return;
        }
        const usable = lines.filter((l) => !lone(l));
        if (!usable.length) return;
        const rows = usable.map((l) => ({ line: JSON.stringify(l) }));
        const json = engine.dialect === 'duckdb' ? 'JSON' : 'String';
        const got = await engine.rows(`SELECT i, ${sql.sql} AS m FROM ${relation(rows, [['line', json, json]], engine.dialect, (n) => sqlIdentifier(n, engine.dialect))} ORDER BY i`);
        expect(got.map((r) => bool(r['m']))).toEqual(usable.map((l) => compiled.matcher!(l)));
        compared += usable.length;
      }), { numRuns: RUNS });
      expect(compared).toBeGreaterThan(200);
    });

    it('member mode: each field\'s JSON value read once from an NDJSON file (source.memberColumns), as the matcher reads the line', async () => {
      const dir = mkdtempSync(join(tmpdir(), `rulekit-members-${engine.dialect}-`));
      const d = dialectOf(engine.dialect);
      // Each line carries its index, read as one more member, to put the rows back in file order.
      const INDEX = 'rulekit_index';
      const fields = [...new Set(Object.values(FIELDS).flat())];
      let compared = 0;
      let file = 0;
      try {
        await fc.assert(fc.asyncProperty(nodeArb, fc.array(lineArb, { minLength: 1, maxLength: 12 }), async (where, lines) => {
          const text = JSON.stringify({ where });
          const compiled = compileLogFilter(text, { dataset: 'http_requests' });
          if (!compiled.matcher) return;
          const sql = logFilterToSql(text, { dialect: engine.dialect, jsonColumns: true });
          if (!sql.sql) {
            expect(lone(where)).toBe(true);
            return;
          }
          const usable = lines.filter((l) => !lone(l));
          if (!usable.length) return;
          const path = join(dir, `lines-${file++}.ndjson`);
          writeFileSync(path, usable.map((l, i) => JSON.stringify({ ...l, [INDEX]: i })).join('\n') + '\n');
          const got = await engine.rows(`SELECT ${d.json(d.identifier(INDEX)).num} AS i, ${sql.sql} AS m FROM ${d.source.memberColumns([path], [...fields, INDEX])} AS lines ORDER BY i`);
          expect(got.map((r) => bool(r['m']))).toEqual(usable.map((l) => compiled.matcher!(l)));
          compared += usable.length;
        }), { numRuns: RUNS });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(compared).toBeGreaterThan(200);
    });

    it('column mode: typed columns named by the catalog, NULL for a missing field', async () => {
      let compared = 0;
      await fc.assert(fc.asyncProperty(nodeArb, fc.array(lineArb, { minLength: 1, maxLength: 12 }), async (where, raw) => {
        const text = JSON.stringify({ where });
        const compiled = compileLogFilter(text, { dataset: 'http_requests' });
        if (!compiled.matcher) return;
        const sql = logFilterToSql(text, { dialect: engine.dialect, columns: { ClientCountry: 'country' } });
        if (!sql.sql) {
          expect(lone(where)).toBe(true);
          return;
        }
        const fields = ['ClientCountry', 'ClientRequestPath', 'EdgeResponseStatus', 'BotScore', 'WorkerSubrequest', 'EdgeStartTimestamp', 'SecurityActions', 'BotDetectionIDs'];
        // ClickHouse arrays cannot be NULL: a missing array is stored empty (and the compiler says so).
        const missing = (v: unknown) => v === undefined || (engine.dialect === 'clickhouse' && Array.isArray(v) && v.length === 0);
        const lines = raw.filter((l) => !lone(l)).map((l) => Object.fromEntries(fields.map((f) => [f, typed(dataset.byName.get(f)!.type, l[f])]).filter(([, v]) => !missing(v))));
        if (!lines.length) return;
        const cols = fields.map((f) => {
          const [d, c] = TYPES[dataset.byName.get(f)!.type]!;
          return [f === 'ClientCountry' ? 'country' : f, d, c] as [string, string, string];
        });
        const rows = lines.map((l) => Object.fromEntries(Object.entries(l).map(([k, v]) => [k === 'ClientCountry' ? 'country' : k, v])));
        if (engine.dialect === 'clickhouse') for (const r of rows) for (const f of ['SecurityActions', 'BotDetectionIDs']) r[f] ??= [];
        const got = await engine.rows(`SELECT i, ${sql.sql} AS m FROM ${relation(rows, cols, engine.dialect, (n) => sqlIdentifier(n, engine.dialect))} ORDER BY i`);
        expect(got.map((r) => bool(r['m']))).toEqual(lines.map((l) => compiled.matcher!(l)));
        compared += lines.length;
      }), { numRuns: RUNS });
      expect(compared).toBeGreaterThan(200);
    });

    it('NULL never leaks: a missing member makes negated operators false too', async () => {
      const f = JSON.stringify({ where: { or: [{ key: 'ClientCountry', operator: '!eq', value: 'us' }, { key: 'EdgeResponseStatus', operator: '!in', value: [500] }] } });
      const sql = logFilterToSql(f, { dialect: engine.dialect }).sql!;
      const json = engine.dialect === 'duckdb' ? 'JSON' : 'String';
      const got = await engine.rows(`SELECT (${sql}) AS m, NOT (${sql}) AS n FROM ${relation([{ line: '{}' }, { line: '{"ClientCountry":null}' }], [['line', json, json]], engine.dialect, (n) => sqlIdentifier(n, engine.dialect))} ORDER BY i`);
      expect(got.map((r) => [bool(r['m']), bool(r['n'])])).toEqual([[false, true], [false, true]]);
    });

    it('the quoting functions survive hostile strings, read back through the engine', async () => {
      const hostile = fc.oneof(fc.constantFrom(...HOSTILE, "'; DROP TABLE x; --", "''", "\\'", '\\', '\\\\', '\\0', '\\x41', '/* */', '--', '#', '\0', 'a\0b', '"', '""', '`', '\\`', 'ü', '😀', '$1', '{x:String}', 'v'), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ maxLength: 20 }), fc.string({ unit: fc.constantFrom('\\', "'", '"', '`', '\0', ';', '-', '/', '*', 'a', '\n'), maxLength: 12 }));
      await fc.assert(fc.asyncProperty(hostile, async (s) => {
        if (hasLoneSurrogate(s)) return;
        const [r] = await engine.rows(`SELECT ${sqlString(s, engine.dialect)} AS v`);
        expect(r!['v']).toBe(s);
        const name = s.replace(/\0/g, '');
        if (name === '') return;
        const got = await engine.rows(`SELECT 1 AS ${sqlIdentifier(s, engine.dialect)}`);
        // Column names, not row objects: a column named __proto__ would not survive as an object key.
        expect(got.length).toBe(1);
        // The result's alias must not be the column's name: ClickHouse resolves a WHERE name to a SELECT alias first.
        const alias = s === 'v' ? 'w' : 'v';
        const [back] = await engine.rows(`SELECT ${sqlString(name, engine.dialect)} AS ${alias} FROM (SELECT 1 AS ${sqlIdentifier(s, engine.dialect)}) WHERE ${sqlIdentifier(s, engine.dialect)} = 1`);
        expect(back![alias]).toBe(name);
      }), { numRuns: 300 });
    });
  });
}

describe('the job scope', () => {
  // firewall_events exists in both scopes; only account jobs have ZoneName (and websocket_analytics differs wholly).
  const zoneName = JSON.stringify({ where: { key: 'ZoneName', operator: 'eq', value: 'example.com' } });
  const accountId = JSON.stringify({ where: { key: 'accountId', operator: 'gt', value: 7 } });

  it('checks and types the filter with the scope\'s catalog, as the Logpush checker does', () => {
    // Without a scope the zone catalog is read first: ZoneName is not a field there.
    expect(logFilterToSql(zoneName, { dataset: 'firewall_events' }).sql).toBeUndefined();
    expect(logFilterToSql(zoneName, { dataset: 'firewall_events', scope: 'zone' }).diagnostics.map((d) => d.code)).toContain('filter-unknown-field');
    expect(logFilterToSql(zoneName, { dataset: 'firewall_events', scope: 'account' }).sql).toContain('$."ZoneName"');
    const cols = logFilterToSql(accountId, { dataset: 'websocket_analytics', scope: 'account', columns: true, dialect: 'clickhouse' });
    expect(cols.diagnostics).toEqual([]);
    // An int column: compared as a number, no type test left.
    expect(cols.sql).toBe("COALESCE(`accountId` IS NOT NULL AND COALESCE((`accountId` > toFloat64('7')), FALSE), FALSE)");
    expect(logFilterToSql(accountId, { dataset: 'websocket_analytics', scope: 'zone', columns: true }).sql).toBeUndefined();
  });
});
