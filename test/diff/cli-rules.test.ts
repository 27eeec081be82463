/**
 * `rulekit diff` on `.rules` files (dist/bundle/cli.js): each file a match set, a packet's outcome the line
 * that matches it first or none; lines known by their text (a moved line is no change); regions with
 * witnesses, counts in process and on DuckDB, the old side from git, the four formats and the gates.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, ROOT } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-rules-'));

function run(args: string[], cwd = dir) {
  return runCli(['diff', ...args], { cwd });
}
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return name;
};

const before = file('before.rules', '# edge\ntcp.dstport in {22 80}\nip.src in {10.0.0.0/8}\n');
// The office line moved up (no change of its own), a port added to the first line, a line added.
const after = file('after.rules', '# edge\nip.src in {10.0.0.0/8}\n\ntcp.dstport in {22 80 443}\nudp.dstport == 53\n');
const packets = file('packets.ndjson', [
  { 'tcp.dstport': 22, 'ip.src': '192.0.2.1' },
  { 'tcp.dstport': 443, 'ip.src': '192.0.2.1' },
  { 'udp.dstport': 53, 'ip.src': '10.1.1.1' },
  { 'udp.dstport': 53, 'ip.src': '192.0.2.1' },
  { 'tcp.dstport': 8080, 'ip.src': '192.0.2.1' },
].map((p) => JSON.stringify(p)).join('\n') + '\n');

describe('rulekit diff on .rules files', () => {
  it('text: regions say which line matched, by number and text, before and after', () => {
    const r = run([before, after]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe([
      'after.rules: 4 region(s) of packets that change (4 exact, 0 unknown)',
      '  = tcp.dstport 443, ip.src outside {10.0.0.0/8} or missing: matched by none → by line 4 `tcp.dstport in {22 80 443}`',
      '      witness {"tcp.dstport":443,"ip.src":"0.0.0.0"}',
      '  = udp.dstport 53, ip.src outside {10.0.0.0/8} or missing: matched by none → by line 5 `udp.dstport == 53`',
      '      witness {"udp.dstport":53,"ip.src":"0.0.0.0"}',
      '  = tcp.dstport in {22 80}, ip.src 10.0.0.0/8: matched by line 2 `tcp.dstport in {22 80}` → by line 2 `ip.src in {10.0.0.0/8}`',
      '      witness {"tcp.dstport":22,"ip.src":"10.0.0.0"}',
      '  = tcp.dstport in {22 80}, ip.src outside {10.0.0.0/8} or missing: matched by line 2 `tcp.dstport in {22 80}` → by line 4 `tcp.dstport in {22 80 443}`',
      '      witness {"tcp.dstport":22,"ip.src":"0.0.0.0"}',
      '',
    ].join('\n'));
  });

  it('a line moved or renumbered is the same line: no change', () => {
    const moved = file('moved.rules', '\n\n# the same lines, another order of blank lines and comments\nudp.dstport == 53\n\n\n');
    const was = file('was.rules', 'udp.dstport == 53\n');
    expect(run([was, moved, '--fail-on', 'any'])).toMatchObject({ code: 0, out: 'moved.rules: no packet changes\n' });
  });

  it('a line no longer matching: matched by line N → by none', () => {
    const narrower = file('narrower.rules', 'tcp.dstport == 22\nip.src in {10.0.0.0/8}\n');
    const r = run([before, narrower]);
    expect(r.out).toContain('= tcp.dstport 80, ip.src outside {10.0.0.0/8} or missing: matched by line 2 `tcp.dstport in {22 80}` → by none');
    expect(run([before, narrower, '--fail-on', 'newly-unmatched']).code).toBe(1);
    expect(run([before, narrower, '--fail-on', 'newly-matched']).code).toBe(0);
  });

  it('--against: the counts, per pair of lines, equal in process and on DuckDB', () => {
    const inProcess = run([before, after, '--against', packets]);
    expect(inProcess).toMatchObject({ code: 0, err: '' });
    expect(inProcess.out).toContain('  traffic: 3 of 5 packets change (2 matched by a line on one side only)\n');
    expect(inProcess.out).toContain('           1  matched by line 2 `tcp.dstport in {22 80}` → by line 4 `tcp.dstport in {22 80 443}`  e.g. line 1 {"ip.src":"192.0.2.1","tcp.dstport":22}\n');
    expect(inProcess.out).toContain('           1  matched by none → by line 5 `udp.dstport == 53`  e.g. line 4 {"ip.src":"192.0.2.1","udp.dstport":53}\n');
    const duckdb = run([before, after, '--against', packets, '--engine', 'duckdb']);
    expect(duckdb).toMatchObject({ code: 0, out: inProcess.out });
  });

  it('json: matched and unmatched outcomes with lines, and a match-set summary', () => {
    const out = JSON.parse(run([before, after, '--format', 'json']).out);
    expect(out.summary).toEqual({ regions: 4, exact: 4, unknown: 0, newlyMatched: 2, newlyUnmatched: 0 });
    expect(out.reports[0].regions[0]).toMatchObject({
      kind: 'exact', change: 'verdict', old: { verdict: 'unmatched' },
      new: { verdict: 'matched', rule: { index: 1, line: 4, expression: 'tcp.dstport in {22 80 443}' } },
    });
    expect(out.reports[0].matches).toEqual([{ old: 1, new: 0 }]);
  });

  it('markdown and github: the lines in the table, annotations at the changed lines of the new file', () => {
    const md = run([before, after, '--format', 'markdown']).out;
    expect(md).toContain('4 region(s) of packets that change: 4 exact, 0 unknown; 2 matched by a line where none matched, 0 matched by none where a line matched.');
    expect(md).toContain('| exact | `udp.dstport 53, ip.src outside {10.0.0.0/8} or missing` | matched by none | matched by line 5 `udp.dstport == 53` |');
    const gh = run([before, after, '--format', 'github']).out.trim().split('\n');
    expect(gh.map((l) => /line=(\d+),title=([^:]+)::/.exec(l)?.slice(1))).toEqual([
      ['4', 'rulekit diff%3A newly matched'], ['5', 'rulekit diff%3A newly matched'],
      ['2', 'rulekit diff%3A matched by another line'], ['4', 'rulekit diff%3A matched by another line'],
    ]);
    // A line removed: annotated where its edit stands in the new file.
    const edited = file('edited.rules', '# edge\ntcp.dstport == 22\nip.src in {10.0.0.0/8}\n');
    expect(run([before, edited, '--format', 'github']).out).toMatch(/^::warning file=edited\.rules,line=2,title=rulekit diff%3A no longer matched::/);
  });

  it('unknown regions for what the analysis does not decide; HTTP lines with --phase, and a hint without it', () => {
    const h1 = file('h1.rules', 'http.host eq "a.example"\nhttp.request.uri.path matches "^/admin"\n');
    const h2 = file('h2.rules', 'http.host in {"a.example" "b.example"}\n');
    const r = run([h1, h2, '--phase', 'http_request_firewall_custom']);
    expect(r.out).toContain('h2.rules: 3 region(s) of requests that change (0 exact, 3 unknown)');
    expect(r.out).toContain('? http.host outside {"a.example" "b.example"} or missing: matched by line 2 `http.request.uri.path matches "^/admin"` → by none (unknown: assuming http.request.uri.path matches "^/admin" is true)');
    expect(run([h1, h2, '--phase', 'http_request_firewall_custom', '--fail-on', 'newly-unmatched']).code).toBe(1);
    const network = run([h1, h2]);
    expect(network.err).toContain('rulekit: h2.rules: warning: line 1 of the old file is left out: unknown field http.host (a field of HTTP requests: a .rules file is read as network_transit\'s unless --phase names another, such as --phase http_request_firewall_custom) [diff-rule-left-out]');
  });

  it('--git REV: the old side is the .rules file at that revision', () => {
    const repo = mkdtempSync(join(tmpdir(), 'rulekit-diff-rules-git-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    git('init', '-q');
    writeFileSync(join(repo, 'edge.rules'), 'tcp.dstport in {22 80}\n');
    git('add', 'edge.rules');
    git('commit', '-qm', 'one');
    writeFileSync(join(repo, 'edge.rules'), '# ssh only\ntcp.dstport == 22\n');
    const r = run([join(repo, 'edge.rules'), '--git', 'HEAD']);
    expect(r.out).toContain('= tcp.dstport 80: matched by line 1 `tcp.dstport in {22 80}` → by none');
  });

  it('usage: a .rules file against a ruleset, and a ruleset gate, exit 2 naming why', () => {
    file('empty.json', '[]');
    expect(run([before, 'empty.json'])).toMatchObject({ code: 2, err: 'rulekit: before.rules is a .rules file (expressions without actions, diffed as which line matches) and empty.json is not: give two .rules files, or two rulesets\n' });
    expect(run([before, after, '--fail-on', 'blocks-added'])).toMatchObject({ code: 2, err: 'rulekit: --fail-on blocks-added is not for .rules files (their lines have no actions); on them it takes any, newly-matched, newly-unmatched, none\n' });
  });

  it('docs/diff.md\'s .rules example prints what the page shows (in process and on DuckDB)', () => {
    const page = readFileSync(join(ROOT, 'docs', 'diff.md'), 'utf8');
    const at = page.indexOf('### `.rules` files: which line matches');
    expect(at).toBeGreaterThan(0);
    const [command, ...output] = /```\n([\s\S]*?)```/.exec(page.slice(at))![1]!.split('\n');
    const args = command!.replace(/^\$ rulekit diff /, '').split(' ');
    expect(args).toEqual(['examples/watch.before.rules', 'examples/watch.rules', '--against', 'examples/flows.ndjson']);
    expect(run(args, ROOT)).toEqual({ code: 0, err: '', out: output.join('\n') });
    expect(run([...args, '--engine', 'duckdb'], ROOT)).toEqual({ code: 0, err: '', out: output.join('\n') });
  });
});
