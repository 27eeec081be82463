/**
 * Every SQL dialect (src/sql/dialects/) against its own engine, through the client rulekit runs it with
 * (`openEngine`): each object implements the whole `Dialect` interface, and each member's SQL does on the
 * engine what the interface says, on generated values (hostile strings, JSON values of every type, arrays,
 * addresses, files with blank and broken lines). A new dialect is held to the same properties by its line
 * in the dialect table and a client in `openEngine`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIpAddress } from '../../src/net/index.js';
import { openEngine, withQueryRoom, type SqlRunner } from '../../src/simulation/sql-runner.js';
import { DIALECTS, hasLoneSurrogate, SQL_DIALECTS, type CanonicalJsonSql, type Dialect, type FlowColumnTypes, type JsonValueSql, type SourceSql, type SqlDialect } from '../../src/sql/index.js';
import { HOSTILE } from '../helpers/logfilter-arbitraries.js';
import { ipish } from '../helpers/sql-flows.js';
import { mutationRun } from '../helpers/tools.js';

const RUNS = Number(process.env.SQL_RUNS ?? 60);

/**
 * The interface's members and what each is, written so that the compiler holds this list equal to the
 * interface (a member added to `Dialect` and not here, or the reverse, fails the typecheck).
 */
type Kind = 'string' | 'function' | 'boolean' | 'object';
const DIALECT_MEMBERS = {
  name: 'string', title: 'string', string: 'function', identifier: 'function', flowTypes: 'object', double: 'function', toInt64: 'function', holdsFieldType: 'function',
  nullUnless: 'function', firstOf: 'function', andThen: 'function', bitAnd: 'function', contains: 'function', startsWith: 'function',
  endsWith: 'function', like: 'function', regexpFullMatch: 'function', regexpRemoveAll: 'function', toText: 'function', jsonHasKeyLower: 'function', anyElement: 'function', arrayPresent: 'function', nullableArrays: 'boolean', countIf: 'function',
  lowestIf: 'function', mergeLowestIf: 'function', emptyInt64Array: 'string', json: 'function', jsonKeys: 'function', ip: 'object', source: 'object',
  eagerSettings: 'object',
  querySizeSettings: 'function',
  canonicalJson: 'function',
} as const satisfies Record<keyof Dialect, Kind>;
/** Members a dialect may leave out (a cheaper reading some engines have). */
const OPTIONAL_MEMBERS: readonly (keyof Dialect)[] = ['canonicalJson'];
const CANONICAL_MEMBERS = { present: 'string', text: 'string', stringJson: 'function', num: 'string', stringTest: 'function' } as const satisfies Record<keyof CanonicalJsonSql, Kind>;
const SOURCE_MEMBERS = {
  lineColumn: 'string', lineText: 'string', lineHash: 'string', objectLines: 'function', memberColumns: 'function', columnJson: 'function', parquet: 'function', parquetPositions: 'function', linePositions: 'function', describeParquet: 'function', rowJson: 'function',
  rowNumber: 'string', readInOrder: 'function', readOrderTable: 'function', keepNumbering: 'function', nativeIpText: 'function', lineMembers: 'function', lineValues: 'function', memberMaps: 'function',
} as const satisfies Record<keyof SourceSql, Kind>;
const JSON_MEMBERS = {
  isString: 'string', isNumber: 'string', isBool: 'string', isArray: 'string', present: 'string', has: 'string', text: 'string', num: 'string',
  boolTrue: 'string', bool: 'string', some: 'function',
} as const satisfies Record<keyof JsonValueSql, Kind>;
const IP_MEMBERS = { isAddress: 'function', inRanges: 'function', compare: 'function', keys: 'object' } as const satisfies Record<keyof Dialect['ip'], Kind>;
const IP_KEY_MEMBERS = { of: 'function', isAddress: 'function', inRanges: 'function', compare: 'function' } as const satisfies Record<keyof Dialect['ip']['keys'], Kind>;
const TYPE_MEMBERS = { Int: 'string', String: 'string', Ip: 'string', Bool: 'string' } as const satisfies Record<keyof FlowColumnTypes, Kind>;

function kinds(o: object): Record<string, string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v]));
}

