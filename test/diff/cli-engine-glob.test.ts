/**
 * `rulekit diff --engine` over a glob of Logpush lines (dist/bundle/cli.js): the rules the lines do not
 * decide (they read a field some lines lack) are named per rule, with the field and the count over every
 * file the engine read, as for one file and in process.
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, ROOT } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-glob-'));
mkdirSync(join(dir, 'logs'));
// examples/http_requests.ndjson (6 lines, one without BotScore), and its last three lines again (the one without BotScore among them).
const lines = readFileSync(join(ROOT, 'examples', 'http_requests.ndjson'), 'utf8').trim().split('\n');
copyFileSync(join(ROOT, 'examples', 'http_requests.ndjson'), join(dir, 'logs', 'a.ndjson'));
writeFileSync(join(dir, 'logs', 'b.ndjson'), lines.slice(3).join('\n') + '\n');
const lacking = lines.filter((l) => !('BotScore' in JSON.parse(l))).length + lines.slice(3).filter((l) => !('BotScore' in JSON.parse(l))).length;

function run(...args: string[]) {
  return runCli(['diff', join(ROOT, 'examples', 'http-waf.before.json'), join(ROOT, 'examples', 'http-waf.json'), ...args], { cwd: dir, timeout: 120_000 });
}

describe('rulekit diff --engine over a glob of Logpush lines', () => {
  it('names each rule the lines do not decide, with the field and the count over all the files (DuckDB)', () => {
    expect(lacking).toBeGreaterThan(1);
    const r = run('--against', 'logs/*.ndjson', '--engine', 'duckdb');
    expect(r.code).toBe(0);
    const undecided = `the old ruleset's rule 0 reads cf.bot_management.score, which ${lacking} of 9 requests lack; the new ruleset's rule 0 reads cf.bot_management.score, which ${lacking} of 9 requests lack`;
    expect(r.out).toContain(`where the input decides the rules; not decided over it: ${undecided}\n`);
    expect(r.err).toContain(`warning: the new ruleset's rule 0 reads cf.bot_management.score, which ${lacking} of 9 Logpush lines lack (Logpush field BotScore): over those lines the rule is not decided by the logs [http-logpush-missing-field]`);
    const json = JSON.parse(run('--against', 'logs/*.ndjson', '--engine', 'duckdb', '--format', 'json').out);
    expect(json.reports[0].undecided).toEqual([
      { side: 'old', rule: 0, field: 'cf.bot_management.score', lines: lacking, of: 9 },
      { side: 'new', rule: 0, field: 'cf.bot_management.score', lines: lacking, of: 9 },
    ]);
  });

  it('the same figures on ClickHouse (chdb)', () => {
    const r = run('--against', 'logs/*.ndjson', '--engine', 'clickhouse');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`not decided over it: the old ruleset's rule 0 reads cf.bot_management.score, which ${lacking} of 9 requests lack`);
  });
});
