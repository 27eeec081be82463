/**
 * The traffic counts of a diff on the SQL engines equal the in-process counts: for generated pairs of
 * rulesets over generated flows (NDJSON with values of the wrong type, NULLs, missing keys, blank and
 * non-object lines between; and the same flows as typed Parquet), on DuckDB and chdb — every figure, the
 * regions and pairs, and the examples; and for generated pairs of Logpush filters over generated log
 * lines (the generators of the filter SQL tests).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { countDiff, countLogFilterDiff, diffLogFilters, diffRulesets, type TrafficDiff } from '../../src/diff/index.js';
import { compileLogFilter } from '../../src/logpush/index.js';
import type { Rule } from '../../src/ruleset/index.js';
import { countDiffOnEngine, countLogFilterDiffOnEngine, type SqlEngineName } from '../../src/simulation/index.js';
import { hasLoneSurrogate } from '../../src/sql/index.js';
import { LISTS } from '../expression/arbitraries.js';
import { lineArb as logLineArb, nodeArb } from '../helpers/logfilter-arbitraries.js';
import { rulesetPairArb, smallPacketArb, smallRuleArb } from '../helpers/rulesets.js';
import { lineArb as flowLineArb, validRuleArb } from '../helpers/sql-rulesets.js';
import { describeSkippedEngines } from '../helpers/sql-engines.js';
import { mutationRun } from '../helpers/tools.js';
import { flowsToParquet as toParquet } from '../helpers/sql-flows.js';

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 30 : 15));
/** chdb is left out under mutation testing only (it crashes in Stryker's worker threads; see sql-engines.ts). */
const ENGINES: SqlEngineName[] = mutationRun() ? ['duckdb'] : ['duckdb', 'clickhouse'];
describeSkippedEngines('diff counts');

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-engine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let file = 0;


/** An object without its null members (an engine reads a NULL back as missing). */
const withoutNulls = (o: unknown) => Object.fromEntries(Object.entries(o as Record<string, unknown>).filter(([, v]) => v !== null));
/** The counts with each example's packet as an engine reads it back (`packets`), or its index only. */
function shown(c: TrafficDiff, packets: boolean) {
  const ex = (es: { index: number; record: unknown }[]) => es.map((e) => (packets ? { index: e.index, record: withoutNulls(e.record) } : e.index));
  return { ...c, regions: c.regions.map((r) => ({ ...r, examples: ex(r.examples) })), pairs: c.pairs.map((p) => ({ ...p, examples: ex(p.examples) })) };
}

/** Packets over the small rules' fields, some values of the wrong type, null or out of range. */
const smallFlowArb = fc.tuple(smallPacketArb, fc.option(fc.constantFrom<[string, unknown]>(['tcp.dstport', '3'], ['tcp.dstport', 70000], ['tcp.dstport', 2.5], ['ip.src', '10.0.0.256'], ['ip.src', 7], ['ip.src.country', 5], ['tcp.flags.syn', 'yes'], ['udp.dstport', null], ['ip.src', null]), { nil: undefined })).map(([p, bad]) => JSON.stringify(bad ? { ...p, [bad[0]]: bad[1] } : p));
const junk = fc.constantFrom('', 'not json', '[1]', '  ', 'null');
const linesOf = (flow: fc.Arbitrary<string>, most: number) => fc.array(fc.oneof({ weight: 8, arbitrary: flow }, { weight: 1, arbitrary: junk }), { minLength: Math.min(20, most), maxLength: most });

/** Pairs over a few fields (many regions, most packets in one), and pairs of any valid rules over any flow fields. */
const mostlyEnabled = fc.tuple(smallRuleArb(), fc.nat(4)).map(([r, n]): Rule => ({ ...r, enabled: n > 0 }));
const cases = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(rulesetPairArb(mostlyEnabled), linesOf(smallFlowArb, 80)) },
  { weight: 1, arbitrary: fc.tuple(rulesetPairArb(validRuleArb, { rules: 5, edits: 2 }), linesOf(flowLineArb, 40)) },
);