describe('the dialect table', () => {
  it('names every dialect by its own name', () => {
    expect(SQL_DIALECTS).toEqual(Object.keys(DIALECTS));
    for (const [name, d] of Object.entries(DIALECTS)) expect(d.name).toBe(name);
  });

  it('holds objects that implement the whole interface, nothing more', () => {
    for (const d of Object.values(DIALECTS)) {
      const members: Record<string, string> = { ...DIALECT_MEMBERS };
      for (const m of OPTIONAL_MEMBERS) if (!(m in d)) delete members[m];
      expect(kinds(d), d.name).toEqual(members);
      if (d.canonicalJson) expect(kinds(d.canonicalJson('c', true)), `${d.name}.canonicalJson`).toEqual(CANONICAL_MEMBERS);
      expect(kinds(d.source), `${d.name}.source`).toEqual(SOURCE_MEMBERS);
      expect(kinds(d.ip), `${d.name}.ip`).toEqual(IP_MEMBERS);
      expect(kinds(d.ip.keys), `${d.name}.ip.keys`).toEqual(IP_KEY_MEMBERS);
      expect(kinds(d.flowTypes), `${d.name}.flowTypes`).toEqual(TYPE_MEMBERS);
      expect(kinds(d.json('c', 'k')), `${d.name}.json`).toEqual(JSON_MEMBERS);
      expect(d.title).not.toBe('');
    }
  });
});

/** A value read back from an engine: 64-bit integers arrive as text from ClickHouse, bigint from DuckDB. */
const num = (v: unknown) => (v === null ? null : Number(v));
function bool(v: unknown): boolean | null {
  if (v === null) return null;
  if (v === true || v === 1 || v === '1') return true;
  if (v === false || v === 0 || v === '0') return false;
  throw new Error(`not a boolean: ${JSON.stringify(v)}`);
}

/** Under mutation testing chdb is left out (it crashes in Stryker's worker threads; see test/helpers/sql-engines.ts). */
const ENGINES = SQL_DIALECTS.filter((name) => !(mutationRun() && name === 'clickhouse'));

