/**
 * Network rule expressions as SQL, proven against the compiled matcher on DuckDB and on ClickHouse
 * (chdb): generated expressions over generated flow rows (missing fields, edge values, hostile strings,
 * IPv4-mapped IPv6, CIDR edges, text that is nearly an address), row by row. Expressions with no exact
 * SQL form must say so with `sql-no-exact-form`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/expression/index.js';
import { isIpAddressText } from '../../src/net/index.js';
import { dialectOf, expressionToSql, ipTextColumn, IPV4_PATTERN, IPV6_PATTERN, keyedAddresses, sqlIdentifier, sqlString } from '../../src/sql/index.js';
import { NETWORK_FIELDS } from '../../src/expression/index.js';
import { expression, ipItem, LISTS, packet } from '../expression/arbitraries.js';
import { FLOW_COLUMNS, flowRow, ipish } from '../helpers/sql-flows.js';
import { bool, describeSkippedEngines, duckdbEngine, SQL_ENGINES, relation, type Engine } from '../helpers/sql-engines.js';

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 200 : 100));
const flowPacket = fc.tuple(packet, fc.option(ipish), fc.option(ipish)).map(([p, s, d]) => ({ ...p, ...(s !== null ? { 'ip.src': s } : {}), ...(d !== null ? { 'ip.dst': d } : {}) }));

/** Address fields, read by the flow source as text and then keyed (keyedAddresses). */
const IP_FIELDS = NETWORK_FIELDS.filter((f) => f.type === 'Ip');
const IP_NAMES = new Set(IP_FIELDS.map((f) => f.name));
const TEXT_COLUMNS = FLOW_COLUMNS.map(([n, d, c]) => [IP_NAMES.has(n) ? ipTextColumn(n) : n, d, c] as [string, string, string]);

