/**
 * The server's answers checked against Cloudflare's published OpenAPI document (the fixture cut from
 * cloudflare/api-schemas, test/fixtures/openapi/): for every official operation the server serves, a
 * successful request and failing ones, each response validated by the operation's schema for its status.
 * Every other response the test receives (setup included) is validated too.
 *
 * Adding an operation: one line in SERVED, and in CASES a successful request and a failing one (an
 * entry whose `op` says `/{scope}` runs at both levels; one with the official template, at its own).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, createServer, openSqliteStore, type Store } from '../../src/server/index.js';
import {
  checkResponse, officialDocument, officialOperations, officialTemplate, SCHEMA_EXCEPTIONS, selfContradictions, templateShape,
} from '../helpers/official-schema.js';
import { USERS } from './sdk-suite.js';

/** The official operations the server serves, as `METHOD template` of the document. */
const SERVED = [
  'GET /accounts/{account_id}/logpush/jobs',
  'POST /accounts/{account_id}/logpush/jobs',
  'DELETE /accounts/{account_id}/logpush/jobs/{job_id}',
  'GET /accounts/{account_id}/logpush/jobs/{job_id}',
  'PUT /accounts/{account_id}/logpush/jobs/{job_id}',
  'GET /accounts/{account_id}/rulesets',
  'POST /accounts/{account_id}/rulesets',
  'DELETE /accounts/{account_id}/rulesets/{ruleset_id}',
  'GET /accounts/{account_id}/rulesets/{ruleset_id}',
  'PUT /accounts/{account_id}/rulesets/{ruleset_id}',
  'GET /accounts/{account_id}/rulesets/{ruleset_id}/versions',
  'GET /zones/{zone_id}/logpush/jobs',
  'POST /zones/{zone_id}/logpush/jobs',
  'DELETE /zones/{zone_id}/logpush/jobs/{job_id}',
  'GET /zones/{zone_id}/logpush/jobs/{job_id}',
  'PUT /zones/{zone_id}/logpush/jobs/{job_id}',
  'GET /zones/{zone_id}/rulesets',
  'POST /zones/{zone_id}/rulesets',
  'DELETE /zones/{zone_id}/rulesets/{ruleset_id}',
  'GET /zones/{zone_id}/rulesets/{ruleset_id}',
  'PUT /zones/{zone_id}/rulesets/{ruleset_id}',
  'GET /zones/{zone_id}/rulesets/{ruleset_id}/versions',
];

/** The server's routes under the API that are rulekit's own (no official operation), as `METHOD path`. */
const OWN = [
  'POST /accounts/{account_id}/rulesets/{ruleset_id}/simulate',
  'POST /zones/{zone_id}/rulesets/{ruleset_id}/simulate',
];

/**
 * The contradictions of the document with itself that {@link selfContradictions} finds: an `example` or
 * `default` its own schema refuses. Named so that a refreshed document's new ones are looked at; those
 * that touch the server's answers are read as {@link SCHEMA_EXCEPTIONS} say.
 */
const CONTRADICTIONS: Record<string, string> = {
  '/components/schemas/lists_item example': 'the example of a list item is none of the item kinds its oneOf offers',
  '/components/schemas/logpush_kind example': 'logpush_kind is `enum: ["edge"]`, its example is "" (a Logpush job’s kind)',
  '/components/schemas/logpush_kind default': 'logpush_kind is `enum: ["edge"]`, its default is "": every job that is not Instant Logs fails it (an exception)',
  '/components/schemas/rulesets_RedirectRule/allOf/1/properties/action_parameters/properties/from_value/properties/target_url example':
    'the two target_url shapes (value, expression) require neither member, so the example matches both of a oneOf',
  '/components/schemas/rulesets_SetCacheSettingsRule/allOf/1/properties/action_parameters/properties/browser_ttl example': 'an object schema with a JSON text as its example',
  '/components/schemas/rulesets_SetCacheSettingsRule/allOf/1/properties/action_parameters/properties/cache_reserve/properties/eligible example': 'a boolean with a JSON text as its example',
  '/components/schemas/rulesets_SetCacheSettingsRule/allOf/1/properties/action_parameters/properties/edge_ttl example': 'an object schema with a JSON text as its example',
};