for (const name of ENGINES) {
  const d: Dialect = DIALECTS[name as SqlDialect];
  describe(`the ${d.title} dialect on its engine`, () => {
    let run: SqlRunner;
    const dir = mkdtempSync(join(tmpdir(), `rulekit-dialect-${name}-`));
    beforeAll(async () => {
      run = await openEngine(name);
    });
    afterAll(async () => {
      await run?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const one = async (sql: string) => (await run.rows(`SELECT ${sql} AS v`))[0]!['v'];

    it('quotes any string and any name so that the engine reads them back', async () => {
      const text = fc.oneof(fc.constantFrom(...HOSTILE, '\0', 'a\0b', "\\'", '`', '"'), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: fc.constantFrom('\\', "'", '"', '`', '\0', ';', '-', 'a', '\n'), maxLength: 10 }));
      await fc.assert(fc.asyncProperty(text, async (s) => {
        if (hasLoneSurrogate(s)) return;
        expect(await one(d.string(s))).toBe(s);
        const clean = s.replace(/\0/g, '');
        if (clean === '') return;
        const alias = clean === 'v' ? 'w' : 'v';
        const [r] = await run.rows(`SELECT ${d.identifier(s)} + 1 AS ${alias} FROM (SELECT 1 AS ${d.identifier(s)}) AS rulekit_t`);
        expect(num(r![alias])).toBe(2);
      }), { numRuns: RUNS });
    });

    it('parses a query of 300 KB with the settings the dialect gives for its length', async () => {
      // An array of 100k literals: wide, not deep, and past ClickHouse's default 256 KiB parse limit, as a
      // large ruleset's summary is.
      const sql = `SELECT length([${Array.from({ length: 100_000 }, (_, i) => String(i % 10)).join(', ')}]) AS v`;
      expect(sql.length).toBeGreaterThan(262_144);
      const [r] = await run.rows(withQueryRoom(sql, '', d));
      expect(num(r!['v'])).toBe(100_000);
    });

    it('writes numbers as DOUBLE and 64-bit integers exactly', async () => {
      await fc.assert(fc.asyncProperty(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), async (x, i) => {
        const [r] = await run.rows(`SELECT ${d.double(x)} AS x, ${d.toInt64(d.double(i))} AS i`);
        expect(Number(r!['x'])).toBe(x === 0 ? 0 : x);
        expect(num(r!['i'])).toBe(i);
      }), { numRuns: RUNS });
    });

    it('writes conditionals: NULL unless, the first branch that holds, a lazy AND', async () => {
      await fc.assert(fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean(), async (conds, a, b) => {
        const first = conds.indexOf(true);
        const B = (x: boolean) => (x ? 'TRUE' : 'FALSE');
        const [r] = await run.rows(`SELECT ${d.firstOf(conds.map((c, i) => [B(c), String(i)] as const), '-1')} AS f, ${d.nullUnless(B(a), '7')} AS n, ${d.andThen(B(a), B(b))} AS t`);
        expect([num(r!['f']), num(r!['n']), bool(r!['t'])]).toEqual([first, a ? 7 : null, a && b]);
      }), { numRuns: RUNS });
    });

    it('tests text and integers as JavaScript does', async () => {
      const text = fc.string({ unit: fc.constantFrom('a', 'b', '%', '_', '\\', 'é', '😀'), maxLength: 6 });
      // A part of the text (by code points) half the time, so that the tests hold as often as they fail.
      const textAndPart = fc.oneof(fc.tuple(text, text), text.chain((s) => fc.tuple(fc.nat([...s].length), fc.nat([...s].length)).map(([i, j]): [string, string] => [s, [...s].slice(Math.min(i, j), Math.max(i, j)).join('')])));
      await fc.assert(fc.asyncProperty(textAndPart, fc.array(text, { minLength: 1, maxLength: 3 }), fc.nat(2 ** 40), fc.nat(2 ** 40), async ([s, part], pieces, x, y) => {
        // A LIKE pattern as the expression writer makes one: literal pieces joined by `%`.
        const pattern = pieces.map((p) => p.replace(/[\\%_]/g, (c) => '\\' + c)).join('%');
        const re = new RegExp(`^${pieces.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'su');
        const [r] = await run.rows(`SELECT ${d.contains(d.string(s), d.string(part))} AS c, ${d.startsWith(d.string(s), d.string(part))} AS sw, ${d.endsWith(d.string(s), d.string(part))} AS ew, ${d.like(d.string(s), d.string(pattern))} AS l, ${d.bitAnd(String(x), String(y))} AS b`);
        expect([bool(r!['c']), bool(r!['sw']), bool(r!['ew']), bool(r!['l']), num(r!['b'])]).toEqual([s.includes(part), s.startsWith(part), s.endsWith(part), re.test(s), Number(BigInt(x) & BigInt(y))]);
      }), { numRuns: RUNS });
    });

    it('matches and removes RE2 patterns, writes integers as text and finds JSON keys by their lower-case name, as JavaScript does', async () => {
      const text = fc.string({ unit: fc.constantFrom('a', 'B', '1', ' ', '\t', ';', '\n', 'é', '\u00a0', '\\', "'"), maxLength: 8 });
      // Patterns of the kinds src/sql/requests.ts writes: classes, anchors, alternation, (?s).
      const patterns: [string, RegExp, RegExp][] = [
        ['[a-zA-Z0-9]{2}', /^[a-zA-Z0-9]{2}$/, /[a-zA-Z0-9]{2}/g],
        ['[\\x00-\\x7F]*', /^[\x00-\x7F]*$/, /[\x00-\x7F]+/g],
        ['^[\\t ]+|[\\t ]+$', /^(?:^[\t ]+|[\t ]+$)$/, /^[\t ]+|[\t ]+$/g],
        ['(?s);.*', /^;[\s\S]*$/, /;[\s\S]*/g],
      ];
      await fc.assert(fc.asyncProperty(text, fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), fc.constantFrom(...patterns), fc.constantFrom('User-Agent', 'user-agent', 'USER-AGENT', 'x'), async (s, n, [re2, full, all], key) => {
        const json = d.string(JSON.stringify({ [key]: 1, nested: { [key]: 2 } }));
        const [r] = await run.rows(`SELECT ${d.regexpFullMatch(d.string(s), re2)} AS m, ${d.regexpRemoveAll(d.string(s), re2)} AS r, ${d.toText(d.toInt64(String(n)))} AS t, ${d.jsonHasKeyLower(json, undefined, 'user-agent')} AS k, ${d.jsonHasKeyLower(json, 'nested', 'user-agent')} AS kn`);
        const has = key.toLowerCase() === 'user-agent';
        expect([bool(r!['m']), r!['r'], r!['t'], bool(r!['k']), bool(r!['kn'])]).toEqual([full.test(s), s.replace(all, ''), String(n), has, has]);
      }), { numRuns: RUNS });
    });

    it('scans arrays, and reads an empty array as present exactly when arrays can be NULL', async () => {
      await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 5 }), async (xs, x) => {
        expect(bool(await one(d.anyElement(`[${xs.join(', ')}]`, (e) => `${e} = ${x}`)))).toBe(xs.includes(x));
      }), { numRuns: RUNS });
      expect(bool(await one(d.arrayPresent(d.emptyInt64Array)))).toBe(d.nullableArrays);
    });

    it('counts and lists the lowest values where a condition holds', async () => {
      await fc.assert(fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 4 }), async (flags, n) => {
        // The rows as JSON objects in one text, read with the dialect's own JSON functions.
        const rows = flags.map((f, i) => `SELECT ${i} AS rn, ${f ? 'TRUE' : 'FALSE'} AS f`).join(' UNION ALL ');
        const [r] = await run.rows(`SELECT ${d.countIf('f')} AS c, ${d.lowestIf('rn', n, 'f')} AS low, ${d.emptyInt64Array} AS none FROM (${rows}) AS t`);
        const held = flags.flatMap((f, i) => (f ? [i] : []));
        expect([num(r!['c']), (r!['low'] as unknown[]).map(num), r!['none']]).toEqual([held.length, held.slice(0, n), []]);
        // The same lowest values from groups of rows: each group's lowest, then merged.
        const [m] = await run.rows(`SELECT ${d.mergeLowestIf('low', n, 'g >= 0')} AS low FROM (SELECT g, ${d.lowestIf('rn', n, 'f')} AS low FROM (SELECT rn, rn % 3 AS g, f FROM (${rows}) AS t0) AS t GROUP BY g) AS groups`);
        expect((m!['low'] as unknown[]).map(num)).toEqual(held.slice(0, n));
      }), { numRuns: RUNS });
    });

    it('reads JSON members with their JSON type, as JavaScript reads them', async () => {
      const value = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -1e6, max: 1e6 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), fc.string({ maxLength: 4 }), fc.array(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b')), { maxLength: 3 }));
      await fc.assert(fc.asyncProperty(fc.option(value, { nil: undefined }), fc.constantFrom(1, 'a'), async (v, wanted) => {
        const text = JSON.stringify(v === undefined ? { other: 1 } : { k: v });
        const x = d.json(d.string(text), 'k');
        const wantedTest = (e: JsonValueSql) => (typeof wanted === 'number' ? `(${e.isNumber} AND ${e.num} = ${wanted})` : `(${e.isString} AND ${e.text} = ${d.string(wanted)})`);
        const [r] = await run.rows(`SELECT ${[x.isString, x.isNumber, x.isBool, x.isArray, x.present, x.has].map((t, i) => `COALESCE(${t}, FALSE) AS t${i}`).join(', ')}, ${d.nullUnless(x.isString, x.text)} AS text, ${d.nullUnless(x.isNumber, x.num)} AS num, ${d.nullUnless(x.isBool, x.bool)} AS b, COALESCE(${d.nullUnless(x.isBool, x.boolTrue)}, FALSE) AS bt, ${d.nullUnless(x.isArray, x.some(wantedTest))} AS some`);
        const isNum = typeof v === 'number';
        expect([0, 1, 2, 3, 4, 5].map((i) => bool(r![`t${i}`]))).toEqual([typeof v === 'string', isNum, typeof v === 'boolean', Array.isArray(v), v !== undefined && v !== null, v !== undefined]);
        expect(r!['text']).toBe(typeof v === 'string' ? v : null);
        expect(num(r!['num'])).toBe(isNum ? (v as number) + 0 : null);
        expect(bool(r!['b'])).toBe(typeof v === 'boolean' ? v : null);
        expect(bool(r!['bt'])).toBe(v === true);
        expect(bool(r!['some'])).toBe(Array.isArray(v) ? (v as unknown[]).includes(wanted) : null);
      }), { numRuns: RUNS });
    });

    it('lists the member names of JSON objects', async () => {
      await fc.assert(fc.asyncProperty(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }).filter((k) => !hasLoneSurrogate(k)), { maxLength: 4 }), async (keys) => {
        const text = JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, i])));
        const got = await run.rows(`SELECT ${d.jsonKeys(`j`)} AS k FROM (SELECT ${d.string(text)} AS j) AS t`);
        expect(got.map((r) => r['k']).sort()).toEqual([...keys].sort());
      }), { numRuns: RUNS });
    });

    it('reads addresses with rulekit\'s strict rules', async () => {
      await fc.assert(fc.asyncProperty(ipish, ipish, async (text, other) => {
        const a = parseIpAddress(text);
        const b = parseIpAddress(other);
        const ranges = b ? [{ first: b, last: b }] : [];
        const [r] = await run.rows(`SELECT COALESCE(${d.ip.isAddress(d.string(text))}, FALSE) AS is, COALESCE(${d.ip.inRanges(d.string(text), ranges)}, FALSE) AS inside${b ? `, COALESCE(${d.ip.compare(d.string(text), '<', b)}, FALSE) AS below` : ''}`);
        expect(bool(r!['is'])).toBe(a !== undefined);
        const same = !!a && !!b && a.family === b.family && a.bytes.every((x, i) => x === b.bytes[i]);
        expect(bool(r!['inside'])).toBe(same);
        if (b) {
          const below = !!a && a.family === b.family && Buffer.compare(Buffer.from(a.bytes), Buffer.from(b.bytes)) < 0;
          expect(bool(r!['below'])).toBe(below);
        }
      }), { numRuns: RUNS });
    });

    it('reads NDJSON object lines and Parquet rows, numbered in file order', async () => {
      const ndjson = join(dir, 'flows.ndjson');
      writeFileSync(ndjson, ['{"a":1}', '', 'not json', '[1,2]', '"text"', '{"b":"x"}', '{"a":3,"c":null}', ''].join('\n'));
      const s = d.source;
      const lines = await run.rows(`SELECT ${s.rowNumber} AS rn, ${s.lineText} AS line FROM ${s.objectLines([ndjson])}${s.readInOrder('lines')}`);
      expect(lines.map((r) => [num(r['rn']), JSON.parse(String(r['line']))])).toEqual([[0, { a: 1 }], [1, { b: 'x' }], [2, { a: 3, c: null }]]);
      const sample = await run.rows(`SELECT ${s.lineText} AS line FROM ${s.objectLines([ndjson], 2)}`);
      expect(sample.length).toBe(2);
      const keys = await run.rows(`SELECT DISTINCT ${d.jsonKeys(s.lineColumn)} AS k FROM ${s.objectLines([ndjson])}`);
      expect(keys.map((r) => r['k']).sort()).toEqual(['a', 'b', 'c']);
      // A numbered relation filtered on its numbers keeps them.
      const numbered = `(SELECT ${s.rowNumber} AS rn, ${s.lineText} AS line FROM ${s.objectLines([ndjson])}) AS flows`;
      const kept = await run.rows(`SELECT rn, line FROM ${s.keepNumbering(numbered)} WHERE rn IN (2)${s.readInOrder('lines')}`);
      expect(kept.map((r) => [num(r['rn']), JSON.parse(String(r['line']))])).toEqual([[2, { a: 3, c: null }]]);
      // A read-order table numbers the rows it stores by their place in read order.
      const table = s.readOrderTable('rulekit_test_rows');
      if (table) {
        await run.rows(table.create(`SELECT ${s.lineText} AS line FROM ${s.objectLines([ndjson, ndjson])}`));
        const stored = await run.rows(`SELECT rn, line FROM ${table.numbered} ORDER BY rn`);
        await run.rows(table.drop);
        expect(stored.map((r) => [num(r['rn']), JSON.parse(String(r['line']))])).toEqual([{ a: 1 }, { b: 'x' }, { a: 3, c: null }, { a: 1 }, { b: 'x' }, { a: 3, c: null }].map((v, i) => [i, v]));
      }

      // Parquet written by DuckDB, which every engine here reads.
      const parquet = join(dir, 'flows.parquet');
      const duck = await openEngine('duckdb');
      try {
        await duck.rows(`COPY (SELECT * FROM (VALUES (1, 'x'), (2, NULL), (3, 'z')) AS t(a, b)) TO ${DIALECTS.duckdb.string(parquet)} (FORMAT parquet)`);
      } finally {
        await duck.close();
      }
      const described = await run.rows(s.describeParquet([parquet]));
      expect(described.map((r) => String(r['column_name'] ?? r['name']))).toEqual(['a', 'b']);
      const p = s.parquet([parquet, parquet]);
      const rows = await run.rows(`SELECT ${s.rowNumber} AS rn, ${p.rowJson} AS packet FROM ${p.from}${s.readInOrder('rows')}`);
      expect(rows.map((r) => [num(r['rn']), JSON.parse(String(r['packet']))])).toEqual([0, 1, 2, 3, 4, 5].map((i) => [i, { a: (i % 3) + 1, b: ['x', null, 'z'][i % 3] }]));
    });

    it('reads NDJSON lines as one JSON value per member, missing and null not present', async () => {
      const ndjson = join(dir, 'members.ndjson');
      writeFileSync(ndjson, ['{"a":1,"b":"x","line":[1,"y"]}', '', '{"a":null,"c":true}', '{"b":"\\u00e9\\"","a":2.5}'].join('\n') + '\n');
      const members = ['a', 'b', 'line'];
      const x = (m: string) => d.json(d.identifier(m));
      const got = await run.rows(`SELECT ${members.flatMap((m, i) => [`COALESCE(${x(m).present}, FALSE) AS p${i}`, `${d.nullUnless(x(m).isString, x(m).text)} AS s${i}`, `${d.nullUnless(x(m).isNumber, x(m).num)} AS n${i}`, `COALESCE(${x(m).isArray}, FALSE) AS a${i}`]).join(', ')} FROM ${d.source.memberColumns([ndjson], members)} AS t`);
      const row = (r: Record<string, unknown>) => members.map((_, i) => [bool(r[`p${i}`]), r[`s${i}`], num(r[`n${i}`]), bool(r[`a${i}`])]);
      expect(got.map(row)).toEqual([
        [[true, null, 1, false], [true, 'x', null, false], [true, null, null, true]],
        [[false, null, null, false], [false, null, null, false], [false, null, null, false]],
        [[true, null, 2.5, false], [true, 'é"', null, false], [false, null, null, false]],
      ]);
    });

    it('reads a column\'s value as one JSON value, NULL and no column not present', async () => {
      const x = (v: string) => d.json(d.source.columnJson(v));
      const cols = [`${d.string('a"é')}`, '42', 'NULL', 'true', '[1, 2]'];
      const [r] = await run.rows(`SELECT ${cols.map((c, i) => `COALESCE(${x(c).present}, FALSE) AS p${i}, COALESCE(${x(c).isString}, FALSE) AS s${i}, COALESCE(${x(c).isNumber}, FALSE) AS n${i}, COALESCE(${x(c).isBool}, FALSE) AS b${i}, COALESCE(${x(c).isArray}, FALSE) AS a${i}`).join(', ')}, ${x(cols[0]!).text} AS text, COALESCE(${d.json(d.source.columnJson()).present}, FALSE) AS none`);
      expect(cols.map((_, i) => ['p', 's', 'n', 'b', 'a'].map((k) => bool(r![`${k}${i}`])))).toEqual([
        [true, true, false, false, false], [true, false, true, false, false], [false, false, false, false, false], [true, false, false, true, false], [true, false, false, false, true],
      ]);
      expect([r!['text'], bool(r!['none'])]).toEqual(['a"é', false]);
    });

    it('says which column types hold a catalog type\'s values', () => {
      const [int, text, ints] = name === 'duckdb' ? ['BIGINT', 'VARCHAR', 'BIGINT[]'] : ['Nullable(Int64)', 'LowCardinality(Nullable(String))', 'Array(Nullable(Int64))'];
      expect([d.holdsFieldType(int, 'int'), d.holdsFieldType(int, 'int_or_string'), d.holdsFieldType(text, 'string'), d.holdsFieldType(ints, 'array_int')]).toEqual([true, true, true, true]);
      const [float32, ubig] = name === 'duckdb' ? ['FLOAT', 'UBIGINT'] : ['Float32', 'UInt64'];
      expect([d.holdsFieldType(text, 'int'), d.holdsFieldType(float32, 'float'), d.holdsFieldType(ubig, 'int'), d.holdsFieldType(int, 'string'), d.holdsFieldType(int, 'object')]).toEqual([false, false, false, false, false]);
    });

    it('writes named columns of a row as a JSON object, and reads the engine\'s own address types as text', async () => {
      const [r] = await run.rows(`SELECT ${d.source.rowJson(['a', 'b c'])} AS j FROM (SELECT 1 AS ${d.identifier('a')}, ${d.string('x')} AS ${d.identifier('b c')}) AS t`);
      expect(JSON.parse(String(r!['j']))).toEqual({ a: 1, 'b c': 'x' });
      expect(d.source.nativeIpText('c', d.flowTypes.Ip)).toBeUndefined();
    });
  });
}