describeSkippedEngines('network expressions');
for (const make of SQL_ENGINES) {
  describe(`network expressions on ${make === duckdbEngine ? 'DuckDB' : 'ClickHouse (chdb)'}`, () => {
    let engine: Engine;
    const q = (n: string) => sqlIdentifier(n, engine.dialect);
    /** The rows with each address's keys computed once (as simulate --engine reads flows), and the option that compares them. */
    const keyed = (rows: readonly Record<string, unknown>[]) => {
      const texts = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [IP_NAMES.has(k) ? ipTextColumn(k) : k, v])));
      const inner = relation(texts, TEXT_COLUMNS, engine.dialect, q);
      // relation() gives `(…) AS t` or `(VALUES …) AS t(…)`: a subquery of its own for keyedAddresses.
      return keyedAddresses(dialectOf(engine.dialect), IP_FIELDS, `(SELECT * FROM ${inner})`, 'k');
    };
    /** The expression over plain rows and over keyed rows: both must give the matcher's answers. */
    const both = async (text: string, rows: readonly Record<string, unknown>[], lists: NonNullable<Parameters<typeof expressionToSql>[1]>['lists'], plain: string): Promise<boolean[][]> => {
      const k = keyed(rows);
      const withKeys = expressionToSql(text, { dialect: engine.dialect, lists, ipKeys: k.ipKeys }).sql!;
      const a = await engine.rows(`SELECT i, ${plain} AS m FROM ${relation(rows, FLOW_COLUMNS, engine.dialect, q)} ORDER BY i`);
      const b = await engine.rows(`SELECT i, ${withKeys} AS m FROM ${k.from} ORDER BY i`);
      return [a.map((r) => bool(r['m'])), b.map((r) => bool(r['m']))];
    };
    beforeAll(async () => {
      engine = await make();
    });
    afterAll(() => engine?.close());

    it('the address guards accept exactly what rulekit reads as an address', async () => {
      await fc.assert(fc.asyncProperty(fc.array(ipish, { minLength: 1, maxLength: 20 }), async (texts) => {
        const fn = engine.dialect === 'duckdb' ? 'regexp_full_match' : 'match';
        const got = await engine.rows(`SELECT i, ${fn}(a, ${sqlString(IPV4_PATTERN, engine.dialect)}) OR ${fn}(a, ${sqlString(IPV6_PATTERN, engine.dialect)}) AS ok FROM ${relation(texts.map((a) => ({ a })), [['a', 'VARCHAR', 'String']], engine.dialect, q)} ORDER BY i`);
        expect(got.map((r) => bool(r['ok']))).toEqual(texts.map((t) => isIpAddressText(t)));
      }), { numRuns: 60 });
    });

    it('match exactly the packets the compiled matcher matches', async () => {
      let compared = 0;
      let refused = 0;
      await fc.assert(fc.asyncProperty(expression, fc.array(flowPacket, { minLength: 1, maxLength: 10 }), async (text, packets) => {
        const compiled = compileExpression(text, { lists: LISTS });
        if (!compiled.matcher) return;
        const sql = expressionToSql(text, { dialect: engine.dialect, lists: LISTS });
        if (!sql.sql) {
          expect(sql.diagnostics.map((d) => d.code)).toContain('sql-no-exact-form');
          expect(text).toMatch(/matches|wildcard|bit_slice|<|>/);
          refused++;
          return;
        }
        const rows = packets.map(flowRow);
        const [plain, withKeys] = await both(text, rows, LISTS, sql.sql);
        const want = rows.map((r) => compiled.matcher!(r));
        expect(plain).toEqual(want);
        expect(withKeys, 'over address keys').toEqual(want);
        compared += rows.length;
      }), { numRuns: RUNS });
      expect(compared).toBeGreaterThan(RUNS);
      expect(refused).toBeLessThan(RUNS);
    });

    it('order strings by UTF-8 bytes as the evaluators do, past U+E000 and beyond the BMP too', async () => {
      const values = ['a', '\uE000', '\uE001', '\uFFFF', '😀', '𝄞', 'zz', ''];
      const rows = values.map((v) => flowRow({ 'cf.colo.name': v }));
      for (const literal of ['\uE000', '😀', '\uFFFF', '𝄞']) {
        for (const op of ['<', '<=', '>', '>=']) {
          const text = `cf.colo.name ${op} ${JSON.stringify(literal)}`;
          const compiled = compileExpression(text);
          const sql = expressionToSql(text, { dialect: engine.dialect });
          expect(sql.diagnostics, text).toEqual([]);
          const got = await engine.rows(`SELECT i, ${sql.sql} AS m FROM ${relation(rows, FLOW_COLUMNS, engine.dialect, q)} ORDER BY i`);
          expect(got.map((r) => bool(r['m'])), text).toEqual(rows.map((r) => compiled.matcher!(r)));
        }
      }
    });

    it('long lists (arrays of ranges the engine scans) match as the matcher does', async () => {
      let compared = 0;
      await fc.assert(fc.asyncProperty(fc.array(ipItem, { minLength: 17, maxLength: 60 }), fc.array(flowPacket, { minLength: 1, maxLength: 10 }), async (items, packets) => {
        const lists = { long: items };
        const text = 'ip.src in $long or not ip.dst in $long';
        const compiled = compileExpression(text, { lists });
        if (!compiled.matcher) return;
        const sql = expressionToSql(text, { dialect: engine.dialect, lists }).sql!;
        const rows = packets.map(flowRow);
        const [plain, withKeys] = await both(text, rows, lists, sql);
        const want = rows.map((r) => compiled.matcher!(r));
        expect(plain).toEqual(want);
        expect(withKeys, 'over address keys').toEqual(want);
        compared++;
      }), { numRuns: 40 });
      // Generated items are valid list items: nearly every run compares.
      expect(compared).toBeGreaterThan(30);
    });

    it('a missing field makes != false and its negation true', async () => {
      const sql = expressionToSql('tcp.dstport != 80 or ip.src != 10.0.0.1 or ip.proto != "tcp"', { dialect: engine.dialect }).sql!;
      const got = await engine.rows(`SELECT i, ${sql} AS m, NOT ${sql} AS n FROM ${relation([{}, { 'tcp.dstport': 80 }], FLOW_COLUMNS, engine.dialect, q)} ORDER BY i`);
      expect(got.map((r) => [bool(r['m']), bool(r['n'])])).toEqual([[false, true], [false, true]]);
    });
  });
}
