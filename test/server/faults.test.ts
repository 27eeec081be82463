/**
 * `rulekit serve` when what it needs is not there: a port another process holds, a database that does not
 * answer. Each ends the process promptly with one line and exit code 2, never a hang or a stack trace (a
 * database that comes up late is waited for: faults.postgres.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, killAll, NO_DEMO_ENV, rules, signal, startServer } from './process.js';

const DEMO_ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'rulekit-faults-'));
});
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** Run `rulekit serve ARGS` to its exit (killed after `timeoutMs`): its code, stdout, stderr and time taken. */
export function serveToExit(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { env: { ...process.env, RULEKIT_USERS: '', DATABASE_URL: '', PORT: '', ...NO_DEMO_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe('rulekit serve on a port already taken', () => {
  it('prints one line and exits 2 promptly (the store it opened does not keep it alive)', async () => {
    const first = await startServer(['--data', join(dir, 'first'), '--log-level', 'warn']);
    const port = new URL(first.origin).port;
    const second = await serveToExit(['--port', port, '--data', join(dir, 'second')]);
    expect(second.stderr).toBe(`rulekit: port ${port} is in use; give another with --port (0: any free port)\n`);
    expect(second.code).toBe(2);
    expect(second.ms).toBeLessThan(10_000);
  }, 60_000);
});

/** A port of 127.0.0.1 nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('rulekit serve with its database down', () => {
  it('prints one line per attempt, then exits 2 with one line after --db-wait seconds (no stack trace)', async () => {
    const port = await closedPort();
    const run = await serveToExit(['--port', '0', '--database-url', `postgres://u:p@127.0.0.1:${port}/db`, '--db-wait', '2']);
    const lines = run.stderr.trimEnd().split('\n');
    expect(run.code, run.stderr).toBe(2);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines.slice(0, -1)) expect(l).toMatch(/^rulekit: the database does not answer \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); attempt \d+, trying again in \d\.\d s$/);
    expect(lines.at(-1)).toMatch(/^rulekit: the database did not answer in 2 s \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); is it running\? \(--db-wait sets how long to wait\)$/);
    expect(run.stdout).toBe('');
    expect(run.ms).toBeLessThan(10_000);
  }, 60_000);
});

describe('rulekit serve on SIGTERM with a request in flight on a keep-alive connection', () => {
  it('answers it with Connection: close, closes the connection and exits within 10 s', async () => {
    const server = await startServer(['--data', join(dir, 'sigterm'), '--log-level', 'warn'], NO_DEMO_ENV);
    const origin = new URL(server.origin);
    const body = Buffer.from(JSON.stringify({ name: 'fw', kind: 'root', phase: 'network_transit', rules: rules(2, 1) }));
    const socket = connect(Number(origin.port), origin.hostname);
    let received = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // Keep-alive (HTTP/1.1's default), headers and half the body sent: the request is in flight.
    socket.write(`POST /client/v4/accounts/${DEMO_ACCOUNT}/rulesets HTTP/1.1\r\nHost: ${origin.host}\r\nX-Auth-Email: demo@example.com\r\nX-Auth-Key: rulekit-demo-key\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body.subarray(0, 10));
    await sleep(300);
    const signalled = Date.now();
    signal(server.child, 'SIGTERM');
    await sleep(300);
    socket.write(body.subarray(10));
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect((await server.exited).code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
  }, 60_000);
});

describe('two rulekit serve on one SQLite data directory', () => {
  it('the second prints one line naming the first one’s pid and exits 2; once the first stops, the directory opens again', async () => {
    const data = join(dir, 'shared');
    const first = await startServer(['--data', data, '--log-level', 'warn'], NO_DEMO_ENV);
    const second = await serveToExit(['--port', '0', '--data', data]);
    expect(second.code).toBe(2);
    expect(second.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(`in use by rulekit process ${first.child.pid}`);
    expect(second.stderr).toMatch(/--database-url/);
    signal(first.child, 'SIGTERM');
    expect((await first.exited).code).toBe(0);
    const third = await startServer(['--data', data, '--log-level', 'warn'], NO_DEMO_ENV);
    signal(third.child, 'SIGTERM');
    expect((await third.exited).code).toBe(0);
  }, 60_000);

  it('a lock left by a killed server (SIGKILL) does not keep the next one out', async () => {
    const data = join(dir, 'killed');
    const first = await startServer(['--data', data, '--log-level', 'warn'], NO_DEMO_ENV);
    signal(first.child, 'SIGKILL');
    await first.exited;
    const next = await startServer(['--data', data, '--log-level', 'warn'], NO_DEMO_ENV);
    signal(next.child, 'SIGTERM');
    expect((await next.exited).code).toBe(0);
  }, 60_000);
});

describe('what an operator reads', () => {
  it('a --users file that does not exist is one line naming it, exit 2 (not a raw ENOENT)', async () => {
    const missing = join(dir, 'no-such-users.json');
    const run = await serveToExit(['--port', '0', '--data', join(dir, 'users-missing'), '--users', missing]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`rulekit: the users file ${missing} does not exist (--users); rulekit hash-key prints a hashed key for one\n`);
  }, 30_000);

  it('the banner comes before any log line; --log-format pretty writes one readable line per request, JSON lines otherwise when piped', async () => {
    const pretty = await startServer(['--data', join(dir, 'pretty'), '--log-format', 'pretty']);
    const r = await fetch(`${pretty.url}/accounts/${DEMO_ACCOUNT}/rulesets`, { headers: { 'X-Auth-Email': 'demo@example.com', 'X-Auth-Key': 'rulekit-demo-key', 'X-Request-Id': 'op-77' } });
    expect(r.status).toBe(200);
    signal(pretty.child, 'SIGTERM');
    await pretty.exited;
    const out = pretty.stdout().split('\n');
    expect(out[0]).toMatch(/^rulekit reference server on /);
    const listening = out.findIndex((l) => /Server listening at/.test(l));
    const lastBanner = out.findIndex((l) => /cf\.rulesets\.list/.test(l));
    expect(listening).toBeGreaterThan(lastBanner);
    expect(out.some((l) => l.startsWith('{'))).toBe(false);
    expect(out).toContainEqual(expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  200 GET /client/v4/accounts/${DEMO_ACCOUNT}/rulesets \\d+\\.\\d ms req op-77$`)));

    const piped = await startServer(['--data', join(dir, 'piped')]);
    signal(piped.child, 'SIGTERM');
    await piped.exited;
    const lines = piped.stdout().split('\n');
    expect(lines[0]).toMatch(/^rulekit reference server on /);
    const json = lines.filter((l) => l.startsWith('{'));
    expect(json.length).toBeGreaterThan(0);
    expect(lines.findIndex((l) => l.startsWith('{'))).toBeGreaterThan(lines.findIndex((l) => /cf\.rulesets\.list/.test(l)));
  }, 60_000);
});
