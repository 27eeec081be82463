/**
 * Graceful shutdown of `rulekit serve` on SIGTERM, with requests in flight: slow clients that sent their
 * headers and half a body, and keep-alive clients PUTting in a loop. Every request the server accepted gets
 * its whole answer; requests after closing began get a whole 503 envelope or no connection at all — never
 * a truncated response; the process exits 0 soon after; and, restarted on the same data, the ruleset's
 * version is exactly 1 + the PUTs answered 200 (nothing was written whose answer was lost).
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killAll, rules, startServer, writeUsers, type Running } from './process.js';

const EMAIL = 'shutdown@example.test';
const KEY = 'shutdown-key-0123456789';
const AUTH = { 'x-auth-email': EMAIL, 'x-auth-key': KEY };

let dir: string;
let usersFile: string;
let args: string[];

/** A whole HTTP/1.1 response read off a raw socket (Content-Length bodies only: the server sends those). */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseRaw(bytes: Buffer): RawAnswer | { truncated: string } | undefined {
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { truncated: `no end of headers in ${JSON.stringify(text.slice(0, 200))}` };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const body = bytes.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  const length = Number(headers['content-length']);
  if (!Number.isFinite(length) || body.length !== length) return { truncated: `status ${status}, content-length ${headers['content-length']}, got ${body.length} bytes` };
  return { status, headers, body: body.toString('utf8') };
}

