/**
 * The Lists API with the official client: every method of `client.rules.lists.*` against the server,
 * typed answers and typed errors, and rulesets whose `$list`s are checked against the stored lists.
 * Run against each store (sdk.sqlite.test.ts, sdk.postgres.test.ts).
 */
import Cloudflare from 'cloudflare';
import type { ListCreateResponse, ListGetResponse, ListsList, ListUpdateResponse } from 'cloudflare/resources/rules/lists/lists';
import type { ItemGetResponse, ItemListResponse } from 'cloudflare/resources/rules/lists/items';
import type { BulkOperationGetResponse } from 'cloudflare/resources/rules/lists/bulk-operations';
import type { RulesetCreateParams, RulesetUpdateParams } from 'cloudflare/resources/rulesets/rulesets';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { createServer, type Store } from '../../src/server/index.js';
import { USERS } from './sdk-suite.js';

const account_id = 'acc-alice';

async function apiError<T>(p: Promise<T>, type: abstract new (...a: never[]) => Error, code: string, pointer?: string): Promise<{ message: string; source?: { pointer: string }; meta: { code: string; data?: Record<string, unknown> } }> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(type);
  const entries = (e as InstanceType<typeof Cloudflare.APIError>).errors as unknown as { message: string; source?: { pointer: string }; meta: { code: string } }[];
  const hit = entries.find((x) => x.meta.code === code);
  expect(hit, `expected ${code} among ${JSON.stringify(entries)}`).toBeDefined();
  if (pointer !== undefined) expect(hit!.source?.pointer).toBe(pointer);
  return hit!;
}

