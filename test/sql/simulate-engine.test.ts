/**
 * `rulekit simulate --engine duckdb|clickhouse`: the per-rule summary computed by DuckDB and by chdb over
 * flow files equals the in-process simulator's over the same NDJSON (generated rulesets and packet lines,
 * with blank and non-object lines between them) — the whole summary for NDJSON, and the figures and
 * example packet numbers for the same flows as typed Parquet. The command itself prints the same table.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation, simulateOnEngine } from '../../src/simulation/index.js';
import { examplesByHash } from '../../src/simulation/sql-engine.js';
import { sqlString } from '../../src/sql/index.js';
import type { SimulationSummary } from '../../src/engine/index.js';
import { LISTS } from '../expression/arbitraries.js';
import { lineArb, validRulesArb } from '../helpers/sql-rulesets.js';
import { flowsToParquet as toParquet, invalidValuesByField } from '../helpers/sql-flows.js';
import { CLI } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-simulate-engine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 30 : 15));


const figures = (s: SimulationSummary) => ({ ...s, rules: s.rules.map(({ examples, ...r }) => ({ ...r, examples: examples.map((e) => e.index) })) });

describe('simulate on an engine', () => {
  it('gives the in-process summary on DuckDB and chdb, over NDJSON and Parquet', async () => {
    let run = 0;
    let withInvalid = 0;
    let compared = 0;
    await fc.assert(fc.asyncProperty(validRulesArb, fc.array(fc.oneof({ weight: 8, arbitrary: lineArb }, { weight: 1, arbitrary: fc.constantFrom('', 'not json', '[1]', '  ', 'null') }), { minLength: 1, maxLength: 12 }), fc.nat(), async (rules, lines, cut) => {
      const rulesetText = JSON.stringify({ rules });
      const ndjson = join(dir, `f${run}.ndjson`);
      const parquet = join(dir, `f${run}.parquet`);
      // The same lines in two Parquet files (either may hold no row): numbered on across the files.
      const halves = [0, 1].map((i) => join(dir, `f${run}-${i}.parquet`));
      run++;
      writeFileSync(ndjson, lines.join('\n') + '\n');
      const want = await runSimulation(rulesetText, ndjson, { lists: LISTS, threads: 0 });
      await toParquet(ndjson, parquet);
      const at = cut % (lines.length + 1);
      for (const [i, part] of [lines.slice(0, at), lines.slice(at)].entries()) {
        writeFileSync(`${halves[i]}.ndjson`, part.map((l) => `${l}\n`).join(''));
        await toParquet(`${halves[i]}.ndjson`, halves[i]!);
      }
      for (const engine of ['duckdb', 'clickhouse'] as const) {
        const got = await simulateOnEngine(rulesetText, [ndjson], { engine, lists: LISTS });
        if (!got.ok) {
          // Only a rule without an exact SQL form may stop it, and it says so.
          expect(got.diagnostics.map((d) => d.code)).toContain('sql-no-exact-form');
          return;
        }
        expect(got.summary, engine).toEqual(want.summary);
        compared++;
        // Values taken as missing: the simulator warns of each, the engine counts them per field.
        const wanted = invalidValuesByField(want.diagnostics, true);
        expect(invalidValuesByField(got.diagnostics, false), `${engine} invalid values`).toEqual(wanted);
        if (Object.keys(wanted).length) withInvalid++;
        const fromParquet = await simulateOnEngine(rulesetText, [parquet], { engine, lists: LISTS });
        expect(figures(fromParquet.summary), `${engine} Parquet`).toEqual(figures(want.summary));
        const fromHalves = await simulateOnEngine(rulesetText, halves, { engine, lists: LISTS });
        expect(figures(fromHalves.summary), `${engine} two Parquet files`).toEqual(figures(want.summary));
      }
    }), { numRuns: RUNS });
    // Generated lines hold values the simulator refuses often enough for the counts to be compared.
    expect(withInvalid).toBeGreaterThan(0);
    // Both engines compared on most runs (a ruleset without an exact SQL form returns early): about 1.8 per
    // run on average, so fewer than one per run is a generator gone wrong, not chance.
    expect(compared).toBeGreaterThanOrEqual(RUNS);
  });

  it('numbers packets as in process where the engine decides rows on every thread (files read in many batches)', async () => {
    // 120k lines, ~10 MB, as one file and split over 14 files, which DuckDB reads on every thread at once
    // (it reads one file of this size in one or two batches) and whose decisions it stores in read order.
    // Junk lines (blank, not JSON, not an object) come before examples and among them; one group's
    // only rows are the file's last lines, others have fewer than three rows, one lies in the middle.
    const rulesetText = JSON.stringify({ rules: [
      { action: 'block', expression: 'tcp.dstport == 23' },
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'udp.dstport == 53' },
      { action: 'block', expression: 'ip.dst == 2001:db8::1 or ip.dst in {198.51.100.7}' },
      { action: 'block', expression: 'ip.src in {10.0.0.0/8} and tcp.flags.syn' },
      { action: 'block', expression: 'icmp.type == 8 and ip.ttl < 3' },
    ] });
    const junk = ['', 'not json', '[1]', '  ', 'null', '"x"'];
    const lines: string[] = [...junk];
    for (let i = 0; i < 120_000; i++) {
      if (i % 997 === 0) lines.push(junk[i % junk.length]!);
      const row: Record<string, unknown> = { 'ip.src': `${10 + (i % 3) * 100}.${i % 256}.${(i >> 8) % 256}.1`, 'ip.dst': `192.0.2.${i % 200}`, 'tcp.flags.syn': i % 5 === 0 };
      if (i % 4 === 0) row['udp.dstport'] = i % 40 === 0 ? 53 : 123;
      else row['tcp.dstport'] = 80 + (i % 7);
      if (i % 10_007 === 5) row['tcp.dstport'] = 'telnet'; // not an Int: counted as an invalid value
      if (i === 60_001) row['ip.dst'] = '2001:db8::1';
      if (i === 70_003 || i === 90_001) row['ip.dst'] = '198.51.100.7';
      if (i === 17 || i === 110_017) Object.assign(row, { 'icmp.type': 8, 'ip.ttl': 1 });
      lines.push(JSON.stringify(row));
    }
    lines.push('{"tcp.dstport":23,"ip.src":"192.0.2.9"}', 'not json', '{"tcp.dstport":23,"ip.dst":null}', '');
    const ndjson = join(dir, 'batches.ndjson');
    writeFileSync(ndjson, lines.join('\n') + '\n');
    const parts = Array.from({ length: 14 }, (_, i) => join(dir, `batches-${String(i).padStart(2, '0')}.ndjson`));
    parts.forEach((f, i) => writeFileSync(f, lines.slice(i * 9000, (i + 1) * 9000).map((l) => `${l}\n`).join('')));
    const want = await runSimulation(rulesetText, ndjson, { threads: 0 });
    for (const files of [[ndjson], parts]) {
      const got = await simulateOnEngine(rulesetText, files, { engine: 'duckdb' });
      expect(got.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(got.summary, `${files.length} file(s)`).toEqual(want.summary);
      const examples = Object.fromEntries(got.summary.rules.map((r) => [r.index, r.examples.map((e) => e.index)]));
      expect([examples[0], examples[2], examples[4]]).toEqual([[120_000, 120_001], [60_001, 70_003, 90_001], [17, 110_017]]);
      const invalid = got.diagnostics.filter((d) => d.code === 'simulation-invalid-value').map((d) => [d.data?.['field'], d.data?.['count']]);
      expect(invalid).toEqual([['ip.dst', 1], ['tcp.dstport', 12]]);
    }
  });

  it('rulekit simulate --engine prints the in-process table', () => {
    const ruleset = join(dir, 'rs.json');
    writeFileSync(ruleset, JSON.stringify({ rules: [
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {10.0.0.0/8}', description: 'trusted' },
      { action: 'block', expression: 'tcp.dstport in {23 2323} or udp.dstport == 1900', description: 'telnet, ssdp' },
      { action: 'block', expression: 'ip.src.country == "XX"', enabled: false },
    ] }));
    const flows = join(dir, 'flows.ndjson');
    writeFileSync(flows, ['{"ip.src":"10.1.2.3","tcp.dstport":23}', '{"ip.src":"192.0.2.1","tcp.dstport":23}', '{"ip.src":"192.0.2.1","udp.dstport":1900}', '{"ip.src":"::ffff:10.0.0.1","tcp.dstport":2323}', '{}'].join('\n') + '\n');
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'simulate', ruleset, flows, ...args], { encoding: 'utf8' });
    const here = run();
    expect(here.status).toBe(0);
    expect(here.stdout).toContain('packets 5: allowed 2 (40.0%), blocked 3 (60.0%), allowed by default 1');
    for (const engine of ['duckdb', 'clickhouse']) {
      const there = run('--engine', engine);
      expect(there.stderr).toBe('');
      expect([there.status, there.stdout]).toEqual([0, here.stdout]);
    }
    const bad = run('--engine', 'clickhouse', '--format', 'ndjson');
    expect(bad.status).toBe(2);
    // --geoip and --colo fill packets in this process: refused, naming why.
    const geo = join(dir, 'geo.csv');
    writeFileSync(geo, 'cidr,country,asn\n192.0.2.0/24,DE,64500\n');
    for (const args of [['--geoip', geo], ['--colo', 'AMS']]) {
      const refused = run('--engine', 'duckdb', ...args);
      expect([refused.status, refused.stderr]).toEqual([2, expect.stringContaining(args[0]!)]);
    }
  });

  it('a ruleset reading countries warns, as in process without a country/ASN table', () => {
    const ruleset = join(dir, 'geo-rs.json');
    writeFileSync(ruleset, JSON.stringify({ rules: [{ action: 'block', expression: 'ip.src.country == "DE" or ip.geoip.asnum == 64500' }] }));
    const flows = join(dir, 'geo-flows.ndjson');
    writeFileSync(flows, ['{"ip.src":"192.0.2.1","ip.src.country":"DE"}', '{"ip.src":"192.0.2.2"}', '{"ip.src":"192.0.2.3","ip.src.asnum":64500}'].join('\n') + '\n');
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'simulate', ruleset, flows, ...args], { encoding: 'utf8' });
    const here = run();
    expect(here.stdout).toContain('warning[simulation-no-geoip]');
    expect(here.stdout).toContain('packets 3: allowed 1 (33.3%), blocked 2 (66.7%)');
    for (const engine of ['duckdb', 'clickhouse']) expect(run('--engine', engine).stdout, engine).toBe(here.stdout);
  });
});

describe('example packets found by their lines\' hashes', () => {
  // A runner answering the two queries: the wanted rows' hashes, then the lines holding those hashes.
  const runner = (hashes: Record<number, string>, lines: [h: string, text: string][]) => ({
    rows: async (sql: string) => (sql.includes(' rn IN ') ? Object.entries(hashes).map(([rn, h]) => ({ rn, h })) : lines.map(([h, packet]) => ({ h, packet }))),
    close: async () => {},
  });
  const byHash = { column: 'h', lines: (hs: readonly string[]) => `lines ${hs.join(',')}` };

  it('gives each number its line; equal lines under one hash are one packet', async () => {
    const got = await examplesByHash(runner({ 0: '7', 5: '9', 8: '7' }, [['7', '{"a":1}'], ['9', '{"b":2}'], ['7', '{"a":1}']]), 'stored', byHash, [0, 5, 8]);
    expect(got).toEqual([[0, '{"a":1}'], [5, '{"b":2}'], [8, '{"a":1}']]);
  });

  it('gives up (the caller numbers lines in order) when two different lines share a wanted hash, or one is not found', async () => {
    expect(await examplesByHash(runner({ 0: '7' }, [['7', '{"a":1}'], ['7', '{"a":2}']]), 'stored', byHash, [0])).toBeUndefined();
    expect(await examplesByHash(runner({ 0: '7', 1: '8' }, [['7', '{"a":1}']]), 'stored', byHash, [0, 1])).toBeUndefined();
  });
});

describe('misspelt fields on an engine', () => {
  it('an NDJSON member or a Parquet column named like a field but not one is a warning with the nearest field, on DuckDB and chdb', async () => {
    const rulesetText = JSON.stringify({ rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] });
    const ndjson = join(dir, 'misspelt.ndjson');
    writeFileSync(ndjson, '{"tcp.dst_port": 22, "ip.src": "192.0.2.1"}\n{"tcp.dstport": 22}\n');
    for (const engine of ['duckdb', 'clickhouse'] as const) {
      const got = await simulateOnEngine(rulesetText, [ndjson], { engine });
      expect(got.summary.verdicts, engine).toEqual({ allow: 1, block: 1 });
      const warned = got.diagnostics.filter((d) => d.code === 'simulation-unknown-field');
      expect(warned.map((d) => d.data?.['field']), engine).toEqual(['tcp.dst_port']);
      expect(warned[0]!.message).toContain('did you mean tcp.dstport?');
    }
    // A Parquet column that is no field and looks like none (a timestamp) is not warned of; one that looks like a field is.
    const parquet = join(dir, 'misspelt.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    await con.run(`COPY (SELECT 22::BIGINT AS "tcp.dst_port", 5::BIGINT AS "timestamp") TO ${sqlString(parquet)} (FORMAT parquet)`);
    con.closeSync();
    db.closeSync();
    const got = await simulateOnEngine(rulesetText, [parquet], { engine: 'duckdb' });
    expect(got.diagnostics.filter((d) => d.code === 'simulation-unknown-field').map((d) => d.data?.['field'])).toEqual(['tcp.dst_port']);
  });
});
