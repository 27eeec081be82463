/**
 * `rulekit serve` on PostgreSQL while its database connections are lost under write load: backends
 * terminated (`pg_terminate_backend`) and the server restarted (`pg_ctl stop -m immediate`, start). The
 * process keeps serving; a request whose connection was lost answers 503 with `Retry-After`, as
 * `server-unavailable` (nothing was written) or `server-write-outcome-unknown` (it may have been);
 * the next requests succeed once the database is back; and no answer that said nothing was written
 * was written (the ruleset's version counts every PUT that may have been applied).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect } from 'vitest';
import { startPostgres, terminateBackends, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool, needsTool } from '../helpers/tools.js';
import { ensureBuilt, killAll, NO_DEMO_ENV, rules, startServer, type Running } from './process.js';

const it = needsTool('postgres');
const DEMO = { 'x-auth-email': 'demo@example.com', 'x-auth-key': 'rulekit-demo-key' };
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';

interface Answer {
  status: number;
  code?: string;
  retryAfter: string | null;
}

async function call(server: Running, method: string, path: string, body?: unknown): Promise<Answer & { result?: { id: string; version: string } }> {
  const r = await fetch(`${server.url}${path}`, { method, headers: { ...DEMO, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await r.json()) as { result?: { id: string; version: string }; errors: { meta: { code: string } }[] };
  return { status: r.status, code: json.errors[0]?.meta.code, retryAfter: r.headers.get('retry-after'), result: json.result ?? undefined };
}


describeNeedsTool('postgres')('rulekit serve when PostgreSQL connections are lost', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    await ensureBuilt();
    // Durable: a crash of a cluster without synchronous commit loses acknowledged commits by design.
    cluster = await startPostgres({ durable: true });
  }, 120_000);
  afterAll(async () => {
    await killAll();
    await cluster?.stop();
  });

  it('keeps serving through terminated backends and a restart: 503 with Retry-After meanwhile, no false "nothing written", writes again after', async () => {
    const url = await cluster.createDatabase();
    const server = await startServer(['--database-url', url, '--log-level', 'silent'], NO_DEMO_ENV);
    const body = (tag: number) => ({ name: 'fw', kind: 'root', phase: 'network_transit', rules: rules(3, tag) });
    const created = await call(server, 'POST', `/accounts/${ACCOUNT}/rulesets`, body(0));
    expect(created.status).toBe(200);
    const path = `/accounts/${ACCOUNT}/rulesets/${created.result!.id}`;

    const answers: Answer[] = [];
    const lost: string[] = [];
    let writing = true;
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        try {
          answers.push(await call(server, 'PUT', path, body(w * 100_000 + i)));
        } catch (e) {
          lost.push(String(e));
          await sleep(50);
        }
      }
    };
    const writers = Promise.all([1, 2, 3, 4].map(writer));

    let terminated = 0;
    for (let i = 0; i < 4; i++) {
      await sleep(300);
      terminated += await terminateBackends(cluster.url);
    }
    await sleep(300);
    await cluster.crash();
    await sleep(300);
    // While the database is down, reads answer 503 as /healthz does, not 500.
    const down = await call(server, 'GET', path);
    expect(down).toMatchObject({ status: 503, code: 'server-unavailable', retryAfter: '5' });
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(503);
    await cluster.start();
    await sleep(500);
    terminated += await terminateBackends(cluster.url);
    await sleep(500);
    writing = false;
    await writers;

    // The database is back: a write succeeds within a few seconds, without a restart of the server.
    let after: Answer | undefined;
    for (let i = 0; i < 40 && after?.status !== 200; i++) {
      if (i) await sleep(250);
      after = await call(server, 'PUT', path, body(999_999_000 + i));
      answers.push(after);
    }
    expect(after?.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
    expect(lost).toEqual([]);
    expect(terminated).toBeGreaterThan(0);

    const statuses = new Set(answers.map((a) => `${a.status} ${a.code ?? ''}`.trim()));
    for (const s of statuses) expect(['200', '503 server-unavailable', '503 server-write-outcome-unknown']).toContain(s);
    for (const a of answers) if (a.status === 503) expect(a.retryAfter).toBe('5');
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);

    // Every version after the first is a PUT answered 200, or one whose outcome was answered unknown.
    const ok = answers.filter((a) => a.status === 200).length;
    const unknown = answers.filter((a) => a.code === 'server-write-outcome-unknown').length;
    const version = Number((await call(server, 'GET', path)).result!.version);
    expect(version - 1).toBeGreaterThanOrEqual(ok);
    expect(version - 1).toBeLessThanOrEqual(ok + unknown);
  }, 120_000);

  it('started with the database down, waits for it (one line per attempt) and serves once it is up', async () => {
    const url = await cluster.createDatabase();
    await cluster.crash();
    const starting = startServer(['--database-url', url, '--log-level', 'silent', '--db-wait', '60'], NO_DEMO_ENV);
    await sleep(2500);
    await cluster.start();
    const server = await starting;
    expect(server.stderr()).toMatch(/^rulekit: the database does not answer \(connect ECONNREFUSED [^)]*\); attempt 1, trying again in 0\.5 s\n/);
    expect(server.stderr()).not.toMatch(/\n\s+at /);
    expect((await call(server, 'GET', `/accounts/${ACCOUNT}/rulesets`)).status).toBe(200);
  }, 120_000);
});
