/**
 * `rulekit simulate` of an HTTP-phase ruleset over N requests — as NDJSON request objects and as a HAR
 * file — beside the same command of a network ruleset over N NDJSON packet objects, all timed as whole
 * processes (bench/processes.ts: spawn to exit, start-up included) and interleaved in one run. Both
 * rulesets have five rules of the same shapes (equality, set, CIDR set, a contains/range, a skip), so
 * the ratios show what reading requests into records costs beside reading packet objects.
 *
 * Environment: BENCH_HTTP_SIM_SIZES (default `10k,100k`), BENCH_HTTP_SIM_RUNS (default 5).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countLabel, parseCount } from './capture-cache.js';
import { fmt, printTable } from './harness.js';
import { CLI_ENTRY } from './paths.js';
import { runInterleaved, type Command } from './processes.js';

const SIZES = (process.env.BENCH_HTTP_SIM_SIZES ?? '10k,100k').split(',').map(parseCount);
const RUNS = Number(process.env.BENCH_HTTP_SIM_RUNS ?? 5);

const HTTP_RULESET = {
  name: 'bench',
  kind: 'zone',
  phase: 'http_request_firewall_custom',
  rules: [
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {192.0.2.0/24}' },
    { action: 'log', expression: 'http.request.method eq "POST"' },
    { action: 'block', expression: 'http.request.uri.path in {"/admin" "/wp-login.php" "/.env"}' },
    { action: 'managed_challenge', expression: 'http.user_agent contains "curl" and http.request.uri.query ne ""' },
    { action: 'block', expression: 'ip.src in {198.51.100.0/24 203.0.113.0/24} and http.host eq "api.example.com"' },
  ],
};
const NETWORK_RULESET = {
  name: 'bench',
  kind: 'root',
  phase: 'network_transit',
  rules: [
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {192.0.2.0/24}' },
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.proto eq "icmp"' },
    { action: 'block', expression: 'tcp.dstport in {22 23 3389}' },
    { action: 'block', expression: 'udp.dstport in {1900..1910} and ip.len gt 100' },
    { action: 'block', expression: 'ip.src in {198.51.100.0/24 203.0.113.0/24} and tcp.dstport eq 443' },
  ],
};

const PATHS = ['/', '/index.html', '/admin', '/api/v1/items', '/wp-login.php', '/static/app.js', '/.env', '/login'];
const AGENTS = ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36', 'curl/8.5.0', 'python-requests/2.31'];

function request(i: number) {
  const path = PATHS[i % PATHS.length]!;
  const query = i % 3 === 0 ? `?id=${i}&page=${i % 7}` : '';
  return {
    method: i % 5 === 0 ? 'POST' : 'GET',
    url: `https://${i % 4 === 0 ? 'api.example.com' : 'www.example.com'}${path}${query}`,
    httpVersion: i % 2 ? 'HTTP/2' : 'HTTP/1.1',
    headers: [['User-Agent', AGENTS[i % AGENTS.length]!], ['Accept', '*/*'], ['Cookie', `session=${i.toString(16)}; theme=dark`]] as [string, string][],
    clientIp: `${['192.0.2', '198.51.100', '203.0.113', '100.64.0'][i % 4]}.${i % 250}`,
    ...(i % 5 === 0 ? { body: `user=u${i}&password=x` } : {}),
  };
}

function packet(i: number) {
  return { 'ip.src': `${['192.0.2', '198.51.100', '203.0.113', '100.64.0'][i % 4]}.${i % 250}`, 'ip.dst': '10.0.0.1', 'ip.proto': i % 3 ? 'tcp' : 'udp', 'ip.len': 60 + (i % 1400), ...(i % 3 ? { 'tcp.dstport': [22, 80, 443, 3389][i % 4] } : { 'udp.dstport': 1890 + (i % 30) }) };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-http-'));
  try {
    writeFileSync(join(dir, 'http.json'), JSON.stringify(HTTP_RULESET));
    writeFileSync(join(dir, 'net.json'), JSON.stringify(NETWORK_RULESET));
    const rows: (string | number)[][] = [];
    for (const n of SIZES) {
      const reqs = Array.from({ length: n }, (_, i) => request(i));
      writeFileSync(join(dir, `requests-${n}.ndjson`), reqs.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const entries = reqs.map((r, i) => ({
        startedDateTime: new Date(1_700_000_000_000 + i).toISOString(),
        request: { method: r.method, url: r.url, httpVersion: r.httpVersion, headers: r.headers.map(([name, value]) => ({ name, value })), cookies: [], ...(r.body ? { postData: { mimeType: 'application/x-www-form-urlencoded', text: r.body } } : {}) },
        response: { status: 200, headers: [] },
        _rulekit: { clientIp: r.clientIp },
      }));
      writeFileSync(join(dir, `requests-${n}.har`), JSON.stringify({ log: { version: '1.2', creator: { name: 'bench', version: '1' }, entries } }));
      writeFileSync(join(dir, `packets-${n}.ndjson`), Array.from({ length: n }, (_, i) => JSON.stringify(packet(i))).join('\n') + '\n');
      const sim = (name: string, ruleset: string, input: string): Command => ({ name, cmd: process.execPath, args: [CLI_ENTRY, 'simulate', join(dir, ruleset), join(dir, input)] });
      const commands = [sim('packets (NDJSON, network ruleset)', 'net.json', `packets-${n}.ndjson`), sim('requests (NDJSON)', 'http.json', `requests-${n}.ndjson`), sim('requests (HAR)', 'http.json', `requests-${n}.har`)];
      const { stats } = runInterleaved(commands, {
        runs: RUNS,
        check: (i, r) => {
          const want = i === 0 ? `packets ${n}:` : `requests ${n}:`;
          if (!r.stdout.includes(want)) throw new Error(`${commands[i]!.name}: no "${want}" in ${r.stdout.slice(-400)}`);
        },
      });
      const base = stats[0]!;
      stats.forEach((s, i) => rows.push([countLabel(n), commands[i]!.name, fmt(s.median), fmt((n * 1000) / s.q1), i === 0 ? '1.00×' : `${(s.q1 / base.q1).toFixed(2)}×`]));
    }
    printTable(
      `rulekit simulate, whole processes (${RUNS} interleaved runs each; requests/s and ratios from lower quartiles)`,
      ['count', 'input', 'ms (median)', 'per second', 'time vs packets'],
      rows,
      ['The HTTP ruleset reads method, path, query, user agent, host and ip.src; the network one ports, protocol, length and ip.src.'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
