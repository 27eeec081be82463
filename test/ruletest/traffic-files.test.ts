/**
 * `rulekit test` capture cases over the traffic files `rulekit simulate` reads, beyond captures: Logpush
 * `http_requests` lines of an HTTP-phase ruleset as NDJSON, gzip and Parquet (examples numbered by row),
 * Parquet flows of a network ruleset. Every form gives the figures of the plain NDJSON; a rule reading a
 * field the lines lack is named in the trace's warnings, not guessed; a file that is no traffic fails its
 * case with the reason; a missing file keeps the test file from running (exit 2).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlString } from '../../src/sql/index.js';
import { flowsToParquet } from '../helpers/sql-flows.js';
import { ROOT, runCli } from '../helpers/cli.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'http');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-ruletest-traffic-'));

function run(args: string[]) {
  return runCli(args, { cwd: dir });
}

beforeAll(async () => {
  copyFileSync(join(FIXTURES, 'logpush-waf.json'), join(dir, 'waf.json'));
  copyFileSync(join(FIXTURES, 'logpush-http-requests.ndjson'), join(dir, 'http_requests.ndjson'));
  writeFileSync(join(dir, 'http_requests.log.gz'), gzipSync(readFileSync(join(dir, 'http_requests.ndjson'))));
  for (const f of ['ruleset.json', 'lists.json']) copyFileSync(join(ROOT, 'examples', f), join(dir, f));
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(`COPY (SELECT * FROM read_json_auto(${sqlString(join(dir, 'http_requests.ndjson'))})) TO ${sqlString(join(dir, 'http_requests.parquet'))} (FORMAT parquet)`);
  con.closeSync();
  db.closeSync();
  await flowsToParquet(join(ROOT, 'examples', 'flows.ndjson'), join(dir, 'flows.parquet'));
});

/** A test file of capture cases over `files`, all expecting the same figures. */
function suite(ruleset: string, files: string[], counts: string): string {
  return [`name: traffic files`, `ruleset: ${ruleset}`, ruleset === 'ruleset.json' ? 'lists: lists.json' : '', 'cases:', ...files.flatMap((f) => [`  - name: ${f}`, `    capture: ${f}`, `    counts: ${counts}`])].join('\n') + '\n';
}

describe('rulekit test over Logpush lines and Parquet', () => {
  it('Logpush http_requests lines as NDJSON, gzip and Parquet: the figures of the requests', () => {
    writeFileSync(join(dir, 'logpush.ruletest.yaml'), suite('waf.json', ['http_requests.ndjson', 'http_requests.log.gz', 'http_requests.parquet'], '{ packets: 6, rules: [{ rule: bots posting, decided: 2 }, { rule: admin from abroad, decided: 1 }, { rule: 2, matched: 1 }] }'));
    const r = run(['test', 'logpush.ruletest.yaml']);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/3 case\(s\) in 1 file\(s\): 3 passed, 0 failed\n$/);
    const json = JSON.parse(run(['test', 'logpush.ruletest.yaml', '--format', 'json']).out);
    const cases = json.suites[0].cases as { name: string; ok: boolean; trace: string[]; detail: { summary: { rules: { matched: number; decided: number }[] } } }[];
    expect(cases.map((c) => c.ok)).toEqual([true, true, true]);
    // One summary for all three forms.
    const figures = cases.map((c) => c.detail.summary.rules.map((x) => [x.matched, x.decided]));
    expect(figures[1]).toEqual(figures[0]);
    expect(figures[2]).toEqual(figures[0]);
    // The rule the logs cannot decide is named in each trace.
    for (const c of cases) expect(c.trace).toContain('warning: rule 3 reads http.request.body.raw, which 6 of 6 Logpush lines lack (no Logpush field of http_requests gives it): over those lines the rule is not decided by the logs [http-logpush-missing-field]');
  });

  it('a figure a rule the lines do not decide could change fails, and the warning shows without --verbose', () => {
    // Rule 3 reads the body, which no Logpush line carries: the service could block more than the lines show.
    writeFileSync(join(dir, 'undecided.ruletest.yaml'), suite('waf.json', ['http_requests.ndjson'], '{ packets: 6, block: 2, rules: [{ rule: bots posting, decided: 2 }] }'));
    const r = run(['test', 'undecided.ruletest.yaml']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('block: expected 2, got 2, but rule(s) #3 "passwords in bodies" are not decided over these lines (see the warning)');
    expect(r.out).not.toMatch(/rule #0 "bots posting" decided: expected/);
    const warning = 'warning: rule 3 reads http.request.body.raw, which 6 of 6 Logpush lines lack (no Logpush field of http_requests gives it): over those lines the rule is not decided by the logs [http-logpush-missing-field]';
    // Shown under a passing case too, without --verbose.
    writeFileSync(join(dir, 'undecided-ok.ruletest.yaml'), suite('waf.json', ['http_requests.ndjson'], '{ packets: 6 }'));
    const ok = run(['test', 'undecided-ok.ruletest.yaml']);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`✓ http_requests.ndjson\n      ${warning}\n`);
    expect(ok.out).not.toContain('trace:');
  });

  it('a wrong figure fails the case with expected against actual', () => {
    writeFileSync(join(dir, 'wrong.ruletest.yaml'), suite('waf.json', ['http_requests.parquet'], '{ packets: 6, block: 3 }'));
    const r = run(['test', 'wrong.ruletest.yaml']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/block: expected 3, got 2/);
  });

  it('Parquet flows of a network ruleset: the NDJSON figures', () => {
    writeFileSync(join(dir, 'flows.ruletest.yaml'), suite('ruleset.json', ['flows.parquet'], '{ packets: 600, block: 229, allow: 371, defaultAllowed: 340, rules: [{ rule: 0, decided: 31 }, { rule: 5, matched: 65 }] }'));
    const r = run(['test', 'flows.ruletest.yaml']);
    expect([r.code, r.err]).toEqual([0, '']);
  });

  it('a file that is no traffic fails its case with the reason; a missing one keeps the file from running', () => {
    writeFileSync(join(dir, 'junk.parquet'), Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64, 7)]));
    writeFileSync(join(dir, 'junk.ruletest.yaml'), suite('waf.json', ['junk.parquet'], '{ packets: 0 }'));
    const junk = run(['test', 'junk.ruletest.yaml']);
    expect(junk.code).toBe(1);
    expect(junk.out).toMatch(/capture: expected a readable capture, got junk\.parquet: DuckDB could not read it as Parquet/);
    writeFileSync(join(dir, 'missing.ruletest.yaml'), suite('waf.json', ['no-such.parquet'], '{ packets: 0 }'));
    const missing = run(['test', 'missing.ruletest.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.err + missing.out).toMatch(/the capture no-such\.parquet: no such file/);
  });
});
