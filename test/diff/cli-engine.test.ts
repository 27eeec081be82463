/**
 * `rulekit diff --against … --engine duckdb|clickhouse` as built (dist/bundle/cli.js): the example of
 * docs/diff.md prints what the page shows, on both engines and in process; Parquet flows and log lines
 * counted alike on the engines and in process (read by DuckDB); what an engine does not count exits 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlString } from '../../src/sql/index.js';
import { runCli, ROOT } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-engine-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rulekit(args: string[]) {
  return runCli(args, { timeout: 120_000 });
}

async function duckdb(sql: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(sql);
  con.closeSync();
  db.closeSync();
}

const flowsParquet = join(dir, 'flows.parquet');
const linesParquet = join(dir, 'lines.parquet');
const newJob = join(dir, 'errors-4xx.json');
beforeAll(async () => {
  await duckdb(`COPY (SELECT * FROM read_json('examples/flows.ndjson', columns = {"ip.src": 'VARCHAR', "ip.dst": 'VARCHAR', "ip.proto": 'VARCHAR', "tcp.dstport": 'BIGINT', "tcp.flags.syn": 'BOOLEAN', "udp.dstport": 'BIGINT', "icmp.type": 'BIGINT'})) TO ${sqlString(flowsParquet)} (FORMAT parquet)`.replace(/examples\//, `${ROOT}/examples/`));
  await duckdb(`COPY (SELECT * FROM read_json(${sqlString(join(ROOT, 'examples', 'logs.ndjson'))})) TO ${sqlString(linesParquet)} (FORMAT parquet)`);
  writeFileSync(newJob, JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 400 } }));
});

describe('rulekit diff --engine', () => {
  it('prints the example of docs/diff.md, on both engines and in process', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'diff.md'), 'utf8');
    const block = /```\n\$ rulekit diff (examples\/ruleset\.before\.json[^\n]*)\\\n\s+([^\n]*)\n([\s\S]*?)```/.exec(doc);
    expect(block, 'the example in docs/diff.md').not.toBeNull();
    const args = `${block![1]!} ${block![2]!}`.trim().split(/\s+/);
    expect(args).toContain('--engine');
    const shown = block![3]!;
    for (const engine of ['duckdb', 'clickhouse']) {
      const at = args.indexOf('--engine');
      const r = rulekit(['diff', ...args.slice(0, at + 1), engine, ...args.slice(at + 2)]);
      expect(r, engine).toMatchObject({ code: 0, err: '' });
      expect(r.out, engine).toBe(shown);
    }
    const inProcess = rulekit(['diff', ...args.filter((a, i) => a !== '--engine' && args[i - 1] !== '--engine')]);
    expect(inProcess.out).toBe(shown);
  });

  it('counts Parquet flows on the engines and in process alike (JSON)', () => {
    const base = ['diff', 'examples/ruleset.before.json', 'examples/ruleset.json', '--lists', 'examples/lists.json', '--format', 'json', '--against'];
    const want = JSON.parse(rulekit([...base, 'examples/flows.ndjson']).out);
    expect(want.reports[0].counts.changed).toBe(108);
    const figures = (j: { reports: { counts: Record<string, unknown> }[] }) => ({ ...j.reports[0]!.counts, pairs: (j.reports[0]!.counts['pairs'] as { count: number }[]).map((p) => p.count) });
    for (const engine of [[], ['--engine', 'duckdb'], ['--engine', 'clickhouse']]) {
      const r = rulekit([...base, flowsParquet, ...engine]);
      expect(r.code, engine.join(' ')).toBe(0);
      const got = JSON.parse(r.out);
      expect(got.reports[0].counts.changed, engine.join(' ')).toBe(108);
      expect(figures(got).pairs, engine.join(' ')).toEqual(figures(want).pairs);
    }
  });

  it('counts log lines of two filters on the engines as in process (NDJSON and Parquet)', () => {
    const base = ['diff', 'examples/errors.job.json', newJob, '--against'];
    const want = rulekit([...base, 'examples/logs.ndjson']);
    expect(want.code).toBe(0);
    expect(want.out).toMatch(/lines: \d+ of 5 change/);
    for (const engine of ['duckdb', 'clickhouse']) {
      expect(rulekit([...base, 'examples/logs.ndjson', '--engine', engine]).out, engine).toBe(want.out);
      const fromParquet = rulekit([...base, linesParquet, '--engine', engine]);
      expect(fromParquet.out.split('\n').find((l) => l.startsWith('  lines:')), `${engine} Parquet`).toBe(want.out.split('\n').find((l) => l.startsWith('  lines:')));
    }
  });

  it('exits 2 on what an engine does not count', () => {
    const pair = ['diff', 'examples/ruleset.before.json', 'examples/ruleset.json', '--lists', 'examples/lists.json'];
    expect(rulekit([...pair, '--engine', 'duckdb'])).toMatchObject({ code: 2, err: 'rulekit: --engine counts what --against holds: give --against FILE\n' });
    const capture = rulekit([...pair, '--against', 'examples/capture.pcap', '--engine', 'duckdb']);
    expect(capture.code).toBe(2);
    expect(capture.err).toContain('capture, but --engine reads flow rows');
    const http = rulekit(['diff', 'examples/http-waf.before.json', 'examples/http-waf.json', '--against', 'examples/requests.ndjson', '--engine', 'duckdb']);
    expect(http.code).toBe(2);
    expect(http.err).toContain('are not Logpush http_requests lines');
  });
});
