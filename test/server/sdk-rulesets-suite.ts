/**
 * The official client's calls on the parts of rulesets: phase entry points (`client.rulesets.phases.*`),
 * single rules (`client.rulesets.rules.*`) and versions (`client.rulesets.versions.*`), with their typed
 * answers and typed errors. Run against each store (sdk.sqlite.test.ts, sdk.postgres.test.ts).
 */
import Cloudflare from 'cloudflare';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { createServer, type Store } from '../../src/server/index.js';
import { USERS } from './sdk-suite.js';

interface Rule {
  id: string;
  version: string;
  action: string;
  expression: string;
  description?: string;
  ref: string;
  enabled: boolean;
  last_updated: string;
  action_parameters?: Record<string, unknown>;
}
interface Rs {
  id: string;
  name: string;
  description: string;
  kind: string;
  phase: string;
  version: string;
  last_updated: string;
  rules: Rule[];
}

/** The SDK's parameter types list the hosted API's phases and rule shapes; these bodies are the server's own, passed through. */
const p = <T>(x: unknown) => x as T;
const as = (x: unknown) => x as Rs;
const ids = (r: Rs) => r.rules.map((x) => x.id);
const versionsOf = (r: Rs) => Object.fromEntries(r.rules.map((x) => [x.id, x.version]));

async function expectApiError(promise: Promise<unknown>, type: abstract new (...a: never[]) => Error, code?: string, pointer?: string): Promise<void> {
  const e = await promise.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(type);
  if (code === undefined) return;
  const entries = (e as { errors: { message: string; source?: { pointer: string }; meta: { code: string } }[] }).errors;
  const hit = entries.find((x) => x.meta.code === code);
  expect(hit, `expected ${code} among ${JSON.stringify(entries)}`).toBeDefined();
  if (pointer !== undefined) expect(hit!.source?.pointer).toBe(pointer);
}

const BLOCK_23 = { action: 'block', expression: 'tcp.dstport == 23', description: 'telnet' };
const BLOCK_25 = { action: 'block', expression: 'tcp.dstport == 25', description: 'smtp' };

