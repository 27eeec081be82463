/**
 * The reference server under load, as users run it: `rulekit serve` (dist/bundle/cli.js) in a process of
 * its own, pinned to one CPU (taskset), driven over loopback by autocannon from this process (64
 * connections, pinned to the other CPU). Rows, run one after the other:
 * - PUT of an account `network_transit` ruleset of 50 rules (port sets and ranges, CIDR sets,
 *   `$svc.*` lists, `ip.geoip.country`, skips and blocks; see {@link rules}): the ruleset is created once
 *   and the same body is PUT again and again, as automation does (the server's memos of parsed bodies
 *   and of validations answer it after the first; every PUT still gets new rule ids, moves the version,
 *   builds the record's text and writes its history row in a committed transaction: ~2.5 KB, the rules'
 *   members being stored once per distinct list of rules);
 * - the same PUT with one rule's description new in every request, as an edit sends it: no body repeats,
 *   so the memo of parsed bodies never answers, while the validator's cache of expressions does;
 * - the same PUT with 50 expressions never seen before in every request (a unique clause per rule), so
 *   neither that memo nor the validator's cache of checked expressions helps: the cost of a ruleset that
 *   is all new;
 * - GET of that ruleset with its 50 rules;
 * each on SQLite (WAL, synchronous=FULL, the file in $BENCH_SERVER_DIR or the temp dir, which should be a
 * real disk: fsync is free on tmpfs) and on PostgreSQL (a throwaway cluster, bench/postgres-cluster.ts,
 * fsync on, pinned with the load generator; every PUT updates the same row: the server writes the PUTs
 * that queue behind one another in groups),
 * beside the baseline of the same run: a bare fastify app in a process of its own, same pinning,
 * answering the same paths (the same auth headers, unchecked, and the same body, parsed by fastify's
 * JSON parser) with a fixed envelope: the bytes the real server answered to the same request. Each row
 * gives req/s, the time per request as a multiple of the bare route's (bare req/s ÷ req/s), p50/p99
 * latency, the server process's CPU use (100% = its one core is saturated) and the load generator's,
 * the server's CPU time per request beside the bare route's (the figure least moved by other
 * processes on a shared machine), its page faults per request and, on PostgreSQL, the CPU time of
 * PostgreSQL's processes per request;
 * any non-2xx answer or socket error is counted and shown. Rows are measured in a steady-state window
 * of persistent connections (see {@link load}). The machine's load average is printed: other
 * processes on the server's CPU slow every row, the bare one too.
 * Target (issue 10): PUT ≥ 5,000 req/s on one core with p99 ≤ 20 ms, i.e. ≤ 3× the bare route.
 *
 * Then where a PUT's time goes: the SQLite server again under `node --cpu-prof`, the samples of the PUT
 * window mapped through the bundle's source maps to rulekit's source files (validation and its parts,
 * the body's JSON.parse, the store's SQL and commit, the response, fastify, Node) as server-thread µs per
 * PUT. V8 samples by wall clock, so time blocked in fsync counts where it blocks (the store's commit).
 *
 * Rows run in rounds (every row once per round, in the same order); a row's figures are the medians of
 * its rounds, and its ratios to the bare route are taken round by round before their median, so a slow
 * spell of the shared machine moves one round rather than one row against another.
 *
 * Environment: BENCH_SERVER_ROUNDS (default 3), BENCH_SERVER_SECONDS per row and round (default 5),
 * BENCH_SERVER_WARMUP seconds before each window (default 2), BENCH_SERVER_ADMISSION_MAX (20: longest further wait for every connection's first
 * answer), BENCH_SERVER_CONNECTIONS (64), BENCH_SERVER_CPU / BENCH_CLIENT_CPU (taskset lists, default 1
 * and 0 on a machine with two CPUs or more), BENCH_SERVER_PROFILE_SECONDS (default 5; 0 skips the
 * profile), BENCH_SERVER_POSTGRES=0 skips PostgreSQL, PG_BIN its binaries, BENCH_SERVER_CLI another build's
 * dist/bundle/cli.js to serve (to compare builds in runs one after the other), BENCH_SERVER_ONLY a regular
 * expression of the request rows to run (e.g. `same body`; a row's bare baseline runs with it),
 * BENCH_SERVER_PROFILE_KEEP a file to keep the profile in (a .cpuprofile, for DevTools),
 * BENCH_SERVER_PROFILE_BODY the body profiled: same (default), edited or fresh (the rows' bodies),
 * BENCH_SERVER_PROFILE_STORE=postgres profiles the server on PostgreSQL instead of SQLite,
 * BENCH_POSTGRES_WARM_WAL_MB the WAL the cluster is warmed with before the rows (default 512; 0: a fresh cluster),
 * BENCH_SERVER_NODE_FLAGS flags for the rulekit server's node (e.g. V8's GC flags), BENCH_SERVER_LATENCIES a directory where each row's window is written as JSON `[[ms into the window,
 * latency ms], …]`, one file per row and round (where the tail comes from: spread or stalls).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { createRequire, SourceMap } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, printTable } from './harness.js';
import { CLI_ENTRY } from './paths.js';
import { postgresBinaries, startCluster, type Cluster } from './postgres-cluster.js';

const env = process.env;
const SECONDS = Number(env.BENCH_SERVER_SECONDS ?? 5);
/** Rounds of every row, one after the other: each row's figure is the median of its rounds. */
const ROUNDS = Math.max(1, Number(env.BENCH_SERVER_ROUNDS ?? 3));
const WARMUP = Number(env.BENCH_SERVER_WARMUP ?? 2);
const CONNECTIONS = Number(env.BENCH_SERVER_CONNECTIONS ?? 64);
const PROFILE_SECONDS = Number(env.BENCH_SERVER_PROFILE_SECONDS ?? 5);
/** A directory to write each measured row's answers in (time into the window and latency, ms), to study the tail. */
const LATENCIES = env.BENCH_SERVER_LATENCIES;
/** Longest wait, after the warm-up, for every connection to get its first answer. */
const ADMISSION_MAX = Number(env.BENCH_SERVER_ADMISSION_MAX ?? 20);
const PINNED = availableParallelism() >= 2;
const SERVER_CPU = env.BENCH_SERVER_CPU ?? (PINNED ? '1' : undefined);
const CLIENT_CPU = env.BENCH_CLIENT_CPU ?? (PINNED ? '0' : undefined);
const TARGET = { rps: 5000, p99: 20, overBare: 3 };
/** MB of WAL the PostgreSQL cluster is warmed with (its segments then reused, as on a server that has run a while; see postgres-cluster.ts). */
const WARM_WAL_MB = Number(env.BENCH_POSTGRES_WARM_WAL_MB ?? 512);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const ZONE = '023e105f4ecef8ad9ca31a8372d0c354';
const USER = { email: 'bench@example.com', key: 'bench-key-5c1e0b8e4a7d' };
const AUTH = { 'x-auth-email': USER.email, 'x-auth-key': USER.key };

