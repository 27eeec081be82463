/**
 * The conformance corpus (test/expression/corpus) through DuckDB and ClickHouse (chdb): every valid case
 * with evaluations either compiles to SQL whose answer on each packet is the corpus's, or is refused with
 * `sql-no-exact-form` (regexes, case-insensitive wildcards with letters, bit_slice). Packets holding a value
 * a SQL column cannot (header bytes, a lone surrogate) are left out and counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORK_SCHEME, type SchemeLiteral } from '../../src/expression/index.js';
import { expressionToSql, flowColumnType, flowFields, hasLoneSurrogate, sqlIdentifier } from '../../src/sql/index.js';
import { bool, describeSkippedEngines, duckdbEngine, SQL_ENGINES, relation, type Engine } from '../helpers/sql-engines.js';

interface Case {
  name: string;
  expr: string;
  scheme?: SchemeLiteral;
  lists?: Record<string, string[]>;
  serviceToken?: string;
  valid: boolean;
  evaluations?: { packet: Record<string, unknown>; result: boolean }[];
}
const dir = join(import.meta.dirname, '..', 'expression', 'corpus');
const cases = readdirSync(dir).filter((f) => f.endsWith('.json')).flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { cases: Case[] }).cases.map((c) => ({ ...c, file: f })));

describeSkippedEngines('the conformance corpus');
for (const make of SQL_ENGINES) {
  describe(`the conformance corpus on ${make === duckdbEngine ? 'DuckDB' : 'ClickHouse (chdb)'}`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await make();
    });
    afterAll(() => engine?.close());

    it('every expressible case gives the corpus answer on every packet', async () => {
      let run = 0;
      let packets = 0;
      const refused: string[] = [];
      for (const c of cases) {
        if (!c.valid || !c.evaluations?.length) continue;
        const scheme = c.scheme ? NETWORK_SCHEME.extend(c.scheme) : NETWORK_SCHEME;
        const sql = expressionToSql(c.expr, { dialect: engine.dialect, scheme, lists: c.lists, serviceToken: c.serviceToken, aliasColumns: true });
        if (!sql.sql) {
          expect(sql.diagnostics.map((d) => d.code), `${c.file} / ${c.name}`).toContain('sql-no-exact-form');
          refused.push(c.name);
          continue;
        }
        const fields = flowFields(scheme.fields(), { aliases: true });
        const storable = (p: Record<string, unknown>) => Object.entries(p).every(([k, v]) => !(v instanceof Uint8Array) && !(typeof v === 'string' && hasLoneSurrogate(v)) && !(typeof v === 'number' && !Number.isSafeInteger(v) && scheme.get(k)?.type === 'Int'));
        const evals = c.evaluations.filter((e) => storable(e.packet));
        if (!evals.length) continue;
        const rows = evals.map((e) => Object.fromEntries(fields.map((f) => {
          const v = e.packet[f.name];
          const ok = f.type === 'Int' ? Number.isSafeInteger(v) : f.type === 'Bool' ? typeof v === 'boolean' : typeof v === 'string';
          return [f.name, ok ? v : undefined];
        })));
        const cols = fields.map((f) => [f.name, flowColumnType(f, 'duckdb'), flowColumnType(f, 'clickhouse')] as [string, string, string]);
        const got = await engine.rows(`SELECT i, ${sql.sql} AS m FROM ${relation(rows, cols, engine.dialect, (n) => sqlIdentifier(n, engine.dialect))} ORDER BY i`);
        expect(got.map((r) => bool(r['m'])), `${c.file} / ${c.name}: ${c.expr}\n${sql.sql}`).toEqual(evals.map((e) => e.result));
        run++;
        packets += evals.length;
      }
      expect(run).toBeGreaterThan(100);
      expect(packets).toBeGreaterThan(300);
      // Refusals stay the exception: regexes, caseless wildcards, bit_slice.
      expect(refused.length).toBeLessThan(run / 2);
    });
  });
}
