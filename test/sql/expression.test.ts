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
import { expressionToSql, IPV4_PATTERN, IPV6_PATTERN, sqlIdentifier, sqlString } from '../../src/sql/index.js';
import { expression, ipItem, LISTS, packet } from '../expression/arbitraries.js';
import { FLOW_COLUMNS, flowRow, ipish } from '../helpers/sql-flows.js';
import { bool, describeSkippedEngines, duckdbEngine, SQL_ENGINES, relation, type Engine } from '../helpers/sql-engines.js';

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 200 : 100));
const flowPacket = fc.tuple(packet, fc.option(ipish), fc.option(ipish)).map(([p, s, d]) => ({ ...p, ...(s !== null ? { 'ip.src': s } : {}), ...(d !== null ? { 'ip.dst': d } : {}) }));

describeSkippedEngines('network expressions');
for (const make of SQL_ENGINES) {
  describe(`network expressions on ${make === duckdbEngine ? 'DuckDB' : 'ClickHouse (chdb)'}`, () => {
    let engine: Engine;
    const q = (n: string) => sqlIdentifier(n, engine.dialect);
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
        const got = await engine.rows(`SELECT i, ${sql.sql} AS m FROM ${relation(rows, FLOW_COLUMNS, engine.dialect, q)} ORDER BY i`);
        expect(got.map((r) => bool(r['m']))).toEqual(rows.map((r) => compiled.matcher!(r)));
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
        const got = await engine.rows(`SELECT i, ${sql} AS m FROM ${relation(rows, FLOW_COLUMNS, engine.dialect, q)} ORDER BY i`);
        expect(got.map((r) => bool(r['m']))).toEqual(rows.map((r) => compiled.matcher!(r)));
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