export function sdkRulesetPartsSuite(name: string, openStore: () => Promise<Store>): void {
  describe(`official client: entry points, single rules, versions (${name})`, () => {
    let app: FastifyInstance;
    /** Every answer the official client receives, checked against Cloudflare's OpenAPI document. */
    const answers = new AnswerChecker();
    let store: Store;
    let alice: Cloudflare;
    let bob: Cloudflare;
    const account_id = 'acc-alice';
    const zone_id = 'zone-alice';

    beforeAll(async () => {
      store = await openStore();
      app = await createServer({ users: USERS, store });
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const baseURL = `${address}/client/v4`;
      alice = new Cloudflare({ baseURL, apiEmail: USERS[0]!.email, apiKey: USERS[0]!.key, maxRetries: 0, fetch: answers.fetch });
      bob = new Cloudflare({ baseURL, apiEmail: USERS[1]!.email, apiKey: USERS[1]!.key, maxRetries: 0, fetch: answers.fetch });
    });
    afterAll(async () => {
      await app?.close();
      await store?.close();
    });

    it('phases: an absent entry point is 404 (its versions an empty list); PUT creates it, then replaces its rules', async () => {
      const phase = p<'http_request_firewall_custom'>('network_transit');
      await expectApiError(alice.rulesets.phases.get(phase, { account_id }), Cloudflare.NotFoundError, 'server-ruleset-not-found');
      expect((await alice.rulesets.phases.versions.list(phase, { account_id })).result).toEqual([]);
      await expectApiError(alice.rulesets.phases.versions.get('1', { ruleset_phase: phase, account_id }), Cloudflare.NotFoundError, 'server-ruleset-not-found');

      const created = as(await alice.rulesets.phases.update(phase, { account_id, rules: p([BLOCK_23]) }));
      expect(created).toMatchObject({ name: 'default', description: '', kind: 'root', phase: 'network_transit', version: '1' });
      expect(created.rules).toEqual([expect.objectContaining({ ...BLOCK_23, version: '1', enabled: true })]);
      expect(as(await alice.rulesets.phases.get(phase, { account_id }))).toEqual(created);
      // The entry point is an ordinary ruleset too, and a second one of the phase is refused.
      expect(as(await alice.rulesets.get(created.id, { account_id }))).toEqual(created);
      await expectApiError(alice.rulesets.create(p({ account_id, name: 'x', kind: 'root', phase: 'network_transit' })), Cloudflare.ConflictError, 'server-phase-exists');

      const kept = created.rules[0]!;
      const put = as(await alice.rulesets.phases.update(phase, { account_id, description: 'edge firewall', rules: p([{ ...BLOCK_23, id: kept.id }, BLOCK_25]) }));
      expect(put).toMatchObject({ id: created.id, name: 'default', description: 'edge firewall', version: '2' });
      expect(put.rules[0]).toEqual(kept);
      expect(put.rules[1]).toMatchObject({ ...BLOCK_25, version: '2' });

      const versions = (await alice.rulesets.phases.versions.list(phase, { account_id })).result as unknown as Rs[];
      expect(versions.map((v) => v.version)).toEqual(['1', '2']);
      expect(versions[0]).not.toHaveProperty('rules');
      const v1 = as(await alice.rulesets.phases.versions.get('1', { ruleset_phase: phase, account_id }));
      expect(v1).toEqual(created);
      await expectApiError(alice.rulesets.phases.versions.get('9', { ruleset_phase: phase, account_id }), Cloudflare.NotFoundError, 'server-version-not-found');
    });

    it('phases: zone entry points; unknown phases, phases of the other level and bodies that do not validate are 400', async () => {
      const phase = 'http_request_firewall_custom';
      const zone = as(await alice.rulesets.phases.update(phase, { zone_id, name: 'waf', rules: [{ action: 'block', expression: 'http.host eq "example.com"' }] }));
      expect(zone).toMatchObject({ name: 'waf', kind: 'zone', phase, version: '1' });
      expect(as(await alice.rulesets.phases.get(phase, { zone_id })).id).toBe(zone.id);
      await expectApiError(alice.rulesets.phases.get(p('http_request_firewal_custom'), { zone_id }), Cloudflare.BadRequestError, 'server-unknown-phase');
      await expectApiError(alice.rulesets.phases.get(p('network_transit'), { zone_id }), Cloudflare.BadRequestError, 'server-unknown-phase');
      await expectApiError(alice.rulesets.phases.update(p('http_log_custom_fields'), { account_id, rules: [] }), Cloudflare.BadRequestError, 'server-unknown-phase');
      await expectApiError(alice.rulesets.phases.update(phase, { zone_id, rules: [{ action: 'block', expression: 'http.host eq' }] }), Cloudflare.BadRequestError);
      await expectApiError(alice.rulesets.phases.update('http_ratelimit', p({ zone_id, kind: 'custom', rules: [] })), Cloudflare.BadRequestError, 'server-immutable-member', '/kind');
      // A dry run creates nothing.
      const dry = as(await alice.rulesets.phases.update('http_request_late_transform', p({ zone_id, dry_run: true, rules: [] })));
      expect(dry).toMatchObject({ kind: 'zone', phase: 'http_request_late_transform', version: '1' });
      await expectApiError(alice.rulesets.phases.get('http_request_late_transform', { zone_id }), Cloudflare.NotFoundError, 'server-ruleset-not-found');
      // Another user's zone: 403, whether or not it has the entry point.
      await expectApiError(bob.rulesets.phases.get(phase, { zone_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
    });

    it('rules: create at the end, before, after and at an index; the other rules keep their ids and versions', async () => {
      const rs = as(await alice.rulesets.create(p({ account_id, name: 'custom', kind: 'custom', phase: 'network_transit', rules: [BLOCK_23] })));
      const first = rs.rules[0]!;
      const r2 = as(await alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25 })));
      expect(r2.version).toBe('2');
      expect(r2.rules[0]).toEqual(first);
      expect(r2.rules[1]).toMatchObject({ ...BLOCK_25, version: '2', enabled: true });
      const second = r2.rules[1]!;
      expect(second.ref).toBe(second.id);

      const top = as(await alice.rulesets.rules.create(rs.id, p({ account_id, action: 'block', expression: 'tcp.dstport == 1', position: { before: '' } })));
      expect(top.rules.map((r) => r.expression)).toEqual(['tcp.dstport == 1', BLOCK_23.expression, BLOCK_25.expression]);
      const after = as(await alice.rulesets.rules.create(rs.id, p({ account_id, action: 'block', expression: 'tcp.dstport == 2', position: { after: first.id } })));
      expect(after.rules.map((r) => r.expression)).toEqual(['tcp.dstport == 1', BLOCK_23.expression, 'tcp.dstport == 2', BLOCK_25.expression]);
      const indexed = as(await alice.rulesets.rules.create(rs.id, p({ account_id, action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport == 3', ref: 'three', position: { index: 2 } })));
      expect(indexed.rules.map((r) => r.expression)).toEqual(['tcp.dstport == 1', 'tcp.dstport == 3', BLOCK_23.expression, 'tcp.dstport == 2', BLOCK_25.expression]);
      expect(indexed.version).toBe('5');
      expect(indexed.rules[1]).toMatchObject({ ref: 'three', version: '5', action_parameters: { ruleset: 'current' } });
      expect(versionsOf(indexed)).toMatchObject({ [first.id]: '1', [second.id]: '2' });
      expect(as(await alice.rulesets.get(rs.id, { account_id }))).toEqual(indexed);
      const afterLast = as(await alice.rulesets.rules.create(rs.id, p({ account_id, action: 'block', expression: 'tcp.dstport == 4', position: { after: '' } })));
      expect(afterLast.rules.at(-1)).toMatchObject({ expression: 'tcp.dstport == 4' });
    });

    it('rules: refusals point into the rule body; unknown rulesets, rules and positions are typed errors', async () => {
      const rs = as(await alice.rulesets.create(p({ account_id, name: 'refusals', kind: 'custom', phase: 'network_transit', rules: [{ ...BLOCK_23, ref: 'telnet' }] })));
      await expectApiError(alice.rulesets.rules.create(rs.id, p({ account_id, action: 'block', expression: 'tcp.dstport ==' })), Cloudflare.BadRequestError, 'unexpected-end', '/expression');
      await expectApiError(alice.rulesets.rules.create(rs.id, p({ account_id, action: 'blok', expression: 'true' })), Cloudflare.BadRequestError);
      await expectApiError(alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25, ref: 'telnet', position: { before: '' } })), Cloudflare.BadRequestError, 'ruleset-duplicate-ref', '/ref');
      await expectApiError(alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25, position: { before: 'nope' } })), Cloudflare.BadRequestError, 'server-invalid-position', '/position/before');
      await expectApiError(alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25, position: { index: 3 } })), Cloudflare.BadRequestError, 'server-invalid-position', '/position/index');
      await expectApiError(alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25, position: { index: 1, after: '' } })), Cloudflare.BadRequestError, 'server-invalid-position', '/position');
      await expectApiError(alice.rulesets.rules.create('0'.repeat(32), p({ account_id, ...BLOCK_25 })), Cloudflare.NotFoundError, 'server-ruleset-not-found');
      await expectApiError(alice.rulesets.rules.edit('0'.repeat(32), p({ ruleset_id: rs.id, account_id, enabled: false })), Cloudflare.NotFoundError, 'server-rule-not-found');
      await expectApiError(alice.rulesets.rules.delete('0'.repeat(32), { ruleset_id: rs.id, account_id }), Cloudflare.NotFoundError, 'server-rule-not-found');
      await expectApiError(alice.rulesets.rules.edit(rs.rules[0]!.id, p({ ruleset_id: rs.id, account_id, expression: 'tcp.dstport in {' })), Cloudflare.BadRequestError);
      await expectApiError(bob.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25 })), Cloudflare.PermissionDeniedError, 'server-forbidden');
      // Nothing of that was written.
      expect(as(await alice.rulesets.get(rs.id, { account_id }))).toEqual(rs);
      // A dry run answers the ruleset it would write, and writes nothing.
      const dry = as(await alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25, dry_run: true })));
      expect(dry.version).toBe('2');
      expect(dry.rules).toHaveLength(2);
      expect(as(await alice.rulesets.get(rs.id, { account_id }))).toEqual(rs);
    });

    it('rules: edit replaces the members given and moves the rule; delete removes it; ids and versions of the others stay', async () => {
      const rs = as(await alice.rulesets.create(p({ account_id, name: 'edits', kind: 'custom', phase: 'network_transit', rules: [BLOCK_23, BLOCK_25, { action: 'block', expression: 'tcp.dstport == 53' }] })));
      const [a, b, c] = rs.rules as [Rule, Rule, Rule];
      const edited = as(await alice.rulesets.rules.edit(b.id, p({ ruleset_id: rs.id, account_id, expression: 'tcp.dstport == 587', enabled: false })));
      expect(edited.version).toBe('2');
      expect(ids(edited)).toEqual([a.id, b.id, c.id]);
      expect(edited.rules[1]).toEqual({ ...b, expression: 'tcp.dstport == 587', enabled: false, version: '2', last_updated: edited.last_updated });
      expect(edited.rules[0]).toEqual(a);
      expect(edited.rules[2]).toEqual(c);

      // Moved without a change: its own version stays.
      const moved = as(await alice.rulesets.rules.edit(c.id, p({ ruleset_id: rs.id, account_id, position: { index: 1 } })));
      expect(moved.version).toBe('3');
      expect(ids(moved)).toEqual([c.id, a.id, b.id]);
      expect(moved.rules[0]).toEqual(c);
      const before = as(await alice.rulesets.rules.edit(c.id, p({ ruleset_id: rs.id, account_id, position: { before: b.id } })));
      expect(ids(before)).toEqual([a.id, c.id, b.id]);
      const last = as(await alice.rulesets.rules.edit(a.id, p({ ruleset_id: rs.id, account_id, position: { after: '' } })));
      expect(ids(last)).toEqual([c.id, b.id, a.id]);
      await expectApiError(alice.rulesets.rules.edit(a.id, p({ ruleset_id: rs.id, account_id, position: { before: a.id } })), Cloudflare.BadRequestError, 'server-invalid-position', '/position/before');

      const deleted = as(await alice.rulesets.rules.delete(b.id, { ruleset_id: rs.id, account_id }));
      expect(deleted.version).toBe('6');
      expect(ids(deleted)).toEqual([c.id, a.id]);
      expect(versionsOf(deleted)).toEqual({ [c.id]: '1', [a.id]: '1' });
      await expectApiError(alice.rulesets.rules.delete(b.id, { ruleset_id: rs.id, account_id }), Cloudflare.NotFoundError, 'server-rule-not-found');
      // Zone level, on an entry point.
      const zoneRs = as(await alice.rulesets.phases.update('http_request_origin', { zone_id, rules: [] }));
      const zoneAdded = as(await alice.rulesets.rules.create(zoneRs.id, p({ zone_id, action: 'route', expression: 'http.host eq "a.example.com"', action_parameters: { host_header: 'b.example.com' } })));
      expect(zoneAdded.rules).toHaveLength(1);
      expect(as(await alice.rulesets.rules.delete(zoneAdded.rules[0]!.id, { ruleset_id: zoneRs.id, zone_id })).rules).toEqual([]);
    });

    it('versions: list, get, delete an old one (204), never the current one; by_tag answers the version’s tagged rules', async () => {
      const rs = as(await alice.rulesets.create(p({ account_id, name: 'history', kind: 'custom', phase: 'network_transit', rules: [BLOCK_23] })));
      const v2 = as(await alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_25 })));
      const v3 = as(await alice.rulesets.rules.delete(rs.rules[0]!.id, { ruleset_id: rs.id, account_id }));
      const listed = (await alice.rulesets.versions.list(rs.id, { account_id })).result as unknown as Rs[];
      expect(listed.map((v) => v.version)).toEqual(['1', '2', '3']);
      expect(as(await alice.rulesets.versions.get('1', { ruleset_id: rs.id, account_id }))).toEqual(rs);
      expect(as(await alice.rulesets.versions.get('2', { ruleset_id: rs.id, account_id }))).toEqual(v2);
      expect(as(await alice.rulesets.versions.get('3', { ruleset_id: rs.id, account_id }))).toEqual(v3);
      await expectApiError(alice.rulesets.versions.get('4', { ruleset_id: rs.id, account_id }), Cloudflare.NotFoundError, 'server-version-not-found');
      await expectApiError(alice.rulesets.versions.get('x', { ruleset_id: rs.id, account_id }), Cloudflare.NotFoundError, 'server-version-not-found');
      await expectApiError(alice.rulesets.versions.get('1', { ruleset_id: '0'.repeat(32), account_id }), Cloudflare.NotFoundError, 'server-ruleset-not-found');

      await expectApiError(alice.rulesets.versions.delete('3', { ruleset_id: rs.id, account_id }), Cloudflare.BadRequestError, 'server-current-version');
      await alice.rulesets.versions.delete('2', { ruleset_id: rs.id, account_id, dry_run: true });
      expect(((await alice.rulesets.versions.list(rs.id, { account_id })).result as unknown as Rs[]).map((v) => v.version)).toEqual(['1', '2', '3']);
      const raw = await alice.rulesets.versions.delete('2', { ruleset_id: rs.id, account_id }).asResponse();
      expect(raw.status).toBe(204);
      expect(await raw.text()).toBe('');
      expect(((await alice.rulesets.versions.list(rs.id, { account_id })).result as unknown as Rs[]).map((v) => v.version)).toEqual(['1', '3']);
      await expectApiError(alice.rulesets.versions.get('2', { ruleset_id: rs.id, account_id }), Cloudflare.NotFoundError, 'server-version-not-found');
      await expectApiError(alice.rulesets.versions.delete('2', { ruleset_id: rs.id, account_id }), Cloudflare.NotFoundError, 'server-version-not-found');
      await expectApiError(alice.rulesets.versions.delete('1', { ruleset_id: '0'.repeat(32), account_id }), Cloudflare.NotFoundError, 'server-ruleset-not-found');
      // The next version does not reuse a deleted number.
      const v4 = as(await alice.rulesets.rules.create(rs.id, p({ account_id, ...BLOCK_23 })));
      expect(v4.version).toBe('4');

      // by_tag: the version with the rules of that tag (rulesets written here carry no categories: none).
      const tagged = (await alice.get(`/accounts/${account_id}/rulesets/${rs.id}/versions/3/by_tag/wordpress`)) as { result: Rs; success: boolean };
      expect(tagged.success).toBe(true);
      expect(tagged.result).toEqual({ ...v3, rules: [] });
      await expectApiError(alice.get(`/accounts/${account_id}/rulesets/${rs.id}/versions/2/by_tag/wordpress`), Cloudflare.NotFoundError, 'server-version-not-found');
      await expectApiError(bob.rulesets.versions.get('1', { ruleset_id: rs.id, account_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
    });

    it('every answer the client received conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
  });
}