/** A client that sends a PUT's headers and the first half of its body, and the rest when told. */
function slowPut(origin: URL, path: string, body: string): { socket: Socket; finish: () => void; answer: Promise<Buffer>; connected: Promise<void> } {
  const socket = connect(Number(origin.port), origin.hostname);
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const head = `PUT ${path} HTTP/1.1\r\nHost: ${origin.host}\r\nX-Auth-Email: ${EMAIL}\r\nX-Auth-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
  const chunks: Buffer[] = [];
  const answer = new Promise<Buffer>((resolve) => {
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('error', () => undefined);
  });
  const connected = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => {
      socket.write(head);
      socket.write(bytes.subarray(0, half), () => resolve());
    });
    socket.once('error', reject);
  });
  return { socket, connected, answer, finish: () => socket.write(bytes.subarray(half)) };
}

type Outcome = { kind: 'answer'; status: number; body: string } | { kind: 'no-answer'; error: string } | { kind: 'truncated'; error: string };

/** One request; a response that started and did not finish is 'truncated'. */
function put(agent: Agent, url: URL, body: string): Promise<Outcome> {
  return new Promise((resolve) => {
    let started = false;
    const req = request(url, { agent, method: 'PUT', headers: { ...AUTH, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      started = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => resolve({ kind: 'truncated', error: 'aborted' }));
      res.on('error', (e) => resolve({ kind: 'truncated', error: e.message }));
      res.on('end', () => {
        const b = Buffer.concat(chunks);
        const length = Number(res.headers['content-length']);
        if (!res.complete || (Number.isFinite(length) && b.length !== length)) resolve({ kind: 'truncated', error: `${b.length} of ${length} bytes` });
        else resolve({ kind: 'answer', status: res.statusCode!, body: b.toString('utf8') });
      });
    });
    req.on('error', (e) => resolve(started ? { kind: 'truncated', error: e.message } : { kind: 'no-answer', error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(body);
  });
}

function envelopeOf(status: number, body: string): { result: { version?: string } | null; success: boolean; errors: { meta?: { code?: string } }[] } {
  const env = JSON.parse(body);
  expect(Object.keys(env).sort()).toEqual(['errors', 'messages', 'result', 'success']);
  expect(env.success).toBe(status < 400);
  return env;
}

describe('graceful shutdown on SIGTERM', () => {
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'rulekit-shutdown-'));
    usersFile = writeUsers(dir, [{ email: EMAIL, key: KEY, accounts: ['acc1'], zones: ['zone1'] }]);
    // Each test a data directory of its own: one process per directory, and a test that fails may leave its server running.
    args = ['--no-demo', '--users', usersFile, '--log-level', 'warn'];
  });

  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes requests in flight, refuses or 503s the rest, never truncates, exits 0', async () => {
    const server: Running = await startServer([...args, '--data', join(dir, 'data-1')]);
    const origin = new URL(server.origin);
    const created = await fetch(`${server.url}/accounts/acc1/rulesets`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'sd', kind: 'root', phase: 'network_transit', rules: rules(5, 0) }) });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { result: { id: string } }).result.id;
    const path = `/client/v4/accounts/acc1/rulesets/${id}`;
    const body = (i: number) => JSON.stringify({ name: `sd ${i}`, rules: rules(50, i) });

    // Slow clients: headers and half a body sent before the signal.
    const slow = Array.from({ length: 8 }, (_, i) => slowPut(origin, path, body(1000 + i)));
    await Promise.all(slow.map((s) => s.connected));

    // Keep-alive clients PUTting in a loop until the server is gone.
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const outcomes: Outcome[] = [];
    let exited = false;
    const loops = Array.from({ length: 16 }, async (_, c) => {
      for (let n = 0; !exited; n++) {
        const o = await put(agent, new URL(path, origin), body(c * 1000 + n));
        outcomes.push(o);
        if (o.kind === 'no-answer') await sleep(5);
      }
    });
    // Until some PUTs were answered (a loaded machine may take longer than the 300 ms an idle one does).
    const answered = () => outcomes.filter((o) => o.kind === 'answer' && o.status === 200).length;
    for (let waited = 0; waited < 20_000 && (waited < 300 || answered() === 0); waited += 50) await sleep(50);
    const answeredBefore = answered();
    expect(answeredBefore).toBeGreaterThan(0);

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    // Closing has begun: the slow clients now send the rest of their bodies.
    await sleep(300);
    expect(server.child.exitCode, 'the server must wait for the slow requests').toBeNull();
    for (const s of slow) s.finish();

    const exit = await Promise.race([server.exited, sleep(30_000).then(() => 'timeout' as const)]);
    expect(exit, 'the server did not exit within 30 s of SIGTERM').not.toBe('timeout');
    expect(exit).toEqual({ code: 0, signal: null });
    const exitMs = Date.now() - signalled;
    exited = true;
    await Promise.all(loops);
    agent.destroy();

    // Every slow request was accepted before closing: each gets its whole 200.
    let slowOk = 0;
    for (const s of slow) {
      const a = parseRaw(await s.answer);
      expect(a, 'a slow client got no answer').toBeDefined();
      expect(a, JSON.stringify(a)).not.toHaveProperty('truncated');
      const r = a as RawAnswer;
      expect(r.status, r.body).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(envelopeOf(r.status, r.body).success).toBe(true);
      slowOk++;
    }

    // The loops: whole answers (200, or 503 once closing began) or no connection; never a cut-off answer.
    const truncated = outcomes.filter((o) => o.kind === 'truncated');
    expect(truncated).toEqual([]);
    let loopOk = 0;
    for (const o of outcomes) {
      if (o.kind !== 'answer') {
        expect(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'socket hang up']).toContain((o as { error: string }).error);
        continue;
      }
      expect([200, 503], o.body).toContain(o.status);
      const env = envelopeOf(o.status, o.body);
      if (o.status === 503) expect(env.errors[0]!.meta?.code).toBe('server-unavailable');
      else loopOk++;
    }
    // After the exit, a new connection is refused.
    const after = await put(new Agent(), new URL(path, origin), body(0));
    expect(after).toMatchObject({ kind: 'no-answer', error: 'ECONNREFUSED' });

    // Nothing written without its answer: the version counts exactly the PUTs answered 200.
    const again = await startServer([...args, '--data', join(dir, 'data-1')]);
    const got = await fetch(`${again.url}/accounts/acc1/rulesets/${id}`, { headers: AUTH });
    const version = Number(((await got.json()) as { result: { version: string } }).result.version);
    expect(version).toBe(1 + slowOk + loopOk);
    again.child.kill('SIGKILL');
    await again.exited;
    const kinds = new Map<string, number>();
    for (const o of outcomes) {
      const k = o.kind === 'answer' ? String(o.status) : o.error;
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
    console.log(`shutdown: ${slowOk} slow PUTs answered 200; looping PUTs ${JSON.stringify(Object.fromEntries(kinds))}; exit ${exitMs} ms after SIGTERM`);
  });

  it('an idle server exits 0 at once on SIGTERM, and on SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const server = await startServer([...args, '--data', join(dir, `data-2-${signal}`)]);
      // An idle keep-alive connection must not hold the process open.
      const agent = new Agent({ keepAlive: true });
      const res = await new Promise<number>((resolve, reject) => request(`${server.url}/accounts/acc1/rulesets`, { agent, headers: AUTH }, (r) => {
        r.resume();
        r.on('end', () => resolve(r.statusCode!));
      }).on('error', reject).end());
      expect(res).toBe(200);
      const t = Date.now();
      server.child.kill(signal);
      const exit = await Promise.race([server.exited, sleep(15_000).then(() => 'timeout' as const)]);
      expect(exit, signal).toEqual({ code: 0, signal: null });
      expect(Date.now() - t).toBeLessThan(10_000);
      agent.destroy();
    }
  });
});