const H = { 'x-auth-email': USERS[0]!.email, 'x-auth-key': USERS[0]!.key };
type Scope = 'accounts' | 'zones';
const OWNER: Record<Scope, string> = { accounts: 'acc-alice', zones: 'zone-alice' };

/** A ruleset of an official phase for each level, with actions whose names have an underscore. */
const RULESET: Record<Scope, Record<string, unknown>> = {
  accounts: {
    name: 'account WAF', kind: 'custom', phase: 'http_request_firewall_custom', description: 'custom rules',
    rules: [
      { action: 'block', expression: 'ip.src in {192.0.2.0/24}', description: 'block the documentation range' },
      { action: 'managed_challenge', expression: 'http.request.uri.path eq "/login"', enabled: false },
    ],
  },
  zones: {
    name: 'zone WAF', kind: 'zone', phase: 'http_request_firewall_custom',
    rules: [
      { action: 'log', expression: 'http.host eq "example.com"', ref: 'log_example' },
      { action: 'js_challenge', expression: 'http.request.uri.path eq "/admin"' },
    ],
  },
};

const JOB: Record<Scope, Record<string, unknown>> = {
  accounts: { name: 'audit', destination_conf: 'https://logs.example.com/audit', dataset: 'audit_logs', logpull_options: 'fields=ActionType,ActorEmail&timestamps=rfc3339' },
  zones: { name: 'errors', destination_conf: 'https://logs.example.com/http', dataset: 'http_requests', logpull_options: 'fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339', filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } }) },
};

interface Answer {
  status: number;
  text: string;
  json: any;
}

/** What a case works with: requests (each answer checked against the document) and fresh records. */
interface Tools {
  call(method: string, path: string, payload?: unknown): Promise<Answer>;
  ruleset(scope: Scope): Promise<{ id: string; rules: { id: string }[] }>;
  job(scope: Scope): Promise<number>;
}

interface Case {
  /** The operation, as in SERVED with `{scope}` for both levels. */
  op: string;
  what: string;
  status: number;
  run(t: Tools, scope: Scope): Promise<Answer>;
}

const at = (scope: Scope) => `/${scope}/${OWNER[scope]}`;
const othersAt = (scope: Scope) => `/${scope}/${scope === 'accounts' ? 'acc-bob' : 'zone-bob'}`;
const MISSING_RULESET = '0123456789abcdef0123456789abcdef';

