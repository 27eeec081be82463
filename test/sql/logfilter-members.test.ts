/**
 * Member mode over NDJSON written in every JSON spelling, held to the matcher line by line: DuckDB reads
 * each member's canonical text (Dialect.canonicalJson), so the same value must match however the line
 * spells it — escapes of any kind in strings (`"G\u0045T"`), numbers in every form (`5e2`, `500.0`, `-0`,
 * past 2^53 and 2^64, `1e400`), strings that look like numbers, `null`, nested objects and arrays — and a
 * value of another type must not. And the engine's own writer: `to_json` of a string is the text its JSON
 * reader keeps for that string however the line escapes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLogFilter } from '../../src/logpush/index.js';
import { dialectOf, hasLoneSurrogate, logFilterToSql } from '../../src/sql/index.js';
import { FIELDS, HOSTILE, jsonStringText, jsonValueText, nodeArb, strVal } from '../helpers/logfilter-arbitraries.js';
import { bool, duckdbEngine, type Engine } from '../helpers/sql-engines.js';

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 200 : 100));
const d = dialectOf('duckdb');
const INDEX = 'rulekit_index';
const fields = [...new Set(Object.values(FIELDS).flat())];

function lone(v: unknown): boolean {
  if (typeof v === 'string') return hasLoneSurrogate(v);
  if (Array.isArray(v)) return v.some(lone);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => hasLoneSurrogate(k) || lone(x));
  return false;
}

/** The operands' integers (logfilter-arbitraries' intVal) in other JSON spellings of the same number. */
const SPELLINGS: Record<number, string[]> = {
  [-1]: ['-1', '-1.0', '-1e0', '-10E-1', '-0.1e1'],
  0: ['0', '-0', '0.0', '-0.0', '0e0', '0E+5', '-0e-5'],
  1: ['1', '1.0', '1e0', '10e-1', '0.1E1', '1.00000000000000000001'],
  5: ['5', '5.0', '5e0', '50E-1', '0.5e1'],
  500: ['500', '5e2', '5E+2', '500.0', '5000e-1', '500.00000000000000001'],
  1700000000: ['1700000000', '1.7e9', '17E8', '1700000000.0'],
};
const spelledNumber = fc.constantFrom(...Object.values(SPELLINGS).flat(), '9007199254740993', '18446744073709551616', '-9223372036854775809', '1e400', '-1e400', '1e-400', '123456789012345678901234567890');
/**
 * A JSON string literal of `s`, each code point written as is, as `\uXXXX` or as a short escape, in turn by
 * `how` (jsonStringText): a pair's halves alike, as read_json wants them (it refuses an escaped high
 * surrogate before a raw low one, which JSON.parse joins; such a file is counted in JSON mode).
 */
function spell(s: string, how: readonly number[]): string {
  return `"${[...s].map((cp, i) => jsonStringText(cp, how.length ? [how[i % how.length]!] : []).slice(1, -1)).join('')}"`;
}

