/**
 * Logpush transformers with the official client: every method of `client.logpush.transformers.*`
 * (create, update, list, delete, get, preview, content.get, versions.list) against the server, typed
 * answers and typed errors (400, 404, 403 for another tenant, 501 for a preview it cannot run).
 * Run against each store (sdk.sqlite.test.ts, sdk.postgres.test.ts).
 */
import Cloudflare from 'cloudflare';
import type {
  TransformerCreateResponse, TransformerDeleteResponse, TransformerGetResponse, TransformerListResponse, TransformerPreviewResponsesSinglePage, TransformerUpdateResponse,
} from 'cloudflare/resources/logpush/transformers/transformers';
import type { ContentGetResponse } from 'cloudflare/resources/logpush/transformers/content';
import type { VersionListResponse } from 'cloudflare/resources/logpush/transformers/versions';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Store } from '../../src/server/index.js';
import { USERS } from './sdk-suite.js';

const account_id = 'acc-alice';

/** The docs' example (logs/logpush/transformers, "Filter and reshape audit log records"). */
const AUDIT_SQL = `SELECT
  extract(epoch FROM to_timestamp(ActionTimestamp)) AS unix_ts,
  UPPER(ActionType) AS action_type,
  'Cloudflare' AS provider,
  named_struct('type', ActorType, 'email', ActorEmail, 'ip', ActorIPAddress) AS actor,
  ResourceType = 'zone' AS is_zone,
  [ResourceType, ResourceID] AS resource_meta
FROM audit_logs_v2
WHERE ActionType = 'update'`;
const AUDIT_INPUT = {
  ActionType: 'update', ActorEmail: 'user@example.com', ActorID: 'a1b2c3d4', ActorIPAddress: '203.0.113.42', ActorType: 'user',
  ActionTimestamp: '2026-05-21T15:00:00Z', AccountID: '90796717', ResourceID: 'r1s2t3u4', ResourceType: 'zone', ActorContext: 'dashboard',
};
/** The docs' delivered record for it. */
const AUDIT_OUTPUT = {
  action_type: 'UPDATE', actor: { email: 'user@example.com', ip: '203.0.113.42', type: 'user' }, is_zone: true, provider: 'Cloudflare',
  resource_meta: ['zone', 'r1s2t3u4'], unix_ts: 1779375600,
};

type ErrorEntry = { code: number; message: string; source?: { pointer: string }; meta: { code: string; range?: { start: number; end: number } } };

async function apiError<T>(p: Promise<T>, type: abstract new (...a: never[]) => Error, code: string, pointer?: string): Promise<ErrorEntry> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(type);
  const entries = (e as InstanceType<typeof Cloudflare.APIError>).errors as unknown as ErrorEntry[];
  const hit = entries.find((x) => x.meta.code === code);
  expect(hit, `expected ${code} among ${JSON.stringify(entries)}`).toBeDefined();
  if (pointer !== undefined) expect(hit!.source?.pointer).toBe(pointer);
  return hit!;
}

