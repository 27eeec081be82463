/**
 * Large bodies are validated on a thread of their own (src/server/off-thread.ts), with the published
 * library: the answers are the ones validation on the server's thread gives. (What it buys, the server's
 * thread free while a 700 KB ruleset is validated, is measured, not tested: docs/performance.md.)
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateLogpushJob, validateRuleset } from '../../src/index.js';
import { createServer, openSqliteStore, type Store } from '../../src/server/index.js';
import { OFF_THREAD_BYTES, OffThreadChecks } from '../../src/server/off-thread.js';
import { ensureBuilt } from './process.js';

const USER = { email: 'big@example.test', key: 'big-key-0123456789', accounts: ['a1'], zones: ['z1'] };
const H = { 'x-auth-email': USER.email, 'x-auth-key': USER.key, 'content-type': 'application/json' };

/** A ruleset body of `n` rules of `m` addresses each, every 50th rule broken. */
function bigRuleset(n: number, m: number): string {
  const ips = (k: number) => Array.from({ length: m }, (_, i) => `10.${k % 250}.${(i >> 8) & 255}.${i & 255}`).join(' ');
  const rules = Array.from({ length: n }, (_, k) => ({ action: 'block', expression: k % 50 === 7 ? `ip.src in {${ips(k)}} and tcp.dstport in {1..70000}` : `ip.src in {${ips(k)}} and tcp.dstport in {1..1024}` }));
  return JSON.stringify({ name: 'big', kind: 'root', phase: 'network_transit', rules });
}

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe('validation off the server’s thread', () => {
  it('answers what validation on this thread answers, rulesets and Logpush jobs alike', async () => {
    const checks = new OffThreadChecks();
    try {
      const text = bigRuleset(200, 300);
      expect(text.length).toBeGreaterThan(OFF_THREAD_BYTES);
      expect(checks.takes(text)).toBe(true);
      const there = await checks.ruleset(text, { operation: 'create', scope: 'account' });
      const here = validateRuleset(text, { operation: 'create', scope: 'account' });
      expect(there).toEqual(here);
      expect(there!.filter((d) => d.severity === 'error').length).toBe(4);
      const job = JSON.stringify({ dataset: 'http_requests', destination_conf: 'https://logs.example.com/x', output_options: { field_names: Array.from({ length: 30_000 }, (_, i) => `Field${i}`) } });
      expect(await checks.job(job, { operation: 'create', scope: 'zone' })).toEqual(validateLogpushJob(job, { operation: 'create', scope: 'zone' }));
      expect(checks.handled).toBe(2);
    } finally {
      await checks.close();
    }
  });

  it('a small body stays on the server’s thread; without the library beside it, every body does', async () => {
    const checks = new OffThreadChecks();
    expect(checks.takes('{"rules":[]}')).toBe(false);
    await checks.close();
    const none = new OffThreadChecks(null);
    expect(none.takes(bigRuleset(200, 300))).toBe(false);
    expect(none.ruleset('{}', { operation: 'create', scope: 'account' })).toBeUndefined();
  });

  describe('in the server', () => {
    let app: FastifyInstance;
    let store: Store;
    const checks = new OffThreadChecks();
    beforeAll(async () => {
      store = openSqliteStore({ path: ':memory:' });
      app = await createServer({ users: [USER], store, playground: false, validationThread: checks });
    });
    afterAll(async () => {
      await app.close();
      await store.close();
    });

    it('a large ruleset is validated on the thread, with the answer the server’s thread gives; a small one is not', async () => {
      const text = bigRuleset(200, 300);
      const inline = await createServer({ users: [USER], store, playground: false, validationThread: false });
      try {
        const before = checks.handled;
        const r = await app.inject({ method: 'POST', url: '/client/v4/accounts/a1/rulesets', headers: H, payload: text });
        expect(checks.handled).toBe(before + 1);
        expect(r.body).toBe((await inline.inject({ method: 'POST', url: '/client/v4/accounts/a1/rulesets', headers: H, payload: text })).body);
        await app.inject({ method: 'POST', url: '/client/v4/accounts/a1/rulesets?dry_run=true', headers: H, payload: { name: 's', kind: 'custom', phase: 'network_transit', rules: [] } });
        expect(checks.handled).toBe(before + 1);
      } finally {
        await inline.close();
      }
      const r = await app.inject({ method: 'POST', url: '/client/v4/accounts/a1/rulesets', headers: H, payload: text });
      expect(r.statusCode).toBe(400);
      const errors = (r.json() as { errors: { source?: { pointer: string }; meta: { code: string } }[] }).errors;
      expect(errors.map((e) => e.source?.pointer)).toEqual(['/rules/7/expression', '/rules/57/expression', '/rules/107/expression', '/rules/157/expression']);
    });

    it('a large PUT is validated on the thread against the stored phase, and written', async () => {
      const created = await app.inject({ method: 'POST', url: '/client/v4/accounts/a1/rulesets', headers: H, payload: { name: 'x', kind: 'root', phase: 'network_transit', rules: [] } });
      const id = (created.json() as { result: { id: string } }).result.id;
      const body = JSON.parse(bigRuleset(120, 300)) as { rules: { expression: string }[] };
      body.rules = body.rules.map((r) => ({ ...r, expression: r.expression.replace('1..70000', '1..1024') }));
      const text = JSON.stringify({ rules: body.rules });
      expect(text.length).toBeGreaterThan(OFF_THREAD_BYTES);
      const before = checks.handled;
      const put = await app.inject({ method: 'PUT', url: `/client/v4/accounts/a1/rulesets/${id}`, headers: H, payload: text });
      expect(put.statusCode, put.body.slice(0, 300)).toBe(200);
      expect(checks.handled).toBe(before + 1);
      expect((put.json() as { result: { version: string; rules: unknown[] } }).result).toMatchObject({ version: '2', rules: expect.any(Array) });
    });
  });
});
