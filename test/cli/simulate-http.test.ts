/**
 * `rulekit simulate` with an HTTP-phase ruleset, run as a user runs it (dist/bundle/cli.js): HAR files,
 * NDJSON request objects and standard input; exit 0 when fine, 1 for input errors or a capture given to
 * an HTTP ruleset, 2 for usage errors; per-request NDJSON lines; the summary names requests.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runCli } from '../helpers/cli.js';

const HAR = join(ROOT, 'test', 'fixtures', 'http', 'chromium.har');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-sim-http-'));

function run(args: string[], input?: string) {
  return runCli(args, { input });
}

const ruleset = join(dir, 'waf.json');
writeFileSync(
  ruleset,
  JSON.stringify({
    name: 'waf',
    kind: 'zone',
    phase: 'http_request_firewall_custom',
    rules: [
      { action: 'log', expression: 'http.request.method eq "POST"', description: 'posts' },
      { action: 'block', expression: 'http.request.uri.path eq "/login" and http.request.method eq "POST"', description: 'login' },
      { action: 'managed_challenge', expression: 'http.request.uri.path.extension eq "html"', description: 'html' },
    ],
  }),
);
const requests = join(dir, 'requests.ndjson');
writeFileSync(requests, ['{"method":"POST","url":"https://example.com/login","body":"u=1"}', '{"method":"GET","url":"https://example.com/a.HTML"}', '{"method":"GET","url":"https://example.com/"}', ''].join('\n'));

describe('rulekit simulate with HTTP requests', () => {
  it('a HAR recorded by Chromium: the summary per rule and per verdict, exit 0', () => {
    const r = run(['simulate', ruleset, HAR]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^0\s+log\s+posts\s+3\s+0\s+3 4 5$/m);
    expect(r.out).toMatch(/^1\s+block\s+login\s+1\s+1\s+3$/m);
    expect(r.out).toMatch(/^2\s+managed_challenge\s+html\s+1\s+1\s+6$/m);
    expect(r.out).toContain('requests 6: allowed 4 (66.7%), blocked 1 (16.7%), managed_challenge 1 (16.7%), allowed by default 4');
  });

  it('NDJSON request objects from standard input, one line per request', () => {
    const r = run(['simulate', ruleset, '-', '--format', 'ndjson'], `{"method":"POST","url":"https://example.com/login"}\n{"method":"GET","url":"/x.html","headers":{"Host":"example.com"}}\n`);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.slice(0, 2)).toEqual([
      { index: 0, verdict: 'block', decidedBy: { index: 1, action: 'block', description: 'login' }, matched: [0, 1] },
      { index: 1, verdict: 'managed_challenge', decidedBy: { index: 2, action: 'managed_challenge', description: 'html' }, matched: [2] },
    ]);
    expect(lines[2].summary.verdicts).toEqual({ allow: 0, block: 1, managed_challenge: 1 });
  });

  it('--format json writes the examples: the fields the rules read (maps as objects) and the fields given', () => {
    const given = join(dir, 'given.ndjson');
    writeFileSync(given, '{"method":"POST","url":"https://example.com/login","fields":{"http.request.cookies":{"a":["1"]}}}\n');
    const r = run(['simulate', ruleset, given, '--format', 'json']);
    expect(r.code).toBe(0);
    const example = JSON.parse(r.out).summary.rules[1].examples[0];
    expect(example).toEqual({ index: 0, packet: { 'http.request.method': 'POST', 'http.request.uri.path': '/login', 'http.request.uri.path.extension': '', 'http.request.cookies': { a: ['1'] } } });
  });

  it('a bad line is an error with its line (exit 1); the other requests are simulated', () => {
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"method":"GET","url":"https://example.com/"}\n{"url":"/x"}\n');
    const r = run(['simulate', ruleset, bad]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('requests 1:');
    expect(r.out).toContain('error[http-invalid-request] /method: line 2: the request has no "method" string');
  });

  it('a malformed HAR entry is a warning (exit 0); a file that is not HAR nor NDJSON an error (exit 1)', () => {
    const har = join(dir, 'skip.har');
    writeFileSync(har, JSON.stringify({ log: { entries: [{ request: { method: 'GET', url: 'https://example.com/a.html' } }, { request: {} }] } }));
    const ok = run(['simulate', ruleset, har]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('warning[http-har-entry-skipped] /log/entries/1/request/method: entry skipped');
    const notHar = join(dir, 'array.json');
    writeFileSync(notHar, '[1, 2]');
    expect(run(['simulate', ruleset, notHar]).code).toBe(1);
  });

  it('a HAR document on one line whose "log" is not its first member is read as HAR; NDJSON lines keep their numbers', () => {
    const r = run(['simulate', ruleset, '-', '--format', 'json'], JSON.stringify({ comment: 'x', log: { entries: [{ request: { method: 'GET', url: 'https://example.com/x.html' } }] } }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).summary.verdicts).toEqual({ allow: 0, block: 0, managed_challenge: 1 });
    const lines = run(['simulate', ruleset, '-', '--format', 'json'], '\n{"method":"GET","url":"https://example.com/"}\n{"method":"GET","url":"https://example.com/","clientIp":"x"}\n');
    expect(JSON.parse(lines.out).diagnostics.map((d: { message: string; data: unknown }) => [d.message, d.data])).toEqual([['line 3: clientIp is an IPv4 or IPv6 address string; it is ignored', { line: 3 }]]);
  });

  it('a capture given to an HTTP ruleset is one error, exit 1', () => {
    const r = run(['simulate', ruleset, join(ROOT, 'test', 'fixtures', 'capture', 'mixed-le-usec.pcap')]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/error\[simulation-http-phase\].*a pcap capture, but the ruleset's phase reads HTTP requests/);
  });

  it('a response field in a request phase is an error in the ruleset with its position (exit 1)', () => {
    const bad = join(dir, 'response-field.json');
    writeFileSync(bad, '{"name":"w","kind":"zone","phase":"http_request_firewall_custom","rules":[\n{"action":"block","expression":"http.response.code eq 403"}]}\n');
    const r = run(['simulate', bad, requests]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/response-field\.json:2:\d+ \/rules\/0\/expression: error\[rule-field-phase\]/);
  });

  it('HTTP requests given to a network ruleset are one error, not packets without fields (exit 1)', () => {
    const network = join(dir, 'network.json');
    writeFileSync(network, JSON.stringify({ rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] }));
    const r = run(['simulate', network, requests]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('error[simulation-http-phase] /phase: line 1 is an HTTP request object, but the ruleset\'s phase (none: network_transit) reads packets');
    const har = run(['simulate', network, '-'], JSON.stringify({ log: { entries: [] } }));
    expect(har.code).toBe(1);
    expect(har.out).toContain('line 1 is a HAR document');
  });

  it('a missing input file is a usage error, exit 2', () => {
    expect(run(['simulate', ruleset, join(dir, 'nope.har')]).code).toBe(2);
  });

  it("takes the HTTP phases' managed lists (Cloudflare's $cf spelling) from --lists, as account lists", () => {
    const rs = join(dir, 'lists-waf.json');
    writeFileSync(
      rs,
      JSON.stringify({
        name: 'waf',
        kind: 'zone',
        phase: 'http_request_firewall_custom',
        rules: [
          { action: 'block', expression: 'ip.src in $cf.open_proxies', description: 'open proxies' },
          { action: 'managed_challenge', expression: 'ip.src in $cf.vpn', description: 'vpns' },
        ],
      }),
    );
    const lists = join(dir, 'managed-lists.json');
    writeFileSync(lists, JSON.stringify({ 'cf.open_proxies': ['192.0.2.0/24'], 'cf.vpn': ['198.51.100.7'] }));
    const input = ['192.0.2.9', '198.51.100.7', '203.0.113.1'].map((ip) => JSON.stringify({ method: 'GET', url: 'https://example.com/', clientIp: ip })).join('\n') + '\n';
    const r = run(['simulate', rs, '-', '--lists', lists, '--service-token', 'cf', '--format', 'ndjson'], input);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n').slice(0, 3).map((l) => JSON.parse(l).verdict)).toEqual(['block', 'managed_challenge', 'allow']);
  });
});
