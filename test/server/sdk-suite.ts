/**
 * End to end with the official client: the `cloudflare` npm package, pointed at a rulekit server on a
 * free loopback port, drives the spec's flows (docs/server.md) and meets its typed errors.
 * Run against each store (sdk.sqlite.test.ts, sdk.postgres.test.ts).
 */
import Cloudflare from 'cloudflare';
import type { RulesetCreateParams, RulesetUpdateParams } from 'cloudflare/resources/rulesets/rulesets';
import type { JobCreateParams, JobUpdateParams } from 'cloudflare/resources/logpush/jobs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { createServer, type Store } from '../../src/server/index.js';

/** The ruleset shape the server answers (the client types ruleset responses as unknown for phases it does not list). */
interface Rs {
  id: string;
  name: string;
  kind: string;
  phase: string;
  version: string;
  last_updated: string;
  description?: string;
  rules: { id: string; version: string; action: string; expression: string; description?: string; ref: string; enabled: boolean; last_updated: string }[];
}

export const USERS = [
  { email: 'alice@example.com', key: 'alice-key-0001', accounts: ['acc-alice'], zones: ['zone-alice'] },
  { email: 'bob@example.com', key: 'bob-key-0002', accounts: ['acc-bob'], zones: ['zone-bob'] },
];

/** The spec's account ruleset: a skip before a block that covers every port. */
export const ACCOUNT_RULESET = {
  name: 'Network firewall',
  kind: 'root' as const,
  phase: 'network_transit' as const,
  description: 'allow 8080, block the rest',
  rules: [
    { action: 'skip' as const, action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {8080}', description: 'allow the app port' },
    { action: 'block' as const, expression: 'tcp.dstport in {1..65535}', description: 'block everything else' },
  ],
};

export async function expectApiError<T>(p: Promise<T>, type: abstract new (...a: never[]) => Error, code?: string, pointer?: string): Promise<InstanceType<typeof Cloudflare.APIError>> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(type);
  const err = e as InstanceType<typeof Cloudflare.APIError>;
  if (code) {
    const entries = err.errors as unknown as { code: number; message: string; source?: { pointer: string }; meta: { code: string } }[];
    const hit = entries.find((x) => x.meta.code === code);
    expect(hit, `expected ${code} among ${JSON.stringify(entries)}`).toBeDefined();
    if (pointer !== undefined) expect(hit!.source?.pointer).toBe(pointer);
  }
  return err;
}

