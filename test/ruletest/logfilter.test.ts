/**
 * `rulekit logfilter` (the built bundle) on the example job and log lines: which lines would be pushed,
 * counts, --explain naming the clause that decided, gzip input told by its magic bytes, and errors; and
 * the deciding-clause rule itself.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compileLogFilter } from '../../src/logpush/index.js';
import { decideLine, reasonText } from '../../src/ruletest/index.js';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { lineBytes } from '../helpers/logfilter-arbitraries.js';
import { ROOT, runCli } from '../helpers/cli.js';

const JOB = 'examples/errors.job.json';
const LINES = 'examples/logs.ndjson';
const dir = mkdtempSync(join(tmpdir(), 'rulekit-logfilter-'));

function run(args: string[], input?: string | Buffer) {
  return runCli(['logfilter', ...args], { input, timeout: 30_000 });
}

describe('rulekit logfilter', () => {
  it('tells which lines would be pushed, with counts', () => {
    const r = run([JOB, LINES]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const marks = r.out.split('\n').filter((l) => l.startsWith('line ')).map((l) => l.split(/\s+/)[2]);
    expect(marks).toEqual(['kept', 'dropped', 'dropped', 'kept', 'dropped']);
    expect(r.out).toContain('5 line(s): 2 kept (would be pushed), 3 dropped\n');
    // ndjson: the kept lines themselves.
    const kept = run([JOB, LINES, '--format', 'ndjson']).out.trim().split('\n');
    const all = readFileSync(join(ROOT, LINES), 'utf8').trim().split('\n');
    expect(kept).toEqual([all[0], all[3]]);
  });

  it('--explain names the clause that decided each line, and shows every clause', () => {
    const r = run([JOB, LINES, '--explain']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines.find((l) => l.startsWith('line 2'))).toBe('line 2  dropped  EdgeResponseStatus >= 500 failed (line: 200)');
    expect(lines.find((l) => l.startsWith('line 3'))).toBe('line 3  dropped  none held: ClientRequestHost != "health.example.com" (line: "health.example.com"); ClientCountry in ["de", "fr"] (line: "us")');
    expect(lines.find((l) => l.startsWith('line 5'))).toContain('EdgeResponseStatus is absent in the line, so the clause is false');
    expect(r.out).toContain('                   ✓ EdgeResponseStatus >= 500  (line: 503)');
    const json = JSON.parse(run([JOB, LINES, '--explain', '--format', 'json']).out);
    expect(json.counts).toEqual({ lines: 5, kept: 2, dropped: 3, invalid: 0 });
    expect(json.lines[1].decidedBy.map((e: { pointer: string }) => e.pointer)).toEqual(['/where/and/0']);
    expect(json.lines[3].decidedBy.map((e: { pointer: string }) => e.pointer)).toEqual(['/where/and/0', '/where/and/1/or/1']);
  });

  it('reads gzip input, told by its magic bytes whatever the name, and gives the same answer', () => {
    const text = readFileSync(join(ROOT, LINES));
    const gz = join(dir, 'logs.ndjson.gz');
    writeFileSync(gz, gzipSync(text));
    const misnamed = join(dir, 'logs.txt');
    writeFileSync(misnamed, gzipSync(text));
    const plain = run([JOB, LINES, '--explain']).out;
    expect(run([JOB, gz, '--explain']).out).toBe(plain);
    expect(run([JOB, misnamed, '--explain']).out).toBe(plain);
    expect(JSON.parse(run([JOB, gz, '--format', 'json']).out).gzip).toBe(true);
    expect(run([JOB, '-', '--explain'], gzipSync(text)).out).toBe(plain);
    // A file that starts like gzip but is not one: one line, exit 2.
    const broken = join(dir, 'broken.gz');
    writeFileSync(broken, Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]));
    const b = run([JOB, broken]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/^rulekit: .*broken\.gz: starts as gzip but cannot be decompressed/);
  });

  it('a filter document and --dataset; a filter with errors exits 1 with its position; bad lines exit 1', () => {
    const f = join(dir, 'f.json');
    writeFileSync(f, '{"where":{"key":"QueryName","operator":"endsWith","value":".example"}}');
    const r = run([f, '-', '--dataset', 'dns_logs'], '{"QueryName":"a.example"}\n{"QueryName":"b.test"}\n');
    expect(r.code).toBe(0);
    expect(r.out).toContain('1 kept (would be pushed), 1 dropped');
    // The same field is not in http_requests: the filter has an error, at its place.
    const e = run([f, LINES]);
    expect(e.code).toBe(1);
    expect(e.err).toMatch(/f\.json:1:17 \/where\/key: error\[filter-unknown-field\]/);
    const bad = run([JOB, '-'], '{"EdgeResponseStatus":500,"ClientRequestHost":"a"}\nnot json\n[1]\n');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('standard input:2:1: error[invalid-log-line]: not valid JSON');
    expect(bad.err).toContain('standard input:3:1: error[invalid-log-line]: a log line is a JSON object');
    expect(bad.out).toContain('1 line(s): 1 kept (would be pushed), 0 dropped, 2 not a log line');
  });

  it('streams: lines cut anywhere across chunks, CRLF, a BOM, blank lines and bytes that are not UTF-8 are each read as one line would be', () => {
    const all = readFileSync(join(ROOT, LINES), 'utf8').trim().split('\n');
    const want = run([JOB, LINES, '--format', 'ndjson']).out;
    // 40,000 copies of the sample lines (over 3 MB, so over several 1 MiB chunks), CRLF line ends and a BOM.
    const many = Array.from({ length: 40_000 }, (_, i) => all[i % all.length]).join('\r\n');
    const big = join(dir, 'many.ndjson');
    writeFileSync(big, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(many + '\r\n\n  \n')]));
    const r = run([JOB, big, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).counts).toEqual({ lines: 40_000, kept: 16_000, dropped: 24_000, invalid: 0 });
    expect(run([JOB, big, '--format', 'ndjson']).out).toBe(want.repeat(8_000));
    const bad = run([JOB, '-'], Buffer.concat([Buffer.from('{"EdgeResponseStatus":503,"ClientCountry":"de","x":"'), Buffer.from([0xff]), Buffer.from('"}\n')]));
    expect(bad.err).toBe('standard input:1:1: warning[invalid-utf8]: bytes that are not UTF-8, read as U+FFFD\n');
    expect(bad.out).toContain('1 line(s): 1 kept (would be pushed), 0 dropped\n');
  });

  it('gives JSON.parse\'s verdict, warning and error for every line of a file of generated lines, valid or not, across chunks', () => {
    const where = { or: [{ and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 400 }, { key: 'ClientCountry', operator: 'in', value: ['us', 'de', ''] }] }, { key: 'SecurityActions', operator: 'contains', value: 'a' }, { key: 'EdgeStartTimestamp', operator: 'eq', value: 500 }, { key: 'WorkerSubrequest', operator: 'eq', value: true }] };
    const f = join(dir, 'generated.filter.json');
    writeFileSync(f, JSON.stringify({ where }));
    const matcher = compileLogFilter(JSON.stringify({ where }), { dataset: 'http_requests' }).matcher!;
    // No LF inside a line; 2,000 lines, then again and again past several 1 MiB chunks.
    const sample = fc.sample(lineBytes, { numRuns: 2000, seed: 37 }).map((b) => Buffer.from(b.map((x) => (x === 10 ? 32 : x))));
    const lines: Buffer[] = [];
    while (lines.reduce((n, b) => n + b.length + 1, 0) < 3 << 20) lines.push(...sample);
    const path = join(dir, 'generated.ndjson');
    writeFileSync(path, Buffer.concat(lines.flatMap((b) => [b, Buffer.from('\n')])));
    const want = { lines: [] as { line: number; kept: boolean }[], invalid: [] as { line: number; message: string }[], warnings: [] as number[] };
    lines.forEach((b, i) => {
      const line = i + 1;
      const body = b.at(-1) === 13 ? b.subarray(0, -1) : b;
      if (body.every((x) => x === 32 || x === 9 || x === 13)) return;
      if (!isUtf8(body)) want.warnings.push(line);
      let v: unknown;
      try {
        v = JSON.parse(body.toString('utf8'));
      } catch (e) {
        want.invalid.push({ line, message: `not valid JSON (${(e as Error).message})` });
        return;
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v)) want.invalid.push({ line, message: 'a log line is a JSON object' });
      else want.lines.push({ line, kept: matcher(v as Record<string, unknown>) });
    });
    const r = run([f, path, '--format', 'json']);
    const got = JSON.parse(r.out) as { lines: unknown[]; invalid: unknown[] };
    expect(got.lines).toEqual(want.lines);
    expect(got.invalid).toEqual(want.invalid);
    expect(want.lines.filter((l) => l.kept).length).toBeGreaterThan(100);
    const warned = r.err.split('\n').filter((l) => l.includes('warning[invalid-utf8]')).map((l) => Number(l.split(':')[1]));
    expect(warned).toEqual(want.warnings);
  });

  it('bad usage exits 2', () => {
    expect(run([JOB, 'no-such.ndjson']).code).toBe(2);
    expect(run([JOB, LINES, '--dataset', 'nope']).code).toBe(2);
    expect(run(['examples/lists.json', LINES]).code).toBe(2);
    expect(run(['-', '-']).code).toBe(2);
  });
});

describe('the clause that decided', () => {
  const compiled = compileLogFilter(JSON.stringify({ where: { or: [{ and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientCountry', operator: 'eq', value: 'de' }] }, { key: 'ClientRequestHost', operator: 'eq', value: 'x' }] } }), { dataset: 'http_requests' });
  const decide = (line: Record<string, unknown>) => decideLine(compiled.filter, compiled.matcher, line);
  it('a false and: its first false member; a true or: its first true member; all members otherwise', () => {
    expect(decide({ EdgeResponseStatus: 500, ClientCountry: 'de' }).decidedBy.map((e) => e.pointer)).toEqual(['/where/or/0/and/0', '/where/or/0/and/1']);
    expect(decide({ ClientRequestHost: 'x' }).decidedBy.map((e) => e.pointer)).toEqual(['/where/or/1']);
    const dropped = decide({ EdgeResponseStatus: 200, ClientCountry: 'de', ClientRequestHost: 'y' });
    expect(dropped.kept).toBe(false);
    expect(dropped.decidedBy.map((e) => e.pointer)).toEqual(['/where/or/0/and/0', '/where/or/1']);
    expect(reasonText(decide({ ClientRequestHost: 'x' }))).toBe('ClientRequestHost == "x" held (line: "x")');
  });
  it('no filter keeps every line', () => {
    expect(decideLine(undefined, undefined, {}).kept).toBe(true);
  });
});
