/**
 * Rulesets as SQL, proven against the simulator on DuckDB and ClickHouse (chdb): generated rulesets
 * (block, skip of the current ruleset, plain skip, disabled rules) over generated NDJSON packet lines
 * read into a flow table as the simulator reads them (wrong types, out-of-range ints and non-addresses
 * missing): the deciding rule and verdict per row, and the per-rule summary (matched, decided, examples).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../src/engine/index.js';
import { flowColumnFromJson, flowFields, rulesetSummarySql, rulesetToSql, sqlIdentifier, toSql } from '../../src/sql/index.js';
import { LISTS } from '../expression/arbitraries.js';
import { lineArb, ruleArb } from '../helpers/sql-rulesets.js';
import { describeSkippedEngines, duckdbEngine, SQL_ENGINES, relation, type Engine } from '../helpers/sql-engines.js';

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 120 : 60));

function flows(lines: readonly string[], engine: Engine): string {
  const json = engine.dialect === 'duckdb' ? 'JSON' : 'String';
  const cols = flowFields(undefined, { aliases: true }).map((f) => flowColumnFromJson(f, 'line', engine.dialect)).join(', ');
  return `(SELECT i, ${cols} FROM ${relation(lines.map((line) => ({ line })), [['line', json, json]], engine.dialect, (n) => sqlIdentifier(n, engine.dialect))}) AS flows`;
}

describeSkippedEngines('rulesets');
for (const make of SQL_ENGINES) {
  describe(`rulesets on ${make === duckdbEngine ? 'DuckDB' : 'ClickHouse (chdb)'}`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await make();
    });
    afterAll(() => engine?.close());

    it('decide every row as the simulator does, and summarise as it does', async () => {
      let compared = 0;
      await fc.assert(fc.asyncProperty(fc.array(ruleArb, { minLength: 1, maxLength: 7 }), fc.array(lineArb, { minLength: 1, maxLength: 10 }), async (rules, lines) => {
        const ruleset = { rules };
        const sql = rulesetToSql(ruleset, { dialect: engine.dialect, lists: LISTS, aliasColumns: true });
        if (!sql.sql) {
          expect(sql.diagnostics.map((d) => d.code)).toContain('sql-no-exact-form');
          return;
        }
        const sim = simulate(ruleset, lines.map((l) => JSON.parse(l) as Record<string, unknown>), { lists: LISTS });
        const got = await engine.rows(`SELECT i, ${sql.sql} AS d, ${sql.verdict} AS v FROM ${flows(lines, engine)} ORDER BY i`);
        expect(got.map((r) => [Number(r['d']), r['v']])).toEqual(sim.results.map((r) => [r.decidedBy?.index ?? -1, r.verdict]));
        // Both forms of the summary: every rule on every row, and only the rules a row reaches.
        for (const evaluation of ['eager', 'lazy'] as const) {
          const summary = rulesetSummarySql(ruleset, flows(lines, engine), { dialect: engine.dialect, lists: LISTS, rowNumber: 'i', aliasColumns: true, evaluation });
          const [row] = await engine.rows(summary.sql!);
          const s = sim.summary;
          expect([Number(row!['packets']), Number(row!['blocked']), Number(row!['default_allowed'])], evaluation).toEqual([s.packets, s.verdicts.block, s.defaultAllowed]);
          for (const r of summary.rules!) {
            const want = s.rules[r.index]!;
            expect([Number(row![`matched_${r.index}`]), Number(row![`decided_${r.index}`]), (row![`examples_${r.index}`] as unknown[]).map(Number)], evaluation).toEqual([want.matched, want.decided, want.examples.map((e) => e.index)]);
          }
          // Rules left out match nothing in the simulator either.
          for (const w of s.rules) if (!summary.rules!.some((r) => r.index === w.index)) expect([w.matched, w.decided]).toEqual([0, 0]);
        }
        compared += lines.length;
      }), { numRuns: RUNS });
      expect(compared).toBeGreaterThan(RUNS);
    });

    it('toSql tells a ruleset, a filter and an expression apart', () => {
      expect(toSql({ rules: [{ action: 'block', expression: 'tcp.dstport == 23' }] }, { dialect: engine.dialect }).kind).toBe('ruleset');
      expect(toSql('{"where":{"key":"ClientCountry","operator":"eq","value":"us"}}', { dialect: engine.dialect }).kind).toBe('filter');
      const e = toSql('tcp.dstport == 23', { dialect: engine.dialect });
      expect([e.kind, e.sql]).toEqual(['expression', `COALESCE(${sqlIdentifier('tcp.dstport', engine.dialect)} = 23, FALSE)`]);
    });
  });
}
