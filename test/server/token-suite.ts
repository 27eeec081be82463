/**
 * API tokens (`Authorization: Bearer`) on every route, on the store it is given, as tenancy-suite.ts checks
 * keys: the route list comes from the server's own OpenAPI document. A wrong or unknown token → 403; a
 * token that does not name the account or zone → 403 `server-forbidden` whether it exists or not, nothing
 * read or changed; a `read` token → every GET, and every other method 403 `server-token-read-only` with
 * nothing changed. Then the official client with `apiToken`. Run against each store (auth.test.ts,
 * security.postgres.test.ts).
 */
import Cloudflare from 'cloudflare';
import type { RulesetCreateParams, RulesetUpdateParams } from 'cloudflare/resources/rulesets/rulesets';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { createServer, type Store, type UsersEntry } from '../../src/server/index.js';
import { ACCOUNT_RULESET, USERS } from './sdk-suite.js';
import { ALICE, envelope } from './tenancy-suite.js';

/** Tokens of 40 characters; the first 8 are each one's id. */
export const TOKENS = {
  /** Alice's, in her `tokens` list: edit on her account and zone. */
  aliceEdit: 'aliceEDT-0123456789abcdefghijklmnopqrstuv',
  /** Alice's: read on her account and zone. */
  aliceRead: 'aliceRD_-0123456789abcdefghijklmnopqrstuv',
  /** Alice's: edit on her account only. */
  aliceAccount: 'aliceACC-0123456789abcdefghijklmnopqrstuv',
  /** A token of its own (no user): edit on Bob's account and zone. */
  bob: 'bobEDIT_-0123456789abcdefghijklmnopqrstuv',
} as const;

/** USERS with tokens: Alice's in her list, Bob's as an entry of its own (the two forms of a users file). */
export const USERS_WITH_TOKENS: UsersEntry[] = [
  {
    ...USERS[0]!,
    tokens: [
      { token: TOKENS.aliceEdit, name: 'alice-ci', accounts: { 'acc-alice': 'edit' }, zones: { 'zone-alice': 'edit' } },
      { token: TOKENS.aliceRead, name: 'alice-dashboard', accounts: { 'acc-alice': 'read' }, zones: { 'zone-alice': 'read' } },
      { token: TOKENS.aliceAccount, accounts: { 'acc-alice': 'edit' } },
    ],
  },
  USERS[1]!,
  { token: TOKENS.bob, accounts: { 'acc-bob': 'edit' }, zones: { 'zone-bob': 'edit' } },
];

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The same token with its last character changed: its id is right, its secret wrong. */
const wrongSecret = (token: string) => token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a');

