/**
 * `rulekit logfilter` writes its text and JSON reports in bounded memory (src/cli/logfilter-report.ts),
 * with the bytes the reports had when they were built from a record kept per line: the outputs below are
 * compared with those of that build (their SHA-256, recorded from main's dist/ before the change; set
 * RULEKIT_REFERENCE_CLI=/path/to/dist/bundle/cli.js to compare with a build's output directly and print the
 * digests to record).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { logfilterCommand } from '../../src/cli/logfilter.js';
import { HEAD_ROWS } from '../../src/cli/logfilter-report.js';

const CLI = join(__dirname, '../../dist/bundle/cli.js');
const JOB = join(__dirname, '../../examples/errors.job.json');
const REFERENCE = process.env['RULEKIT_REFERENCE_CLI'];

/**
 * Log lines of every kind the command meets: kept and dropped, a field null or absent, a key with an escape
 * (the scanner leaves it to JSON.parse), not JSON, not an object, blank, not UTF-8, CRLF, longer than a
 * text row shows, non-ASCII. 3000 lines: under HEAD_ROWS (the text report's column width is the last
 * line's), and with --explain more JSON than the report holds in memory (its entries go to a spool file).
 */
function mixedLines(n: number): Buffer {
  const parts: Buffer[] = [];
  let seed = 7;
  const rnd = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % k);
  const hosts = ['www.example.com', 'health.example.com', 'api.example.com'];
  const countries = ['de', 'fr', 'us', 'jp'];
  for (let i = 0; i < n; i++) {
    const status = [200, 404, 500, 503][rnd(4)];
    const host = hosts[rnd(3)];
    const country = countries[rnd(4)];
    let line: string | Buffer;
    switch (i % 23) {
      case 3: line = `{"EdgeResponseStatus":${status},"ClientRequestHost":null}`; break;
      case 5: line = `{"ClientRequestHost":"${host}"}`; break;
      case 7: line = `{"Edge\\u0052esponseStatus":503,"ClientRequestHost":"${host}","ClientCountry":"${country}"}`; break;
      case 9: line = `{"EdgeResponseStatus":`; break;
      case 11: line = `[1,2]`; break;
      case 13: line = `   `; break;
      case 15: line = Buffer.concat([Buffer.from(`{"EdgeResponseStatus":503,"ClientRequestHost":"`), Buffer.from([0xff, 0xfe]), Buffer.from(`"}`)]); break;
      case 17: line = `{"EdgeResponseStatus":${status},"ClientRequestHost":"${host}"}\r`; break;
      case 19: line = `{"EdgeResponseStatus":${status},"ClientRequestHost":"${host}","ClientCountry":"${country}","RayID":"${'ab'.repeat(60)}"}`; break;
      case 21: line = `{"EdgeResponseStatus":${status},"ClientRequestHost":"café.example.com","ClientCountry":"${country}"}`; break;
      default: line = `{"EdgeResponseStatus":${status},"ClientRequestHost":"${host}","ClientCountry":"${country}","EdgeStartTimestamp":${1700000000 + i}}`;
    }
    parts.push(typeof line === 'string' ? Buffer.from(line) : line, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rulekit-logfilter-streaming-'));
  const mixed = mixedLines(3000);
  writeFileSync(join(dir, 'mixed.ndjson'), mixed);
  writeFileSync(join(dir, 'mixed.ndjson.gz'), gzipSync(mixed));
  writeFileSync(join(dir, 'empty.ndjson'), '');
  writeFileSync(join(dir, 'invalid.ndjson'), 'nope\n[1]\n');
  writeFileSync(join(dir, 'none.json'), '{"dataset":"http_requests"}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(filter: string, lines: string, format: 'text' | 'json', explain: boolean): Promise<{ out: string; code: number }> {
  let out = '';
  const code = await logfilterCommand(filter, lines, { format, explain, color: false }, (s) => void (out += s), () => {});
  return { out, code };
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** [filter, lines, format, explain, the digest of the output of the build that kept a record per line]. */
const CASES: [string, string, 'text' | 'json', boolean, string][] = [
  ['job', 'mixed.ndjson', 'json', false, '19aaab31ba6eacc4'],
  ['job', 'mixed.ndjson', 'json', true, '7a9369ef412fc69c'],
  ['job', 'mixed.ndjson', 'text', false, '720e5c3998febb37'],
  ['job', 'mixed.ndjson', 'text', true, '42e340b55fa24d0e'],
  ['job', 'mixed.ndjson.gz', 'json', false, 'c0af02a99e4cf9bd'],
  ['none', 'mixed.ndjson', 'json', true, '859f677a451067be'],
  ['job', 'empty.ndjson', 'json', false, '780a7f03593cd71a'],
  ['job', 'empty.ndjson', 'text', false, 'a9889ecfbb889657'],
  ['job', 'invalid.ndjson', 'json', true, 'efd4d8dce1523097'],
];

describe('logfilter reports: the same bytes as when a record was kept per line', () => {
  it.each(CASES)('%s %s --format %s (explain: %s)', async (f, lines, format, explain, digest) => {
    const filter = f === 'job' ? JOB : join(dir, 'none.json');
    const { out, code } = await run(filter, join(dir, lines), format, explain);
    expect(code).toBe(lines === 'empty.ndjson' ? 0 : 1);
    if (format === 'json') expect(JSON.stringify(JSON.parse(out), null, 2) + '\n').toBe(out);
    if (REFERENCE) {
      const ref = spawnSync(process.execPath, [REFERENCE, 'logfilter', filter, join(dir, lines), '--format', format, ...(explain ? ['--explain'] : [])], { encoding: 'utf8', maxBuffer: 1 << 28 });
      console.log(`${f} ${lines} ${format} ${explain}: '${sha(ref.stdout)}'`);
      expect(out).toBe(ref.stdout);
    } else expect(sha(out)).toBe(digest);
  });

  it('a JSON report past the spool threshold reads as the whole document', async () => {
    const { out } = await run(JOB, join(dir, 'mixed.ndjson'), 'json', true);
    expect(out.length).toBeGreaterThan(1 << 20);
    const doc = JSON.parse(out) as { counts: { lines: number; invalid: number }; lines: { line: number }[]; invalid: unknown[] };
    expect(doc.lines.length).toBe(doc.counts.lines);
    expect(doc.invalid.length).toBe(doc.counts.invalid);
    expect(doc.lines.map((l) => l.line)).toEqual([...doc.lines.map((l) => l.line)].sort((a, b) => a - b));
  });

  it(`a text report past ${HEAD_ROWS} rows is streamed with a 7-wide line column`, async () => {
    const file = join(dir, 'long.ndjson');
    writeFileSync(file, '{"EdgeResponseStatus":503}\n'.repeat(HEAD_ROWS + 10));
    const { out } = await run(JOB, file, 'text', false);
    const rows = out.split('\n');
    expect(rows[1]).toBe('line       1  dropped  {"EdgeResponseStatus":503}');
    expect(rows[HEAD_ROWS + 10]).toBe(`line    ${HEAD_ROWS + 10}  dropped  {"EdgeResponseStatus":503}`);
    expect(rows.at(-2)).toBe(`${HEAD_ROWS + 10} line(s): 0 kept (would be pushed), ${HEAD_ROWS + 10} dropped`);
  });
});

/**
 * Memory stays flat whatever the number of lines: 400k lines under a 20 MB heap. This guards against a
 * report that keeps something per line until the end: the build that kept a row per line for text and
 * an entry per line for json (main before the reports streamed) dies here of "heap out of memory" in
 * text and json; ndjson always streamed and is run for comparison.
 */
describe('logfilter in a 20 MB heap', () => {
  let big: string;
  beforeAll(() => {
    big = join(dir, 'big.ndjson');
    const one = (i: number) => `{"EdgeResponseStatus":${i % 7 ? 200 : 503},"ClientRequestHost":"h${i % 13}.example.com"}\n`;
    writeFileSync(big, Array.from({ length: 400_000 }, (_, i) => one(i)).join(''));
  });
  it.each(['text', 'json', 'ndjson'])('--format %s', (format) => {
    const r = spawnSync(process.execPath, ['--max-old-space-size=20', CLI, 'logfilter', JOB, big, '--format', format], { encoding: 'utf8', maxBuffer: 1 << 27 });
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.status).toBe(0);
    const summary = '400000 line(s): 57143 kept (would be pushed), 342857 dropped';
    if (format === 'text') expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(summary);
    if (format === 'json') expect(JSON.parse(r.stdout).counts).toEqual({ lines: 400000, kept: 57143, dropped: 342857, invalid: 0 });
    if (format === 'ndjson') expect(r.stdout.split('\n').length - 1).toBe(57143);
  }, 60_000);
});
