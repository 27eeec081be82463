/**
 * `rulekit diff` as built (dist/bundle/cli.js), on what an outside audit found it answered wrong or not at
 * all: rules that Logpush lines do not decide, Terraform Logpush jobs, the line of an expression that is
 * not a literal string, and pairs of rulesets of different field sets.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, ROOT } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rulekit(args: string[]) {
  return runCli(args);
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

describe('diff of Terraform Logpush jobs', () => {
  const firewall = readFileSync(join(ROOT, 'examples', 'firewall.tf'), 'utf8');
  const job = firewall.slice(firewall.indexOf('resource "cloudflare_logpush_job"'));
  const j1 = file('j1.tf', job);
  const j2 = file('j2.tf', job.replace('value = 500', 'value = 400'));

  it('diffs the filter of a changed cloudflare_logpush_job, and --fail-on any fails', () => {
    const r = rulekit(['diff', j1, j2, '--fail-on', 'any']);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`${j2} (http_requests): 1 region(s) of log lines that change (1 exact, 0 unknown)`);
    expect(r.out).toContain('= EdgeResponseStatus 400..499, ClientRequestHost outside {"health.example.com"}: dropped → pushed');
  });

  it('counts the log lines, and compares a Terraform job with a JSON job', () => {
    const r = rulekit(['diff', j1, j2, '--against', 'examples/logs.ndjson', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).reports[0].counts.lines).toBe(5);
    expect(rulekit(['diff', j1, 'examples/errors.job.json']).code).toBe(0);
  });

  it('picks a job of a file with rulesets by --resource; several jobs without it exit 2', () => {
    expect(rulekit(['diff', 'examples/firewall.tf', j2, '--resource', 'cloudflare_logpush_job.errors']).out).toContain('1 region(s) of log lines that change');
    const two = file('two.tf', `${job}\n${job.replace('"errors"', '"other"')}`);
    const r = rulekit(['diff', two, j2]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('holds 2 Logpush jobs (cloudflare_logpush_job.errors, cloudflare_logpush_job.other): give --resource cloudflare_logpush_job.NAME');
  });

  it('a .tf with no ruleset and no job exits 2, saying so', () => {
    const empty = file('empty.tf', 'variable "account_id" {}\n');
    const r = rulekit(['diff', empty, empty]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${empty}: holds no ruleset resource (cloudflare_ruleset, cloudflare_magic_firewall_ruleset) and no cloudflare_logpush_job resource: nothing to compare`);
  });

  it('a filter only Terraform knows exits 2 naming its line', () => {
    const v = file('var.tf', 'resource "cloudflare_logpush_job" "j" {\n  dataset = "http_requests"\n  filter  = var.filter\n}\n');
    const r = rulekit(['diff', v, j2]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cloudflare_logpush_job\.j\.filter is not a literal string .*\(line 3\): only Terraform knows that filter/);
  });
});

describe('diff of a Terraform rule whose expression only Terraform knows', () => {
  it('names the line of the expression, as lint does', () => {
    const r = rulekit(['diff', 'examples/firewall.tf', 'examples/firewall.tf']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('cloudflare_ruleset.edge.rules[0].expression interpolates var.office_cidr (line 20): its packets are known only to Terraform; give --var office_cidr=VALUE');
    const lint = rulekit(['lint', 'examples/firewall.tf', '--format', 'json']);
    expect(lint.out).toContain('"line": 20');
  });
});

describe('diff of a network ruleset and an HTTP one', () => {
  it('exits 1 and prints that the pair was not compared, not "no packet changes"', () => {
    const w1 = file('w1.json', JSON.stringify({ phase: 'magic_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] }));
    const h1 = file('h1.json', JSON.stringify({ phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'http.host eq "a"' }] }));
    const r = rulekit(['diff', w1, h1]);
    expect(r.code).toBe(1);
    expect(r.out).toBe(`${h1}: not compared: the old ruleset reads packets and the new one HTTP requests: no packet is decided by both\n`);
    expect(r.err).toContain('[diff-field-sets-differ]');
    const md = rulekit(['diff', w1, h1, '--format', 'markdown']);
    expect(md.out).not.toMatch(/No packet changes/);
    expect(md.out).toContain('Not compared: the old ruleset reads packets');
  });
});

describe('diff of Terraform rulesets with variables', () => {
  it('--var fills the interpolations of both sides; a bad --var exits 2', () => {
    const tf = readFileSync(join(ROOT, 'examples', 'firewall.tf'), 'utf8');
    const after = file('after.tf', tf.replace('tcp.dstport == 22"', 'tcp.dstport in {22 2222}"'));
    const r = rulekit(['diff', 'examples/firewall.tf', after, '--var', 'office_cidr=198.51.100.0/24']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain('cloudflare_ruleset.edge: 1 region(s) of packets that change');
    expect(r.out).toContain('= ip.src 198.51.100.0/24, tcp.dstport 2222: allow → allow by rule 0 "office-ssh"');
    const bad = rulekit(['diff', 'examples/firewall.tf', after, '--var', 'office_cidr']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--var takes NAME=VALUE');
  });
});