export function sdkSuite(name: string, openStore: () => Promise<Store>): void {
  describe(`official cloudflare client against the server (${name})`, () => {
    let app: FastifyInstance;
    /** Every answer the official client receives, checked against Cloudflare's OpenAPI document. */
    const answers = new AnswerChecker();
    let store: Store;
    let alice: Cloudflare;
    let bob: Cloudflare;
    let baseURL: string;

    beforeAll(async () => {
      store = await openStore();
      app = await createServer({ users: USERS, store });
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      baseURL = `${address}/client/v4`;
      alice = new Cloudflare({ baseURL, apiEmail: USERS[0]!.email, apiKey: USERS[0]!.key, maxRetries: 0, fetch: answers.fetch });
      bob = new Cloudflare({ baseURL, apiEmail: USERS[1]!.email, apiKey: USERS[1]!.key, maxRetries: 0, fetch: answers.fetch });
    });
    afterAll(async () => {
      await app?.close();
      await store?.close();
    });

    it('creates the spec’s account ruleset, with ids, refs, versions and timestamps assigned', async () => {
      const rs = <Rs>await alice.rulesets.create(<RulesetCreateParams><unknown>{ account_id: 'acc-alice', ...ACCOUNT_RULESET });
      expect(rs).toMatchObject({ name: 'Network firewall', kind: 'root', phase: 'network_transit', version: '1' });
      expect(rs.id).toMatch(/^[0-9a-f]{32}$/);
      expect(rs.last_updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
      expect(rs.rules.map((r) => r.action)).toEqual(['skip', 'block']);
      for (const r of rs.rules) {
        expect(r).toMatchObject({ version: '1', enabled: true });
        expect(r.id).toMatch(/^[0-9a-f]{32}$/);
        expect(r.ref).toBe(r.id);
      }
      const got = <Rs>await alice.rulesets.get(rs.id, { account_id: 'acc-alice' });
      expect(got).toEqual(rs);
      const list = await alice.rulesets.list({ account_id: 'acc-alice' });
      expect(list.result.map((r) => r.id)).toContain(rs.id);
    });

    it('configures custom log fields as the spec says: list, create when absent, PUT the rule', async () => {
      const zone_id = 'zone-alice';
      const existing = (await alice.rulesets.list({ zone_id })).result.find((r) => r.kind === 'zone' && r.phase === 'http_log_custom_fields');
      expect(existing).toBeUndefined();
      const created = <Rs>await alice.rulesets.create(<RulesetCreateParams><unknown>{ zone_id, name: 'Custom fields', kind: 'zone', phase: 'http_log_custom_fields', description: 'log headers' });
      expect(created.rules).toEqual([]);
      const listed = (await alice.rulesets.list({ zone_id })).result;
      expect(listed).toEqual([expect.objectContaining({ id: created.id, kind: 'zone', phase: 'http_log_custom_fields' })]);
      const put = <Rs>await alice.rulesets.update(created.id, <RulesetUpdateParams><unknown>{
        zone_id,
        rules: [{
          action: 'log_custom_field',
          expression: 'true',
          action_parameters: { request_fields: [{ name: 'x-request-id' }], response_fields: [{ name: 'cf-cache-status' }], cookie_fields: [{ name: '__ga' }] },
        } as never],
      });
      expect(put).toMatchObject({ id: created.id, name: 'Custom fields', kind: 'zone', phase: 'http_log_custom_fields', version: '2' });
      expect(put.rules).toHaveLength(1);
      expect(put.rules[0]).toMatchObject({ action: 'log_custom_field', expression: 'true', version: '2' });
      // A second zone ruleset for the phase is refused: one per phase.
      await expectApiError(alice.rulesets.create(<RulesetCreateParams><unknown>{ zone_id, name: 'again', kind: 'zone', phase: 'http_log_custom_fields' }), Cloudflare.ConflictError, 'server-phase-exists', '/phase');
    });

    it('PUT replaces all rules, keeps the ids it is given, and moves the version', async () => {
      // kind custom is one of the API's kinds (rulesets_RulesetKind): a custom ruleset is not an entry point, so
      // it is made beside the phase's root ruleset. It is deleted again: the rest works on the root ruleset.
      const rs = <Rs>await alice.rulesets.create(<RulesetCreateParams><unknown>{ account_id: 'acc-alice', ...ACCOUNT_RULESET, kind: 'custom', name: 'second' });
      expect(rs).toMatchObject({ kind: 'custom', phase: 'network_transit', name: 'second', version: '1' });
      await alice.rulesets.delete(rs.id, { account_id: 'acc-alice' });
      const root = (await alice.rulesets.list({ account_id: 'acc-alice' })).result.find((r) => (r.phase as string) === 'network_transit' && r.kind === 'root')!;
      const before = <Rs>await alice.rulesets.get(root.id, { account_id: 'acc-alice' });
      const keep = before.rules[1]!;
      const put = <Rs>await alice.rulesets.update(root.id, <RulesetUpdateParams><unknown>{
        account_id: 'acc-alice',
        rules: [
          { id: keep.id, action: 'block', expression: keep.expression!, description: keep.description },
          { action: 'block', expression: 'ip.src in $svc.anonymizer' },
        ] as never,
      });
      expect(put.version).toBe(String(Number(before.version) + 1));
      expect(put.rules.map((r) => r.id)[0]).toBe(keep.id);
      expect(put.rules[0]!.version).toBe(keep.version); // unchanged rule keeps its version
      expect(put.rules[1]!.version).toBe(put.version);
      expect(put.rules).toHaveLength(2);
      const versions = await alice.rulesets.versions.list(root.id, { account_id: 'acc-alice' });
      expect(versions.result.map((v) => v.version)).toEqual(Array.from({ length: Number(put.version) }, (_, i) => String(i + 1)));
    });

    it('dry runs validate and answer as if written, storing nothing', async () => {
      const before = (await alice.rulesets.list({ account_id: 'acc-alice' })).result;
      const root = before.find((r) => (r.phase as string) === 'network_transit')!;
      const dry = <Rs>await alice.rulesets.update(root.id, <RulesetUpdateParams><unknown>{ account_id: 'acc-alice', dry_run: true, rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] as never });
      expect(dry.version).toBe(String(Number(root.version) + 1));
      expect((await alice.rulesets.get(root.id, { account_id: 'acc-alice' })).version).toBe(root.version);
      await expectApiError(alice.rulesets.update(root.id, <RulesetUpdateParams><unknown>{ account_id: 'acc-alice', dry_run: true, rules: [{ action: 'block', expression: 'tcp.dstport == ' }] as never }), Cloudflare.BadRequestError, undefined);
    });

    it('a bad expression answers 400 naming /rules/N/expression and the place inside it', async () => {
      const err = await expectApiError(
        alice.rulesets.create(<RulesetCreateParams><unknown>{ account_id: 'acc-bad', name: 'x', kind: 'root', phase: 'network_transit', rules: [] }),
        Cloudflare.PermissionDeniedError,
        'server-forbidden',
      );
      expect(err.status).toBe(403);
      const root = (await alice.rulesets.list({ account_id: 'acc-alice' })).result.find((r) => (r.phase as string) === 'network_transit')!;
      const bad = await expectApiError(
        alice.rulesets.update(root.id, <RulesetUpdateParams><unknown>{ account_id: 'acc-alice', rules: [{ action: 'block', expression: 'tcp.dstport == 80' }, { action: 'block', expression: 'tcp.dstprot == 80' }] as never }),
        Cloudflare.BadRequestError,
        'unknown-field',
        '/rules/1/expression',
      );
      const entry = (bad.errors as unknown as { meta: { code: string; range?: { start: number; end: number }; rangeIn?: string } }[]).find((e) => e.meta.code === 'unknown-field')!;
      expect(entry.meta.range).toEqual({ start: 0, end: 11 });
      expect(entry.meta.rangeIn).toBe('value');
      expect(bad.message).toMatch(/tcp\.dstport/); // the fix is suggested
    });

    it('creates, reads, lists, updates and deletes Logpush jobs with filters', async () => {
      const zone_id = 'zone-alice';
      const filter = JSON.stringify({ where: { and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientRequestHost', operator: 'endsWith', value: '.example.com' }] } });
      const job = await alice.logpush.jobs.create(<JobCreateParams><unknown>{
        zone_id,
        name: 'errors',
        destination_conf: 'https://logs.example.com/http?header_Authorization=Basic%20abc',
        dataset: 'http_requests',
        logpull_options: 'fields=ClientIP,ClientRequestHost,EdgeResponseStatus,RequestHeaders&timestamps=rfc3339',
        filter,
      });
      expect(job).toMatchObject({ name: 'errors', dataset: 'http_requests', filter, enabled: false });
      expect(typeof job!.id).toBe('number');
      const id = job!.id!;
      expect(await alice.logpush.jobs.get(id, { zone_id })).toEqual(job);
      expect((await alice.logpush.jobs.list({ zone_id })).result.map((j) => j!.id)).toEqual([id]);
      const updated = await alice.logpush.jobs.update(id, <JobUpdateParams><unknown>{ zone_id, enabled: true, logpull_options: 'fields=ClientIP,EdgeResponseStatus&timestamps=unix' });
      expect(updated).toMatchObject({ id, enabled: true, logpull_options: 'fields=ClientIP,EdgeResponseStatus&timestamps=unix', filter });
      await expectApiError(
        alice.logpush.jobs.update(id, <JobUpdateParams><unknown>{ zone_id, filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'startsWith', value: 5 } }) }),
        Cloudflare.BadRequestError,
        undefined,
      );
      await alice.logpush.jobs.delete(id, { zone_id });
      await expectApiError(alice.logpush.jobs.get(id, { zone_id }), Cloudflare.NotFoundError, 'server-job-not-found');
    });

    it('a filter over the limits, or naming a field the dataset lacks, is refused with its pointer', async () => {
      const zone_id = 'zone-alice';
      const base = { zone_id, name: 'x', destination_conf: 'https://logs.example.com/p', dataset: 'http_requests', logpull_options: 'fields=ClientIP&timestamps=rfc3339' };
      const big = JSON.stringify({ where: { or: Array.from({ length: 40 }, (_, i) => ({ key: 'ClientRequestHost', operator: 'eq', value: `host-${i}.example.com` })) } });
      const e1 = await expectApiError(alice.logpush.jobs.create(<JobCreateParams><unknown>{ ...base, filter: big }), Cloudflare.BadRequestError);
      expect(JSON.stringify(e1.errors)).toContain('/filter');
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams><unknown>{ ...base, filter: JSON.stringify({ where: { key: 'NoSuchField', operator: 'eq', value: 1 } }) }), Cloudflare.BadRequestError, undefined, undefined);
      expect((await alice.logpush.jobs.list({ zone_id })).result).toEqual([]);
    });

    it('typed errors: no key, wrong key, unknown ruleset, another tenant', async () => {
      const noKey = new Cloudflare({ baseURL, apiEmail: USERS[0]!.email, apiKey: null, maxRetries: 0, fetch: answers.fetch });
      await expectApiError(noKey.rulesets.list({ account_id: 'acc-alice' }), Cloudflare.AuthenticationError, 'server-missing-credentials');
      const wrong = new Cloudflare({ baseURL, apiEmail: USERS[0]!.email, apiKey: 'not-the-key', maxRetries: 0, fetch: answers.fetch });
      await expectApiError(wrong.rulesets.list({ account_id: 'acc-alice' }), Cloudflare.PermissionDeniedError, 'server-bad-credentials');
      await expectApiError(alice.rulesets.get('0123456789abcdef0123456789abcdef', { account_id: 'acc-alice' }), Cloudflare.NotFoundError, 'server-ruleset-not-found');
      const root = (await alice.rulesets.list({ account_id: 'acc-alice' })).result[0]!;
      await expectApiError(bob.rulesets.get(root.id, { account_id: 'acc-alice' }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await expectApiError(bob.rulesets.delete(root.id, { account_id: 'acc-alice' }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      // Bob's own account does not have Alice's ruleset either.
      await expectApiError(bob.rulesets.get(root.id, { account_id: 'acc-bob' }), Cloudflare.NotFoundError, 'server-ruleset-not-found');
      expect((await alice.rulesets.get(root.id, { account_id: 'acc-alice' })).id).toBe(root.id);
    });

    it('deletes a ruleset; the phase can be created again', async () => {
      const root = (await alice.rulesets.list({ account_id: 'acc-alice' })).result.find((r) => (r.phase as string) === 'network_transit')!;
      await alice.rulesets.delete(root.id, { account_id: 'acc-alice' });
      await expectApiError(alice.rulesets.get(root.id, { account_id: 'acc-alice' }), Cloudflare.NotFoundError);
      const again = <Rs>await alice.rulesets.create(<RulesetCreateParams><unknown>{ account_id: 'acc-alice', ...ACCOUNT_RULESET });
      expect(again.version).toBe('1');
    });

    it('every answer the client received conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
  });
}