/** Requests per operation, run at both levels. */
const CASES: Case[] = [
  { op: 'GET /{scope}/rulesets', what: 'list', status: 200, run: async (t, s) => (await t.ruleset(s), t.call('GET', `${at(s)}/rulesets`)) },
  { op: 'GET /{scope}/rulesets', what: 'another user’s', status: 403, run: (t, s) => t.call('GET', `${othersAt(s)}/rulesets`) },
  { op: 'POST /{scope}/rulesets', what: 'create', status: 200, run: (t, s) => t.call('POST', `${at(s)}/rulesets`, { ...RULESET[s], name: 'another', kind: 'custom' }) },
  { op: 'POST /{scope}/rulesets', what: 'a bad expression', status: 400, run: (t, s) => t.call('POST', `${at(s)}/rulesets`, { ...RULESET[s], kind: 'custom', rules: [{ action: 'block', expression: 'ip.src eq' }] }) },
  { op: 'POST /{scope}/rulesets', what: 'a body that is not an object', status: 400, run: (t, s) => t.call('POST', `${at(s)}/rulesets`, [1]) },
  { op: 'POST /{scope}/rulesets', what: 'an unknown phase', status: 400, run: (t, s) => t.call('POST', `${at(s)}/rulesets`, { ...RULESET[s], kind: 'custom', phase: 'no_such_phase' }) },
  { op: 'GET /{scope}/rulesets/{ruleset_id}', what: 'read', status: 200, run: async (t, s) => t.call('GET', `${at(s)}/rulesets/${(await t.ruleset(s)).id}`) },
  { op: 'GET /{scope}/rulesets/{ruleset_id}', what: 'an unknown id', status: 404, run: (t, s) => t.call('GET', `${at(s)}/rulesets/${MISSING_RULESET}`) },
  {
    op: 'PUT /{scope}/rulesets/{ruleset_id}', what: 'replace the rules, keeping one', status: 200,
    run: async (t, s) => {
      const rs = await t.ruleset(s);
      return t.call('PUT', `${at(s)}/rulesets/${rs.id}`, { description: 'changed', rules: [{ id: rs.rules[0]!.id, ...(RULESET[s]['rules'] as object[])[0] }, { action: 'block', expression: 'ip.src eq 198.51.100.7' }] });
    },
  },
  { op: 'PUT /{scope}/rulesets/{ruleset_id}', what: 'an unknown rule id', status: 400, run: async (t, s) => t.call('PUT', `${at(s)}/rulesets/${(await t.ruleset(s)).id}`, { rules: [{ id: 'ffffffffffffffffffffffffffffffff', action: 'block', expression: 'true' }] }) },
  { op: 'PUT /{scope}/rulesets/{ruleset_id}', what: 'an unknown id', status: 404, run: (t, s) => t.call('PUT', `${at(s)}/rulesets/${MISSING_RULESET}`, { rules: [] }) },
  { op: 'DELETE /{scope}/rulesets/{ruleset_id}', what: 'delete', status: 204, run: async (t, s) => t.call('DELETE', `${at(s)}/rulesets/${(await t.ruleset(s)).id}`) },
  { op: 'DELETE /{scope}/rulesets/{ruleset_id}', what: 'an unknown id', status: 404, run: (t, s) => t.call('DELETE', `${at(s)}/rulesets/${MISSING_RULESET}`) },
  {
    op: 'GET /{scope}/rulesets/{ruleset_id}/versions', what: 'list two versions', status: 200,
    run: async (t, s) => {
      const rs = await t.ruleset(s);
      await t.call('PUT', `${at(s)}/rulesets/${rs.id}`, { rules: [] });
      return t.call('GET', `${at(s)}/rulesets/${rs.id}/versions`);
    },
  },
  { op: 'GET /{scope}/rulesets/{ruleset_id}/versions', what: 'an unknown id', status: 404, run: (t, s) => t.call('GET', `${at(s)}/rulesets/${MISSING_RULESET}/versions`) },

  { op: 'GET /{scope}/logpush/jobs', what: 'list', status: 200, run: async (t, s) => (await t.job(s), t.call('GET', `${at(s)}/logpush/jobs`)) },
  { op: 'GET /{scope}/logpush/jobs', what: 'another user’s', status: 403, run: (t, s) => t.call('GET', `${othersAt(s)}/logpush/jobs`) },
  { op: 'POST /{scope}/logpush/jobs', what: 'create', status: 200, run: (t, s) => t.call('POST', `${at(s)}/logpush/jobs`, { ...JOB[s], name: 'another', enabled: true, frequency: 'low' }) },
  { op: 'POST /{scope}/logpush/jobs', what: 'an unknown dataset', status: 400, run: (t, s) => t.call('POST', `${at(s)}/logpush/jobs`, { ...JOB[s], dataset: 'no_such_dataset' }) },
  { op: 'POST /{scope}/logpush/jobs', what: 'a body that is not an object', status: 400, run: (t, s) => t.call('POST', `${at(s)}/logpush/jobs`, 'job') },
  { op: 'GET /{scope}/logpush/jobs/{job_id}', what: 'read', status: 200, run: async (t, s) => t.call('GET', `${at(s)}/logpush/jobs/${await t.job(s)}`) },
  { op: 'GET /{scope}/logpush/jobs/{job_id}', what: 'an unknown id', status: 404, run: (t, s) => t.call('GET', `${at(s)}/logpush/jobs/999999`) },
  { op: 'GET /{scope}/logpush/jobs/{job_id}', what: 'an id that is not a number', status: 400, run: (t, s) => t.call('GET', `${at(s)}/logpush/jobs/abc`) },
  { op: 'PUT /{scope}/logpush/jobs/{job_id}', what: 'update', status: 200, run: async (t, s) => t.call('PUT', `${at(s)}/logpush/jobs/${await t.job(s)}`, { enabled: true, name: 'renamed' }) },
  { op: 'PUT /{scope}/logpush/jobs/{job_id}', what: 'a member of the wrong type', status: 400, run: async (t, s) => t.call('PUT', `${at(s)}/logpush/jobs/${await t.job(s)}`, { logpull_options: 7 }) },
  { op: 'PUT /{scope}/logpush/jobs/{job_id}', what: 'an unknown id', status: 404, run: (t, s) => t.call('PUT', `${at(s)}/logpush/jobs/999999`, { enabled: true }) },
  { op: 'DELETE /{scope}/logpush/jobs/{job_id}', what: 'delete', status: 200, run: async (t, s) => t.call('DELETE', `${at(s)}/logpush/jobs/${await t.job(s)}`) },
  { op: 'DELETE /{scope}/logpush/jobs/{job_id}', what: 'an unknown id', status: 404, run: (t, s) => t.call('DELETE', `${at(s)}/logpush/jobs/999999`) },
];

