/**
 * `rulekit serve` as its user starts it: the data directory it picks without `--data` (./.rulekit-data, or
 * a temp dir when that cannot be used), `--host`, users from `RULEKIT_USERS`, `DATABASE_URL` from the
 * environment, its structured request logs with the request id, and the server as a library imported by
 * the package's own name (`rulekit/server`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool } from '../helpers/tools.js';
import { ensureBuilt, killAll, NO_DEMO_ENV, ROOT, type Running, signal, startServer } from './process.js';

let dir: string;
const DEMO = { 'X-Auth-Email': 'demo@example.com', 'X-Auth-Key': 'rulekit-demo-key' };
const DEMO_ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const RULESET = { name: 'fw', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] };

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'rulekit-serve-options-'));
});
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function stop(server: Running): Promise<void> {
  signal(server.child, 'SIGTERM');
  expect((await server.exited).code).toBe(0);
}

/** Create the demo account's ruleset through the server; its id. */
async function create(server: Running, headers: Record<string, string> = DEMO, account = DEMO_ACCOUNT): Promise<string> {
  const r = await fetch(`${server.url}/accounts/${account}/rulesets`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(RULESET) });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as { result: { id: string } }).result.id;
}

describe('rulekit serve without --data', () => {
  it('keeps its data in ./.rulekit-data of the working directory, and finds it there on the next start', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const first = await startServer(['--log-level', 'warn'], NO_DEMO_ENV, 60_000, cwd);
    expect(first.stdout()).toContain(`storage: SQLite in ${join(cwd, '.rulekit-data')}`);
    const id = await create(first);
    await stop(first);
    expect(existsSync(join(cwd, '.rulekit-data', 'rulekit.sqlite'))).toBe(true);
    const second = await startServer(['--log-level', 'warn'], NO_DEMO_ENV, 60_000, cwd);
    const r = await fetch(`${second.url}/accounts/${DEMO_ACCOUNT}/rulesets/${id}`, { headers: DEMO });
    expect(r.status).toBe(200);
    await stop(second);
  });

  it('uses a temp directory when ./.rulekit-data cannot be a directory', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(cwd, '.rulekit-data'), 'a file where the directory would go');
    const server = await startServer(['--log-level', 'warn'], NO_DEMO_ENV, 60_000, cwd);
    const where = /storage: SQLite in (\S+)/.exec(server.stdout())?.[1];
    expect(where).toMatch(new RegExp(`^${tmpdir().replace(/[/\\]/g, '\\$&')}/rulekit-data-`));
    await create(server);
    await stop(server);
    expect(existsSync(join(where!, 'rulekit.sqlite'))).toBe(true);
    rmSync(where!, { recursive: true, force: true });
  });
});

describe('rulekit serve options and environment', () => {
  it('--host: listens on the address given and prints it', async () => {
    const server = await startServer(['--host', '127.0.0.2', '--data', join(dir, 'host'), '--log-level', 'warn'], NO_DEMO_ENV);
    expect(new URL(server.url).hostname).toBe('127.0.0.2');
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    await stop(server);
  });

  it('RULEKIT_USERS: the users of the environment sign in; the demo user is off with --no-demo', async () => {
    const users = [{ email: 'ops@corp.example', key: 'ops-key-from-env-01', accounts: ['acc-ops'], zones: [] }];
    const server = await startServer(['--no-demo', '--data', join(dir, 'users-env'), '--log-level', 'warn'], { ...NO_DEMO_ENV, RULEKIT_USERS: JSON.stringify(users) });
    await create(server, { 'X-Auth-Email': 'ops@corp.example', 'X-Auth-Key': 'ops-key-from-env-01' }, 'acc-ops');
    const demo = await fetch(`${server.url}/accounts/${DEMO_ACCOUNT}/rulesets`, { headers: DEMO });
    expect(demo.status).toBe(403);
    await stop(server);
  });

  it('logs: one JSON line per request with its request id, status and time', async () => {
    const server = await startServer(['--data', join(dir, 'logs'), '--log-level', 'info'], NO_DEMO_ENV);
    const r = await fetch(`${server.url}/accounts/${DEMO_ACCOUNT}/rulesets`, { headers: { ...DEMO, 'X-Request-Id': 'trace-4242' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('trace-4242');
    await stop(server);
    const lines = server.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { reqId?: string; msg?: string; res?: { statusCode?: number }; responseTime?: number });
    const done = lines.find((l) => l.reqId === 'trace-4242' && l.res?.statusCode === 200);
    expect(done, server.stdout()).toBeDefined();
    expect(typeof done!.responseTime).toBe('number');
  });

  it('the server as a library: `rulekit/server` by the package’s name, from ESM and CommonJS', () => {
    const esm = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('rulekit/server'); console.log(typeof m.createServer, typeof m.openStore)"], { cwd: ROOT, encoding: 'utf8' });
    expect(esm.stdout.trim(), esm.stderr).toBe('function function');
    const cjs = spawnSync(process.execPath, ['-e', "const m = require('rulekit/server'); console.log(typeof m.createServer)"], { cwd: ROOT, encoding: 'utf8' });
    expect(cjs.stdout.trim(), cjs.stderr).toBe('function');
  });
});

describeNeedsTool('postgres')('DATABASE_URL', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('DATABASE_URL in the environment chooses PostgreSQL, as --database-url does', async () => {
    const url = await cluster.createSchema();
    const server = await startServer(['--log-level', 'warn'], { ...NO_DEMO_ENV, DATABASE_URL: url });
    expect(server.stdout()).toContain('storage: PostgreSQL');
    const id = await create(server);
    await stop(server);
    const again = await startServer(['--database-url', url, '--log-level', 'warn'], NO_DEMO_ENV);
    expect((await fetch(`${again.url}/accounts/${DEMO_ACCOUNT}/rulesets/${id}`, { headers: DEMO })).status).toBe(200);
    await stop(again);
  });
});
