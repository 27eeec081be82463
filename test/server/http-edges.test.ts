/**
 * Clients that are slow or strange at the HTTP level, on a listening server: a body that trickles in, a body
 * still to come after a refusal, a request without `Host`, a trailing slash. Each is answered in the
 * envelope, and the slow ones have their connection closed. A transfer coding other than chunked is refused;
 * an answer lists at most 100 errors.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, openSqliteStore } from '../../src/server/index.js';

const USER = { email: 'edges@example.test', key: 'edges-key-0123456789', accounts: ['a1'], zones: [] };
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = await createServer({ users: [USER], requestTimeout: 1000, playground: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await app.close();
});

/** Send `head` (and then `body`, in the pieces given, `every` ms apart); everything read until the server closes the connection, and when it did. */
async function raw(head: string, pieces: string[] = [], every = 0, limitMs = 10_000): Promise<{ text: string; closedAfterMs: number }> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  const started = Date.now();
  socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(head);
  void (async () => {
    for (const p of pieces) {
      if (socket.destroyed) return;
      socket.write(p);
      await sleep(every);
    }
  })();
  const timer = setTimeout(() => socket.destroy(), limitMs);
  const closedAfterMs = await closed;
  clearTimeout(timer);
  return { text, closedAfterMs };
}

const codeOf = (text: string) => (JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { errors: { meta: { code: string } }[] }).errors[0]?.meta.code;

describe('slow and strange clients', () => {
  it('a body that trickles in is answered 408 in the envelope once the request timeout passes, and the connection closed', async () => {
    const head = `POST /client/v4/accounts/a1/rulesets HTTP/1.1\r\nHost: x\r\nX-Auth-Email: ${USER.email}\r\nX-Auth-Key: ${USER.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const r = await raw(head, Array.from({ length: 100 }, () => ' '), 500);
    expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(codeOf(r.text)).toBe('server-request-timeout');
    expect(r.closedAfterMs).toBeLessThan(5000);
  });

  it('a refusal (401) of a request with a large body still to come closes the connection instead of reading it', async () => {
    const head = `POST /client/v4/accounts/a1/rulesets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`;
    const r = await raw(head);
    expect(r.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.text.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(r.closedAfterMs).toBeLessThan(2000);
  });

  it('a request without Host answers 400 server-bad-request in the envelope', async () => {
    const r = await raw(`GET /client/v4/accounts/a1/rulesets HTTP/1.1\r\nX-Auth-Email: ${USER.email}\r\nX-Auth-Key: ${USER.key}\r\nConnection: close\r\n\r\n`);
    expect(r.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(codeOf(r.text)).toBe('server-bad-request');
  });

  it('Transfer-Encoding: gzip, chunked is refused 501 in the envelope (not read as plain chunked JSON), and the connection closed', async () => {
    const body = '{"name":"x","kind":"root","phase":"network_transit","rules":[]}';
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const r = await raw(`POST /client/v4/accounts/a1/rulesets HTTP/1.1\r\nHost: x\r\nX-Auth-Email: ${USER.email}\r\nX-Auth-Key: ${USER.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n`, [chunked]);
    expect(r.text).toMatch(/^HTTP\/1\.1 501 /);
    expect(codeOf(r.text)).toBe('server-unsupported-transfer-encoding');
    expect(r.text.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(r.closedAfterMs).toBeLessThan(2000);
    const list = await app.inject({ method: 'GET', url: '/client/v4/accounts/a1/rulesets', headers: { 'x-auth-email': USER.email, 'x-auth-key': USER.key } });
    expect(list.json()).toMatchObject({ result: [] });
  });

  it('a body with thousands of errors answers the first 100 and a last entry counting the rest (not a 41 MB answer)', async () => {
    const rules = Array.from({ length: 200 }, () => ({}));
    const r = await app.inject({ method: 'POST', url: '/client/v4/accounts/a1/rulesets', headers: { 'x-auth-email': USER.email, 'x-auth-key': USER.key, 'content-type': 'application/json' }, payload: { name: 'x', kind: 'root', phase: 'network_transit', rules } });
    expect(r.statusCode).toBe(400);
    const { errors } = r.json() as { errors: { message: string; meta: { code: string } }[] };
    expect(errors).toHaveLength(101);
    expect(errors.slice(0, 100).every((e) => e.meta.code !== 'server-errors-truncated')).toBe(true);
    const last = errors[100]!;
    expect(last.meta.code).toBe('server-errors-truncated');
    const more = Number(/and (\d+) more errors/.exec(last.message)?.[1]);
    expect(more).toBeGreaterThanOrEqual(100);
    expect(r.body.length).toBeLessThan(100_000);
  });

  it('a trailing slash is the path without it, not a ruleset with an empty id', async () => {
    const r = await app.inject({ method: 'GET', url: '/client/v4/accounts/a1/rulesets/', headers: { 'x-auth-email': USER.email, 'x-auth-key': USER.key } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ success: true, result: [] });
  });
});

describe('/healthz, which answers without credentials', () => {
  it('says the database does not answer, without the database’s address or the driver’s words', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    store.ping = async () => {
      throw new Error('connect ECONNREFUSED 10.20.30.40:5432');
    };
    const down = await createServer({ users: [USER], store, playground: false });
    try {
      const r = await down.inject({ method: 'GET', url: '/healthz' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ success: false, errors: [{ message: 'the database does not answer', meta: { code: 'server-unavailable' } }] });
      expect(r.body).not.toMatch(/10\.20\.30\.40|5432|ECONNREFUSED/);
    } finally {
      await down.close();
      await store.close();
    }
  });
});
