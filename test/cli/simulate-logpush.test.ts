/**
 * `rulekit simulate` over Logpush `http_requests` lines as a zone stores them — NDJSON, gzip-compressed
 * NDJSON, Parquet (written by DuckDB from the same lines) — and over Parquet flows and gzip-compressed
 * inputs of a network ruleset: every form gives the summary of the plain NDJSON, Parquet's examples
 * numbered by row (a row that is no request is an error naming it, and the rows after it keep their
 * numbers), the same reader as `rulekit diff --against` (one code path: the counts agree). Damaged gzip,
 * Parquet from standard input: an input error, exit 1. Run as a user runs it (dist/bundle/cli.js).
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { readParquetObjects, runSimulation, type SimulationProgress } from '../../src/simulation/index.js';
import { sqlString } from '../../src/sql/index.js';
import { flowsToParquet } from '../helpers/sql-flows.js';
import { ROOT, runCli } from '../helpers/cli.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'http');
const WAF = join(FIXTURES, 'logpush-waf.json');
const LINES = join(FIXTURES, 'logpush-http-requests.ndjson');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-sim-logpush-'));
const linesParquet = join(dir, 'http_requests.parquet');
const linesGz = join(dir, 'http_requests.log.gz');
const gappedParquet = join(dir, 'gapped.parquet');
const flowsParquet = join(dir, 'flows.parquet');

function run(args: string[], input?: Buffer, env: Record<string, string> = {}) {
  return runCli(args, { input, env });
}

async function duckdb(sql: string): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(sql);
  con.closeSync();
  db.closeSync();
}

beforeAll(async () => {
  await duckdb(`COPY (SELECT * FROM read_json_auto(${sqlString(LINES)})) TO ${sqlString(linesParquet)} (FORMAT parquet)`);
  writeFileSync(linesGz, gzipSync(readFileSync(LINES)));
  // Row 2 with none of the request's columns (Parquet has one schema for every row: they are NULL there).
  const gapped = readFileSync(LINES, 'utf8').split('\n');
  gapped[1] = JSON.stringify({ BotScore: 2 });
  writeFileSync(join(dir, 'gapped.ndjson'), gapped.join('\n'));
  await duckdb(`COPY (SELECT * FROM read_json_auto(${sqlString(join(dir, 'gapped.ndjson'))})) TO ${sqlString(gappedParquet)} (FORMAT parquet)`);
  await flowsToParquet(join(ROOT, 'examples', 'flows.ndjson'), flowsParquet);
  writeFileSync(join(dir, 'objects.ndjson'), JSON.stringify({ method: 'POST', url: 'https://shop.example.com/login' }) + '\n');
  await duckdb(`COPY (SELECT * FROM read_json_auto(${sqlString(join(dir, 'objects.ndjson'))})) TO ${sqlString(join(dir, 'objects.parquet'))} (FORMAT parquet)`);
});

describe('rulekit simulate over Logpush http_requests lines', () => {
  it('NDJSON, gzip and Parquet give one summary; a rule reading a field the lines lack is named', () => {
    const plain = run(['simulate', WAF, LINES]);
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/^0\s+block\s+bots posting\s+2\s+2\s+2 4$/m);
    expect(plain.out).toMatch(/^1\s+managed_challenge\s+admin from abroad\s+1\s+1\s+3$/m);
    expect(plain.out).toContain('requests 6: allowed 3 (50.0%), blocked 2 (33.3%), managed_challenge 1 (16.7%), allowed by default 3');
    expect(plain.out).toContain('warning[http-logpush-missing-field] /rules/3/expression: rule 3 reads http.request.body.raw, which 6 of 6 Logpush lines lack');
    // The lines carry their country (ClientCountry): no word of a missing country/ASN table.
    expect(plain.out).not.toContain('simulation-no-geoip');
    expect(run(['simulate', WAF, linesGz])).toEqual(plain);
    const parquet = run(['simulate', WAF, linesParquet]);
    expect(parquet.code).toBe(0);
    // The same table, its examples named by row.
    expect(parquet.out).toBe(plain.out.replace('examples (requests, 1-based)', 'examples (rows, 1-based)  ').replace(/-{28}/, '-'.repeat(24)).replace(/ +$/gm, ''));
  });

  it('Parquet examples are rows: a row that is no request is an error naming it, the rows after it keep their numbers', () => {
    const r = run(['simulate', WAF, gappedParquet]);
    expect(r.code).toBe(1);
    // Row 2 (the first bot's POST) is gone; row 4 is still row 4.
    expect(r.out).toMatch(/^0\s+block\s+bots posting\s+1\s+1\s+4$/m);
    expect(r.out).toMatch(/^1\s+managed_challenge\s+admin from abroad\s+1\s+1\s+3$/m);
    expect(r.out).toContain('error[http-invalid-request]: row 2: not a Logpush http_requests row (a JSON object with ClientRequestHost, ClientRequestMethod…)');
    const lines = run(['simulate', WAF, gappedParquet, '--format', 'ndjson']).out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => 'index' in l).map((l) => [l.index, l.verdict])).toEqual([[0, 'allow'], [2, 'managed_challenge'], [3, 'block'], [4, 'allow'], [5, 'allow']]);
  });

  it('diff --against reads the same files as simulate: its counts over NDJSON, gzip and Parquet agree', () => {
    const old = join(dir, 'waf-old.json');
    const waf = JSON.parse(readFileSync(WAF, 'utf8'));
    writeFileSync(old, JSON.stringify({ ...waf, rules: waf.rules.slice(1) }));
    const counts = (path: string) => JSON.parse(run(['diff', old, WAF, '--against', path, '--format', 'json']).out).reports[0].counts;
    const want = counts(LINES);
    expect(want).toMatchObject({ packets: 6, changed: 2 });
    expect(counts(linesGz)).toEqual(want);
    expect(counts(linesParquet).pairs.map((p: { count: number }) => p.count)).toEqual(want.pairs.map((p: { count: number }) => p.count));
  });

  it('the example of docs/guides/simulating-requests.md prints what the page shows, over the committed Parquet twin of the NDJSON fixture', async () => {
    // The committed Parquet file holds the NDJSON fixture's lines, row for row (DuckDB's COPY … TO … (FORMAT parquet) of read_json_auto).
    const rows = await readParquetObjects([join(FIXTURES, 'logpush-http-requests.parquet')]);
    // Its EdgeStartTimestamp is a TIMESTAMP column, which comes back as zone-less UTC text.
    const utc = (row: Record<string, unknown>) => ({ ...row, EdgeStartTimestamp: new Date(String(row['EdgeStartTimestamp']).replace(' ', 'T').replace(/Z?$/, 'Z')).toISOString() });
    expect(rows.map(utc)).toEqual(readFileSync(LINES, 'utf8').trim().split('\n').map((l) => utc(JSON.parse(l))));
    expect(rows[0]!['EdgeStartTimestamp']).toBe('2026-11-28 09:00:01');
    const page = readFileSync(join(ROOT, 'docs', 'guides', 'simulating-requests.md'), 'utf8');
    const block = /```\n([\s\S]*?)```/.exec(page.slice(page.indexOf('## Logpush http_requests lines')))![1]!;
    const [command, ...output] = block.split('\n');
    const args = command!.replace(/^\$ npx rulekit /, '').split(' ');
    const r = run(args);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(r.out).toBe(output.join('\n'));
  });

  it('a Parquet TIMESTAMP column is UTC, whatever the machine\'s zone', () => {
    const timed = join(dir, 'timed.json');
    writeFileSync(timed, JSON.stringify({ phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: `http.request.timestamp.sec ge ${Date.UTC(2026, 10, 28, 9, 0, 3) / 1000}`, description: 'from 09:00:03Z' }] }));
    for (const TZ of ['UTC', 'America/New_York', 'Asia/Tokyo']) {
      const r = run(['simulate', timed, linesParquet], undefined, { TZ });
      expect(r.out, TZ).toMatch(/^0\s+block\s+from 09:00:03Z\s+4\s+4\s+3 4 5$/m);
    }
  });

  it('--stats names the input and counts requests', () => {
    expect(run(['simulate', WAF, linesParquet, '--stats']).err).toMatch(/^stats: 6 requests in [\d.]+ s = \d+ requests\/s; parquet, objects, 0 worker thread\(s\)/m);
    expect(run(['simulate', WAF, linesGz, '--stats']).err).toMatch(/^stats: 6 requests in [\d.]+ s = \d+ requests\/s; logpush \(gzip\), objects/m);
  });
});

describe('Parquet flows and gzip inputs of a network ruleset', () => {
  const net = ['examples/ruleset.json'];
  const lists = ['--lists', 'examples/lists.json'];
  it('Parquet flows give the NDJSON summary (examples by row); gzip NDJSON and a gzip capture theirs', () => {
    const ndjson = run(['simulate', ...net, 'examples/flows.ndjson', ...lists]);
    expect(ndjson.out).toContain('packets 600:');
    const parquet = run(['simulate', ...net, flowsParquet, ...lists]);
    expect(parquet.code).toBe(0);
    expect(parquet.out.split('\n').slice(2)).toEqual(ndjson.out.split('\n').slice(2));
    expect(parquet.out).toMatch(/^#\s+action\s+rule\s+matched\s+decided\s+examples \(rows, 1-based\)$/m);
    const gz = join(dir, 'flows.ndjson.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(ROOT, 'examples', 'flows.ndjson'))));
    expect(run(['simulate', ...net, gz, ...lists])).toEqual(ndjson);
    const pcap = run(['simulate', ...net, 'examples/capture.pcap', ...lists]);
    const pcapGz = join(dir, 'capture.pcap.gz');
    writeFileSync(pcapGz, gzipSync(readFileSync(join(ROOT, 'examples', 'capture.pcap'))));
    expect(run(['simulate', ...net, pcapGz, ...lists])).toEqual(pcap);
    // From standard input too.
    expect(run(['simulate', ...net, '-', ...lists], readFileSync(gz))).toEqual(ndjson);
  });

  it('diff --against reads gzip NDJSON flows, a gzip capture and Parquet flows as simulate does', () => {
    const diff = (path: string) => run(['diff', 'examples/ruleset.before.json', 'examples/ruleset.json', ...lists, '--against', path]);
    const ndjson = diff('examples/flows.ndjson');
    expect(ndjson.out).toContain('traffic: 108 of 600 packets change');
    const gz = join(dir, 'diff-flows.ndjson.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(ROOT, 'examples', 'flows.ndjson'))));
    expect(diff(gz)).toEqual(ndjson);
    expect(diff(flowsParquet).out).toBe(ndjson.out.replace(/e\.g\. line/g, 'e.g. row'));
    const pcapGz = join(dir, 'diff-capture.pcap.gz');
    writeFileSync(pcapGz, gzipSync(readFileSync(join(ROOT, 'examples', 'capture.pcap'))));
    expect(diff(pcapGz)).toEqual(diff('examples/capture.pcap'));
    const cut = join(dir, 'diff-cut.ndjson.gz');
    writeFileSync(cut, readFileSync(gz).subarray(0, 200));
    const bad = diff(cut);
    expect([bad.code, bad.err]).toEqual([2, expect.stringMatching(/diff-cut\.ndjson\.gz: gzip data that cannot be inflated \(unexpected end of file\)/)]);
  });

  it('damaged gzip and Parquet from standard input are input errors (exit 1)', () => {
    const whole = gzipSync(readFileSync(join(ROOT, 'examples', 'flows.ndjson')));
    const cut = join(dir, 'cut.ndjson.gz');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const r = run(['simulate', ...net, cut, ...lists]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/error\[simulation-unreadable-input\]( at byte \d+)?: .*cut\.ndjson\.gz: gzip data that cannot be inflated after \d+ compressed bytes \(unexpected end of file\); what came before was simulated/);
    // Request rows given to a network ruleset: one error naming the row, the reader closed early.
    const requests = run(['simulate', ...net, linesParquet.replace('http_requests', 'objects'), ...lists]);
    expect(requests.code).toBe(1);
    expect(requests.out).toContain("error[simulation-http-phase] /phase: row 1 is an HTTP request object, but the ruleset's phase (network_transit) reads packets");
    const stdin = run(['simulate', ...net, '-', ...lists], readFileSync(flowsParquet));
    expect(stdin.code).toBe(1);
    expect(stdin.out).toContain('standard input is a Parquet file, which is read from a file (its footer comes last): give its path, not a stream');
  });

  it('progress of Parquet reaches the file size; of gzip, the compressed bytes', async () => {
    const seen: SimulationProgress[] = [];
    const report = await runSimulation(readFileSync(join(ROOT, 'examples', 'ruleset.json'), 'utf8'), flowsParquet, { lists: JSON.parse(readFileSync(join(ROOT, 'examples', 'lists.json'), 'utf8')), progress: (p) => seen.push(p) });
    expect([report.ok, report.input, report.summary.packets]).toEqual([true, 'parquet', 600]);
    expect(seen.at(-1)).toEqual({ bytes: statSync(flowsParquet).size, totalBytes: statSync(flowsParquet).size, packets: 600 });
    const gz = join(dir, 'progress.ndjson.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(ROOT, 'examples', 'flows.ndjson'))));
    const gzSeen: SimulationProgress[] = [];
    const gzReport = await runSimulation('{"rules": []}', gz, { progress: (p) => gzSeen.push(p) });
    expect([gzReport.input, gzReport.bytes, gzReport.summary.packets]).toEqual(['ndjson', statSync(gz).size, 600]);
    expect(gzSeen.at(-1)).toEqual({ bytes: statSync(gz).size, totalBytes: statSync(gz).size, packets: 600 });
  });
});
