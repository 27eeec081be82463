/**
 * The Lists API beyond what the official-client suite calls: item validation and its fixes, the item
 * limit as a failed bulk operation, cursors both ways, dry runs, simulate with the stored lists, zone
 * rulesets, and the routes in /openapi.json.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, openSqliteStore, type Store } from '../../src/server/index.js';
import { LIST_LIMITS } from '../../src/server/list-items.js';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { ACCOUNT_RULESET, USERS } from './sdk-suite.js';

const H = { 'x-auth-email': USERS[0]!.email, 'x-auth-key': USERS[0]!.key };
const LISTS = '/client/v4/accounts/acc-alice/rules/lists';

describe('Lists API routes', () => {
  let app: FastifyInstance;
  let store: Store;
  /** Every answer of an official operation, checked against Cloudflare's OpenAPI document. */
  const answers = new AnswerChecker();
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const r = await answers.inject(app, { method, url, headers: H, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: r.statusCode, body: (r.body === '' ? undefined : JSON.parse(r.body)) as { result: any; result_info?: any; errors: any[]; messages: any[] } };
  };
  const newList = async (name: string, kind: string) => (await call('POST', LISTS, { name, kind })).body.result.id as string;

  beforeAll(async () => {
    store = openSqliteStore({ path: ':memory:' });
    app = await createServer({ users: USERS, store });
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it('refuses IP items the docs do not allow, with the fix where there is one', async () => {
    const id = await newList('ips', 'ip');
    const r = await call('POST', `${LISTS}/${id}/items`, [{ ip: '2001:db8::1' }, { ip: '10.0.0.1/24' }, { ip: '10.0.0.0/7' }, { ip: '2001:db8::/96' }, { ip: '10.0.0.1', note: 'x' }, 'x', { ip: '1.2.3.4', comment: 7 }]);
    expect(r.status).toBe(400);
    const byPointer = Object.fromEntries(r.body.errors.map((e: any) => [e.source.pointer, e]));
    expect(Object.keys(byPointer).sort()).toEqual(['/0/ip', '/1/ip', '/2/ip', '/3/ip', '/4/note', '/5', '/6/comment']);
    expect(byPointer['/0/ip'].meta).toMatchObject({ rangeIn: 'value', fix: { edits: [{ range: { start: 0, end: 11 }, newText: '2001:db8::/64' }] } });
    expect(byPointer['/1/ip'].meta.fix.edits[0].newText).toBe('10.0.0.0/24');
    expect(byPointer['/2/ip'].message).toContain('/8 to /32');
    expect(byPointer['/3/ip'].message).toContain('/4 to /64');
    expect((await call('GET', `${LISTS}/${id}`)).body.result.num_items).toBe(0);
  });

  it('a write past the items limit of the kind is a failed bulk operation that changes nothing', async () => {
    const id = await newList('many', 'ip');
    const max = LIST_LIMITS.kinds.ip.maxItems;
    const ips = (n: number) => Array.from({ length: n }, (_, i) => ({ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }));
    const ok = await call('PUT', `${LISTS}/${id}/items`, ips(max));
    expect((await call('GET', `${LISTS}/bulk_operations/${ok.body.result.operation_id}`)).body.result.status).toBe('completed');
    const over = await call('POST', `${LISTS}/${id}/items`, [{ ip: '192.0.2.1' }]);
    expect(over.status).toBe(200);
    const op = (await call('GET', `${LISTS}/bulk_operations/${over.body.result.operation_id}`)).body.result;
    expect(op).toMatchObject({ status: 'failed', error: expect.stringContaining(`${max}`) });
    expect((await call('GET', `${LISTS}/${id}`)).body.result.num_items).toBe(max);
    // Emptied again, so the other tests' IP lists have room.
    await call('PUT', `${LISTS}/${id}/items`, []);
    expect((await call('GET', `${LISTS}/${id}`)).body.result.num_items).toBe(0);
  });

  it('a request of more items than the kind allows in all is refused by its count, before any item is read', async () => {
    const id = await newList('toomany', 'ip');
    const max = LIST_LIMITS.kinds.ip.maxItems;
    // Every item broken: read one by one they would be 100 errors and a count; refused by count, one.
    const r = await call('POST', `${LISTS}/${id}/items`, Array.from({ length: max + 1 }, () => ({ ip: 'not an address' })));
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0]).toMatchObject({ meta: { code: 'server-list-limit-reached' }, message: expect.stringContaining(`${max + 1} items in one request`) });
    expect((await call('GET', `${LISTS}/${id}`)).body.result.num_items).toBe(0);
  });

  it('pages forwards and back with cursors; refuses a bad per_page or cursor', async () => {
    const id = await newList('paged', 'asn');
    await call('POST', `${LISTS}/${id}/items`, [5, 1, 4, 2, 3].map((asn) => ({ asn })));
    const first = await call('GET', `${LISTS}/${id}/items?per_page=2`);
    expect(first.body.result.map((i: any) => i.asn)).toEqual([1, 2]);
    expect(first.body.result_info.cursors.before).toBeUndefined();
    const second = await call('GET', `${LISTS}/${id}/items?per_page=2&cursor=${first.body.result_info.cursors.after}`);
    expect(second.body.result.map((i: any) => i.asn)).toEqual([3, 4]);
    const back = await call('GET', `${LISTS}/${id}/items?per_page=2&cursor=${second.body.result_info.cursors.before}`);
    expect(back.body.result.map((i: any) => i.asn)).toEqual([1, 2]);
    const last = await call('GET', `${LISTS}/${id}/items?per_page=2&cursor=${second.body.result_info.cursors.after}`);
    expect(last.body.result.map((i: any) => i.asn)).toEqual([5]);
    expect(last.body.result_info.cursors.after).toBeUndefined();
    for (const q of ['per_page=0', `per_page=${LIST_LIMITS.perPageMax + 1}`, 'per_page=x', 'cursor=nope!']) {
      const r = await call('GET', `${LISTS}/${id}/items?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.errors[0].meta.code).toBe('server-invalid-parameter');
    }
  });

  it('dry runs of list and item writes store nothing; a list’s name and kind cannot change', async () => {
    const id = await newList('fixed', 'hostname');
    const dry = await call('POST', `${LISTS}/${id}/items?dry_run=true`, [{ hostname: { url_hostname: 'example.com' } }]);
    expect(dry.status).toBe(200);
    expect((await call('GET', `${LISTS}/${id}`)).body.result.num_items).toBe(0);
    expect((await call('GET', `${LISTS}/bulk_operations/${dry.body.result.operation_id}`)).status).toBe(404);
    expect((await call('DELETE', `${LISTS}/${id}?dry_run=true`)).status).toBe(200);
    expect((await call('GET', `${LISTS}/${id}`)).status).toBe(200);
    const renamed = await call('PUT', `${LISTS}/${id}`, { name: 'other', description: 'x' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.errors[0]).toMatchObject({ source: { pointer: '/name' }, meta: { code: 'server-immutable-member' } });
    expect((await call('PUT', `${LISTS}/${id}`, { name: 'fixed', kind: 'hostname', description: 'same name and kind' })).body.result.description).toBe('same name and kind');
    const badDelete = await call('DELETE', `${LISTS}/${id}/items`, { items: [{ id: 7 }] });
    expect(badDelete.body.errors[0]).toMatchObject({ source: { pointer: '/items/0' }, meta: { code: 'server-invalid-list-item' } });
  });

  it('simulate uses the stored IP lists, under the lists the request gives', async () => {
    const id = await newList('office', 'ip');
    await call('POST', `${LISTS}/${id}/items`, [{ ip: '198.51.100.0/24' }]);
    const rs = await call('POST', '/client/v4/accounts/acc-alice/rulesets', { ...ACCOUNT_RULESET, rules: [{ action: 'block', expression: 'ip.src in $office' }] });
    expect(rs.status).toBe(200);
    const simulate = (lists?: unknown) => call('POST', `/client/v4/accounts/acc-alice/rulesets/${rs.body.result.id}/simulate`, { packets: [{ 'ip.src': '198.51.100.7' }, { 'ip.src': '203.0.113.7' }], ...(lists ? { lists } : {}) });
    expect((await simulate()).body.result.results.map((r: any) => r.verdict)).toEqual(['block', 'allow']);
    expect((await simulate({ office: ['203.0.113.0/24'] })).body.result.results.map((r: any) => r.verdict)).toEqual(['allow', 'block']);
    // Items changed through the API are what the next simulation (and validation) reads.
    await call('PUT', `${LISTS}/${id}/items`, [{ ip: '203.0.113.0/24' }]);
    expect((await simulate()).body.result.results.map((r: any) => r.verdict)).toEqual(['allow', 'block']);
    await call('DELETE', `/client/v4/accounts/acc-alice/rulesets/${rs.body.result.id}`);
  });

  it('zone rulesets keep the seeded lists (the server does not know a zone’s account)', async () => {
    const z = await call('POST', '/client/v4/zones/zone-alice/rulesets', { name: 'waf', kind: 'zone', phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'ip.src in $not_stored' }] });
    expect(z.status).toBe(200);
    expect(z.body.messages.map((m: any) => m.meta.code)).toContain('list-not-provided');
  });

  it('shows every Lists API route in /openapi.json', async () => {
    const paths = JSON.parse((await answers.inject(app, { method: 'GET', url: '/openapi.json' })).body).paths as Record<string, Record<string, unknown>>;
    const base = '/client/v4/accounts/{account_id}/rules/lists';
    expect(Object.keys(paths[base]!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths[`${base}/{list_id}`]!).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(paths[`${base}/{list_id}/items`]!).sort()).toEqual(['delete', 'get', 'post', 'put']);
    expect(Object.keys(paths[`${base}/{list_id}/items/{item_id}`]!)).toEqual(['get']);
    expect(Object.keys(paths[`${base}/bulk_operations/{operation_id}`]!)).toEqual(['get']);
  });

  it('every answer of an official operation conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
});
