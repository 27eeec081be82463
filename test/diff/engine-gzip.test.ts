/**
 * Gzip NDJSON whose name does not say so (`flows.ndjson` compressed), counted with `--engine`: the engines
 * tell compression by the name, the in-process reader by the bytes; the figures must agree, never 0 of 0.
 * As built (dist/bundle/cli.js).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ndjsonCompression } from '../../src/simulation/engine-compression.js';
import { runCli, ROOT } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-engine-gzip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rulekit(args: string[]) {
  return runCli(args, { timeout: 120_000 });
}

const flows = join(dir, 'flows.ndjson');
writeFileSync(flows, gzipSync(readFileSync(join(ROOT, 'examples', 'flows.ndjson'))));
const logs = join(dir, 'logs.ndjson');
writeFileSync(logs, gzipSync(readFileSync(join(ROOT, 'examples', 'logs.ndjson'))));
const newJob = join(dir, 'errors-4xx.json');
writeFileSync(newJob, JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 400 } }));

describe.each(['duckdb', 'clickhouse'])('gzip NDJSON named .ndjson on %s', (engine) => {
  it('diff of rulesets counts the packets the in-process reader counts', () => {
    const base = ['diff', 'examples/ruleset.before.json', 'examples/ruleset.json', '--format', 'json', '--against', flows];
    const want = rulekit(base);
    expect(want.code).toBe(0);
    expect(JSON.parse(want.out).reports[0].counts.changed).toBe(108);
    const got = rulekit([...base, '--engine', engine]);
    expect(got, engine).toMatchObject({ code: 0 });
    expect(JSON.parse(got.out).reports[0].counts).toEqual(JSON.parse(want.out).reports[0].counts);
  });

  it('diff of Logpush filters counts the lines the in-process reader counts', () => {
    const base = ['diff', 'examples/errors.job.json', newJob, '--format', 'json', '--against', logs];
    const want = rulekit(base);
    const got = rulekit([...base, '--engine', engine]);
    expect(got.code, got.err).toBe(want.code);
    const counts = (out: string) => (JSON.parse(out) as { reports: { counts: { lines: number } }[] }).reports[0]!.counts;
    expect(counts(want.out).lines).toBeGreaterThan(0);
    expect(counts(got.out)).toEqual(counts(want.out));
  });

  it('simulate --engine counts the packets', () => {
    const want = rulekit(['simulate', 'examples/ruleset.json', flows, '--format', 'json']);
    const got = rulekit(['simulate', 'examples/ruleset.json', flows, '--engine', engine, '--format', 'json']);
    expect(got.code, got.err).toBe(want.code);
    expect(JSON.parse(got.out).summary.packets).toBe(600);
  });
});

describe('ndjsonCompression', () => {
  it('tells gzip by the bytes, refuses gzip and plain files in one run, leaves globs to the names', async () => {
    const plain = join(ROOT, 'examples', 'flows.ndjson');
    await expect(ndjsonCompression([flows, logs])).resolves.toBe('gzip');
    await expect(ndjsonCompression([plain])).resolves.toBeUndefined();
    await expect(ndjsonCompression([join(dir, '*.ndjson')])).resolves.toBeUndefined();
    await expect(ndjsonCompression([flows, plain])).rejects.toThrow(/flows\.ndjson is gzip and .*examples\/flows\.ndjson is not/);
  });
});