/** Short strings and the operands' strings, each code point written as is, as `\uXXXX` or as a short escape. */
const spelledString = fc.tuple(fc.oneof(strVal, fc.constantFrom('GET', 'us', 'de', '500', '5e2', '-0', 'true', 'null', ...HOSTILE)), fc.array(fc.nat(5), { maxLength: 8 })).map(([s, how]) => spell(s, how));
const memberText = fc.oneof(
  { weight: 4, arbitrary: spelledString },
  { weight: 3, arbitrary: spelledNumber },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null') },
  { weight: 2, arbitrary: jsonValueText },
  { weight: 1, arbitrary: fc.array(fc.oneof(spelledString, spelledNumber), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`) },
  { weight: 1, arbitrary: fc.tuple(spelledString, fc.oneof(spelledString, spelledNumber)).map(([k, v]) => `{${k}:${v}}`) },
);
/**
 * Clauses whose operands also occur in the text of values of other types (`5` in `500`, `tr` in `true`,
 * `{`, `"`), so that a test reading the text where it should read a string's value shows.
 */
const TEXTUAL = ['', '5', '50', '500', '0', '-', '.', 'e', 'E', '+', 'tr', 'true', 'null', 'fal', '{', '[', '"', '\\', ':', 'u00', 'GET', 'G'];
const targetedClause = fc.oneof(
  fc.record({ key: fc.constantFrom(...FIELDS.string, ...FIELDS.int_or_string), operator: fc.constantFrom('contains', '!contains', 'startsWith', '!startsWith', 'endsWith', '!endsWith', 'eq', '!eq'), value: fc.constantFrom(...TEXTUAL) }),
  fc.record({ key: fc.constantFrom(...FIELDS.string, ...FIELDS.int_or_string), operator: fc.constantFrom('in', '!in'), value: fc.array(fc.constantFrom(...TEXTUAL), { maxLength: 4 }) }),
  fc.record({ key: fc.constantFrom(...FIELDS.int, ...FIELDS.int_or_string), operator: fc.constantFrom('eq', '!eq', 'lt', 'leq', 'gt', 'geq'), value: fc.constantFrom(-1, 0, 1, 5, 500, 1700000000) }),
);
const filterArb = fc.oneof(nodeArb, targetedClause, fc.array(targetedClause, { minLength: 1, maxLength: 3 }).map((and) => ({ or: and })));

/** A line as text: some of the filter's fields, each spelled some way; kept when JSON.parse reads it. */
const lineTextArb = fc.dictionary(fc.constantFrom(...fields), memberText, { maxKeys: fields.length }).map((members) => Object.entries(members));

let engine: Engine;
let dir: string;
beforeAll(async () => {
  engine = await duckdbEngine();
  dir = mkdtempSync(join(tmpdir(), 'rulekit-members-text-'));
});
afterAll(() => {
  engine?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('DuckDB member mode over lines in any JSON spelling', () => {
  it('matches exactly the lines the compiled matcher matches', async () => {
    let compared = 0;
    let file = 0;
    await fc.assert(fc.asyncProperty(filterArb, fc.array(lineTextArb, { minLength: 1, maxLength: 12 }), async (where, raw) => {
      const text = JSON.stringify({ where });
      const compiled = compileLogFilter(text, { dataset: 'http_requests' });
      if (!compiled.matcher) return;
      const sql = logFilterToSql(text, { dialect: 'duckdb', jsonColumns: true, engineWrittenJson: true });
      if (!sql.sql) {
        expect(lone(where)).toBe(true);
        return;
      }
      const lines: { text: string; value: Record<string, unknown> }[] = [];
      for (const members of raw) {
        const body = `{${[...members, [JSON.stringify(INDEX), String(lines.length)]].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
        let value: Record<string, unknown>;
        try {
          value = JSON.parse(body) as Record<string, unknown>;
        } catch {
          continue;
        }
        if (!lone(value)) lines.push({ text: body, value });
      }
      if (!lines.length) return;
      const path = join(dir, `lines-${file++}.ndjson`);
      writeFileSync(path, lines.map((l) => l.text).join('\n') + '\n');
      let got: Record<string, unknown>[];
      try {
        got = await engine.rows(`SELECT ${d.json(d.identifier(INDEX)).num} AS i, ${sql.sql} AS m FROM ${d.source.memberColumns([path], [...fields, INDEX])} AS lines ORDER BY i`);
      } catch (e) {
        // jsonValueText's strings escape code units one by one; a pair half escaped, half raw is refused (see spell).
        if (/(no low|invalid high) surrogate/.test(String(e))) return;
        throw e;
      }
      expect(got.map((r) => bool(r['m']))).toEqual(lines.map((l) => compiled.matcher!(l.value)));
      compared += lines.length;
    }), { numRuns: RUNS });
    expect(compared).toBeGreaterThan(200);
  });

  it('to_json of a string is the text the JSON reader keeps for it, however the line escapes it', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.oneof(strVal, fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 4 })), fc.array(fc.nat(5), { maxLength: 8 })), { minLength: 1, maxLength: 10 }), async (pairs) => {
      const usable = pairs.filter(([s]) => !hasLoneSurrogate(s));
      if (!usable.length) return;
      const path = join(dir, `strings-${Date.now()}-${Math.random()}.ndjson`);
      writeFileSync(path, usable.map(([s, how], i) => `{"s":${spell(s, how)},"i":${i}}`).join('\n') + '\n');
      const k = d.canonicalJson!('s', true);
      const i = d.json(d.identifier('i')).num;
      const got = await engine.rows(`SELECT CASE ${usable.map(([s], n) => `WHEN ${i} = ${n} THEN ${k.text} = ${k.stringJson(s)}`).join(' ')} END AS m FROM ${d.source.memberColumns([path], ['s', 'i'])} AS lines ORDER BY ${i}`);
      expect(got.map((r) => r['m'])).toEqual(usable.map(() => true));
    }), { numRuns: RUNS });
  });

  it('reads a number\'s text as a DOUBLE and every other value\'s as NULL', async () => {
    const texts = ['"503"', '"5e2"', 'true', 'false', '{"a":500}', '[500]', '"\\u0035\\u0030\\u0030"', '500', '5e2', '-0', '1e400', '18446744073709551616'];
    const path = join(dir, 'types.ndjson');
    writeFileSync(path, texts.map((t, i) => `{"v":${t},"i":${i}}`).join('\n') + '\n' + '{"v":null,"i":12}\n{"i":13}\n');
    const k = d.canonicalJson!('v', true);
    const got = await engine.rows(`SELECT ${k.num} AS n, ${k.present} AS p FROM ${d.source.memberColumns([path], ['v', 'i'])} AS lines ORDER BY ${d.json(d.identifier('i')).num}`);
    expect(got.map((r) => r['n'])).toEqual([null, null, null, null, null, null, null, 500, 500, 0, Infinity, 18446744073709552000, null, null]);
    expect(got.map((r) => r['p'] === true)).toEqual([...texts.map(() => true), false, false]);
    // A JSON null DuckDB wrote as a value (json(), or to_json of a JSON column holding one) is not present either.
    const nulls = await engine.rows(`SELECT ${k.present} AS p, ${k.num} AS n FROM (SELECT json('null') AS v UNION ALL SELECT to_json(CAST('null' AS JSON)))`);
    expect(nulls).toEqual([{ p: false, n: null }, { p: false, n: null }]);
  });

  it('JSON columns cast from text as it is (not written by the engine) are written again before their text is read', async () => {
    // A table of JSON columns a user made from text: each value spelled as a line may spell it.
    const rows = [['"G\\u0045T"', '5e2', '"u\\u0073"'], ['"GET"', '500.0', '"us"'], ['"get"', '"500"', '"de"'], ['"G\\u0045T"', '4.99e2', '"us"']];
    const text = JSON.stringify({ where: { and: [{ key: 'ClientRequestMethod', operator: 'eq', value: 'GET' }, { key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientCountry', operator: 'in', value: ['us', 'de'] }] } });
    const compiled = compileLogFilter(text, { dataset: 'http_requests' });
    const want = rows.map((r) => compiled.matcher!({ ClientRequestMethod: JSON.parse(r[0]!), EdgeResponseStatus: JSON.parse(r[1]!), ClientCountry: JSON.parse(r[2]!) }));
    expect(want).toEqual([true, true, false, false]);
    const table = `(VALUES ${rows.map((r) => `(${r.map((v) => `CAST(${d.string(v)} AS JSON)`).join(', ')})`).join(', ')}) AS t("ClientRequestMethod", "EdgeResponseStatus", "ClientCountry")`;
    const run = async (engineWrittenJson: boolean) => (await engine.rows(`SELECT ${logFilterToSql(text, { dialect: 'duckdb', jsonColumns: true, engineWrittenJson }).sql} AS m FROM ${table}`)).map((r) => bool(r['m']));
    expect(await run(false)).toEqual(want);
    // Read as the engine's own text, the escaped spellings are missed: why the option says who wrote the columns.
    expect(await run(true)).not.toEqual(want);
  });
});
