/**
 * Hostile input against the server (createServer + inject, on the store it is given): oversized, deep,
 * malformed, mistyped, prototype-polluting, over-limit and badly encoded bodies; bad parameters, unknown
 * routes and methods. Every answer is the envelope with the documented status and code, the process does
 * not crash, and a refused write stores nothing (the whole visible state is compared before and after).
 * Run against each store (hostile.test.ts, security.postgres.test.ts).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createServer, SERVER_CODES, type Store } from '../../src/server/index.js';

const EMAIL = 'hostile@example.test';
const KEY = 'hostile-key-0123456789';
const AUTH = { 'x-auth-email': EMAIL, 'x-auth-key': KEY };
const JSON_CT = { ...AUTH, 'content-type': 'application/json' };
const ACCOUNT = '/client/v4/accounts/acc1';
const ZONE = '/client/v4/zones/zone1';

/** Statuses the API answers with (docs/server-routes.md); 500 and 503 are not expected here. */
const STATUSES = new Set([200, 400, 401, 403, 404, 405, 409, 413, 415, 429]);

const VALID_RULESET = {
  name: 'edge',
  kind: 'root',
  phase: 'network_transit',
  rules: [
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport == 8080' },
    { action: 'block', expression: 'tcp.dstport in {1..65535}' },
  ],
};
const VALID_ZONE_RULESET = {
  name: 'custom fields',
  kind: 'zone',
  phase: 'http_log_custom_fields',
  rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'content-type' }] } }],
};
/** firewall_events: both scopes offer it, so the same body is valid on zone and account routes. */
const VALID_JOB = { name: 'job', destination_conf: 'https://logs.example.com/logs/{DATE}', dataset: 'firewall_events' };

interface Envelope {
  result: unknown;
  success: boolean;
  errors: { code: number; message: string; meta?: { code?: string }; source?: { pointer?: string } }[];
  messages: { code: number; message: string; meta?: { code?: string }; source?: { pointer?: string } }[];
}

/** The response is the envelope, JSON, success false iff status ≥ 400, a known status; returns the body. */
function envelope(res: LightMyRequestResponse): Envelope {
  expect(res.headers['content-type']).toMatch(/^application\/json\b/);
  const body = JSON.parse(res.body) as Envelope;
  expect(Object.keys(body).sort()).toEqual(['errors', 'messages', 'result', 'success']);
  expect(Array.isArray(body.errors) && Array.isArray(body.messages)).toBe(true);
  expect(body.success).toBe(res.statusCode < 400);
  if (res.statusCode >= 400) {
    expect(body.errors.length).toBeGreaterThan(0);
    expect(body.result).toBeNull();
    for (const e of body.errors) {
      expect(typeof e.code).toBe('number');
      expect(typeof e.message).toBe('string');
    }
  }
  return body;
}

/** An error answer with this status whose errors include this code; returns the matching error. */
function refused(res: LightMyRequestResponse, status: number, code: string): Envelope['errors'][number] {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  const body = envelope(res);
  const e = body.errors.find((x) => x.meta?.code === code);
  expect(e, `${code} in ${res.body.slice(0, 500)}`).toBeDefined();
  return e!;
}

