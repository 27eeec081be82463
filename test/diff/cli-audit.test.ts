/**
 * `rulekit diff` as built (dist/bundle/cli.js), on what an outside audit found it answered wrong or not at
 * all: rules that Logpush lines do not decide, Terraform Logpush jobs, the line of an expression that is
 * not a literal string, and pairs of rulesets of different field sets.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rulekit(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout.toString('utf8'), err: r.stderr.toString('utf8') };
}
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const LOGPUSH = 'test/fixtures/http/logpush-http-requests.ndjson';

describe('diff --against Logpush lines: rules the lines do not decide', () => {
  const none = file('c1.json', JSON.stringify({ phase: 'http_request_firewall_custom', rules: [] }));
  const cookie = file('c2.json', JSON.stringify({ phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'http.cookie eq "a=1"' }] }));

  it('text: the counts say the rule is not decided, and stderr warns naming the field', () => {
    const r = rulekit(['diff', none, cookie, '--against', LOGPUSH]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("traffic: 0 of 6 requests change (0 change verdict) where the input decides the rules; not decided over it: the new ruleset's rule 0 reads http.cookie, which 6 of 6 requests lack");
    expect(r.err).toContain("warning: the new ruleset's rule 0 reads http.cookie, which 6 of 6 Logpush lines lack (Logpush field Cookies)");
    expect(r.err).toContain('[http-logpush-missing-field]');
  });

  it('json: a diagnostic and the undecided rules', () => {
    const r = rulekit(['diff', none, cookie, '--against', LOGPUSH, '--format', 'json']);
    const report = JSON.parse(r.out).reports[0];
    expect(report.undecided).toEqual([{ side: 'new', rule: 0, field: 'http.cookie', lines: 6, of: 6 }]);
    expect(report.diagnostics).toContainEqual(expect.objectContaining({ code: 'http-logpush-missing-field', severity: 'warning', pointer: '/rules/0/expression', data: expect.objectContaining({ side: 'new' }) }));
  });

  it('rules the lines decide are not named', () => {
    const host = file('c3.json', JSON.stringify({ phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'http.host eq "shop.example.com"' }] }));
    const r = rulekit(['diff', none, host, '--against', LOGPUSH]);
    expect(r.out).not.toContain('not decided');
    expect(r.err).toBe('');
  });
});