export function tokenSuite(storeName: string, open: () => Promise<Store>): void {
  describe(`API tokens on every route, on ${storeName}`, () => {
    let app: FastifyInstance;
    /** Every answer (official client and app.inject) to an official operation, checked against Cloudflare's OpenAPI document. */
    const answers = new AnswerChecker();
    let store: Store;
    let routes: { method: string; path: string }[];
    let aliceRuleset: string;
    let aliceZoneRuleset: string;

    beforeAll(async () => {
      store = await open();
      app = await createServer({ users: USERS_WITH_TOKENS, store, failedAuthLimit: { max: 1_000_000, windowMs: 60_000 } });
      const doc = JSON.parse((await answers.inject(app, { method: 'GET', url: '/openapi.json' })).body) as { paths: Record<string, Record<string, unknown>> };
      routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })));
      const rs = await answers.inject(app, { method: 'POST', url: '/client/v4/accounts/acc-alice/rulesets', headers: bearer(TOKENS.aliceEdit), payload: ACCOUNT_RULESET });
      expect(rs.statusCode, rs.body).toBe(200);
      aliceRuleset = JSON.parse(rs.body).result.id;
      const zrs = await answers.inject(app, { method: 'POST', url: '/client/v4/zones/zone-alice/rulesets', headers: bearer(TOKENS.aliceEdit), payload: { name: 'Custom fields', kind: 'zone', phase: 'http_log_custom_fields' } });
      expect(zrs.statusCode, zrs.body).toBe(200);
      aliceZoneRuleset = JSON.parse(zrs.body).result.id;
    });
    afterAll(async () => {
      await app.close();
      await store.close();
    });

    const url = (path: string, owner: 'alice' | 'bob' | 'nobody') => path
      .replace('{account_id}', `acc-${owner}`)
      .replace('{zone_id}', `zone-${owner}`)
      .replace('{ruleset_id}', path.includes('{zone_id}') ? aliceZoneRuleset : aliceRuleset)
      .replace('{job_id}', '1');
    const payloadFor = (method: string, path: string) => (method === 'POST' || method === 'PUT' || method === 'PATCH' ? (path.includes('logpush') ? { enabled: true } : path.endsWith('simulate') ? { packets: [] } : { rules: [] }) : undefined);
    const inject = (method: string, path: string, owner: 'alice' | 'bob' | 'nobody', headers: Record<string, string>) =>
      answers.inject(app, { method: method as 'GET', url: url(path, owner), headers, payload: payloadFor(method, path) });
    const state = async () => JSON.stringify(await Promise.all([
      store.listRulesets({ scope: 'accounts', id: 'acc-alice' }),
      store.listRulesets({ scope: 'zones', id: 'zone-alice' }),
      store.getRuleset({ scope: 'accounts', id: 'acc-alice' }, aliceRuleset),
      store.listJobs({ scope: 'zones', id: 'zone-alice' }),
    ]));
    const code = (r: Awaited<ReturnType<typeof inject>>) => envelope(r).errors[0]!.meta.code;

    it('refuses a wrong token, an unknown one, a malformed Authorization and a token sent with a key', async () => {
      for (const r of routes) {
        for (const [headers, status, expected] of [
          [bearer(wrongSecret(TOKENS.aliceEdit)), 403, 'server-bad-credentials'],
          [bearer('unknownX-0123456789abcdefghijklmnopqrstuv'), 403, 'server-bad-credentials'],
          [bearer('short'), 403, 'server-bad-credentials'],
          [{ authorization: TOKENS.aliceEdit }, 400, 'server-bad-authorization'],
          [{ authorization: `Basic ${TOKENS.aliceEdit}` }, 400, 'server-bad-authorization'],
          [{ authorization: 'Bearer ' }, 400, 'server-bad-authorization'],
          [{ ...bearer(TOKENS.aliceEdit), ...ALICE }, 400, 'server-conflicting-credentials'],
          [{ ...bearer(TOKENS.aliceEdit), 'x-auth-email': ALICE['x-auth-email'] }, 400, 'server-conflicting-credentials'],
        ] as const) {
          const res = await inject(r.method, r.path, 'alice', headers);
          expect(res.statusCode, `${r.method} ${r.path} with ${JSON.stringify(headers)}`).toBe(status);
          expect(envelope(res).success).toBe(false);
          expect(code(res)).toBe(expected);
        }
      }
    });

    it('a token reaches only the accounts and zones it names: another’s answers 403 as one that does not exist, nothing changed', async () => {
      const before = await state();
      for (const r of routes) {
        for (const [token, owner] of [[TOKENS.bob, 'alice'], [TOKENS.aliceEdit, 'bob'], [TOKENS.aliceEdit, 'nobody']] as const) {
          const res = await inject(r.method, r.path, owner, bearer(token));
          expect(res.statusCode, `${r.method} ${r.path} on ${owner}'s with ${token.slice(0, 8)}`).toBe(403);
          expect(code(res)).toBe('server-forbidden');
          expect(res.body).not.toContain(aliceRuleset);
        }
        // A token scoped to Alice's account only does not reach her zone.
        if (r.path.includes('{zone_id}')) {
          const res = await inject(r.method, r.path, 'alice', bearer(TOKENS.aliceAccount));
          expect(res.statusCode, `${r.method} ${r.path} with the account-only token`).toBe(403);
          expect(code(res)).toBe('server-forbidden');
        }
      }
      expect(await state()).toBe(before);
      const other = await answers.inject(app, { method: 'GET', url: '/client/v4/accounts/acc-alice/rulesets', headers: bearer(TOKENS.bob) });
      const none = await answers.inject(app, { method: 'GET', url: '/client/v4/accounts/acc-nobody/rulesets', headers: bearer(TOKENS.bob) });
      expect([other.statusCode, code(other)]).toEqual([none.statusCode, code(none)]);
      expect(envelope(other).errors[0]!.message.replace('acc-alice', 'X')).toBe(envelope(none).errors[0]!.message.replace('acc-nobody', 'X'));
    });

    it('a read token reads every GET route and writes on none: 403 server-token-read-only naming the permission, nothing changed', async () => {
      const before = await state();
      for (const r of routes) {
        const res = await inject(r.method, r.path, 'alice', bearer(TOKENS.aliceRead));
        if (r.method === 'GET') {
          expect([401, 403], `${r.method} ${r.path} with a read token: ${res.body}`).not.toContain(res.statusCode);
        } else {
          expect(res.statusCode, `${r.method} ${r.path} with a read token`).toBe(403);
          expect(code(res)).toBe('server-token-read-only');
          expect(envelope(res).errors[0]!.message).toMatch(/"edit" permission/);
        }
      }
      expect(await state()).toBe(before);
      const list = await answers.inject(app, { method: 'GET', url: '/client/v4/accounts/acc-alice/rulesets', headers: bearer(TOKENS.aliceRead) });
      expect(list.statusCode).toBe(200);
      expect(list.body).toContain(aliceRuleset);
      // Scheme case-insensitive (RFC 7235), spaces around the token tolerated.
      const lower = await answers.inject(app, { method: 'GET', url: `/client/v4/accounts/acc-alice/rulesets/${aliceRuleset}`, headers: { authorization: `bearer  ${TOKENS.aliceRead} ` } });
      expect(lower.statusCode).toBe(200);
    });

    it('the official client with apiToken: writes with an edit token, reads with a read token, typed errors otherwise', async () => {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const baseURL = `${address}/client/v4`;
      // apiEmail/apiKey null: the client would otherwise add them from CLOUDFLARE_EMAIL/CLOUDFLARE_API_KEY.
      const client = (apiToken: string) => new Cloudflare({ baseURL, apiToken, apiEmail: null, apiKey: null, maxRetries: 0, fetch: answers.fetch });
      const edit = client(TOKENS.aliceEdit);
      const read = client(TOKENS.aliceRead);
      const created = <{ id: string; version: string }>await edit.rulesets.create(<RulesetCreateParams><unknown>{ account_id: 'acc-alice', ...ACCOUNT_RULESET, kind: 'custom', name: 'by token' });
      expect(created).toMatchObject({ name: 'by token', kind: 'custom', version: '1' });
      const updated = <unknown>await edit.rulesets.update(created.id, <RulesetUpdateParams><unknown>{ account_id: 'acc-alice', description: 'changed by token', rules: [{ action: 'block', expression: 'tcp.dstport == 23' }] });
      expect(updated).toMatchObject({ id: created.id, version: '2', description: 'changed by token' });
      expect((<{ version: string }>await read.rulesets.get(created.id, { account_id: 'acc-alice' })).version).toBe('2');
      expect((await read.rulesets.list({ account_id: 'acc-alice' })).result.map((r) => r.id)).toContain(created.id);
      expect((await read.rulesets.list({ zone_id: 'zone-alice' })).result.map((r) => r.id)).toEqual([aliceZoneRuleset]);
      expect((await read.logpush.jobs.list({ zone_id: 'zone-alice' })).result).toEqual([]);
      const zoned = <{ version: string }>await edit.rulesets.update(aliceZoneRuleset, <RulesetUpdateParams><unknown>{ zone_id: 'zone-alice', rules: [] });
      expect(zoned.version).toBe('2');

      const isDenied = async (p: Promise<unknown>, expected: string) => {
        const e = await p.then(() => undefined, (x: unknown) => x);
        expect(e).toBeInstanceOf(Cloudflare.PermissionDeniedError);
        expect((e as InstanceType<typeof Cloudflare.APIError>).errors.map((x) => (x as unknown as { meta: { code: string } }).meta.code)).toEqual([expected]);
      };
      await isDenied(read.rulesets.delete(created.id, { account_id: 'acc-alice' }), 'server-token-read-only');
      await isDenied(read.rulesets.update(created.id, <RulesetUpdateParams><unknown>{ account_id: 'acc-alice', rules: [] }), 'server-token-read-only');
      await isDenied(client(TOKENS.bob).rulesets.get(created.id, { account_id: 'acc-alice' }), 'server-forbidden');
      await isDenied(client(TOKENS.aliceAccount).rulesets.list({ zone_id: 'zone-alice' }), 'server-forbidden');
      await isDenied(client(wrongSecret(TOKENS.aliceEdit)).rulesets.list({ account_id: 'acc-alice' }), 'server-bad-credentials');
      // A key and a token together: refused, whichever would pass.
      const both = new Cloudflare({ baseURL, apiToken: TOKENS.aliceEdit, apiEmail: USERS[0]!.email, apiKey: USERS[0]!.key, maxRetries: 0, fetch: answers.fetch });
      await expect(both.rulesets.list({ account_id: 'acc-alice' })).rejects.toBeInstanceOf(Cloudflare.BadRequestError);
      expect((<{ version: string }>await read.rulesets.get(created.id, { account_id: 'acc-alice' })).version).toBe('2');
      await edit.rulesets.delete(created.id, { account_id: 'acc-alice' });
    });

    it('every answer received conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
  });
}