const scopeOf = (template: string): Scope => (template.startsWith('/accounts/') ? 'accounts' : 'zones');
const generic = (template: string) => template.replace(/^\/(accounts\/\{account_id\}|zones\/\{zone_id\})/, '/{scope}');

describe('the server against Cloudflare’s published OpenAPI schema', () => {
  let dir: string;
  let store: Store;
  let app: FastifyInstance;
  /** Every answer received, with what the document says of it. */
  const checked: { request: string; errors: string[] }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rulekit-official-'));
    store = openSqliteStore({ path: join(dir, 'rulekit.db') });
    app = await createServer({ users: USERS, store });
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tools: Tools = {
    async call(method, path, payload) {
      const body = payload === undefined ? {} : { payload: JSON.stringify(payload), headers: { ...H, 'content-type': 'application/json' } };
      const r = await app.inject({ method: method as 'GET', url: API_PREFIX + path, headers: H, ...body });
      const template = officialTemplate(method, path);
      const request = `${method} ${path} → ${r.statusCode}`;
      const errors = template ? checkResponse(method, template, r.statusCode, r.body) : [`no official operation ${method} ${path}`];
      checked.push({ request, errors });
      return { status: r.statusCode, text: r.body, json: r.body ? JSON.parse(r.body) : undefined };
    },
    async ruleset(scope) {
      const r = await tools.call('POST', `${at(scope)}/rulesets`, { ...RULESET[scope], kind: 'custom', name: `fresh ${Math.random()}` });
      expect(r.status, r.text).toBe(200);
      return r.json.result;
    },
    async job(scope) {
      const r = await tools.call('POST', `${at(scope)}/logpush/jobs`, JOB[scope]);
      expect(r.status, r.text).toBe(200);
      return r.json.result.id;
    },
  };

  it('the fixture says where it comes from and holds every operation under its paths with an operationId', () => {
    const doc = officialDocument();
    expect(doc.source.commit).toMatch(/^[0-9a-f]{40}$/);
    const ops = officialOperations();
    for (const op of ops) expect(op.operationId, `${op.method} ${op.path}`).toMatch(/\S/);
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    expect(ops.filter((o) => /\/(rulesets|logpush)/.test(o.path))).toHaveLength(55);
    expect(ops.filter((o) => o.path.includes('/rules/lists'))).toHaveLength(11);
  });

  it('SERVED is the official operations the server routes, and every other API route is rulekit’s own (OWN)', async () => {
    const official = new Map(officialOperations().map((o) => [`${o.method} ${templateShape(o.path)}`, `${o.method} ${o.path}`]));
    const paths = (JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as { paths: Record<string, Record<string, unknown>> }).paths;
    const served: string[] = [];
    const own: string[] = [];
    for (const [path, item] of Object.entries(paths)) {
      if (!path.startsWith(API_PREFIX + '/')) continue;
      const local = path.slice(API_PREFIX.length);
      for (const method of Object.keys(item).filter((m) => ['get', 'put', 'post', 'delete', 'patch'].includes(m))) {
        const hit = official.get(`${method.toUpperCase()} ${templateShape(local)}`);
        if (hit) served.push(hit);
        else own.push(`${method.toUpperCase()} ${local}`);
      }
    }
    expect(served.sort(), 'official operations the server routes (add new ones to SERVED)').toEqual([...SERVED].sort());
    expect(own.sort(), 'routes that are no official operation (add to OWN, or fix the path)').toEqual([...OWN].sort());
    for (const op of SERVED) expect(official.has(op.replace(/\{[^}]*\}/g, '{}')), `${op} is not an official operation`).toBe(true);
  });

  it('every served operation has a successful request and a failing one in CASES', () => {
    for (const op of SERVED) {
      const cases = CASES.filter((c) => c.op === op || c.op === `${op.split(' ')[0]} ${generic(op.split(' ')[1]!)}`);
      expect(cases.some((c) => c.status < 300), `${op}: no successful case`).toBe(true);
      expect(cases.some((c) => c.status >= 400), `${op}: no failing case`).toBe(true);
    }
  });

  for (const c of CASES) {
    for (const scope of ['accounts', 'zones'] as const) {
      const [method, template] = [c.op.split(' ')[0]!, c.op.split(' ')[1]!.replace('/{scope}', scope === 'accounts' ? '/accounts/{account_id}' : '/zones/{zone_id}')];
      if (!SERVED.includes(`${method} ${template}`) || scopeOf(template) !== scope) continue;
      it(`${method} ${template}: ${c.what} → ${c.status}, as the schema says`, async () => {
        const from = checked.length;
        const answer = await c.run(tools, scope);
        expect(answer.status, answer.text).toBe(c.status);
        const errors = checked.slice(from).flatMap((x) => x.errors.map((e) => `${x.request}: ${e}`));
        expect(errors).toEqual([]);
      });
    }
  }

  it('the checker refuses what the schema refuses', () => {
    const rs = { id: '2f2feab2026849078ba485f918791bdc', name: 'x', kind: 'zone', phase: 'http_request_firewall_custom', version: '1', last_updated: '2024-01-01T00:00:00.000Z', rules: [] as unknown[] };
    const rule = { id: '3a03d665bac047339bb530ecb439a90d', ref: 'r', version: '1', enabled: true, last_updated: '2024-01-01T00:00:00.000Z', expression: 'true', action: 'block' };
    const ok = (result: unknown) => JSON.stringify({ result, success: true, errors: [], messages: [] });
    const get = (body: string, status = 200) => checkResponse('GET', '/zones/{zone_id}/rulesets/{ruleset_id}', status, body);
    expect(get(ok({ ...rs, rules: [rule] }))).toEqual([]);
    expect(get(ok({ ...rs, rules: [{ ...rule, action: 'log_custom_field' }] }))).toEqual([]); // read through the RuleAction exception
    expect(get(ok({ ...rs, rules: [{ ...rule, action: 'no_such_action' }] }))).not.toEqual([]);
    expect(get(ok({ ...rs, version: 1 }))).not.toEqual([]);
    expect(get(ok({ ...rs, last_updated: 'yesterday' }))).not.toEqual([]); // format date-time
    expect(get(JSON.stringify({ result: null, success: false, errors: [{ code: 10000, message: 'x', source: { pointer: '' } }], messages: [] }), 404)).not.toEqual([]);
    expect(get('', 200)).not.toEqual([]);
    expect(checkResponse('DELETE', '/zones/{zone_id}/rulesets/{ruleset_id}', 204, '{}')).not.toEqual([]);
    expect(checkResponse('GET', '/zones/{zone_id}/logpush/jobs/{job_id}', 200, ok({ id: 1, enabled: 'yes' }))).not.toEqual([]);
    // rulekit's own phase is no phase of the service: its rulesets' answers do not conform.
    expect(get(ok({ ...rs, kind: 'root', phase: 'network_transit' })).join('\n')).toMatch(/phase must be equal to one of the allowed values/);
  });

  it('whole-body errors carry no empty source.pointer', async () => {
    const r = await tools.call('POST', `${at('zones')}/rulesets`, [1]);
    expect(r.status).toBe(400);
    for (const e of r.json.errors) expect(e.source?.pointer ?? 'absent').not.toBe('');
  });

  it('the document’s contradictions with itself are the named ones', () => {
    const found = selfContradictions().map((c) => `${c.pointer} ${c.keyword}`);
    expect(found.sort()).toEqual(Object.keys(CONTRADICTIONS).sort());
  });

  it('each exception still answers a contradiction in the document (else it is dropped)', () => {
    const doc = officialDocument();
    for (const e of SCHEMA_EXCEPTIONS) expect(e.evidence(doc), `${e.pointer}: ${e.reason}`).not.toEqual([]);
  });
});
