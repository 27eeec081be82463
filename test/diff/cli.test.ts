/**
 * `rulekit diff` as built (dist/bundle/cli.js): text and JSON output, Markdown and GitHub annotations, Terraform resources,
 * the old side from git, counts over NDJSON packets, and the exit codes of --fail-on.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-'));

/** `rulekit diff OLD [NEW]` with options as flags (`failOn` → `--fail-on`). */
function run(oldPath: string, newPath: string | null, options: Record<string, unknown> = {}, cwd = dir) {
  const flags = Object.entries(options).flatMap(([k, v]) => [`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(v)]);
  return runCli(['diff', oldPath, ...(newPath === null ? [] : [newPath]), ...flags], { cwd, timeout: 30_000 });
}
const file = (name: string, value: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return p;
};
const body = (rules: object[]) => ({ name: 'fw', kind: 'root', phase: 'network_transit', rules });
const before = file('before.json', body([{ action: 'block', expression: 'tcp.dstport in {22 80}', ref: 'web' }]));
const after = file('after.json', body([{ action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {10.0.0.0/8}', ref: 'office' }, { action: 'block', expression: 'tcp.dstport in {22 80 443}', ref: 'web' }]));

describe('rulekit diff', () => {
  it('text: each region with its witness', () => {
    const r = run(before, after);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(`${after}: 3 region(s) of packets that change (3 exact, 0 unknown)`);
    expect(r.out).toContain('= tcp.dstport 443, ip.src outside {10.0.0.0/8} or missing: allow → block by rule 1 "web"');
    expect(r.out).toContain('= tcp.dstport in {22 80}, ip.src 10.0.0.0/8: block by rule 0 "web" → allow by rule 0 "office"');
    expect(r.out).toContain('witness {"tcp.dstport":443');
  });

  it('json: the regions, the rule matches and a summary', () => {
    const r = run(before, after, { format: 'json' });
    const out = JSON.parse(r.out);
    expect(out.summary).toEqual({ regions: 3, exact: 3, unknown: 0, blocksAdded: 1, allowsAdded: 1 });
    expect(out.reports[0].matches).toEqual([{ old: 0, new: 1 }]);
    expect(out.reports[0].regions.find((x: { old: { verdict: string } }) => x.old.verdict === 'allow')).toMatchObject({ kind: 'exact', change: 'verdict', new: { verdict: 'block', rule: { index: 1, ref: 'web' } }, witness: { 'tcp.dstport': 443 } });
  });

  it('--fail-on: exit 1 when the diff has what the gate names; identical files pass every gate', () => {
    expect(run(before, after, { failOn: 'any' }).code).toBe(1);
    expect(run(before, after, { failOn: 'blocks-added' }).code).toBe(1);
    expect(run(before, after, { failOn: 'none' }).code).toBe(0);
    const narrower = file('narrower.json', body([{ action: 'block', expression: 'tcp.dstport == 22', ref: 'web' }]));
    expect(run(before, narrower, { failOn: 'blocks-added' }).code).toBe(0);
    expect(run(before, narrower, { failOn: 'allows-added' }).code).toBe(1);
    const same = run(before, before, { failOn: 'any' });
    expect(same).toMatchObject({ code: 0 });
    expect(same.out).toBe(`${before}: no packet changes\n`);
  });

  it('usage problems exit 2 with one line', () => {
    expect(run(before, null)).toMatchObject({ code: 2, err: 'rulekit: give two files, OLD and NEW, or one file and --git REV\n' });
    expect(run(before, after, { failOn: 'some' }).code).toBe(2);
    expect(run(before, join(dir, 'missing.json'))).toMatchObject({ code: 2, err: expect.stringContaining('no such file') });
    expect(run(before, file('rules.rules', 'tcp.dstport == 1\n')).code).toBe(2);
  });

  it('markdown and GitHub annotations on the rule that decides on the new side', () => {
    const md = run(before, after, { format: 'markdown' }).out;
    expect(md).toContain('| exact | `tcp.dstport 443, ip.src outside {10.0.0.0/8} or missing` | allow | block by rule 1 "web" |');
    const gh = run(before, after, { format: 'github' }).out.trim().split('\n');
    expect(gh).toHaveLength(3);
    // Each rule object of the pretty-printed file starts on a line of its own.
    const starts = readFileSync(after, 'utf8').split('\n').flatMap((l, i) => (l === '    {' ? [i + 1] : []));
    expect(gh.find((l) => l.includes('tcp.dstport 443'))).toMatch(new RegExp(`^::warning file=.*after\\.json,line=${starts[1]},title=rulekit diff%3A verdict changes::`));
    expect(gh.find((l) => l.includes('allow → allow'))).toMatch(new RegExp(`^::notice file=.*after\\.json,line=${starts[0]},title=rulekit diff%3A deciding rule changes::`));
  });

  it('Terraform: resources compared by address, --resource picks one', () => {
    const tf = (port: string) => `resource "cloudflare_ruleset" "fw" {
  account_id = "x"
  name = "fw"
  kind = "root"
  phase = "magic_transit"
  rules = [{ action = "block", expression = "tcp.dstport in {${port}}" }]
}
resource "cloudflare_ruleset" "other" {
  account_id = "x"
  name = "other"
  kind = "root"
  phase = "magic_transit"
  rules = [{ action = "block", expression = "udp.dstport == 53" }]
}
`;
    const a = file('a.tf', tf('22'));
    const b = file('b.tf', tf('22 23'));
    const all = run(a, b);
    expect(all.out).toContain('cloudflare_ruleset.fw: 1 region(s)');
    expect(all.out).toContain('cloudflare_ruleset.other: no packet changes');
    expect(run(a, b, { resource: 'cloudflare_ruleset.other', failOn: 'any' }).code).toBe(0);
    expect(run(a, b, { resource: 'cloudflare_ruleset.fw', failOn: 'any' }).code).toBe(1);
  });

  it('--git REV: the old side is the file at that revision', () => {
    const repo = mkdtempSync(join(tmpdir(), 'rulekit-diff-git-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    git('init', '-q');
    writeFileSync(join(repo, 'fw.json'), JSON.stringify(body([{ action: 'block', expression: 'tcp.dstport == 22' }])));
    git('add', 'fw.json');
    git('commit', '-qm', 'one');
    writeFileSync(join(repo, 'fw.json'), JSON.stringify(body([{ action: 'block', expression: 'tcp.dstport in {22 23}' }])));
    const r = run(join(repo, 'fw.json'), null, { git: 'HEAD' });
    expect(r.out).toContain('= tcp.dstport 23: allow → block by rule 0');
    expect(run(join(repo, 'fw.json'), null, { git: 'nosuchrev' }).code).toBe(2);
  });

  it('--against NDJSON: the packets that change, per region', () => {
    const packets = file('p.ndjson', [443, 22, 443, 8080].map((p) => JSON.stringify({ 'ip.proto': 'tcp', 'ip.src': '192.0.2.1', 'tcp.dstport': p })).join('\n') + '\n');
    const r = run(before, after, { against: packets });
    expect(r.out).toContain('tcp.dstport 443, ip.src outside {10.0.0.0/8} or missing: allow → block by rule 1 "web"  [2 packets]');
    expect(r.out).toContain('traffic: 2 of 4 packets change (2 change verdict)');
    const json = JSON.parse(run(before, after, { against: packets, format: 'json' }).out);
    expect(json.reports[0].counts).toMatchObject({ packets: 4, changed: 2, outside: 0 });
  });

  it('--against: an example names its line and shows only the fields the rules of both sides read; JSON keeps the whole record too', () => {
    // Extra fields no rule reads (ip.ttl, udp.srcport) are left out of the printed examples.
    const packets = file('p2.ndjson', '\n' + [443, 22].map((p) => JSON.stringify({ 'ip.proto': 'tcp', 'ip.src': '192.0.2.1', 'ip.ttl': 64, 'tcp.dstport': p, 'tcp.srcport': 40000 })).join('\n') + '\n');
    const text = run(before, after, { against: packets }).out;
    expect(text).toContain('allow → block by rule 1 "web"  e.g. line 2 {"ip.src":"192.0.2.1","tcp.dstport":443}');
    expect(text).not.toContain('ip.ttl');
    const md = run(before, after, { against: packets, format: 'markdown' }).out;
    expect(md).toContain('| 1 | line 2 `{"ip.src":"192.0.2.1","tcp.dstport":443}` |');
    expect(md).not.toContain('ip.ttl');
    const gh = run(before, after, { against: packets, format: 'github' }).out;
    expect(gh).toContain('1 packet(s) of the traffic, e.g. line 2 {"ip.src":"192.0.2.1","tcp.dstport":443}');
    expect(gh).not.toContain('ip.ttl');
    const json = JSON.parse(run(before, after, { against: packets, format: 'json' }).out);
    expect(json.reports[0].counts.regions[0].examples[0]).toEqual({
      index: 1,
      fields: { 'ip.src': '192.0.2.1', 'tcp.dstport': 443 },
      record: { 'ip.proto': 'tcp', 'ip.src': '192.0.2.1', 'ip.ttl': 64, 'tcp.dstport': 443, 'tcp.srcport': 40000 },
    });
  });

  it('--against Logpush http_requests lines (or NDJSON request objects) for an HTTP-phase ruleset: the requests that change', () => {
    const waf = (rules: object[]) => ({ name: 'waf', kind: 'zone', phase: 'http_request_firewall_custom', rules });
    const old = file('waf-old.json', waf([{ action: 'block', expression: 'http.request.uri.path eq "/admin"', ref: 'admin' }]));
    const neu = file('waf-new.json', waf([{ action: 'block', expression: 'http.request.uri.path eq "/admin" or (ip.src.country eq "XX" and http.request.method eq "POST")', ref: 'admin' }]));
    const line = (uri: string, country: string, method: string) => JSON.stringify({ ClientRequestMethod: method, ClientRequestScheme: 'https', ClientRequestHost: 'example.com', ClientRequestURI: uri, ClientIP: '192.0.2.9', ClientCountry: country, EdgeStartTimestamp: '2026-11-28T10:00:00Z', RayID: '8c1f' });
    const lines = file('http.ndjson', [line('/admin', 'de', 'GET'), line('/login', 'xx', 'POST'), line('/login', 'xx', 'GET'), line('/cart', 'us', 'POST')].join('\n') + '\n');
    const json = JSON.parse(run(old, neu, { against: lines, format: 'json' }).out);
    expect(json.reports[0].counts).toMatchObject({ packets: 4, changed: 1 });
    const objects = file('http-objects.ndjson', JSON.stringify({ method: 'POST', url: 'https://example.com/login', clientIp: '192.0.2.9', country: 'XX' }) + '\n');
    expect(JSON.parse(run(old, neu, { against: objects, format: 'json' }).out).reports[0].counts).toMatchObject({ packets: 1, changed: 1 });
    // The same lines stored as Parquet (written by DuckDB from the NDJSON): the same counts, examples by row.
    const parquet = join(dir, 'http.parquet');
    execFileSync(process.execPath, ['-e', `(async () => { const { DuckDBInstance } = await import('@duckdb/node-api'); const db = await DuckDBInstance.create(':memory:'); const c = await db.connect(); await c.run(${JSON.stringify(`COPY (SELECT * FROM read_json_auto('${lines}')) TO '${parquet}' (FORMAT parquet)`)}); })()`], { cwd: join(import.meta.dirname, '..', '..') });
    const fromParquet = JSON.parse(run(old, neu, { against: parquet, format: 'json' }).out).reports[0].counts;
    expect(fromParquet).toMatchObject({ packets: 4, changed: 1 });
    expect(fromParquet.pairs.map((p: { count: number }) => p.count)).toEqual(json.reports[0].counts.pairs.map((p: { count: number }) => p.count));
    expect(run(old, neu, { against: parquet }).out).toMatch(/e\.g\. row 2 \{/);
    const pcap = run(old, neu, { against: file('not-requests.ndjson', '{"ip.src": "1.2.3.4"}\n') });
    expect(pcap.code).toBe(2);
    expect(pcap.err).toMatch(/not-requests\.ndjson:1: .*Logpush http_requests lines/);
  });
});