export function sdkListsSuite(name: string, openStore: () => Promise<Store>): void {
  describe(`official client: the Lists API (${name})`, () => {
    let app: FastifyInstance;
    /** Every answer the official client receives, checked against Cloudflare's OpenAPI document. */
    const answers = new AnswerChecker();
    let store: Store;
    let alice: Cloudflare;
    let bob: Cloudflare;

    beforeAll(async () => {
      store = await openStore();
      app = await createServer({ users: USERS, store, lists: { seeded_ips: ['192.0.2.0/24'] } });
      const baseURL = `${await app.listen({ port: 0, host: '127.0.0.1' })}/client/v4`;
      alice = new Cloudflare({ baseURL, apiEmail: USERS[0]!.email, apiKey: USERS[0]!.key, maxRetries: 0, fetch: answers.fetch });
      bob = new Cloudflare({ baseURL, apiEmail: USERS[1]!.email, apiKey: USERS[1]!.key, maxRetries: 0, fetch: answers.fetch });
    });
    afterAll(async () => {
      await app?.close();
      await store?.close();
    });

    const completed = async (operation_id: string) => {
      const op: BulkOperationGetResponse = await alice.rules.lists.bulkOperations.get(operation_id, { account_id });
      expect(op).toMatchObject({ id: operation_id, status: 'completed' });
      return op;
    };

    it('creates, reads, lists and updates lists; refuses bad names, taken names and other accounts', async () => {
      const created: ListCreateResponse = await alice.rules.lists.create({ account_id, kind: 'ip', name: 'blocklist', description: 'bad hosts' });
      expect(created).toMatchObject({ kind: 'ip', name: 'blocklist', description: 'bad hosts', num_items: 0, num_referencing_filters: 0 });
      expect(created.id).toMatch(/^[0-9a-f]{32}$/);
      expect(created.created_on).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
      const got: ListGetResponse = await alice.rules.lists.get(created.id, { account_id });
      expect(got).toEqual(created);
      const updated: ListUpdateResponse = await alice.rules.lists.update(created.id, { account_id, description: 'hosts to block' });
      expect(updated).toMatchObject({ id: created.id, name: 'blocklist', description: 'hosts to block' });
      expect(updated.modified_on >= created.modified_on).toBe(true);
      await alice.rules.lists.create({ account_id, kind: 'asn', name: 'providers' });
      // A dry run answers the list and stores nothing.
      const dry = await alice.rules.lists.create({ account_id, kind: 'ip', name: 'dry' }, { query: { dry_run: true } });
      expect(dry).toMatchObject({ name: 'dry', num_items: 0 });
      await apiError(alice.rules.lists.get(dry.id, { account_id }), Cloudflare.NotFoundError, 'server-list-not-found');
      const all: ListsList[] = [];
      for await (const l of alice.rules.lists.list({ account_id })) all.push(l);
      expect(all.map((l) => [l.name, l.kind])).toEqual([['blocklist', 'ip'], ['providers', 'asn']]);

      await apiError(alice.rules.lists.create({ account_id, kind: 'ip', name: 'Block-List' }), Cloudflare.BadRequestError, 'server-invalid-list', '/name');
      await apiError(alice.rules.lists.create({ account_id, kind: 'ip', name: 'x'.repeat(51) }), Cloudflare.BadRequestError, 'server-invalid-list', '/name');
      await apiError(alice.rules.lists.create({ account_id, kind: 'cidr' as never, name: 'ok' }), Cloudflare.BadRequestError, 'server-invalid-list', '/kind');
      await apiError(alice.rules.lists.create({ account_id, kind: 'hostname', name: 'blocklist' }), Cloudflare.ConflictError, 'server-list-name-exists', '/name');
      await apiError(alice.rules.lists.update(created.id, { account_id, description: 'd'.repeat(501) }), Cloudflare.BadRequestError, 'server-invalid-list', '/description');
      await apiError(alice.rules.lists.get('0'.repeat(32), { account_id }), Cloudflare.NotFoundError, 'server-list-not-found');
      await apiError(bob.rules.lists.get(created.id, { account_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await apiError(bob.rules.lists.get(created.id, { account_id: 'acc-bob' }), Cloudflare.NotFoundError, 'server-list-not-found');
    });

    it('adds, pages through, searches, reads, replaces and deletes items, each write a completed bulk operation', async () => {
      const list = (await alice.rules.lists.list({ account_id })).result.find((l) => l.name === 'blocklist')!;
      const added = await alice.rules.lists.items.create(list.id, { account_id, body: [{ ip: '10.0.0.1' }, { ip: '2001:DB8::/64', comment: 'lab' }, { ip: '10.0.0.0/8' }, { ip: '198.51.100.0/24', comment: 'docs' }] });
      expect(added.operation_id).toMatch(/^[0-9a-f]{32}$/);
      const op = await completed(added.operation_id);
      expect('completed' in op && op.completed).toMatch(/Z$/);

      // In order: by address, then by prefix; IPv6 lower-cased as the service stores it.
      const all: ItemListResponse[] = [];
      for await (const item of alice.rules.lists.items.list(list.id, { account_id, per_page: 1 })) all.push(item);
      expect(all.map((i) => 'ip' in i && i.ip)).toEqual(['10.0.0.0/8', '10.0.0.1', '198.51.100.0/24', '2001:db8::/64']);
      expect(all[3]).toMatchObject({ comment: 'lab' });
      for (const i of all) expect(i.id).toMatch(/^[0-9a-f]{32}$/);
      const page = await alice.rules.lists.items.list(list.id, { account_id, per_page: 2 });
      expect(page.result).toHaveLength(2);
      expect(page.hasNextPage()).toBe(true);
      const searched = await alice.rules.lists.items.list(list.id, { account_id, search: '10.' });
      expect(searched.result.map((i) => 'ip' in i && i.ip)).toEqual(['10.0.0.0/8', '10.0.0.1']);
      expect((await alice.rules.lists.get(list.id, { account_id })).num_items).toBe(4);

      const one: ItemGetResponse = await alice.rules.lists.items.get(all[1]!.id, { account_id, list_id: list.id });
      expect(one).toEqual(all[1]);
      await apiError(alice.rules.lists.items.get('f'.repeat(32), { account_id, list_id: list.id }), Cloudflare.NotFoundError, 'server-list-item-not-found');

      // Adding an item the list holds replaces it (its comment), keeping its id.
      await completed((await alice.rules.lists.items.create(list.id, { account_id, body: [{ ip: '10.0.0.1', comment: 'again' }] })).operation_id);
      expect(await alice.rules.lists.items.get(all[1]!.id, { account_id, list_id: list.id })).toMatchObject({ id: all[1]!.id, ip: '10.0.0.1', comment: 'again' });

      const deleted = await alice.rules.lists.items.delete(list.id, { account_id, items: [{ id: all[0]!.id }] });
      await completed(deleted.operation_id);
      expect((await alice.rules.lists.items.list(list.id, { account_id })).result.map((i) => i.id)).not.toContain(all[0]!.id);
      // Deleting an item the list does not hold: the operation fails and nothing changes.
      const missing = await alice.rules.lists.items.delete(list.id, { account_id, items: [{ id: all[1]!.id }, { id: 'e'.repeat(32) }] });
      const failed = await alice.rules.lists.bulkOperations.get(missing.operation_id, { account_id });
      expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('e'.repeat(32)) });
      expect((await alice.rules.lists.get(list.id, { account_id })).num_items).toBe(3);

      const replaced = await alice.rules.lists.items.update(list.id, { account_id, body: [{ ip: '203.0.113.0/24' }, { ip: '192.0.2.7' }] });
      await completed(replaced.operation_id);
      expect((await alice.rules.lists.items.list(list.id, { account_id })).result.map((i) => 'ip' in i && i.ip)).toEqual(['192.0.2.7', '203.0.113.0/24']);
      await apiError(alice.rules.lists.bulkOperations.get('a'.repeat(32), { account_id }), Cloudflare.NotFoundError, 'server-bulk-operation-not-found');
    });

    it('refuses items not of the list’s kind, pointing at the item and member', async () => {
      const list = (await alice.rules.lists.list({ account_id })).result.find((l) => l.name === 'blocklist')!;
      await apiError(alice.rules.lists.items.create(list.id, { account_id, body: [{ ip: '10.0.0.2' }, { ip: '10.0.0.300' }] }), Cloudflare.BadRequestError, 'server-invalid-list-item', '/1/ip');
      await apiError(alice.rules.lists.items.create(list.id, { account_id, body: [{ ip: '10.0.0.1/24' }] }), Cloudflare.BadRequestError, 'server-invalid-list-item', '/0/ip');
      await apiError(alice.rules.lists.items.update(list.id, { account_id, body: [{ asn: 13335 }] }), Cloudflare.BadRequestError, 'server-invalid-list-item', '/0/asn');
      const asn = (await alice.rules.lists.list({ account_id })).result.find((l) => l.name === 'providers')!;
      await apiError(alice.rules.lists.items.create(asn.id, { account_id, body: [{ asn: -1 }] }), Cloudflare.BadRequestError, 'server-invalid-list-item', '/0/asn');
      await completed((await alice.rules.lists.items.create(asn.id, { account_id, body: [{ asn: 13335, comment: 'cf' }, { asn: 64512 }] })).operation_id);
      expect((await alice.rules.lists.items.list(asn.id, { account_id, search: '13335' })).result).toEqual([expect.objectContaining({ asn: 13335, comment: 'cf' })]);

      const hosts = await alice.rules.lists.create({ account_id, kind: 'hostname', name: 'hosts' });
      await apiError(alice.rules.lists.items.create(hosts.id, { account_id, body: [{ hostname: { url_hostname: 'https://example.com/x' } }] }), Cloudflare.BadRequestError, 'server-invalid-list-item', '/0/hostname/url_hostname');
      await completed((await alice.rules.lists.items.create(hosts.id, { account_id, body: [{ hostname: { url_hostname: '*.example.com' } }] })).operation_id);
      const redirects = await alice.rules.lists.create({ account_id, kind: 'redirect', name: 'moves' });
      await apiError(alice.rules.lists.items.create(redirects.id, { account_id, body: [{ redirect: { source_url: 'example.com/a', target_url: 'https://example.com/b', status_code: 303 as never } }] }), Cloudflare.BadRequestError, 'server-invalid-list-item', '/0/redirect/status_code');
      await completed((await alice.rules.lists.items.create(redirects.id, { account_id, body: [{ redirect: { source_url: 'example.com/a', target_url: 'https://example.com/b' } }] })).operation_id);
      const [r] = (await alice.rules.lists.items.list(redirects.id, { account_id })).result;
      // The defaults the docs give, filled in.
      expect(r).toMatchObject({ redirect: { source_url: 'example.com/a', target_url: 'https://example.com/b', status_code: 301, include_subdomains: false, subpath_matching: false, preserve_query_string: false, preserve_path_suffix: true } });
    });

    it('checks rulesets’ $lists against the stored lists at create, PUT and dry run; a list in use cannot be deleted', async () => {
      const rules = (expression: string) => [{ action: 'block', expression }];
      const create = (expression: string, query?: { dry_run: boolean }) =>
        alice.rulesets.create(<RulesetCreateParams><unknown>{ account_id, name: 'fw', kind: 'root', phase: 'network_transit', rules: rules(expression) }, query ? { query } : undefined);
      const unknown = await apiError(create('ip.src in $blocklst'), Cloudflare.BadRequestError, 'unknown-list', '/rules/0/expression');
      expect(unknown.message).toContain('$blocklist (ip)');
      expect(unknown.message).toContain('$seeded_ips');
      await apiError(create('ip.src in $providers', { dry_run: true }), Cloudflare.BadRequestError, 'list-kind-mismatch', '/rules/0/expression');
      const rs = (await create('ip.src in $blocklist or ip.src in $seeded_ips')) as unknown as { id: string };
      await apiError(alice.rulesets.update(rs.id, <RulesetUpdateParams><unknown>{ account_id, rules: rules('ip.src in $hosts') }), Cloudflare.BadRequestError, 'list-kind-mismatch', '/rules/0/expression');

      const list = (await alice.rules.lists.list({ account_id })).result.find((l) => l.name === 'blocklist')!;
      expect(list.num_referencing_filters).toBe(1);
      const inUse = await apiError(alice.rules.lists.delete(list.id, { account_id }), Cloudflare.ConflictError, 'server-list-in-use');
      expect(inUse.message).toContain(rs.id);
      await alice.rulesets.delete(rs.id, { account_id });
      expect(await alice.rules.lists.delete(list.id, { account_id })).toEqual({ id: list.id });
      await apiError(alice.rules.lists.get(list.id, { account_id }), Cloudflare.NotFoundError, 'server-list-not-found');
      await apiError(create('ip.src in $blocklist'), Cloudflare.BadRequestError, 'unknown-list', '/rules/0/expression');
    });

    it('every answer the client received conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
  });
}