/** The hostile-input suite on a store: `open` makes a new, empty one each time it is called. */
export function hostileSuite(storeName: string, open: () => Promise<Store>): void {
  describe(`on ${storeName}`, () => {
    let app: FastifyInstance;
    let store: Store;
    let rulesetId: string;
    let zoneRulesetId: string;
    let jobId: number;

    async function inject(method: string, url: string, payload?: string | Buffer, headers: Record<string, string> = JSON_CT): Promise<LightMyRequestResponse> {
      return app.inject({ method: method as 'GET', url, payload, headers });
    }

    /** Everything a client can see of the tenant: lists, each ruleset with its versions, each job. */
    async function state(): Promise<string> {
      const out: unknown[] = [];
      for (const base of [ACCOUNT, ZONE]) {
        const list = JSON.parse((await inject('GET', `${base}/rulesets`, undefined, AUTH)).body).result as { id: string }[];
        out.push(list);
        for (const r of list) {
          out.push(JSON.parse((await inject('GET', `${base}/rulesets/${r.id}`, undefined, AUTH)).body).result);
          out.push(JSON.parse((await inject('GET', `${base}/rulesets/${r.id}/versions`, undefined, AUTH)).body).result);
        }
        out.push(JSON.parse((await inject('GET', `${base}/logpush/jobs`, undefined, AUTH)).body).result);
      }
      return JSON.stringify(out);
    }

    /** The write targets: a create and an update of each kind, the account's and the zone's. */
    function writeTargets(): { name: string; method: 'POST' | 'PUT'; url: string }[] {
      return [
        { name: 'create account ruleset', method: 'POST', url: `${ACCOUNT}/rulesets` },
        { name: 'create zone ruleset', method: 'POST', url: `${ZONE}/rulesets` },
        { name: 'replace ruleset', method: 'PUT', url: `${ACCOUNT}/rulesets/${rulesetId}` },
        { name: 'replace zone ruleset', method: 'PUT', url: `${ZONE}/rulesets/${zoneRulesetId}` },
        { name: 'create job', method: 'POST', url: `${ZONE}/logpush/jobs` },
        { name: 'update job', method: 'PUT', url: `${ZONE}/logpush/jobs/${jobId}` },
        { name: 'create account job', method: 'POST', url: `${ACCOUNT}/logpush/jobs` },
      ];
    }

    const PROTO_MARK = `rulekit_polluted_${process.pid}`;
    function expectNoPollution(): void {
      for (const proto of [Object.prototype, Array.prototype, Function.prototype]) {
        expect(Object.getOwnPropertyNames(proto).filter((k) => k.startsWith('rulekit_polluted') || k === 'polluted')).toEqual([]);
      }
      expect(({} as Record<string, unknown>)[PROTO_MARK]).toBeUndefined();
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    }

    beforeAll(async () => {
      store = await open();
      app = await createServer({ users: [{ email: EMAIL, key: KEY, accounts: ['acc1'], zones: ['zone1'] }], store, playground: false });
      const r = await inject('POST', `${ACCOUNT}/rulesets`, JSON.stringify(VALID_RULESET));
      expect(r.statusCode, r.body).toBe(200);
      rulesetId = JSON.parse(r.body).result.id;
      const z = await inject('POST', `${ZONE}/rulesets`, JSON.stringify(VALID_ZONE_RULESET));
      expect(z.statusCode, z.body).toBe(200);
      zoneRulesetId = JSON.parse(z.body).result.id;
      const j = await inject('POST', `${ZONE}/logpush/jobs`, JSON.stringify(VALID_JOB));
      expect(j.statusCode, j.body).toBe(200);
      jobId = JSON.parse(j.body).result.id;
      // A second PUT so the ruleset has a history of two versions.
      const p = await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}`, JSON.stringify({ rules: VALID_RULESET.rules }));
      expect(p.statusCode, p.body).toBe(200);
    });

    afterAll(async () => {
      await app?.close();
      await store?.close();
    });

    /**
     * Send a hostile write to every target; each must be refused with this status and code, and the visible
     * state must be exactly what it was before.
     */
    async function refusedEverywhere(payload: string | Buffer, status: number, code: string, headers: Record<string, string> = JSON_CT, query = ''): Promise<Envelope['errors'][number][]> {
      const before = await state();
      const found: Envelope['errors'][number][] = [];
      for (const t of writeTargets()) {
        const res = await inject(t.method, t.url + query, payload, headers);
        found.push(refused(res, status, code));
      }
      expect(await state()).toBe(before);
      return found;
    }

    describe('hostile bodies: the envelope, never a crash, never a partial write', () => {
      it('a body over the size limit: 413 server-body-too-large (declared by Content-Length)', async () => {
        const big = JSON.stringify({ ...VALID_RULESET, description: 'x'.repeat(1024 * 1024) });
        await refusedEverywhere(big, 413, 'server-body-too-large');
      });

      it('a body just under the limit is read (the limit is the limit, not less)', async () => {
        const body = JSON.stringify({ ...VALID_RULESET, description: 'x'.repeat(1024 * 1024 - 400) });
        expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
        const res = await inject('POST', `${ACCOUNT}/rulesets?dry_run=true`, body);
        // The account already has its network_transit ruleset: the body was read, parsed and checked.
        refused(res, 409, 'server-phase-exists');
      });

      it('JSON nested 10,000 deep: 400 server-json-too-deep, for arrays, objects and both', async () => {
        for (const deep of [
          '['.repeat(10_000) + ']'.repeat(10_000),
          '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
          '{"rules":' + '[{"x":'.repeat(5_000) + 'null' + '}]'.repeat(5_000) + '}',
          // Unbalanced: never closed.
          '['.repeat(10_000),
        ]) {
          const [e] = await refusedEverywhere(deep, 400, 'server-json-too-deep');
          expect(e!.message).toMatch(/at most 64/);
        }
      });

      it('depth 64 is accepted by the parser; 65 is not', async () => {
        const at = (n: number) => JSON.stringify({ ...VALID_RULESET, rules: [{ ...VALID_RULESET.rules[1], action_parameters: JSON.parse('{"a":'.repeat(n - 3) + '1' + '}'.repeat(n - 3)) }] });
        const ok = await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}?dry_run=true`, at(64));
        expect(ok.statusCode).toBe(400);
        expect(envelope(ok).errors.map((e) => e.meta?.code)).not.toContain('server-json-too-deep');
        refused(await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}?dry_run=true`, at(65)), 400, 'server-json-too-deep');
      });

      it('malformed JSON: 400 server-invalid-json with the line and column', async () => {
        const cases: [string, RegExp][] = [
          ['{\n  "name": "x",\n  "kind": root\n}', /line 3, column 11/],
          ['{"name": "x",}', /line 1, column 14/],
          ['{"name": "x"', /line 1, column 13/],
          ['{\n\n\n    "a" 1}', /line 4, column 9/],
          ["{'name': 'x'}", /line 1, column 2/],
          ['{"a": 1} trailing', /line 1, column 10/],
          ['{"a": NaN}', /line 1, column 7/],
          ['{"a": "unterminated\n}', /line 1/],
        ];
        for (const [text, where] of cases) {
          const [e] = await refusedEverywhere(text, 400, 'server-invalid-json');
          expect(e!.message, text).toMatch(where);
        }
      });

      it('a body with the wrong Content-Type or none: 415', async () => {
        const body = JSON.stringify(VALID_JOB);
        for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/json-patch+json', 'text/json', '']) {
          const [e] = await refusedEverywhere(body, 415, 'server-unsupported-media-type', { ...AUTH, 'content-type': ct });
          expect(e!.message).toContain('application/json');
        }
        // No Content-Type at all, with a body.
        const before = await state();
        for (const t of writeTargets()) {
          const res = await app.inject({ method: t.method, url: t.url, payload: Buffer.from(body), headers: AUTH });
          refused(res, 415, 'server-unsupported-media-type');
        }
        expect(await state()).toBe(before);
      });

      it('application/json with parameters or in another case is JSON', async () => {
        for (const ct of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8']) {
          const res = await inject('POST', `${ZONE}/logpush/jobs?dry_run=true`, JSON.stringify(VALID_JOB), { ...AUTH, 'content-type': ct });
          expect(res.statusCode, `${ct}: ${res.body}`).toBe(200);
          envelope(res);
        }
      });

      it('a write without a body: 400 server-missing-body', async () => {
        for (const payload of [undefined, '', '   \n\t ']) {
          await refusedEverywhere(payload as string, 400, 'server-missing-body');
        }
      });

      it('__proto__, constructor and prototype keys at every level of a ruleset: 400 naming each, nothing polluted', async () => {
        for (const key of ['__proto__', 'constructor', 'prototype']) {
          const evil = `{"${key}": {"${PROTO_MARK}": 1, "polluted": true}}`;
          const inner = `{"${key}": {"prototype": {"${PROTO_MARK}": 1}}}`;
          const texts = [
            // top level
            `{${evil.slice(1, -1)}, "name": "x", "kind": "root", "phase": "network_transit", "rules": []}`,
            // in a rule
            `{"name": "x", "kind": "root", "phase": "network_transit", "rules": [{${evil.slice(1, -1)}, "action": "block", "expression": "tcp.dstport == 1"}]}`,
            // in action_parameters
            `{"name": "x", "kind": "root", "phase": "network_transit", "rules": [{"action": "skip", "expression": "tcp.dstport == 1", "action_parameters": {"ruleset": "current", ${inner.slice(1, -1)}}}]}`,
            // in rules as an object rather than an array
            `{"name": "x", "kind": "root", "phase": "network_transit", "rules": ${evil}}`,
            // all levels at once
            `{${evil.slice(1, -1)}, "name": "x", "kind": "root", "phase": "network_transit", "rules": [{${evil.slice(1, -1)}, "action": "skip", "expression": "tcp.dstport == 1", "action_parameters": {"ruleset": "current", ${inner.slice(1, -1)}}}]}`,
          ];
          for (const text of texts) {
            const before = await state();
            for (const url of [`${ACCOUNT}/rulesets`, `${ACCOUNT}/rulesets/${rulesetId}`, `${ZONE}/rulesets/${zoneRulesetId}`]) {
              const res = await inject(url.endsWith('/rulesets') ? 'POST' : 'PUT', url, text);
              expect(res.statusCode, `${url} ${text}: ${res.body}`).toBe(400);
              const body = envelope(res);
              const pointers = body.errors.map((e) => e.source?.pointer ?? '');
              // The member is named (a pointer ending in the key), or the shape around it is refused.
              expect(pointers.some((p) => p.endsWith(`/${key}`) || p === '/rules'), `${text}: ${pointers.join(' ')}`).toBe(true);
              expectNoPollution();
            }
            expect(await state()).toBe(before);
          }
        }
      });

      it('__proto__, constructor and prototype keys at every level of a job: warned about, never stored as members, nothing polluted', async () => {
        for (const key of ['__proto__', 'constructor', 'prototype']) {
          const evil = `"${key}": {"${PROTO_MARK}": 1, "polluted": true, "prototype": {"${PROTO_MARK}": 2}}`;
          const create = `{${evil}, "name": "j-${key.replace(/_/g, '')}", "destination_conf": "https://logs.example.com/logs", "dataset": "firewall_events", "output_options": {${evil}}}`;
          const update = `{${evil}, "name": "u-${key.replace(/_/g, '')}", "output_options": {${evil}}}`;
          for (const [method, url, text] of [['POST', `${ZONE}/logpush/jobs`, create], ['PUT', `${ZONE}/logpush/jobs/${jobId}`, update], ['POST', `${ACCOUNT}/logpush/jobs`, create]] as const) {
            // Dry run first: the answer is the one the write gives, and nothing changes.
            const before = await state();
            const dry = await inject(method, `${url}?dry_run=true`, text);
            expect(dry.statusCode, dry.body).toBe(200);
            expect(envelope(dry).messages.some((m) => m.meta?.code === 'job-unknown-member' && m.source?.pointer === `/${key}`)).toBe(true);
            expect(await state()).toBe(before);
            expectNoPollution();
            const res = await inject(method, url, text);
            expect(res.statusCode, res.body).toBe(200);
            const job = envelope(res).result as Record<string, unknown>;
            // The top-level key is not a job member: not kept. The job's prototype is a plain object's.
            expect(Object.prototype.hasOwnProperty.call(job, key)).toBe(false);
            expect(Object.getPrototypeOf(job)).toBe(Object.prototype);
            expect(Object.keys(job)).toEqual(['id', 'name', 'dataset', 'destination_conf', 'logpull_options', 'filter', 'enabled', 'frequency', 'kind', 'max_upload_bytes', 'max_upload_interval_seconds', 'max_upload_records', 'output_options', 'error_message', 'last_complete', 'last_error']);
            // What was read back is what was answered.
            const got = await inject('GET', `${url.replace(/\/jobs.*/, '/jobs')}/${job['id']}`, undefined, AUTH);
            expect(JSON.parse(got.body).result).toEqual(job);
            expectNoPollution();
          }
        }
      });

      it('__proto__ in a simulate body and a query string: an envelope, nothing polluted', async () => {
        const sim = await inject('POST', `${ACCOUNT}/rulesets/${rulesetId}/simulate`, `{"__proto__": {"${PROTO_MARK}": 1}, "packets": [{"__proto__": {"polluted": 1}, "tcp.dstport": 80}], "lists": {"__proto__": ["10.0.0.0/8"]}}`);
        expect(STATUSES.has(sim.statusCode), sim.body).toBe(true);
        envelope(sim);
        expectNoPollution();
        const q = await inject('GET', `${ACCOUNT}/rulesets?__proto__[${PROTO_MARK}]=1&constructor[prototype][polluted]=1`, undefined, AUTH);
        expect(q.statusCode).toBe(200);
        envelope(q);
        expectNoPollution();
      });

      it('a 4,097-character expression: 400 pointing at /rules/0/expression; 4,096 is accepted', async () => {
        const expr = (n: number) => 'tcp.dstport == 1' + ' '.repeat(n - 'tcp.dstport == 1'.length);
        const body = (n: number) => JSON.stringify({ ...VALID_RULESET, rules: [{ action: 'block', expression: expr(n) }] });
        const before = await state();
        for (const [method, url] of [['POST', `${ACCOUNT}/rulesets`], ['PUT', `${ACCOUNT}/rulesets/${rulesetId}`]] as const) {
          const e = refused(await inject(method, url, body(4097)), 400, 'expression-too-long');
          expect(e.source?.pointer).toBe('/rules/0/expression');
          expect(e.message).toContain('4097');
        }
        expect(await state()).toBe(before);
        const ok = await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}?dry_run=true`, body(4096));
        expect(ok.statusCode, ok.body).toBe(200);
        expect(await state()).toBe(before);
      });

      it('201 rules: 400 ruleset-too-many-rules at /rules; 200 are accepted', async () => {
        const body = (n: number) => JSON.stringify({ ...VALID_RULESET, rules: Array.from({ length: n }, (_, i) => ({ action: 'block', expression: `tcp.dstport == ${i + 1}` })) });
        const before = await state();
        for (const [method, url] of [['POST', `${ACCOUNT}/rulesets`], ['PUT', `${ACCOUNT}/rulesets/${rulesetId}`]] as const) {
          const e = refused(await inject(method, url, body(201)), 400, 'ruleset-too-many-rules');
          expect(e.source?.pointer).toBe('/rules');
        }
        expect(await state()).toBe(before);
        const ok = await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}?dry_run=true`, body(200));
        expect(ok.statusCode, ok.body.slice(0, 300)).toBe(200);
        expect(await state()).toBe(before);
      });

      it('invalid UTF-8: 400 server-invalid-utf8 with the offset of the first bad byte', async () => {
        const prefix = Buffer.from('{"name": "');
        const suffix = Buffer.from('", "kind": "root", "phase": "network_transit", "rules": []}');
        const cases: [string, number[], number][] = [
          ['overlong "/" (C0 AF)', [0xc0, 0xaf], 0],
          ['overlong NUL (C0 80)', [0xc0, 0x80], 0],
          ['overlong 3-byte (E0 80 AF)', [0xe0, 0x80, 0xaf], 0],
          ['overlong 4-byte (F0 80 80 AF)', [0xf0, 0x80, 0x80, 0xaf], 0],
          ['lone high surrogate (ED A0 80)', [0xed, 0xa0, 0x80], 0],
          ['lone low surrogate (ED B0 80)', [0xed, 0xb0, 0x80], 0],
          ['surrogate pair as CESU-8 (ED A0 BD ED B8 80)', [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80], 0],
          ['truncated 3-byte (E2 82) before ASCII', [0x41, 0xe2, 0x82], 1],
          ['truncated 4-byte (F0 9F 98)', [0xf0, 0x9f, 0x98], 0],
          ['lone continuation byte (80)', [0x61, 0x62, 0x80], 2],
          ['invalid byte FF', [0xff], 0],
          ['above U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], 0],
        ];
        for (const [name, bytes, at] of cases) {
          const payload = Buffer.concat([prefix, Buffer.from(bytes), suffix]);
          const [e] = await refusedEverywhere(payload, 400, 'server-invalid-utf8');
          expect(e!.message, name).toContain(`byte ${prefix.length + at}`);
        }
        // The body ends inside a sequence.
        const [e] = await refusedEverywhere(Buffer.concat([Buffer.from('{"name": "x"}'), Buffer.from([0xe2, 0x82])]), 400, 'server-invalid-utf8');
        expect(e!.message).toContain('byte 13');
      });

      it('valid UTF-8 beyond ASCII (and a BOM) is not mistaken for bad bytes', async () => {
        const text = 'ünïcødé \u00a0 日本 😀 \u{10ffff}';
        for (const bom of [Buffer.alloc(0), Buffer.from([0xef, 0xbb, 0xbf])]) {
          const res = await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}?dry_run=true`, Buffer.concat([bom, Buffer.from(JSON.stringify({ description: text, rules: VALID_RULESET.rules }), 'utf8')]));
          expect(res.statusCode, res.body).toBe(200);
          expect((envelope(res).result as { description: string }).description).toBe(text);
        }
      });

      it('a body that is null, a number, an array, a string or a boolean: 400 naming the root', async () => {
        for (const text of ['null', '0', '-1.5e3', '[]', '[{"name": "x"}]', '"a string"', 'true', 'false']) {
          const before = await state();
          for (const t of writeTargets()) {
            const res = await inject(t.method, t.url, text);
            expect(res.statusCode, `${t.name} ${text}: ${res.body}`).toBe(400);
            const body = envelope(res);
            // Naming the root: no `source` (the service's pointer has at least one character).
            expect(body.errors.some((e) => /-not-object$/.test(e.meta?.code ?? '') && e.source === undefined), `${t.name} ${text}: ${res.body}`).toBe(true);
          }
          expect(await state()).toBe(before);
        }
      });

      it('huge numbers: refused where a string or a small integer belongs, never a crash', async () => {
        for (const n of ['1e999', '-1e999', '123456789012345678901234567890', '1e-999', '9007199254740993']) {
          const before = await state();
          const texts = [
            n,
            `{"name": ${n}, "kind": "root", "phase": "network_transit", "rules": []}`,
            `{"name": "x", "kind": "root", "phase": "network_transit", "rules": [{"action": "block", "expression": "tcp.dstport == ${n}"}]}`,
            `{"name": "x", "destination_conf": "https://logs.example.com/p", "dataset": "http_requests", "max_upload_bytes": ${n}}`,
          ];
          for (const [i, text] of texts.entries()) {
            for (const t of writeTargets()) {
              // Job bodies take members "without checks" (max_upload_bytes, kind): a job write may succeed, so
              // it is a dry run; a ruleset write is real and must be refused.
              const job = t.url.includes('/logpush/');
              const res = await inject(t.method, t.url + (job ? '?dry_run=true' : ''), text);
              expect(STATUSES.has(res.statusCode), `${t.name} ${text}: ${res.statusCode} ${res.body}`).toBe(true);
              envelope(res);
              if (i === 0 || (!job && i < 3)) expect(res.statusCode, `${t.name} ${text}`).toBe(400);
            }
          }
          expect(await state(), n).toBe(before);
        }
      });

      it('duplicate keys: a ruleset is refused at the second one; a job is warned and the last one counts', async () => {
        const before = await state();
        const text = '{"name": "a", "name": "b", "kind": "root", "phase": "network_transit", "rules": []}';
        const e = refused(await inject('POST', `${ACCOUNT}/rulesets`, text), 400, 'ruleset-duplicate-member');
        expect(e.source?.pointer).toBe('/name');
        refused(await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}`, '{"rules": [], "rules": []}'), 400, 'ruleset-duplicate-member');
        const rule = '{"rules": [{"action": "block", "action": "skip", "expression": "tcp.dstport == 1"}]}';
        expect(refused(await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}`, rule), 400, 'ruleset-duplicate-member').source?.pointer).toBe('/rules/0/action');
        expect(await state()).toBe(before);
        const job = await inject('POST', `${ZONE}/logpush/jobs?dry_run=true`, '{"destination_conf": "https://logs.example.com/p", "dataset": "http_requests", "name": "a", "name": "b"}');
        expect(job.statusCode).toBe(200);
        const body = envelope(job);
        expect(body.messages.some((m) => m.meta?.code === 'job-duplicate-member' && m.source?.pointer === '/name')).toBe(true);
        expect((body.result as { name: string }).name).toBe('b');
        expect(await state()).toBe(before);
      });

      it('a semantically bad ruleset refused in a PUT changes nothing (no partial write of the good rules)', async () => {
        const before = await state();
        const rules = [{ action: 'block', expression: 'tcp.dstport == 22' }, { action: 'block', expression: 'tcp.dstport == 23' }, { action: 'block', expression: 'ip.src == 10.0.0.0/8' }];
        const e = refused(await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}`, JSON.stringify({ rules })), 400, 'cidr-outside-set');
        expect(e.source?.pointer).toBe('/rules/2/expression');
        // A PUT naming an unknown rule id is refused after the good rules were computed: still nothing stored.
        const unknown = [{ action: 'block', expression: 'tcp.dstport == 22' }, { id: 'ffffffffffffffffffffffffffffffff', action: 'block', expression: 'tcp.dstport == 23' }];
        refused(await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}`, JSON.stringify({ rules: unknown })), 400, 'server-unknown-rule-id');
        expect(await state()).toBe(before);
      });
    });

    describe('hostile parameters and routes', () => {
      it('dry_run other than true/false: 400 server-invalid-parameter, nothing written', async () => {
        for (const q of ['?dry_run=maybe', '?dry_run=1', '?dry_run=TRUE', '?dry_run=', '?dry_run=true&dry_run=false', '?dry_run=true&dry_run=true', '?dry_run=%20true']) {
          const before = await state();
          for (const t of writeTargets()) {
            const ok = t.url.includes('/logpush/') ? VALID_JOB : t.url.startsWith(ZONE) ? VALID_ZONE_RULESET : VALID_RULESET;
            const res = await inject(t.method, t.url + q, JSON.stringify(t.method === 'PUT' ? { ...ok, dataset: undefined } : ok));
            const e = refused(res, 400, 'server-invalid-parameter');
            expect(e.message).toContain('dry_run');
          }
          for (const url of [`${ACCOUNT}/rulesets/${rulesetId}`, `${ZONE}/logpush/jobs/${jobId}`]) {
            refused(await inject('DELETE', url + q, undefined, AUTH), 400, 'server-invalid-parameter');
          }
          expect(await state(), q).toBe(before);
        }
      });

      it('job ids that are not positive integers: 400 server-invalid-parameter on GET, PUT and DELETE', async () => {
        const before = await state();
        for (const id of ['abc', '-1', '0', '01', '1.5', '1e3', '0x10', '99999999999999999999', '%20', '1%20', 'NaN', 'Infinity', encodeURIComponent('１')]) {
          for (const scope of [ACCOUNT, ZONE]) {
            const url = `${scope}/logpush/jobs/${id}`;
            refused(await inject('GET', url, undefined, AUTH), 400, 'server-invalid-parameter');
            refused(await inject('PUT', url, JSON.stringify({ name: 'x' })), 400, 'server-invalid-parameter');
            refused(await inject('DELETE', url, undefined, AUTH), 400, 'server-invalid-parameter');
          }
        }
        expect(await state()).toBe(before);
        refused(await inject('GET', `${ZONE}/logpush/jobs/123456`, undefined, AUTH), 404, 'server-job-not-found');
      });

      it('unknown routes: 404 server-not-found envelope', async () => {
        for (const url of ['/', '/nope', '/client/v4', '/client/v4/', '/client/v4/nope', '/client/v5/accounts/acc1/rulesets', `${ACCOUNT}/rulesets/x/y/z`, `${ACCOUNT}/logpush`, '/client/v4/users/acc1/rulesets', `${ACCOUNT}/rulesets/${rulesetId}/versions/1/rules`]) {
          for (const method of ['GET', 'POST', 'DELETE']) {
            refused(await inject(method, url, method === 'POST' ? '{}' : undefined, method === 'POST' ? JSON_CT : AUTH), 404, 'server-not-found');
          }
        }
      });

      it('wrong methods on known routes: 405 with Allow', async () => {
        const cases: [string, string, string][] = [
          ['PATCH', `${ACCOUNT}/rulesets`, 'GET, POST'],
          ['DELETE', `${ACCOUNT}/rulesets`, 'GET, POST'],
          ['PUT', `${ZONE}/rulesets`, 'GET, POST'],
          ['POST', `${ACCOUNT}/rulesets/${rulesetId}`, 'GET, PUT, DELETE'],
          ['PATCH', `${ZONE}/rulesets/${zoneRulesetId}`, 'GET, PUT, DELETE'],
          ['GET', `${ACCOUNT}/rulesets/${rulesetId}/simulate`, 'POST'],
          ['POST', `${ACCOUNT}/rulesets/${rulesetId}/versions`, 'GET'],
          ['PUT', `${ZONE}/logpush/jobs`, 'GET, POST'],
          ['POST', `${ZONE}/logpush/jobs/${jobId}`, 'GET, PUT, DELETE'],
          ['PATCH', `${ACCOUNT}/logpush/jobs/1`, 'GET, PUT, DELETE'],
          ['POST', '/healthz', 'GET'],
          ['DELETE', '/openapi.json', 'GET'],
        ];
        const before = await state();
        for (const [method, url, allow] of cases) {
          const res = await inject(method, url, method === 'GET' || method === 'DELETE' ? undefined : '{}', method === 'GET' || method === 'DELETE' ? AUTH : JSON_CT);
          refused(res, 405, 'server-method-not-allowed');
          expect(res.headers['allow'], `${method} ${url}`).toBe(allow);
        }
        expect(await state()).toBe(before);
      });

      it('malformed URLs (bad percent-encoding, an over-long path segment): 400 envelope, not fastify’s own body', async () => {
        for (const url of [`/client/v4/accounts/%ZZ/rulesets`, `${ACCOUNT}/rulesets/%E0%A4%A`, `${ACCOUNT}/rulesets/%`]) {
          refused(await inject('GET', url, undefined, AUTH), 400, 'server-invalid-parameter');
        }
        for (const url of [`/client/v4/accounts/${'a'.repeat(101)}/rulesets`, `${ACCOUNT}/rulesets/${'9'.repeat(400)}/versions`]) {
          refused(await inject('GET', url, undefined, AUTH), 400, 'server-invalid-parameter');
        }
      });

      it('hostile bodies without credentials are refused 401 before the body is read', async () => {
        const res = await inject('POST', `${ACCOUNT}/rulesets`, '['.repeat(10_000), { 'content-type': 'application/json' });
        refused(res, 401, 'server-missing-credentials');
        const big = await inject('PUT', `${ACCOUNT}/rulesets/${rulesetId}`, 'x'.repeat(2 * 1024 * 1024), { 'content-type': 'text/plain' });
        refused(big, 401, 'server-missing-credentials');
      });
    });

    describe('malformed HTTP on a real socket (what inject cannot send)', () => {
      let port: number;
      beforeAll(async () => {
        port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
      });

      /** Write the chunks (a little apart), read until the server closes or `waitMs` passes. */
      function raw(chunks: (string | Buffer)[], waitMs = 3_000): Promise<string> {
        return new Promise((resolve) => {
          const s = connect(port, '127.0.0.1');
          const got: Buffer[] = [];
          s.on('data', (d: Buffer) => got.push(d));
          s.on('error', () => undefined);
          s.on('connect', async () => {
            for (const c of chunks) {
              if (s.destroyed) break;
              s.write(c);
              await new Promise((r) => setTimeout(r, 2));
            }
          });
          const timer = setTimeout(() => s.destroy(), waitMs);
          s.on('close', () => {
            clearTimeout(timer);
            resolve(Buffer.concat(got).toString('utf8'));
          });
        });
      }

      /** The status and envelope of a raw answer, checking the body is whole and JSON. */
      function answer(text: string): { status: number; body: Envelope } {
        const end = text.indexOf('\r\n\r\n');
        expect(end, JSON.stringify(text.slice(0, 300))).toBeGreaterThan(0);
        const head = text.slice(0, end);
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
        expect(head).toMatch(/\r\ncontent-type: application\/json/i);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
        const body = text.slice(end + 4);
        expect(Buffer.byteLength(body)).toBe(length);
        const env = JSON.parse(body) as Envelope;
        expect(Object.keys(env).sort()).toEqual(['errors', 'messages', 'result', 'success']);
        expect(env.success).toBe(status < 400);
        return { status, body: env };
      }

      const A = `${ACCOUNT}/rulesets`;
      const H = `Host: x\r\nX-Auth-Email: ${EMAIL}\r\nX-Auth-Key: ${KEY}\r\nContent-Type: application/json\r\n`;

      it('requests the HTTP parser refuses: 400 server-bad-request in the envelope, nothing stored', async () => {
        const before = await state();
        for (const req of [
          'GARBAGE\r\n\r\n',
          `GET ${A} HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n`,
          `GET ${A} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
          `POST ${A} HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
          `POST ${A} HTTP/1.1\r\n${H}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
          `PUT ${A}/${rulesetId} HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n{}`,
        ]) {
          const res = answer(await raw([req]));
          expect(res.status, req.slice(0, 80)).toBe(400);
          expect(res.body.errors[0]!.meta?.code).toBe('server-bad-request');
        }
        expect(await state()).toBe(before);
      });

      it('a chunked body that grows over the limit: 413 envelope; a declared length over it: 413 before the body', async () => {
        const before = await state();
        const chunk = 'a'.repeat(256 * 1024);
        const chunked = await raw([`PUT ${A}/${rulesetId} HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n`, ...Array.from({ length: 6 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`), '0\r\n\r\n']);
        expect(answer(chunked).status).toBe(413);
        const declared = await raw([`POST ${A} HTTP/1.1\r\n${H}Content-Length: ${50 * 1024 * 1024}\r\n\r\n`]);
        const res = answer(declared);
        expect(res.status).toBe(413);
        expect(res.body.errors[0]!.meta?.code).toBe('server-body-too-large');
        expect(await state()).toBe(before);
      });

      it('a body cut short by the client (fewer bytes than Content-Length, then close): nothing stored', async () => {
        const before = await state();
        const body = JSON.stringify({ rules: VALID_RULESET.rules });
        const cut = await raw([`PUT ${A}/${rulesetId} HTTP/1.1\r\n${H}Connection: close\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, -5)}`], 300);
        expect(cut).toBe('');
        expect(await state()).toBe(before);
      });

      it('Expect: 100-continue and pipelined requests get whole envelopes', async () => {
        const put = JSON.stringify({ rules: VALID_RULESET.rules });
        const out = await raw([`PUT ${A}/${rulesetId}?dry_run=true HTTP/1.1\r\n${H}Connection: close\r\nExpect: 100-continue\r\nContent-Length: ${put.length}\r\n\r\n`, put]);
        expect(out.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
        expect(answer(out.slice('HTTP/1.1 100 Continue\r\n\r\n'.length)).status).toBe(200);
        const two = await raw([`GET ${A} HTTP/1.1\r\n${H}\r\nGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
        const second = two.indexOf('HTTP/1.1 404');
        expect(second).toBeGreaterThan(0);
        expect(answer(two.slice(0, second)).status).toBe(200);
        expect(answer(two.slice(second)).status).toBe(404);
      });
    });

    describe('property: any body gets an envelope and a known status, never a 500', () => {
      let papp: FastifyInstance;
      let pstore: Store;
      let targets: { method: 'POST' | 'PUT'; url: string }[];
      beforeAll(async () => {
        pstore = await open();
        papp = await createServer({ users: [{ email: EMAIL, key: KEY, accounts: ['acc1'], zones: ['zone1'] }], store: pstore, failedAuthLimit: { max: 1_000_000, windowMs: 60_000 } });
        const r = await papp.inject({ method: 'POST', url: `${ACCOUNT}/rulesets`, payload: VALID_RULESET, headers: AUTH });
        const z = await papp.inject({ method: 'POST', url: `${ZONE}/rulesets`, payload: VALID_ZONE_RULESET, headers: AUTH });
        const j = await papp.inject({ method: 'POST', url: `${ZONE}/logpush/jobs`, payload: VALID_JOB, headers: AUTH });
        const rid = JSON.parse(r.body).result.id as string;
        targets = [
          { method: 'POST', url: `${ACCOUNT}/rulesets` },
          { method: 'POST', url: `${ZONE}/rulesets` },
          { method: 'PUT', url: `${ACCOUNT}/rulesets/${rid}` },
          { method: 'PUT', url: `${ZONE}/rulesets/${JSON.parse(z.body).result.id}` },
          { method: 'POST', url: `${ACCOUNT}/rulesets/${rid}/simulate` },
          { method: 'POST', url: `${ZONE}/logpush/jobs` },
          { method: 'PUT', url: `${ZONE}/logpush/jobs/${JSON.parse(j.body).result.id}` },
          { method: 'POST', url: `${ACCOUNT}/logpush/jobs` },
        ];
      });
      afterAll(async () => {
        await papp?.close();
        await pstore?.close();
      });

      function check(res: LightMyRequestResponse, what: string): void {
        expect(STATUSES.has(res.statusCode), `${what} → ${res.statusCode} ${res.body.slice(0, 300)}`).toBe(true);
        expect(res.headers['content-type']).toMatch(/^application\/json\b/);
        const body = JSON.parse(res.body) as Envelope;
        expect(Object.keys(body).sort()).toEqual(['errors', 'messages', 'result', 'success']);
        expect(body.success, what).toBe(res.statusCode < 400);
        expect(body.errors.length > 0, what).toBe(res.statusCode >= 400);
        for (const e of [...body.errors, ...body.messages]) {
          expect(typeof e.code === 'number' && typeof e.message === 'string', what).toBe(true);
          if (e.source !== undefined) expect(typeof e.source.pointer, what).toBe('string');
        }
        if (res.statusCode >= 400) expect(SERVER_CODES[body.errors[0]!.meta?.code as keyof typeof SERVER_CODES]?.status ?? 400, what).toBe(res.statusCode);
      }

      const str = fc.oneof(fc.string(), fc.constantFrom('', 'root', 'zone', 'custom', 'network_transit', 'http_log_custom_fields', 'block', 'skip', 'log_custom_field', 'current', '__proto__', 'constructor'));
      const expression = fc.oneof(fc.string(), fc.constantFrom('tcp.dstport == 22', 'ip.src in {10.0.0.0/8}', 'true', 'tcp.dstport in {1..65535}', 'http.request.uri.path contains "/x"', '(', 'ip.src == 10.0.0.0/8'));
      const anyValue = fc.jsonValue({ maxDepth: 4 });
      const rule = fc.record({
        id: fc.oneof(str, anyValue),
        ref: fc.oneof(str, anyValue),
        action: fc.oneof(str, anyValue),
        expression: fc.oneof(expression, anyValue),
        action_parameters: fc.oneof(fc.constant({ ruleset: 'current' }), fc.constant({ request_fields: [{ name: 'content-type' }] }), anyValue),
        enabled: fc.oneof(fc.boolean(), anyValue),
        description: fc.oneof(str, anyValue),
      }, { requiredKeys: [] });
      const rulesetLike = fc.record({
        name: fc.oneof(str, anyValue), description: fc.oneof(str, anyValue), kind: fc.oneof(str, anyValue), phase: fc.oneof(str, anyValue),
        rules: fc.oneof(fc.array(fc.oneof(rule, anyValue), { maxLength: 5 }), anyValue),
      }, { requiredKeys: [] });
      const jobLike = fc.record({
        name: fc.oneof(str, anyValue), dataset: fc.oneof(fc.constantFrom('http_requests', 'firewall_events', 'dns_logs'), anyValue),
        destination_conf: fc.oneof(fc.constantFrom('gs://b/p', 's3://b/p?region=us-east-1', 'https://x.example/', 'bucket'), anyValue),
        filter: fc.oneof(fc.constantFrom('{"where":{"key":"ClientIP","operator":"eq","value":"1.1.1.1"}}', '{}', 'x'), anyValue),
        logpull_options: fc.oneof(fc.constantFrom('fields=ClientIP&timestamps=rfc3339', 'fields=', '&&'), anyValue),
        enabled: fc.oneof(fc.boolean(), anyValue), frequency: fc.oneof(str, anyValue), output_options: anyValue, ownership_challenge: fc.oneof(str, anyValue),
      }, { requiredKeys: [] });
      const simulateLike = fc.record({ packets: fc.oneof(fc.array(fc.dictionary(fc.constantFrom('tcp.dstport', 'ip.src', 'ip.proto', 'x'), anyValue), { maxLength: 3 }), anyValue), lists: anyValue, results: anyValue }, { requiredKeys: [] });

      it('arbitrary JSON values and shaped bodies as POST/PUT bodies', async () => {
        await fc.assert(
          fc.asyncProperty(fc.nat({ max: 7 }), fc.oneof(anyValue, rulesetLike, jobLike, simulateLike), fc.boolean(), async (i, value, dry) => {
            const t = targets[i]!;
            const payload = JSON.stringify(value) ?? 'null';
            const res = await papp.inject({ method: t.method, url: t.url + (dry ? '?dry_run=true' : ''), payload, headers: JSON_CT });
            check(res, `${t.method} ${t.url} ${payload.slice(0, 300)}`);
            expectNoPollution();
          }),
          { numRuns: 600 },
        );
      });

      it('arbitrary bytes as POST/PUT bodies, with arbitrary content types', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.nat({ max: 7 }),
            fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.string({ unit: 'binary' }).map((s) => Buffer.from(s)), fc.json().map((s) => Buffer.from(s))),
            fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/octet-stream', undefined),
            async (i, bytes, ct, ) => {
              const t = targets[i]!;
              const headers: Record<string, string> = { ...AUTH };
              if (ct !== undefined) headers['content-type'] = ct;
              const res = await papp.inject({ method: t.method, url: t.url, payload: Buffer.from(bytes), headers });
              check(res, `${t.method} ${t.url} ${ct} ${Buffer.from(bytes).toString('hex').slice(0, 200)}`);
            },
          ),
          { numRuns: 600 },
        );
      });
    });
  });
}
