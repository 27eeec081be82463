/**
 * Security of every route, on the store it is given: the route list comes from the server's own OpenAPI
 * document, so a route added later is covered without editing this file. Without credentials → 401;
 * wrong ones → 403; another tenant's account or zone → 403 with nothing read or changed. Run against each
 * store (auth.test.ts, security.postgres.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Store } from '../../src/server/index.js';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { ACCOUNT_RULESET, USERS } from './sdk-suite.js';

type Injected = Awaited<ReturnType<FastifyInstance['inject']>>;

export const ALICE = { 'x-auth-email': USERS[0]!.email, 'x-auth-key': USERS[0]!.key };
export const BOB = { 'x-auth-email': USERS[1]!.email, 'x-auth-key': USERS[1]!.key };

export function envelope(r: Injected): { result: unknown; success: boolean; errors: { code: number; message: string; meta: { code: string } }[]; messages: unknown[] } {
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body);
  expect(Object.keys(body).sort()).toEqual(['errors', 'messages', 'result', 'success']);
  return body;
}

/** The tenancy suite on a store: `open` makes a new, empty one. */
export function tenancySuite(storeName: string, open: () => Promise<Store>): void {
  describe(`credentials and tenancy on every route, on ${storeName}`, () => {
    let app: FastifyInstance;
    /** Every answer to an official operation, checked against Cloudflare's OpenAPI document. */
    const answers = new AnswerChecker();
    let store: Store;
    let routes: { method: string; path: string }[];
    let aliceRuleset: string;
    let aliceJob: number;

    beforeAll(async () => {
      store = await open();
      app = await createServer({ users: USERS, store, failedAuthLimit: { max: 1_000_000, windowMs: 60_000 } });
      const doc = JSON.parse((await answers.inject(app, { method: 'GET', url: '/openapi.json' })).body) as { paths: Record<string, Record<string, unknown>> };
      routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })));
      const rs = await answers.inject(app, { method: 'POST', url: '/client/v4/accounts/acc-alice/rulesets', headers: ALICE, payload: ACCOUNT_RULESET });
      aliceRuleset = JSON.parse(rs.body).result.id;
      const job = await answers.inject(app, {
        method: 'POST', url: '/client/v4/zones/zone-alice/logpush/jobs', headers: ALICE,
        payload: { name: 'j', destination_conf: 'https://logs.example.com/p', dataset: 'http_requests', logpull_options: 'fields=ClientIP&timestamps=rfc3339' },
      });
      aliceJob = JSON.parse(job.body).result.id;
    });
    afterAll(async () => {
      await app.close();
      await store.close();
    });

    const url = (path: string, owner: 'alice' | 'bob') => path
      .replace('{account_id}', owner === 'alice' ? 'acc-alice' : 'acc-bob')
      .replace('{zone_id}', owner === 'alice' ? 'zone-alice' : 'zone-bob')
      .replace('{ruleset_id}', aliceRuleset)
      .replace('{job_id}', String(aliceJob));
    const payloadFor = (method: string, path: string) => (method === 'POST' || method === 'PUT' ? (path.includes('logpush') ? { enabled: true } : path.endsWith('simulate') ? { packets: [] } : { rules: [] }) : undefined);

    it('the OpenAPI document lists the API’s routes', () => {
      expect(routes.length).toBeGreaterThanOrEqual(20);
      expect(routes).toContainEqual({ method: 'PUT', path: '/client/v4/zones/{zone_id}/rulesets/{ruleset_id}' });
      expect(routes).toContainEqual({ method: 'POST', path: '/client/v4/zones/{zone_id}/logpush/jobs' });
    });

    it('answers 401 without credentials, 401 with only one header, and 403 with a wrong key or unknown email', async () => {
      for (const r of routes) {
        for (const [headers, status, code] of [
          [{}, 401, 'server-missing-credentials'],
          [{ 'x-auth-email': ALICE['x-auth-email'] }, 401, 'server-missing-credentials'],
          [{ 'x-auth-key': ALICE['x-auth-key'] }, 401, 'server-missing-credentials'],
          [{ ...ALICE, 'x-auth-key': 'wrong-key-000' }, 403, 'server-bad-credentials'],
          [{ ...ALICE, 'x-auth-email': 'mallory@example.com' }, 403, 'server-bad-credentials'],
          [{ 'x-auth-email': ALICE['x-auth-email'], 'x-auth-key': BOB['x-auth-key'] }, 403, 'server-bad-credentials'],
        ] as const) {
          const res = await answers.inject(app, { method: r.method as 'GET', url: url(r.path, 'alice'), headers, payload: payloadFor(r.method, r.path) });
          expect(res.statusCode, `${r.method} ${r.path} with ${JSON.stringify(headers)}`).toBe(status);
          const e = envelope(res);
          expect(e.success).toBe(false);
          expect(e.errors[0]!.meta.code).toBe(code);
        }
      }
    });

    it('never lets one user read, list or change another’s account or zone', async () => {
      const before = JSON.stringify(await store.listRulesets({ scope: 'accounts', id: 'acc-alice' })) + JSON.stringify(await store.listJobs({ scope: 'zones', id: 'zone-alice' }));
      for (const r of routes) {
        const res = await answers.inject(app, { method: r.method as 'GET', url: url(r.path, 'alice'), headers: BOB, payload: payloadFor(r.method, r.path) });
        expect(res.statusCode, `${r.method} ${r.path} as bob`).toBe(403);
        const e = envelope(res);
        expect(e.errors[0]!.meta.code).toBe('server-forbidden');
        expect(res.body).not.toContain(aliceRuleset);
      }
      const after = JSON.stringify(await store.listRulesets({ scope: 'accounts', id: 'acc-alice' })) + JSON.stringify(await store.listJobs({ scope: 'zones', id: 'zone-alice' }));
      expect(after).toBe(before);
    });

    it('an account that exists and one that does not get the same answer', async () => {
      const other = await answers.inject(app, { method: 'GET', url: '/client/v4/accounts/acc-alice/rulesets', headers: BOB });
      const none = await answers.inject(app, { method: 'GET', url: '/client/v4/accounts/acc-nobody/rulesets', headers: BOB });
      expect(other.statusCode).toBe(none.statusCode);
      expect(envelope(other).errors[0]!.meta.code).toBe(envelope(none).errors[0]!.meta.code);
    });

    it('Bob’s own account does not reach Alice’s resources by id', async () => {
      const rs = await answers.inject(app, { method: 'GET', url: `/client/v4/accounts/acc-bob/rulesets/${aliceRuleset}`, headers: BOB });
      expect(rs.statusCode).toBe(404);
      const put = await answers.inject(app, { method: 'PUT', url: `/client/v4/accounts/acc-bob/rulesets/${aliceRuleset}`, headers: BOB, payload: { rules: [] } });
      expect(put.statusCode).toBe(404);
      const job = await answers.inject(app, { method: 'DELETE', url: `/client/v4/zones/zone-bob/logpush/jobs/${aliceJob}`, headers: BOB });
      expect(job.statusCode).toBe(404);
      expect((await store.getJob({ scope: 'zones', id: 'zone-alice' }, aliceJob))).toBeDefined();
    });

    it('every answer received conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
  });
}