describe('diff counts on an engine', () => {
  it('equal the in-process counts, over NDJSON and Parquet, on DuckDB and chdb', async () => {
    let compared = 0;
    let changed = 0;
    let multi = 0;
    await fc.assert(fc.asyncProperty(cases, async ([[oldRules, newRules], lines]: [[Rule[], Rule[]], string[]]) => {
      const ndjson = join(dir, `f${file}.ndjson`);
      const parquet = join(dir, `f${file++}.parquet`);
      writeFileSync(ndjson, lines.join('\n') + '\n');
      const packets = lines.flatMap((l) => {
        try {
          const v = JSON.parse(l) as unknown;
          return v !== null && typeof v === 'object' && !Array.isArray(v) ? [v as Record<string, unknown>] : [];
        } catch {
          return [];
        }
      });
      const old = { rules: oldRules };
      const next = { rules: newRules };
      const diff = diffRulesets(old, next, { lists: LISTS });
      const want = countDiff(old, next, packets, { diff, lists: LISTS });
      await toParquet(ndjson, parquet);
      for (const engine of ENGINES) {
        const got = await countDiffOnEngine(old, next, [ndjson], { engine, diff, lists: LISTS });
        if (!got.ok) {
          // Only a rule without an exact SQL form may stop it, and it says so.
          expect(got.diagnostics.map((d) => d.code), engine).toContain('sql-no-exact-form');
          return;
        }
        expect(shown(got.counts!, true), engine).toEqual(shown(want, true));
        const fromParquet = await countDiffOnEngine(old, next, [parquet], { engine, diff, lists: LISTS });
        expect(shown(fromParquet.counts!, false), `${engine} Parquet`).toEqual(shown(want, false));
        compared++;
      }
      changed += want.changed;
      if (want.regions.length > 1) multi++;
    }), { numRuns: RUNS });
    // Both engines compared on most runs (a rule without an exact SQL form returns early).
    expect(compared).toBeGreaterThanOrEqual(RUNS * ENGINES.length * 0.6);
    // The figures compared are not all zeros: on average several changed packets a run, and some runs
    // with packets in more than one region (attributed by the SQL's region conditions).
    expect(changed).toBeGreaterThan(RUNS * 2);
    expect(multi).toBeGreaterThan(0);
    console.log(`diff counts: ${compared} engine comparisons, ${changed} changed packets, ${multi} runs with several regions`);
  }, 600_000);

  it('of filters equal the in-process counts of log lines, on DuckDB and chdb', async () => {
    const lone = (v: unknown): boolean => (typeof v === 'string' ? hasLoneSurrogate(v) : Array.isArray(v) ? v.some(lone) : !!v && typeof v === 'object' && Object.entries(v).some(([k, x]) => hasLoneSurrogate(k) || lone(x)));
    const filterArb = fc.oneof(
      { weight: 6, arbitrary: nodeArb.map((where) => JSON.stringify({ where })).filter((text) => !!compileLogFilter(text, { dataset: 'http_requests' }).matcher && !lone(JSON.parse(text))) },
      { weight: 1, arbitrary: fc.constant('') },
    );
    const linesArb = fc.array(logLineArb, { minLength: 1, maxLength: 30 }).map((ls) => ls.filter((l) => !lone(l)));
    let compared = 0;
    let changed = 0;
    await fc.assert(fc.asyncProperty(filterArb, filterArb, linesArb, async (oldFilter, newFilter, lines) => {
      const ndjson = join(dir, `l${file++}.ndjson`);
      const texts = lines.map((l) => JSON.stringify(l));
      writeFileSync(ndjson, texts.join('\n') + '\n');
      const parsed = texts.map((t) => JSON.parse(t) as unknown);
      const diff = diffLogFilters(oldFilter, newFilter, 'http_requests');
      const want = countLogFilterDiff(oldFilter, newFilter, 'http_requests', parsed, { diff });
      for (const engine of ENGINES) {
        const got = await countLogFilterDiffOnEngine(oldFilter, newFilter, 'http_requests', [ndjson], { engine, diff });
        if (!got.ok) {
          expect(got.diagnostics.map((d) => d.code), engine).toContain('sql-no-exact-form');
          return;
        }
        expect(got.counts, engine).toEqual(want);
        compared++;
      }
      changed += want.newlyPushed + want.newlyDropped;
    }), { numRuns: RUNS * 2 });
    expect(compared).toBeGreaterThanOrEqual(RUNS * 2 * ENGINES.length * 0.6);
    expect(changed).toBeGreaterThan(RUNS * 2);
    console.log(`filter diff counts: ${compared} engine comparisons, ${changed} changed lines`);
  }, 600_000);
});