// autocannon ships no types: the part of its API used here. Its latency histogram has 1 ms steps, so
// the latencies are taken from its 'response' events instead (milliseconds, fractional).
interface CannonResult {
  duration: number;
  requests: { total: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Called before each request; what it returns is sent (autocannon sets the Content-Length). */
  requests?: { setupRequest: (req: { body?: string }) => { body?: string } }[];
}
type Cannon = (o: CannonOptions) => Promise<CannonResult> & { on(event: 'response', f: (client: unknown, status: number, bytes: number, ms: number) => void): void; stop(): void };
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

// ---------------------------------------------------------------------------------------------------
// The ruleset

/** The 50 rules: what a team's edge firewall might hold. 10 skips, 40 blocks. */
export function rules(): { action: string; expression: string; description: string; action_parameters?: Record<string, unknown> }[] {
  const countries = ['KP', 'IR', 'SY', 'CU', 'RU', 'BY', 'VE', 'MM'];
  const templates: ((i: number) => { action: string; expression: string; description: string })[] = [
    (i) => ({ action: 'block', description: `service ports ${i}`, expression: `tcp.dstport in {${1000 + i} ${2000 + i} ${3000 + i}..${3050 + i}} and not ip.src in {10.${i}.0.0/16 172.16.${i}.0/24 192.168.${i}.0/24}` }),
    (i) => ({ action: 'block', description: `anonymizers on admin ports ${i}`, expression: `ip.src in $svc.anonymizer and tcp.dstport in {22 3389 ${5900 + i}..${5910 + i}}` }),
    (i) => ({ action: 'block', description: `embargo ${i}`, expression: `ip.geoip.country in {"${countries[i % 8]}" "${countries[(i + 3) % 8]}"} and udp.dstport in {${10000 + i * 10}..${10000 + i * 10 + 9}}` }),
    (i) => ({ action: 'block', description: `SYN from watched nets ${i}`, expression: `ip.src in {203.0.113.${i}/32 198.51.100.${(i * 4) % 256}/30 2001:db8:${i.toString(16)}::/48} and tcp.flags.syn and not tcp.flags.ack` }),
    (i) => ({ action: 'skip', description: `partner ${i}`, expression: `ip.src in {192.0.2.${i}/32 198.18.${i}.0/24} and tcp.dstport in {443 8443 ${9000 + i}}` }),
  ];
  const out: ReturnType<typeof rules> = [];
  for (let i = 0; i < 48; i++) out.push(templates[i % templates.length]!(i));
  out.push({ action: 'block', description: 'botnets and malware', expression: 'ip.src in $svc.botnetcc or ip.src in $svc.malware' });
  out.push({ action: 'block', description: 'low ports from outside', expression: 'tcp.dstport in {1..1023} and not ip.src in {10.0.0.0/8 172.16.0.0/12 192.168.0.0/16}' });
  for (const r of out as { action: string; action_parameters?: Record<string, unknown> }[]) if (r.action === 'skip') r.action_parameters = { ruleset: 'current' };
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Processes

/** The bare baseline: fastify with default options, the two routes, fixed answers read from files. */
const BARE_SERVER = `
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
const put = readFileSync(process.env.BARE_PUT, 'utf8');
const get = readFileSync(process.env.BARE_GET, 'utf8');
const app = Fastify({ logger: false });
const path = '/client/v4/accounts/:account_id/rulesets/:ruleset_id';
app.get(path, (req, reply) => reply.type('application/json; charset=utf-8').send(get));
app.put(path, (req, reply) => reply.type('application/json; charset=utf-8').send(put));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log('bare fastify on ' + address + '/client/v4');
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

interface Server {
  name: string;
  proc: ChildProcess;
  /** Base URL, `/client/v4` included. */
  url: string;
  stderr: () => string;
}

function pinned(cpus: string | undefined, cmd: string, args: string[]): [string, string[]] {
  return cpus === undefined ? [cmd, args] : ['taskset', ['-c', cpus, cmd, ...args]];
}

/** Spawn a server and wait for the line naming its URL. */
function startServer(name: string, args: string[], extraEnv: Record<string, string> = {}, nodeFlags: string[] = []): Promise<Server> {
  const [cmd, argv] = pinned(SERVER_CPU, process.execPath, [...nodeFlags, ...args]);
  const proc = spawn(cmd, argv, { cwd: ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${name} did not print its URL in 30 s: ${out}${err}`));
    }, 30_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening: ${out}${err}`));
    });
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = / on (http:\/\/\S+\/client\/v4)/.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.removeAllListeners('exit');
        proc.stdout!.removeAllListeners('data');
        proc.stdout!.resume();
        resolve({ name, proc, url: m[1]!, stderr: () => err });
      }
    });
  });
}

/** SIGTERM and wait for the exit (SIGKILL after 10 s). */
function stopServer(s: Server): Promise<void> {
  if (s.proc.exitCode !== null || s.proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => s.proc.kill('SIGKILL'), 10_000);
    s.proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    s.proc.kill('SIGTERM');
  });
}

/** `rulekit serve` on SQLite in `data`, or on PostgreSQL at `databaseUrl`. */
function startRulekit(name: string, users: string, store: { data: string } | { databaseUrl: string }, nodeFlags: string[] = []): Promise<Server> {
  const where = 'data' in store ? ['--data', store.data] : ['--database-url', store.databaseUrl];
  const flags = [...(env.BENCH_SERVER_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []), ...nodeFlags];
  return startServer(name, [env.BENCH_SERVER_CLI ?? CLI_ENTRY, 'serve', '--port', '0', '--no-demo', '--users', users, ...where, '--log-level', 'warn'], {}, flags);
}

/** User + system CPU seconds of a process so far (all its threads), and its minor page faults, from /proc. */
function procStat(pid: number | undefined): { cpu: number; faults: number } {
  if (pid === undefined) return { cpu: NaN, faults: NaN };
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { cpu: (Number(fields[11]) + Number(fields[12])) / CLK_TCK, faults: Number(fields[7]) };
  } catch {
    return { cpu: NaN, faults: NaN };
  }
}

/**
 * CPU seconds of the bench's PostgreSQL cluster: its postmaster and the processes it forked (backends,
 * WAL writer, checkpointer, autovacuum), so another PostgreSQL on the machine is not counted. A backend
 * that exits during a window takes its CPU time with it, which the bench's long-lived connections avoid.
 */
function postgresCpuSeconds(postmaster: number | undefined): number {
  if (postmaster === undefined) return NaN;
  let total = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(d) !== postmaster && Number(fields[1]) !== postmaster) continue;
      total += (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
      // The postmaster's reaped children (backends whose connections closed, autovacuum workers).
      if (Number(d) === postmaster) total += (Number(fields[13]) + Number(fields[14])) / CLK_TCK;
    } catch {
      // The process ended while it was read.
    }
  }
  return total;
}
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

// ---------------------------------------------------------------------------------------------------
// Requests

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; text: string; json: { success: boolean; result: Record<string, unknown>; errors: unknown[]; messages: unknown[] } }> {
  const res = await fetch(url, { method, headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

/** Create the ruleset on a rulekit server; its id, and the answers of one PUT and one GET. */
async function prepare(s: Server, putBody: string): Promise<{ path: string; putAnswer: string; getAnswer: string; warnings: number }> {
  const created = await call('POST', `${s.url}/accounts/${ACCOUNT}/rulesets`, { name: 'edge firewall', kind: 'root', phase: 'network_transit', ...JSON.parse(putBody) });
  if (created.status !== 200) throw new Error(`${s.name}: creating the ruleset answered ${created.status}: ${created.text.slice(0, 2000)}`);
  const path = `/accounts/${ACCOUNT}/rulesets/${created.json.result['id']}`;
  const put = await call('PUT', s.url + path, JSON.parse(putBody));
  if (put.status !== 200 || put.json.result['version'] !== '2') throw new Error(`${s.name}: the first PUT answered ${put.status}: ${put.text.slice(0, 2000)}`);
  const get = await call('GET', s.url + path);
  if (get.status !== 200 || (get.json.result['rules'] as unknown[]).length !== 50) throw new Error(`${s.name}: GET answered ${get.status}: ${get.text.slice(0, 500)}`);
  return { path, putAnswer: put.text, getAnswer: get.text, warnings: put.json.messages.length };
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU use over the run, 1 = one core. */
  serverCpu: number;
  /** The server's minor page faults per answered request. */
  faults: number;
  /** CPU seconds of PostgreSQL's processes per answered request (rows on PostgreSQL). */
  databaseCpu?: number;
  /** PostgreSQL's CPU use over the run, 1 = one core (whenever its cluster runs: in the rows of other servers, its background work). */
  databaseLoad?: number;
  clientCpu: number;
  bad: number;
  errors: number;
  statuses: string;
  /** 2xx answers in the window. */
  requests: number;
  /** Seconds from the start until the window opened (every connection answered once, warm-up over). */
  admitted: number;
  /** Connections answered at least once. */
  connections: number;
  /** The window on the monotonic clock of V8's profiles (µs). */
  windowUs: [number, number];
}

/**
 * One autocannon run on persistent connections, measured over a steady-state window: it opens once every
 * connection has had an answer and `warmup` seconds have passed, and lasts `seconds`. A saturated Node
 * server accepts about one new connection per turn of its event loop, so with a slow route the last of
 * 64 connections can wait seconds for its first answer: counted from the start, that admission would be
 * the p99, not the requests. Bad answers and errors are counted over the whole run.
 */
async function load(s: Server, method: 'PUT' | 'GET', path: string, body: string | undefined, seconds: number, warmup = WARMUP, postmaster?: number): Promise<Measured> {
  const database = postmaster !== undefined;
  const opts: CannonOptions = { url: s.url + path, connections: CONNECTIONS, duration: warmup + seconds + ADMISSION_MAX, method, headers: { ...AUTH, ...(body ? { 'content-type': 'application/json' } : {}) } };
  if (body?.includes(UNIQUE)) {
    const [head, ...rest] = body.split(UNIQUE);
    let n = 0;
    opts.requests = [{ setupRequest: (req) => ({ ...req, body: head + rest.map((part) => `${(n++).toString(36)}${part}`).join('') }) }];
  } else if (body) opts.body = body;
  const pid = s.proc.pid;
  const t0 = performance.now();
  const run = autocannon(opts);
  const served = new Set<unknown>();
  let window: { start: number; cpu: number; faults: number; db: number; usage: NodeJS.CpuUsage; us: number } | undefined;
  let endUs = NaN;
  const monoUs = () => Number(process.hrtime.bigint() / 1000n);
  let end = Infinity;
  let stopTimer: NodeJS.Timeout | undefined;
  const times: number[] = [];
  /** [ms into the window, latency ms] of every answer, for BENCH_SERVER_LATENCIES. */
  const answers: [number, number][] = [];
  let admitted = NaN;
  const open = () => {
    window = { start: performance.now(), ...procStat(pid), db: database ? postgresCpuSeconds(postmaster) : NaN, usage: process.cpuUsage(), us: monoUs() };
    admitted = (window.start - t0) / 1000;
    stopTimer = setTimeout(() => {
      end = performance.now();
      endUs = monoUs();
      closing = { ...procStat(pid), db: database ? postgresCpuSeconds(postmaster) : NaN, usage: process.cpuUsage(window!.usage) };
      run.stop();
    }, seconds * 1000);
  };
  let closing: { cpu: number; faults: number; db: number; usage: NodeJS.CpuUsage } | undefined;
  const warmTimer = setTimeout(() => {
    if (!window && served.size >= CONNECTIONS) open();
  }, warmup * 1000);
  // Give up waiting for every connection after ADMISSION_MAX s more: measure with those that are in.
  const capTimer = setTimeout(() => {
    if (!window) open();
  }, (warmup + ADMISSION_MAX) * 1000);
  run.on('response', (client, status, _bytes, ms) => {
    const now = performance.now();
    served.add(client);
    if (!window && served.size >= CONNECTIONS && now - t0 >= warmup * 1000) open();
    if (window && now >= window.start && now <= end && status >= 200 && status < 300) {
      times.push(ms);
      if (LATENCIES) answers.push([Math.round(now - window.start), ms]);
    }
  });
  const r = await run;
  clearTimeout(warmTimer);
  clearTimeout(capTimer);
  clearTimeout(stopTimer);
  if (!window) throw new Error(`${s.name}: the run ended before its measuring window opened`);
  if (!closing) {
    end = performance.now();
    endUs = monoUs();
    closing = { ...procStat(pid), db: database ? postgresCpuSeconds(postmaster) : NaN, usage: process.cpuUsage(window.usage) };
  }
  const wall = (end - window.start) / 1000;
  if (LATENCIES) mkdirSync(LATENCIES, { recursive: true });
  if (LATENCIES) writeFileSync(join(LATENCIES, `${s.name.replace(/\W+/g, '-')}-${method}-${Date.now()}.json`), JSON.stringify(answers));
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? NaN;
  const statuses = Object.entries(r.statusCodeStats).map(([k, v]) => `${k}×${v.count}`).join(' ');
  return {
    rps: times.length / wall,
    p50: q(0.5),
    p99: q(0.99),
    serverCpu: (closing.cpu - window.cpu) / wall,
    faults: (closing.faults - window.faults) / times.length,
    ...(database ? { databaseCpu: (closing.db - window.db) / times.length, databaseLoad: (closing.db - window.db) / wall } : {}),
    clientCpu: (closing.usage.user + closing.usage.system) / 1e6 / wall,
    bad: r.non2xx,
    errors: r.errors + r.timeouts,
    statuses,
    requests: times.length,
    admitted,
    connections: served.size,
    windowUs: [window.us, endUs],
  };
}

// ---------------------------------------------------------------------------------------------------
// The profile of a PUT

/** Where a sample's time goes: rulekit's parts by source file, the rest by where the code lives. */
function categorize(frames: readonly { fn: string; source: string }[]): { part: string; sub?: string } {
  // `frames` runs from the root to the leaf. The first of rulekit's server parts on the stack decides.
  const has = (re: RegExp) => frames.findIndex((f) => re.test(f.source));
  const deepest = (from: number) => {
    for (let i = frames.length - 1; i > from; i--) if (frames[i]!.source) return frames[i]!;
    return frames[from]!;
  };
  const leaf = frames[frames.length - 1];
  const v = frames.findIndex((f) => f.fn === 'validateRuleset' || /src\/ruleset\/validate\.ts$/.test(f.source));
  if (v >= 0) {
    const d = deepest(v);
    const sub = /src\/json\//.test(d.source)
      ? 'JSON text parse with ranges and duplicate keys (parseJsonText)'
      : /src\/expression\//.test(d.source)
        ? 'expressions: lex, parse, check (checkExpression)'
        : /src\/logpush\/|src\/net\//.test(d.source)
          ? 'lists, addresses, limits'
          : 'the validator itself (members, rules, pointers)';
    return { part: 'validation (validateRuleset on the JSON text)', sub };
  }
  // Before the store: the route computes the new record inside the store's transaction (its callback).
  if (has(/src\/server\/records\.ts$/) >= 0) return { part: 'records: ids, versions, the JSON text and compact form (records.ts)' };
  const store = has(/src\/server\/store\//);
  if (store >= 0) {
    // By the deepest frame of the store's own code (native work, SQLite's and JSON's, counts in its caller).
    let inner = frames[store]!;
    for (const f of frames.slice(store)) if (/src\/server\/store\//.test(f.source)) inner = f;
    const sub = inner.fn === 'flush'
      ? 'BEGIN, savepoints, COMMIT with its fsync (flush)'
      : /cache\.ts$/.test(inner.source) || inner.fn === 'current'
        ? 'the current record: version read, cache, parse on a miss'
        : 'the write: INSERT of the (compact) history row, UPDATE';
    return { part: 'store (read current, write ruleset + history row)', sub };
  }
  if (has(/src\/server\/body\.ts$/) >= 0) return { part: 'body: the memo of parsed bodies (else UTF-8 check, scan, JSON.parse); the validation memo (body.ts)' };
  if (has(/src\/server\/envelope\.ts$|src\/ruleset\/envelope\.ts$/) >= 0) return { part: 'response: envelope + serialisation' };
  if (has(/src\/server\/auth\.ts$/) >= 0) return { part: 'auth: SHA-256 of the key, constant-time compare' };
  if (frames.some((f) => /src\//.test(f.source))) return { part: 'other rulekit code (hooks, route handler)' };
  if (leaf?.fn === '(garbage collector)') return { part: 'garbage collection' };
  if (leaf?.fn === '(idle)') return { part: 'idle (waiting for requests)' };
  if (frames.some((f) => /node_modules\//.test(f.source))) return { part: 'fastify and its plugins (routing, hooks, reply)' };
  if (leaf?.fn === '(program)') return { part: 'V8 and native code outside JS' };
  return { part: 'Node.js: HTTP parser, sockets, streams' };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Map the profile's frames through the bundle's source maps; tally samples in [from, to] (µs, monotonic clock). */
function breakdown(profile: CpuProfile, from: number, to: number): { rows: Map<string, { n: number; subs: Map<string, number> }>; total: number; intervalUs: number; windowed: boolean } {
  const maps = new Map<string, SourceMap | null>();
  const sourceOf = (url: string, line: number, column: number): string => {
    if (!url.startsWith('file:')) return url;
    let map = maps.get(url);
    if (map === undefined) {
      const file = fileURLToPath(url);
      map = existsSync(file + '.map') ? new SourceMap(JSON.parse(readFileSync(file + '.map', 'utf8'))) : null;
      maps.set(url, map);
    }
    if (!map) return relative(ROOT, fileURLToPath(url));
    const e = map.findEntry(line, column) as { originalSource?: string };
    return e.originalSource ? relative(ROOT, join(dirname(fileURLToPath(url)), e.originalSource.replace(/^file:\/\//, ''))) : relative(ROOT, fileURLToPath(url));
  };
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackCache = new Map<number, { part: string; sub?: string }>();
  const classify = (id: number) => {
    let c = stackCache.get(id);
    if (!c) {
      const frames: { fn: string; source: string }[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const f = byId.get(at)!.callFrame;
        frames.unshift({ fn: f.functionName, source: sourceOf(f.url, f.lineNumber, f.columnNumber) });
      }
      c = categorize(frames);
      stackCache.set(id, c);
    }
    return c;
  };
  const rows = new Map<string, { n: number; subs: Map<string, number> }>();
  let t = profile.startTime;
  let total = 0;
  // Samples in the window; when the clocks do not line up (nothing in it), all samples.
  const inWindow = profile.samples.filter((_, i) => {
    t += profile.timeDeltas[i]!;
    return t >= from && t <= to;
  }).length;
  const windowed = inWindow > 100;
  t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i]!;
    if (windowed && (t < from || t > to)) return;
    const c = classify(id);
    let row = rows.get(c.part);
    if (!row) rows.set(c.part, (row = { n: 0, subs: new Map() }));
    row.n++;
    if (c.sub) row.subs.set(c.sub, (row.subs.get(c.sub) ?? 0) + 1);
    total++;
  });
  const span = windowed ? to - from : profile.endTime - profile.startTime;
  return { rows, total, intervalUs: span / Math.max(total, 1), windowed };
}

async function profilePut(users: string, putBody: string): Promise<void> {
  const dir = mkdtempSync(join(env.BENCH_SERVER_DIR ?? tmpdir(), 'rulekit-bench-prof-'));
  let s: Server | undefined;
  // BENCH_SERVER_PROFILE_STORE=postgres: the server on a throwaway PostgreSQL cluster instead.
  const postgres = env.BENCH_SERVER_PROFILE_STORE === 'postgres';
  let cluster: Cluster | undefined;
  try {
    if (postgres) cluster = await startCluster({ cpus: CLIENT_CPU, warmWalMb: WARM_WAL_MB });
    const storeName = postgres ? 'PostgreSQL' : 'SQLite';
    s = await startRulekit(`${storeName}, profiled`, users, cluster ? { databaseUrl: cluster.url } : { data: join(dir, 'data') }, ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'prof')}`, '--cpu-prof-interval=250']);
    const { path } = await prepare(s, putBody);
    // BENCH_SERVER_PROFILE_BODY: the PUT profiled (same, edited or fresh, as the rows).
    const kind = env.BENCH_SERVER_PROFILE_BODY ?? 'same';
    const body = kind === 'edited' ? editedBody(putBody) : kind === 'fresh' ? freshBody(putBody) : putBody;
    const m = await load(s, 'PUT', path, body, PROFILE_SECONDS);
    const [from, to] = m.windowUs;
    await stopServer(s);
    s = undefined;
    const files = readdirSync(join(dir, 'prof')).filter((f) => f.endsWith('.cpuprofile'));
    if (!files.length) throw new Error('the profiled server wrote no .cpuprofile');
    const profile = JSON.parse(readFileSync(join(dir, 'prof', files[0]!), 'utf8')) as CpuProfile;
    if (env.BENCH_SERVER_PROFILE_KEEP) writeFileSync(env.BENCH_SERVER_PROFILE_KEEP, JSON.stringify(profile));
    const { rows, total, intervalUs, windowed } = breakdown(profile, from, to);
    const perPut = (n: number) => (n * intervalUs) / m.requests;
    const table: (string | number)[][] = [];
    const sorted = [...rows.entries()].sort((a, b) => b[1].n - a[1].n);
    for (const [part, row] of sorted) {
      table.push([part, `${((100 * row.n) / total).toFixed(1)}%`, fmt(perPut(row.n))]);
      for (const [sub, n] of [...row.subs.entries()].sort((a, b) => b[1] - a[1])) table.push([`  · ${sub}`, `${((100 * n) / total).toFixed(1)}%`, fmt(perPut(n))]);
    }
    table.push(['all (server thread, wall clock)', '100%', fmt(perPut(total))]);
    printTable(
      `Where a PUT's time goes: ${storeName} server under --cpu-prof, ${PROFILE_SECONDS} s of PUTs${kind === 'same' ? '' : ` (${kind} body)`} (${fmt(m.rps)} req/s while profiled)`,
      ['part', 'share of samples', 'µs per PUT'],
      table,
      [
        `${total} samples every ~${intervalUs.toFixed(0)} µs ${windowed ? 'during the measured PUT run only' : 'over the whole process (the clocks did not line up)'}; ${m.requests} PUTs; rows by the first rulekit part on the stack (source maps of dist/bundle), the rest by where the code lives`,
        'V8 samples the main thread by wall clock: fsync and SQLite wait count inside the store; "idle" is the thread waiting for the network',
      ],
    );
  } finally {
    if (s) await stopServer(s);
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------

/** Confine this process (all its threads) to CPUs; the previous mask to restore. */
function pinSelf(cpus: string | undefined): string | undefined {
  if (cpus === undefined) return undefined;
  try {
    const before = /:\s*(\S+)\s*$/.exec(execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' }))?.[1];
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
    return before;
  } catch {
    return undefined;
  }
}

function fsType(dir: string): string {
  try {
    return execFileSync('stat', ['-f', '-c', '%T', dir], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Where {@link load} writes a new number into each request's body. */
const UNIQUE = '<unique>';

/**
 * The PUT body with 50 expressions never seen before: each rule gains `and cf.colo.name != "x<n>"` with
 * a number new to every rule of every request, so no expression is in the validator's cache.
 */
function freshBody(putBody: string): string {
  const body = JSON.parse(putBody) as { rules: { expression: string }[] };
  for (const r of body.rules) r.expression = `(${r.expression}) and cf.colo.name != "x${UNIQUE}"`;
  return JSON.stringify(body);
}

/**
 * The PUT body of an edit: the same 50 rules, one of them with a description new to every request, as a
 * person or a pipeline changing one rule sends it. No body is the same as one sent before (the memo of
 * parsed bodies misses), while the expressions are (the validator's cache holds).
 */
function editedBody(putBody: string): string {
  const body = JSON.parse(putBody) as { rules: { description?: string }[] };
  body.rules[0]!.description = `edited, revision ${UNIQUE}`;
  return JSON.stringify(body);
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(env.BENCH_SERVER_DIR ?? tmpdir(), 'rulekit-bench-server-'));
  const users = join(work, 'users.json');
  writeFileSync(users, JSON.stringify([{ ...USER, accounts: [ACCOUNT], zones: [ZONE] }]));
  const putBody = JSON.stringify({ description: 'edge firewall, managed by automation', rules: rules() });
  const servers: Server[] = [];
  let cluster: Cluster | undefined;
  const load0 = loadavg()[0]!;
  const restore = pinSelf(CLIENT_CPU);
  try {
    // The servers: rulekit on SQLite, on PostgreSQL when its store works, and the bare baseline.
    const sqlite = await startRulekit('SQLite', users, { data: join(work, 'sqlite') });
    servers.push(sqlite);
    const prepared = await prepare(sqlite, putBody);
    let pg: { server: Server; path: string } | { skipped: string } = { skipped: 'BENCH_SERVER_POSTGRES=0' };
    if (env.BENCH_SERVER_POSTGRES !== '0') pg = await startPostgres(users, putBody, (c) => (cluster = c), servers);
    writeFileSync(join(work, 'put.json'), prepared.putAnswer);
    writeFileSync(join(work, 'get.json'), prepared.getAnswer);
    const bare = await startServer('bare fastify', ['--input-type=module', '-e', BARE_SERVER], { BARE_PUT: join(work, 'put.json'), BARE_GET: join(work, 'get.json') });
    servers.push(bare);

    type Target = { server: string; s: Server; path: string; database?: boolean } | { server: string; skipped: string };
    const bareT: Target = { server: 'bare fastify (fixed envelope)', s: bare, path: prepared.path };
    const rk: Target[] = [
      { server: 'rulekit, SQLite', s: sqlite, path: prepared.path },
      'skipped' in pg ? { server: 'rulekit, PostgreSQL', skipped: pg.skipped } : { server: 'rulekit, PostgreSQL', s: pg.server, path: pg.path, database: true },
    ];
    // Groups of rows, each beside the bare route's row of the same request kind. Rows run in this
    // order, one after the other, so slow drift of the machine's load spreads over all of them.
    const groups: { request: string; method: 'PUT' | 'GET'; body?: string; targets: Target[]; bareOf?: string }[] = [
      { request: 'PUT 50 rules, same body', method: 'PUT', body: putBody, targets: [bareT, ...rk] },
      { request: 'PUT 50 rules, one rule edited', method: 'PUT', body: editedBody(putBody), targets: rk, bareOf: 'PUT 50 rules, same body' },
      { request: 'PUT 50 rules, 50 new expressions', method: 'PUT', body: freshBody(putBody), targets: rk, bareOf: 'PUT 50 rules, same body' },
      { request: 'GET ruleset, 50 rules', method: 'GET', targets: [bareT, ...rk] },
    ];
    // BENCH_SERVER_ONLY: a regular expression of the requests to run (their bare row's request runs too).
    const only = env.BENCH_SERVER_ONLY ? new RegExp(env.BENCH_SERVER_ONLY) : undefined;
    if (only) {
      const chosen = groups.filter((g) => only.test(g.request));
      const bases = new Set(chosen.map((g) => g.bareOf).filter((b) => b !== undefined));
      groups.splice(0, groups.length, ...groups.filter((g) => only.test(g.request) || bases.has(g.request)));
    }
    // Every row once per round, in the same order: a row and its bare baseline are measured minutes
    // apart at most, and a slow spell of the shared machine moves one round, not the medians.
    const results = new Map<string, Measured[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const g of groups) {
        for (const t of g.targets) {
          if ('skipped' in t) continue;
          const key = `${g.request} ${t.server}`;
          results.set(key, [...(results.get(key) ?? []), await load(t.s, g.method, t.path, g.body, SECONDS, WARMUP, (cluster as Cluster | undefined)?.pid)]);
        }
      }
    }
    const load1 = loadavg()[0]!;

    const rows: (string | number)[][] = [];
    const notes: string[] = [];
    const median = (xs: number[]) => {
      const v = [...xs].sort((a, b) => a - b);
      return v.length % 2 ? v[v.length >> 1]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
    };
    // A ratio to the bare route is taken round by round (the two rows of one round ran a minute apart at
    // most), then its median; with several rounds its range follows.
    const range = (xs: number[]) => (xs.length > 1 && xs.some((x) => x !== 1) ? `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}` : '');
    const ratio = (xs: number[]) => `${median(xs).toFixed(2)}×${range(xs) && ` (${range(xs)})`}`;
    const cpuUs = (m: Measured) => (1e6 * m.serverCpu) / m.rps;
    /** The most PostgreSQL's processes used during a row of another server (checkpoints, autovacuum), 1 = one core. */
    let background: number | undefined;
    for (const g of groups) {
      const bases = results.get(`${g.bareOf ?? g.request} ${bareT.server}`)!;
      for (const t of g.targets) {
        if ('skipped' in t) {
          rows.push([g.request, t.server, '–', '–', '–', '–', '–', '–', '–', '–', '–', '–', `skipped: PostgreSQL store not available (${t.skipped})`]);
          continue;
        }
        const ms = results.get(`${g.request} ${t.server}`)!;
        const of = (f: (m: Measured) => number) => median(ms.map(f));
        const overs = ms.map((m, i) => bases[i]!.rps / m.rps);
        const over = median(overs);
        const rps = of((m) => m.rps);
        const p99 = of((m) => m.p99);
        const badCount = ms.reduce((n, m) => n + m.bad, 0);
        const errors = ms.reduce((n, m) => n + m.errors, 0);
        const bad = badCount || errors ? `${badCount} non-2xx (${ms.map((m) => m.statuses).join(' ')}), ${errors} errors` : '0';
        let note = t.s === bare && g.bareOf === undefined ? 'baseline' : '';
        if (g.method === 'PUT' && t.s !== bare) {
          const missed = [rps < TARGET.rps ? `< ${TARGET.rps} req/s` : '', p99 > TARGET.p99 ? `p99 > ${TARGET.p99} ms` : '', over > TARGET.overBare ? `> ${TARGET.overBare}× bare` : ''].filter(Boolean);
          note = missed.length ? `target missed: ${missed.join(', ')}` : 'target met';
        }
        ms.forEach((m, i) => {
          const where = `${g.request}, ${t.server}${ROUNDS > 1 ? `, round ${i + 1}` : ''}`;
          if (m.connections < CONNECTIONS) notes.push(`${where}: only ${m.connections} of ${CONNECTIONS} connections were answered within ${WARMUP + ADMISSION_MAX} s; measured with those`);
          else if (m.admitted > WARMUP + 0.5) notes.push(`${where}: the last connection got its first answer after ${m.admitted.toFixed(1)} s (the window opened then)`);
        });
        const clientCpu = of((m) => m.clientCpu);
        if (!t.database) for (const m of ms) if (m.databaseLoad !== undefined) background = Math.max(background ?? 0, m.databaseLoad);
        if (clientCpu > 0.9) notes.push(`${g.request}, ${t.server}: the load generator was near one full core (${(100 * clientCpu).toFixed(0)}%), so this row is a lower bound of what the server can take`);
        rows.push([
          g.request, t.server, fmt(rps), ratio(overs), fmt(of((m) => m.p50)), fmt(p99), ratio(ms.map((m, i) => m.p99 / bases[i]!.p99)),
          `${(100 * of((m) => m.serverCpu)).toFixed(0)}% / ${(100 * clientCpu).toFixed(0)}%`,
          ((xs) => `${fmt(of(cpuUs))} (${median(xs).toFixed(2)}×${range(xs) && `, ${range(xs)}`})`)(ms.map((m, i) => cpuUs(m) / cpuUs(bases[i]!))),
          of((m) => m.faults).toFixed(2),
          t.database ? fmt(1e6 * of((m) => m.databaseCpu!)) : '–',
          bad, note,
        ]);
      }
    }
    printTable(
      `Reference server under load: ${CONNECTIONS} connections over loopback, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''} of ${SECONDS} s a row after ${WARMUP} s of warm-up (medians; ratios per round, their median and range)`,
      ['request', 'server', 'req/s', 'time/request × bare', 'p50 ms', 'p99 ms', 'p99 × bare', 'CPU server / client', 'server CPU µs/request (× bare)', 'page faults/request', 'PostgreSQL CPU µs/request', 'bad answers', 'notes'],
      rows,
      [
        `target (issue 10): PUT ≥ ${TARGET.rps} req/s on one core with p99 ≤ ${TARGET.p99} ms, i.e. ≤ ${TARGET.overBare}× the bare route's time per request (bare req/s ÷ req/s); the new-expressions rows are set beside the bare PUT`,
        SERVER_CPU === undefined
          ? 'not pinned (fewer than two CPUs): server and load generator share the machine'
          : `servers pinned to CPU ${SERVER_CPU} (taskset), this process (autocannon) to CPU ${CLIENT_CPU}${'skipped' in pg ? '' : ', PostgreSQL too'}; CPU 100% = one core busy, below it the server waited (fsync, the database, the network)`,
        `PUT: the same ${putBody.length}-byte body each time, as a PUT that changes nothing sends it (each moves the version and writes a history row); "one rule edited": rule 0's description is new in every request, so no body repeats but every expression does; "50 new expressions": each rule ends with \`and cf.colo.name != "<unique id>"\`, so the validator checks every expression afresh`,
        'server CPU µs/request: CPU time of the server process (all its threads) per answered request; less sensitive than req/s to other processes taking the server\'s CPU, which the shared machine\'s load average shows (PostgreSQL\'s own processes are not counted: their CPU time per request is the PostgreSQL column); page faults: the server\'s minor faults per request (memory the allocator gave back and took again)',
        `the bare route answers the bytes rulekit answered (PUT ${prepared.putAnswer.length} B${prepared.warnings ? ` with ${prepared.warnings} info messages` : ''}, GET ${prepared.getAnswer.length} B)`,
        ...('skipped' in pg ? [] : [`PostgreSQL: fsync, synchronous_commit and full_page_writes on; ${WARM_WAL_MB > 0 ? `its WAL warmed with ${WARM_WAL_MB} MB and checkpointed, so segments are reused as on a server that has run a while (BENCH_POSTGRES_WARM_WAL_MB=0: a fresh cluster, which creates a new segment every ~2 s of PUTs)` : 'a fresh cluster (BENCH_POSTGRES_WARM_WAL_MB=0): it creates a new WAL segment every ~2 s of PUTs'}; during the other servers' rows its processes (checkpoints, autovacuum: it shares the load generator's CPU) used at most ${(100 * (background ?? 0)).toFixed(1)}% of a core`]),
        `SQLite: WAL, synchronous=FULL, on ${fsType(work)} (${work}); latencies of 2xx answers; load average ${load0.toFixed(2)} before, ${load1.toFixed(2)} after (other processes on the machine slow every row)`,
        ...notes,
      ],
    );
  } finally {
    for (const s of servers.reverse()) await stopServer(s);
    (cluster as Cluster | undefined)?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  try {
    if (PROFILE_SECONDS > 0) {
      const dir = mkdtempSync(join(env.BENCH_SERVER_DIR ?? tmpdir(), 'rulekit-bench-users-'));
      try {
        const users2 = join(dir, 'users.json');
        writeFileSync(users2, JSON.stringify([{ ...USER, accounts: [ACCOUNT], zones: [ZONE] }]));
        await profilePut(users2, putBody);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    if (restore) execFileSync('taskset', ['-a', '-p', restore, String(process.pid)], { stdio: 'ignore' });
  }
}

/**
 * rulekit on a throwaway PostgreSQL cluster, or why not: the binaries are missing, the cluster does not
 * start, or the store does not open (`openPostgresStore` of the built dist/bundle/server.js is tried
 * first, so an unimplemented store is named as such).
 */
async function startPostgres(users: string, putBody: string, keep: (c: Cluster) => void, servers: Server[]): Promise<{ server: Server; path: string } | { skipped: string }> {
  const bins = postgresBinaries();
  if ('missing' in bins) return { skipped: bins.missing };
  let cluster: Cluster;
  try {
    cluster = await startCluster({ cpus: CLIENT_CPU, warmWalMb: WARM_WAL_MB });
  } catch (e) {
    return { skipped: (e as Error).message.split('\n')[0]! };
  }
  keep(cluster);
  try {
    const lib = (await import(pathToFileURL(join(ROOT, 'dist/bundle/server.js')).href)) as { openPostgresStore: (o: { connectionString: string }) => Promise<{ close(): Promise<void> }> };
    const store = await lib.openPostgresStore({ connectionString: cluster.url });
    await store.close();
  } catch (e) {
    return { skipped: (e as Error).message.split('\n')[0]! };
  }
  const server = await startRulekit('PostgreSQL', users, { databaseUrl: cluster.url });
  servers.push(server);
  const { path } = await prepare(server, putBody);
  return { server, path };
}
