/**
 * Load on loopback, bounded in time: 64 keep-alive connections PUT a 50-rule ruleset and GET it against
 * the server as a child process (SQLite on disk). No errors, no status but 200, and no lost update: the
 * final version is 1 + the number of acknowledged PUTs, and the history has every version once.
 * Kept light for a loaded 2-core CI machine: it measures nothing, it only counts.
 */
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killAll, rules, startServer, writeUsers, type Running } from './process.js';

const EMAIL = 'load@example.test';
const KEY = 'load-key-0123456789';
const CONNECTIONS = 64;
const DURATION_MS = Number(process.env.RULEKIT_LOAD_MS ?? 8_000);

let dir: string;
let server: Running;

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function send(agent: Agent, url: URL, method: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      agent,
      method,
      headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY, ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('load: 64 connections on PUT (50 rules) and GET', () => {
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'rulekit-load-'));
    const users = writeUsers(dir, [{ email: EMAIL, key: KEY, accounts: ['acc1'], zones: ['zone1'] }]);
    server = await startServer(['--no-demo', '--users', users, '--data', join(dir, 'data'), '--log-level', 'warn']);
  });

  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('0 errors, 0 non-2xx, no lost update', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const base = server.url;
    const created = await send(agent, new URL(`${base}/accounts/acc1/rulesets`), 'POST', JSON.stringify({ name: 'load', kind: 'root', phase: 'network_transit', rules: rules(50, 0) }));
    expect(created.status, created.body).toBe(200);
    const id = JSON.parse(created.body).result.id as string;
    const one = new URL(`${base}/accounts/acc1/rulesets/${id}`);
    const puts = Array.from({ length: 8 }, (_, i) => JSON.stringify({ name: `load ${i}`, rules: rules(50, i + 1) }));

    const tally = { put: 0, get: 0, errors: [] as string[], statuses: new Map<number, number>(), maxGetVersion: 0 };
    const deadline = Date.now() + DURATION_MS;
    async function connection(c: number): Promise<void> {
      for (let n = 0; Date.now() < deadline; n++) {
        const isPut = (c + n) % 2 === 0;
        try {
          const res = await send(agent, one, isPut ? 'PUT' : 'GET', isPut ? puts[(c + n) % puts.length] : undefined);
          tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
          if (res.status !== 200) {
            tally.errors.push(`${isPut ? 'PUT' : 'GET'} ${res.status} ${res.body.slice(0, 200)}`);
            continue;
          }
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          const env = JSON.parse(res.body) as { success: boolean; result: { version: string; rules: unknown[] } };
          expect(env.success).toBe(true);
          expect(env.result.rules).toHaveLength(50);
          if (isPut) tally.put++;
          else {
            tally.get++;
            tally.maxGetVersion = Math.max(tally.maxGetVersion, Number(env.result.version));
          }
        } catch (e) {
          tally.errors.push(`${isPut ? 'PUT' : 'GET'}: ${(e as Error).message}`);
        }
      }
    }
    const started = Date.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, c) => connection(c)));
    const seconds = (Date.now() - started) / 1000;

    expect(tally.errors.slice(0, 5)).toEqual([]);
    expect([...tally.statuses.keys()]).toEqual([200]);
    // Every connection was used, and the run did some real work even on a slow machine.
    expect(tally.put).toBeGreaterThan(CONNECTIONS);
    expect(tally.get).toBeGreaterThan(CONNECTIONS);

    const final = await send(agent, one, 'GET');
    const version = Number(JSON.parse(final.body).result.version);
    expect(version).toBe(1 + tally.put);
    expect(tally.maxGetVersion).toBeLessThanOrEqual(version);
    const versions = JSON.parse((await send(agent, new URL(`${one}/versions`), 'GET')).body).result as { version: string }[];
    expect(versions.map((v) => Number(v.version))).toEqual(Array.from({ length: version }, (_, i) => i + 1));
    agent.destroy();
    // For the log of a CI run (not asserted: the benchmark measures speed).
    console.log(`load: ${tally.put} PUT + ${tally.get} GET in ${seconds.toFixed(1)} s over ${CONNECTIONS} connections (${((tally.put + tally.get) / seconds).toFixed(0)} req/s)`);
  });
});
