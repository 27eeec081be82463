/**
 * Routes beyond what the official client calls: rulekit's simulate endpoint, dry runs of every write,
 * request ids, /healthz and the OpenAPI document.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, MAX_SIMULATED_PACKETS, openSqliteStore, type Store } from '../../src/server/index.js';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { ACCOUNT_RULESET, USERS } from './sdk-suite.js';

const H = { 'x-auth-email': USERS[0]!.email, 'x-auth-key': USERS[0]!.key };
const ACC = '/client/v4/accounts/acc-alice';
const ZONE = '/client/v4/zones/zone-alice';

describe('routes', () => {
  let app: FastifyInstance;
  /** Every answer of an official operation, checked against Cloudflare's OpenAPI document. */
  const answers = new AnswerChecker();
  let store: Store;
  let rulesetId: string;

  beforeAll(async () => {
    store = openSqliteStore({ path: ':memory:' });
    app = await createServer({ users: USERS, store, lists: { blocked_hosts: ['203.0.113.0/24'] } });
    const r = await answers.inject(app, { method: 'POST', url: `${ACC}/rulesets`, headers: H, payload: { ...ACCOUNT_RULESET, rules: [...ACCOUNT_RULESET.rules.slice(0, 1), { action: 'block', expression: 'ip.src in $blocked_hosts' }, ACCOUNT_RULESET.rules[1]] } });
    expect(r.statusCode).toBe(200);
    rulesetId = JSON.parse(r.body).result.id;
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  const post = (url: string, payload: unknown) => answers.inject(app, { method: 'POST', url, headers: H, payload: payload as object });

  it('simulate: each packet’s verdict and deciding rule, and the per-rule summary', async () => {
    const r = await post(`${ACC}/rulesets/${rulesetId}/simulate`, {
      packets: [
        { 'ip.src': '192.0.2.1', 'tcp.dstport': 8080 },
        { 'ip.src': '203.0.113.9', 'tcp.dstport': 8080 },
        { 'ip.src': '203.0.113.9', 'tcp.dstport': 22 },
        { 'ip.src': '192.0.2.1', 'tcp.dstport': 22 },
      ],
    });
    expect(r.statusCode).toBe(200);
    const { result } = JSON.parse(r.body);
    expect(result.results.map((x: { verdict: string; decidedBy?: { index: number } }) => [x.verdict, x.decidedBy?.index])).toEqual([
      ['allow', 0], ['allow', 0], ['block', 1], ['block', 2],
    ]);
    expect(result.summary.verdicts).toEqual({ allow: 2, block: 2 });
    const only = await post(`${ACC}/rulesets/${rulesetId}/simulate`, { packets: [{ 'tcp.dstport': 1 }], results: false });
    expect(JSON.parse(only.body).result).not.toHaveProperty('results');
  });

  it('simulate: lists in the request, limits, and refusals with pointers', async () => {
    const withList = await post(`${ACC}/rulesets/${rulesetId}/simulate`, { packets: [{ 'ip.src': '198.51.100.1', 'tcp.dstport': 22 }], lists: { blocked_hosts: ['198.51.100.0/24'] } });
    expect(JSON.parse(withList.body).result.results[0].decidedBy.index).toBe(1);
    const tooMany = await post(`${ACC}/rulesets/${rulesetId}/simulate`, { packets: Array.from({ length: MAX_SIMULATED_PACKETS + 1 }, () => ({})) });
    expect(tooMany.statusCode).toBe(400);
    expect(JSON.parse(tooMany.body).errors[0]).toMatchObject({ source: { pointer: '/packets' }, meta: { code: 'server-too-many-packets' } });
    for (const [payload, pointer] of [[{ packets: 'x' }, '/packets'], [{ packets: [], lists: [] }, '/lists'], [{ packets: [], results: 'yes' }, '/results'], [[1], '']] as const) {
      const r = await post(`${ACC}/rulesets/${rulesetId}/simulate`, payload);
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      // A whole-body error (pointer "") has no source: the service's pointer has at least one character.
      expect(JSON.parse(r.body).errors[0].source, JSON.stringify(payload)).toEqual(pointer === '' ? undefined : { pointer });
    }
    const bad = await post(`${ACC}/rulesets/${rulesetId}/simulate`, { packets: [7] });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).errors[0]).toMatchObject({ source: { pointer: '/packets/0' }, meta: { code: 'simulation-invalid-packet' } });
  });

  it('simulate: only network_transit rulesets decide on packets', async () => {
    const z = await post(`${ZONE}/rulesets`, { name: 'cf', kind: 'zone', phase: 'http_log_custom_fields' });
    const id = JSON.parse(z.body).result.id;
    const r = await post(`${ZONE}/rulesets/${id}/simulate`, { packets: [] });
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body).errors[0].meta.code).toBe('server-not-simulable');
    await answers.inject(app, { method: 'DELETE', url: `${ZONE}/rulesets/${id}`, headers: H });
  });

  it('the zone’s 40 custom fields: 40 over two rules are stored, a 41st in either rule is refused and nothing changes', async () => {
    const fields = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ name: `x-field-${from + i}` }));
    const rulesOf = (a: number, b: number) => [
      { action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: fields(0, a) } },
      { action: 'log_custom_field', expression: 'true', action_parameters: { response_fields: fields(100, b) } },
    ];
    const z = await post(`${ZONE}/rulesets`, { name: 'cf', kind: 'zone', phase: 'http_log_custom_fields', rules: rulesOf(20, 20) });
    expect(z.statusCode, z.body).toBe(200);
    const id = JSON.parse(z.body).result.id as string;
    try {
      for (const [a, b] of [[21, 20], [20, 21], [0, 41]] as const) {
        const r = await answers.inject(app, { method: 'PUT', url: `${ZONE}/rulesets/${id}`, headers: H, payload: { rules: rulesOf(a, b).filter((x, i) => (i === 0 ? a : b) > 0) } });
        expect(r.statusCode, `${a} + ${b}: ${r.body}`).toBe(400);
        const errors = JSON.parse(r.body).errors as { message: string; meta: { code: string } }[];
        expect(errors.some((e) => /41/.test(e.message) && /40/.test(e.message)), `${a} + ${b}: ${r.body}`).toBe(true);
      }
      const stored = JSON.parse((await answers.inject(app, { method: 'GET', url: `${ZONE}/rulesets/${id}`, headers: H })).body).result;
      expect(stored.version).toBe('1');
    } finally {
      await answers.inject(app, { method: 'DELETE', url: `${ZONE}/rulesets/${id}`, headers: H });
    }
  });

  it('every write takes dry_run: answers as if written (including conflicts), stores nothing', async () => {
    const snapshot = async () => JSON.stringify([await store.listRulesets({ scope: 'accounts', id: 'acc-alice' }), await store.rulesetVersions({ scope: 'accounts', id: 'acc-alice' }, rulesetId), await store.listJobs({ scope: 'zones', id: 'zone-alice' })]);
    const before = await snapshot();
    const conflict = await post(`${ACC}/rulesets?dry_run=true`, ACCOUNT_RULESET);
    expect(conflict.statusCode).toBe(409);
    const zone = await post(`${ZONE}/rulesets?dry_run=true`, { name: 'cf', kind: 'zone', phase: 'http_log_custom_fields' });
    expect(zone.statusCode).toBe(200);
    expect(JSON.parse(zone.body).result.id).toMatch(/^[0-9a-f]{32}$/);
    const put = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?dry_run=true`, headers: H, payload: { rules: [] } });
    expect(JSON.parse(put.body).result).toMatchObject({ version: '2', rules: [] });
    const unknownRule = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?dry_run=true`, headers: H, payload: { rules: [{ id: 'nope', action: 'block', expression: 'tcp.dstport == 1' }] } });
    expect(unknownRule.statusCode).toBe(400);
    expect(JSON.parse(unknownRule.body).errors[0]).toMatchObject({ source: { pointer: '/rules/0/id' }, meta: { code: 'server-unknown-rule-id' } });
    expect((await answers.inject(app, { method: 'DELETE', url: `${ACC}/rulesets/${rulesetId}?dry_run=true`, headers: H })).statusCode).toBe(204);
    const job = await post(`${ZONE}/logpush/jobs?dry_run=true`, { name: 'j', destination_conf: 'https://logs.example.com/p', dataset: 'http_requests', logpull_options: 'fields=ClientIP&timestamps=rfc3339' });
    expect(job.statusCode).toBe(200);
    expect(await snapshot()).toBe(before);
    const wrong = await answers.inject(app, { method: 'GET', url: `${ACC}/rulesets`, headers: H, query: { dry_run: 'yes' } });
    expect(wrong.statusCode).toBe(200); // reads ignore dry_run
    const wrongWrite = await answers.inject(app, { method: 'DELETE', url: `${ACC}/rulesets/${rulesetId}?dry_run=yes`, headers: H });
    expect(wrongWrite.statusCode).toBe(400);
    expect(JSON.parse(wrongWrite.body).errors[0].meta.code).toBe('server-invalid-parameter');
    expect(await snapshot()).toBe(before);
  });

  it('analysis findings come as messages with dry runs and ?analyze=true, not on every write', async () => {
    const rules = [{ action: 'block', expression: 'tcp.dstport in {1..1024}' }, { action: 'block', expression: 'tcp.dstport == 22' }];
    const codesOf = (r: { body: string }) => (JSON.parse(r.body).messages as { meta: { code: string }; source?: { pointer: string } }[]).map((m) => [m.meta.code, m.source?.pointer]);
    const dry = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?dry_run=true`, headers: H, payload: { rules } });
    expect(dry.statusCode).toBe(200);
    expect(codesOf(dry)).toContainEqual(['rule-redundant', '/rules/1/expression']);
    const plain = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?dry_run=true&analyze=false`, headers: H, payload: { rules } });
    expect(codesOf(plain)).toEqual([]);
    const asked = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?analyze=true&dry_run=true`, headers: H, payload: { rules } });
    expect(codesOf(asked)).toContainEqual(['rule-redundant', '/rules/1/expression']);
    // On a real write the analysed record is the one the store keeps (frozen, shared by later reads), and
    // the answer sends its stored text: the same bytes a read of it answers afterwards.
    const written = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?analyze=true`, headers: H, payload: { rules } });
    expect(written.statusCode).toBe(200);
    expect(codesOf(written)).toContainEqual(['rule-redundant', '/rules/1/expression']);
    const read = await answers.inject(app, { method: 'GET', url: `${ACC}/rulesets/${rulesetId}`, headers: H });
    expect(JSON.parse(read.body).result).toEqual(JSON.parse(written.body).result);
    const again = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?analyze=true`, headers: H, payload: { rules } });
    expect(codesOf(again)).toEqual(codesOf(written));
    expect(JSON.parse(again.body).result.version).toBe(String(Number(JSON.parse(written.body).result.version) + 1));
  });

  it('a dry run of an HTTP-phase ruleset is analysed with that phase\'s fields', async () => {
    const rules = [{ action: 'block', expression: 'http.host eq "a"' }, { action: 'block', expression: 'http.host eq "a"' }, { action: 'block', expression: 'lower(http.host) eq "b"' }];
    const r = await answers.inject(app, { method: 'POST', url: `${ZONE}/rulesets?dry_run=true`, headers: H, payload: { name: 'waf', kind: 'zone', phase: 'http_request_firewall_custom', rules } });
    expect(r.statusCode).toBe(200);
    const codes = (JSON.parse(r.body).messages as { meta: { code: string }; source?: { pointer: string } }[]).map((m) => [m.meta.code, m.source?.pointer]);
    expect(codes).toContainEqual(['rule-redundant', '/rules/1/expression']);
    expect(codes).toContainEqual(['rule-not-analysed', '/rules/2/expression']);
    expect(codes.map(([c]) => c)).not.toContain('unknown-field');
  });

  it('PUT refuses a changed kind or phase, and a rule id given twice', async () => {
    const r = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}`, headers: H, payload: { phase: 'http_log_custom_fields', rules: [] } });
    expect(r.statusCode).toBe(400);
    const stored = await store.getRuleset({ scope: 'accounts', id: 'acc-alice' }, rulesetId);
    const id = stored!.record.rules[0]!.id;
    const twice = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}`, headers: H, payload: { rules: [{ id, action: 'block', expression: 'tcp.dstport == 1' }, { id, action: 'block', expression: 'tcp.dstport == 1' }] } });
    expect(twice.statusCode).toBe(400);
    expect(JSON.parse(twice.body).errors.map((e: { meta: { code: string } }) => e.meta.code)).toContain('server-duplicate-rule-id');
    expect((await store.getRuleset({ scope: 'accounts', id: 'acc-alice' }, rulesetId))!.record.version).toBe(stored!.record.version);
  });

  it('a job cannot change dataset; a job naming custom fields the zone lacks gets a warning', async () => {
    const body = { name: 'j', destination_conf: 'https://logs.example.com/p', dataset: 'http_requests', logpull_options: 'fields=ClientIP,RequestHeaders&timestamps=rfc3339' };
    const created = await post(`${ZONE}/logpush/jobs`, body);
    expect(created.statusCode).toBe(200);
    const env = JSON.parse(created.body);
    expect(env.messages.length).toBeGreaterThan(0);
    const id = env.result.id;
    const r = await answers.inject(app, { method: 'PUT', url: `${ZONE}/logpush/jobs/${id}`, headers: H, payload: { dataset: 'firewall_events' } });
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body).errors.map((e: { meta: { code: string } }) => e.meta.code)).toContain('server-immutable-member');
    expect((await answers.inject(app, { method: 'GET', url: `${ZONE}/logpush/jobs/abc`, headers: H })).statusCode).toBe(400);
  });

  it('a job names a dataset of its route\'s scope: an account dataset on a zone route is refused, and the other way round', async () => {
    const codes = (r: { body: string }) => (JSON.parse(r.body).errors ?? []).map((e: { meta: { code: string } }) => e.meta.code);
    const gateway = { destination_conf: 'https://logs.example.com/in', dataset: 'gateway_dns' };
    const onZone = await post(`${ZONE}/logpush/jobs?dry_run=true`, gateway);
    expect(onZone.statusCode).toBe(400);
    expect(codes(onZone)).toEqual(['job-dataset-scope']);
    expect(JSON.parse(onZone.body).errors[0].message).toContain('/accounts/{account_id}/logpush/jobs');
    expect((await post(`${ACC}/logpush/jobs?dry_run=true`, gateway)).statusCode).toBe(200);
    const http = { destination_conf: 'https://logs.example.com/in', dataset: 'http_requests' };
    expect(codes(await post(`${ACC}/logpush/jobs?dry_run=true`, http))).toEqual(['job-dataset-scope']);
    // firewall_events is in both scopes, with ZoneName only in the account one.
    const fw = { destination_conf: 'https://logs.example.com/in', dataset: 'firewall_events', filter: '{"where":{"key":"ZoneName","operator":"eq","value":"example.com"}}' };
    expect((await post(`${ACC}/logpush/jobs?dry_run=true`, fw)).statusCode).toBe(200);
    expect(codes(await post(`${ZONE}/logpush/jobs?dry_run=true`, fw))).toEqual(['filter-unknown-field']);
  });

  it('what only the text says still counts: a key given twice is reported with its place in the body', async () => {
    const text = `{"rules":[{"action":"block","expression":"tcp.dstport == 1","description":"a","description":"b"}]}`;
    const J = { ...H, 'content-type': 'application/json' };
    const r = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?dry_run=true`, headers: J, payload: text });
    expect(r.statusCode).toBe(400);
    const dup = (JSON.parse(r.body).errors as { meta: { code: string; range?: { start: number } }; source: { pointer: string } }[]).find((m) => m.meta.code === 'ruleset-duplicate-member');
    expect(dup).toMatchObject({ source: { pointer: '/rules/0/description' } });
    expect(dup!.meta.range!.start).toBe(text.lastIndexOf('"description"'));
    const clean = await answers.inject(app, { method: 'PUT', url: `${ACC}/rulesets/${rulesetId}?dry_run=true&analyze=false`, headers: J, payload: `{"rules":[{"action":"block","expression":"tcp.dstport == 1"}]}` });
    expect(JSON.parse(clean.body).messages).toEqual([]);
  });

  it('value expressions are checked at their pointers: a credential check with a nested function is a 400', async () => {
    const rule = { action: 'log', expression: 'http.request.method == "POST"', exposed_credential_check: { username_expression: 'lower(url_decode(http.request.body.form["username"][0]))', password_expression: 'url_decode(http.request.body.form["password"][0])' } };
    const ruleset = { name: 'creds', kind: 'root', phase: 'http_request_firewall_custom', rules: [rule] };
    const text = JSON.stringify(ruleset);
    const r = await answers.inject(app, { method: 'POST', url: `${ACC}/rulesets?dry_run=true`, headers: { ...H, 'content-type': 'application/json' }, payload: text });
    expect(r.statusCode).toBe(400);
    const errors = JSON.parse(r.body).errors as { meta: { code: string; range?: { start: number; end: number } }; source: { pointer: string } }[];
    expect(errors.map((e) => [e.meta.code, e.source.pointer])).toEqual([['rule-credential-expression', '/rules/0/exposed_credential_check/username_expression']]);
    const fixed = { ...ruleset, rules: [{ ...rule, exposed_credential_check: { ...rule.exposed_credential_check, username_expression: 'url_decode(http.request.body.form["username"][0])' } }] };
    expect((await post(`${ACC}/rulesets?dry_run=true`, fixed)).statusCode).toBe(200);
  });

  it('request ids: a client’s X-Request-Id comes back, else a new one', async () => {
    const given = await answers.inject(app, { method: 'GET', url: `${ACC}/rulesets`, headers: { ...H, 'x-request-id': 'trace-123' } });
    expect(given.headers['x-request-id']).toBe('trace-123');
    const fresh = await answers.inject(app, { method: 'GET', url: `${ACC}/rulesets`, headers: H });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('/healthz and /openapi.json answer without credentials', async () => {
    const h = await answers.inject(app, { method: 'GET', url: '/healthz' });
    expect(JSON.parse(h.body)).toEqual({ result: { status: 'ok', store: 'sqlite' }, success: true, errors: [], messages: [] });
    const o = JSON.parse((await answers.inject(app, { method: 'GET', url: '/openapi.json' })).body);
    expect(o.openapi).toBe('3.1.0');
    expect(o.components.securitySchemes).toHaveProperty('api_key');
    expect(o.components.securitySchemes).toHaveProperty('api_token', { type: 'http', scheme: 'bearer' });
    expect(o.paths['/client/v4/accounts/{account_id}/rulesets'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('rules');
    expect(o.paths).not.toHaveProperty('/healthz');
  });

  it('/healthz answers 503 server-unavailable when the database does not answer', async () => {
    const inner = openSqliteStore({ path: ':memory:' });
    let down = false;
    const flaky: Store = Object.assign(Object.create(inner) as Store, {
      ping: async () => {
        if (down) throw new Error('connection refused');
        return inner.ping();
      },
    });
    const server = await createServer({ users: USERS, store: flaky });
    try {
      expect((await server.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      down = true;
      const h = await server.inject({ method: 'GET', url: '/healthz' });
      expect(h.statusCode).toBe(503);
      const body = JSON.parse(h.body);
      expect(body.success).toBe(false);
      expect(body.errors[0].meta.code).toBe('server-unavailable');
      expect(body.errors[0].message).toBe('the database does not answer');
      expect(JSON.stringify(body)).not.toContain('connection refused');
    } finally {
      await server.close();
      await inner.close();
    }
  });

  it('Instant Logs answers at the document\'s …/logpush/edge and at the client v7\'s …/logpush/edge/jobs, one session for both', async () => {
    const made = await answers.inject(app, { method: 'POST', url: `${ZONE}/logpush/edge/jobs`, headers: H, payload: { fields: 'ClientIP,RayID', sample: 2 } });
    expect(made.statusCode).toBe(200);
    const session = JSON.parse(made.body).result;
    for (const path of ['edge', 'edge/jobs']) {
      const got = await answers.inject(app, { method: 'GET', url: `${ZONE}/logpush/${path}`, headers: H });
      expect(JSON.parse(got.body).result, path).toEqual([session]);
    }
    const again = await answers.inject(app, { method: 'POST', url: `${ZONE}/logpush/edge`, headers: H, payload: { fields: 'ClientIP' } });
    const replaced = JSON.parse(again.body).result;
    expect(replaced.session_id).not.toBe(session.session_id);
    expect(JSON.parse((await answers.inject(app, { method: 'GET', url: `${ZONE}/logpush/edge/jobs`, headers: H })).body).result).toEqual([replaced]);
    expect((await answers.inject(app, { method: 'POST', url: `${ACC}/logpush/edge`, headers: H, payload: {} })).statusCode).toBe(404); // zones only
  });

  it('every answer of an official operation conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
});