export function sdkTransformersSuite(name: string, openStore: () => Promise<Store>): void {
  describe(`official client: Logpush transformers (${name})`, () => {
    let app: FastifyInstance;
    let store: Store;
    let alice: Cloudflare;
    let bob: Cloudflare;

    beforeAll(async () => {
      store = await openStore();
      app = await createServer({ users: USERS, store });
      const baseURL = `${await app.listen({ port: 0, host: '127.0.0.1' })}/client/v4`;
      alice = new Cloudflare({ baseURL, apiEmail: USERS[0]!.email, apiKey: USERS[0]!.key, maxRetries: 0 });
      bob = new Cloudflare({ baseURL, apiEmail: USERS[1]!.email, apiKey: USERS[1]!.key, maxRetries: 0 });
    });
    afterAll(async () => {
      await app?.close();
      await store?.close();
    });

    it('creates, reads, lists, updates with versions, reads content by version and deletes', async () => {
      const created: TransformerCreateResponse = await alice.logpush.transformers.create({ account_id, name: 'redact-pii', code: 'SELECT ClientIP, RayID FROM http_requests', description: 'keep two fields' });
      expect(created).toMatchObject({ name: 'redact-pii', description: 'keep two fields', dataset: 'http_requests', associated_jobs: [] });
      expect(created.id).toBeGreaterThanOrEqual(1);
      expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
      const id = created.id!;

      const got: TransformerGetResponse = await alice.logpush.transformers.get(id, { account_id });
      expect(got).toEqual(created);

      // Name and description only: no new version; an omitted description is cleared.
      const renamed: TransformerUpdateResponse = await alice.logpush.transformers.update(id, { account_id, name: 'two-fields' });
      expect(renamed).toMatchObject({ id, name: 'two-fields', description: '', dataset: 'http_requests' });
      // With code: a new version, and the dataset follows the new FROM.
      const recoded: TransformerUpdateResponse = await alice.logpush.transformers.update(id, { account_id, name: 'audit', code: AUDIT_SQL, description: 'audit updates' });
      expect(recoded).toMatchObject({ id, name: 'audit', description: 'audit updates', dataset: 'audit_logs_v2' });
      expect(recoded.updated_at! >= created.updated_at!).toBe(true);
      expect(recoded.created_at).toBe(created.created_at);

      const versions: VersionListResponse[] = [];
      for await (const v of alice.logpush.transformers.versions.list(id, { account_id })) versions.push(v);
      expect(versions.map((v) => v.version)).toEqual([2, 1]);
      expect(versions[0]!.id).not.toBe(versions[1]!.id);
      const one: VersionListResponse[] = (await alice.logpush.transformers.versions.list(id, { account_id, limit: 1 })).result;
      expect(one.map((v) => v.version)).toEqual([2]);

      const current: ContentGetResponse = await alice.logpush.transformers.content.get(id, { account_id });
      expect(current.content).toBe(AUDIT_SQL);
      const first: ContentGetResponse = await alice.logpush.transformers.content.get(id, { account_id, version_id: versions[1]!.id! });
      expect(first.content).toBe('SELECT ClientIP, RayID FROM http_requests');

      await alice.logpush.transformers.create({ account_id, name: 'errors', code: 'SELECT ClientIP FROM http_requests WHERE EdgeResponseStatus >= 500' });
      const all: TransformerListResponse[] = [];
      for await (const t of alice.logpush.transformers.list({ account_id })) all.push(t);
      expect(all.map((t) => [t.name, t.dataset])).toEqual([['audit', 'audit_logs_v2'], ['errors', 'http_requests']]);

      const deleted: TransformerDeleteResponse = await alice.logpush.transformers.delete(id, { account_id });
      expect(deleted).toEqual({ id });
      await apiError(alice.logpush.transformers.get(id, { account_id }), Cloudflare.NotFoundError, 'server-transformer-not-found');
      await apiError(alice.logpush.transformers.content.get(id, { account_id }), Cloudflare.NotFoundError, 'server-transformer-not-found');
      await apiError(alice.logpush.transformers.versions.list(id, { account_id }), Cloudflare.NotFoundError, 'server-transformer-not-found');
      await apiError(alice.logpush.transformers.delete(id, { account_id }), Cloudflare.NotFoundError, 'server-transformer-not-found');
      await apiError(alice.logpush.transformers.update(id, { account_id, name: 'x' }), Cloudflare.NotFoundError, 'server-transformer-not-found');
    });

    it('refuses bodies and SQL the service refuses, with the member and the place in the query', async () => {
      await apiError(alice.logpush.transformers.create({ account_id, name: '', code: 'SELECT RayID FROM http_requests' }), Cloudflare.BadRequestError, 'server-invalid-transformer', '/name');
      await apiError(alice.logpush.transformers.create({ account_id, name: 'x'.repeat(256), code: 'SELECT RayID FROM http_requests' }), Cloudflare.BadRequestError, 'server-invalid-transformer', '/name');
      await apiError(alice.logpush.transformers.create({ account_id, name: 'n' } as never), Cloudflare.BadRequestError, 'server-invalid-transformer', '/code');
      await apiError(alice.logpush.transformers.create({ account_id, name: 'n', code: 'SELECT RayID FROM http_requests', description: 'd'.repeat(4097) }), Cloudflare.BadRequestError, 'server-invalid-transformer', '/description');
      await apiError(alice.logpush.transformers.create({ account_id, name: 'n', code: `SELECT RayID FROM http_requests -- ${'x'.repeat(32_768)}` }), Cloudflare.BadRequestError, 'server-invalid-transformer', '/code');

      const field = await apiError(alice.logpush.transformers.create({ account_id, name: 'n', code: 'SELECT ClientIp FROM http_requests' }), Cloudflare.BadRequestError, 'transformer-unknown-field', '/code');
      expect(field.message).toContain('did you mean "ClientIP"');
      expect(field.meta.range).toEqual({ start: 7, end: 15 });
      await apiError(alice.logpush.transformers.create({ account_id, name: 'n', code: 'SELECT RayID FROM http_request' }), Cloudflare.BadRequestError, 'transformer-unknown-dataset', '/code');
      await apiError(alice.logpush.transformers.create({ account_id, name: 'n', code: 'SELECT ClientCountry, count(*) FROM http_requests GROUP BY ClientCountry' }), Cloudflare.BadRequestError, 'transformer-unsupported', '/code');
      await apiError(alice.logpush.transformers.create({ account_id, name: 'n', code: 'SELECT upper(EdgeResponseStatus) AS s FROM http_requests' }), Cloudflare.BadRequestError, 'transformer-type', '/code');
      await apiError(alice.logpush.transformers.create({ account_id, name: 'n', code: 'SELECT RayID FROM http_requests WHERE' }), Cloudflare.BadRequestError, 'transformer-syntax', '/code');

      const t = await alice.logpush.transformers.create({ account_id, name: 'kept', code: 'SELECT RayID FROM http_requests' });
      await apiError(alice.logpush.transformers.update(t.id!, { account_id, name: 'kept', code: 'SELECT Nope FROM http_requests' }), Cloudflare.BadRequestError, 'transformer-unknown-field', '/code');
      // A refused update stores nothing: still one version.
      expect((await alice.logpush.transformers.versions.list(t.id!, { account_id })).result).toHaveLength(1);
      await apiError(alice.logpush.transformers.versions.list(t.id!, { account_id, limit: 11 }), Cloudflare.BadRequestError, 'server-invalid-parameter');
      await apiError(alice.logpush.transformers.content.get(t.id!, { account_id, version_id: 999_999 }), Cloudflare.NotFoundError, 'server-transformer-version-not-found');
      await apiError(alice.logpush.transformers.get(999_999, { account_id }), Cloudflare.NotFoundError, 'server-transformer-not-found');
    });

    it('previews: the docs\' example record, a dropped record, input warnings, runtime errors, and 501 for what it cannot run', async () => {
      // The TypeScript client types preview as a page; the service (and the Go and Python clients) answer
      // one record or null, which the page holds as `result` (null becomes the page's empty default).
      const page: TransformerPreviewResponsesSinglePage = await alice.logpush.transformers.preview({ account_id, sql: AUDIT_SQL, input: AUDIT_INPUT });
      expect(page.result).toEqual(AUDIT_OUTPUT);
      const dropped = await alice.logpush.transformers.preview({ account_id, sql: AUDIT_SQL, input: { ...AUDIT_INPUT, ActionType: 'create' } });
      expect(dropped.result).toEqual([]);
      const raw = await alice.logpush.transformers.preview({ account_id, sql: 'SELECT EdgeResponseStatus AS s FROM http_requests', input: { EdgeResponseStatus: 'bar' } }).asResponse();
      const body = (await raw.json()) as { result: unknown; messages: { meta: { code: string }; source?: { pointer: string } }[] };
      expect(body.result).toEqual({});
      expect(body.messages[0]).toMatchObject({ meta: { code: 'transformer-input-type' }, source: { pointer: '/input/EdgeResponseStatus' } });

      await apiError(alice.logpush.transformers.preview({ account_id, sql: 'SELECT CAST(ClientIP AS INT) AS n FROM http_requests', input: { ClientIP: '203.0.113.1' } }), Cloudflare.BadRequestError, 'transformer-runtime-error');
      await apiError(alice.logpush.transformers.preview({ account_id, sql: 'SELECT Nope FROM http_requests', input: {} }), Cloudflare.BadRequestError, 'transformer-unknown-field', '/sql');
      await apiError(alice.logpush.transformers.preview({ account_id, sql: 'SELECT RayID FROM http_requests' } as never), Cloudflare.BadRequestError, 'server-invalid-transformer', '/input');
      const cannot = await apiError(alice.logpush.transformers.preview({ account_id, sql: 'SELECT unnest(BotTags) AS tag FROM http_requests', input: { BotTags: ['a', 'b'] } }), Cloudflare.InternalServerError, 'server-transformer-not-runnable', '/sql');
      expect(cannot.message).toContain('unnest');
      // What preview cannot run is still a valid transformer: it is stored.
      const stored = await alice.logpush.transformers.create({ account_id, name: 'tags', code: 'SELECT unnest(BotTags) AS tag FROM http_requests' });
      expect(stored.dataset).toBe('http_requests');
    });

    it('keeps each account\'s transformers to itself', async () => {
      const t = await alice.logpush.transformers.create({ account_id, name: 'private', code: 'SELECT RayID FROM http_requests' });
      const id = t.id!;
      await apiError(bob.logpush.transformers.get(id, { account_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.logpush.transformers.list({ account_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.logpush.transformers.create({ account_id, name: 'x', code: 'SELECT RayID FROM http_requests' }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.logpush.transformers.update(id, { account_id, name: 'x' }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.logpush.transformers.delete(id, { account_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.logpush.transformers.content.get(id, { account_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.logpush.transformers.versions.list(id, { account_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.logpush.transformers.preview({ account_id, sql: 'SELECT RayID FROM http_requests', input: {} }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      // Bob's own account does not reach Alice's transformer by id.
      await apiError(bob.logpush.transformers.get(id, { account_id: 'acc-bob' }), Cloudflare.NotFoundError, 'server-transformer-not-found');
      await apiError(bob.logpush.transformers.content.get(id, { account_id: 'acc-bob' }), Cloudflare.NotFoundError, 'server-transformer-not-found');
      await apiError(bob.logpush.transformers.delete(id, { account_id: 'acc-bob' }), Cloudflare.NotFoundError, 'server-transformer-not-found');
      expect((await bob.logpush.transformers.list({ account_id: 'acc-bob' })).result).toEqual([]);
      expect((await alice.logpush.transformers.get(id, { account_id })).name).toBe('private');
    });
  });
}
