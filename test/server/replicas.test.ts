/**
 * Two server processes on one PostgreSQL database, as two replicas behind a load balancer: concurrent PUTs
 * on one ruleset, sent to both, never lose an update and never answer the same version twice; concurrent
 * creates of one entry point give one ruleset and one 409.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool, needsTool } from '../helpers/tools.js';

const it = needsTool('postgres');
const CLI = fileURLToPath(new URL('../../dist/bundle/cli.js', import.meta.url));
const USER = { email: 'ops@example.com', key: 'ops-key-00001', accounts: ['acc'], zones: ['zone'] };
const H = { 'x-auth-email': USER.email, 'x-auth-key': USER.key, 'content-type': 'application/json' };

/** Start `rulekit serve` on any free port; resolves with its API base URL. */
function startServer(databaseUrl: string, usersFile: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--no-demo', '--users', usersFile, '--database-url', databaseUrl, '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${out}${err}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /reference server on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}${err}`)));
  });
}

describeNeedsTool('postgres')('two server processes on one PostgreSQL', () => {
  let cluster: PostgresCluster;
  let dir: string;
  const servers: { child: ChildProcess; url: string }[] = [];

  beforeAll(async () => {
    cluster = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'rulekit-replicas-'));
    const users = join(dir, 'users.json');
    writeFileSync(users, JSON.stringify([USER]));
    const url = await cluster.createDatabase();
    // One after the other: the second also finds the schema migrated (the advisory lock covers the race).
    servers.push(await startServer(url, users), await startServer(url, users));
  }, 90_000);
  afterAll(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('concurrent PUTs through both replicas: no lost update, no version answered twice, the history complete', async () => {
    const [a, b] = [servers[0]!, servers[1]!];
    const created = await fetch(`${a.url}/accounts/acc/rulesets`, {
      method: 'POST', headers: H,
      body: JSON.stringify({ name: 'fw', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 23' }] }),
    });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { result: { id: string } }).result.id;
    const N = 60;
    const answers = await Promise.all(Array.from({ length: N }, async (_, i) => {
      const r = await fetch(`${(i % 2 ? b : a).url}/accounts/acc/rulesets/${id}`, {
        method: 'PUT', headers: H,
        body: JSON.stringify({ rules: [{ action: 'block', expression: `tcp.dstport == ${1000 + i}`, description: `put ${i}` }] }),
      });
      const body = (await r.json()) as { success: boolean; result: { version: string; rules: { description: string }[] } };
      return { status: r.status, body, i };
    }));
    expect(answers.map((x) => x.status)).toEqual(Array(N).fill(200));
    const versions = answers.map((x) => Number(x.body.result.version));
    expect(new Set(versions).size).toBe(N);
    expect(Math.min(...versions)).toBe(2);
    expect(Math.max(...versions)).toBe(N + 1);
    const final = (await (await fetch(`${b.url}/accounts/acc/rulesets/${id}`, { headers: H })).json()) as { result: { version: string; rules: { description: string }[] } };
    expect(final.result.version).toBe(String(N + 1));
    // The stored ruleset is the one the PUT answered with the highest version.
    const last = answers.find((x) => Number(x.body.result.version) === N + 1)!;
    expect(final.result.rules[0]!.description).toBe(`put ${last.i}`);
    const history = (await (await fetch(`${a.url}/accounts/acc/rulesets/${id}/versions`, { headers: H })).json()) as { result: { version: string }[] };
    expect(history.result.map((v) => v.version)).toEqual(Array.from({ length: N + 1 }, (_, k) => String(k + 1)));
  }, 60_000);

  it('concurrent creates of one entry point through both replicas: one ruleset, one 409', async () => {
    const [a, b] = [servers[0]!, servers[1]!];
    const body = JSON.stringify({ name: 'cf', kind: 'zone', phase: 'http_log_custom_fields' });
    const statuses = await Promise.all([a, b, a, b].map(async (s) => (await fetch(`${s.url}/zones/zone/rulesets`, { method: 'POST', headers: H, body })).status));
    expect(statuses.sort()).toEqual([200, 409, 409, 409]);
    const list = (await (await fetch(`${a.url}/zones/zone/rulesets`, { headers: H })).json()) as { result: unknown[] };
    expect(list.result).toHaveLength(1);
  }, 60_000);
});
