/**
 * The server's answers checked against Cloudflare's published OpenAPI document (the fixture cut from
 * cloudflare/api-schemas, test/fixtures/openapi/): for every official operation the server serves, a
 * successful request and failing ones, each response validated by the operation's schema for its status.
 * Every other response the test receives (setup included) is validated too.
 *
 * Adding an operation: one line in SERVED, and in CASES a successful request and a failing one (an
 * entry whose `op` says `/{scope}` runs at both levels; one with the official template, at its own).
 * A route the document does not have goes in OWN (rulekit's own) or, when the service added it after
 * the document's date, in NEWER_THAN_DOCUMENT (official-schema.ts, with the SDK method that calls it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, createServer, openSqliteStore, type Store } from '../../src/server/index.js';
import { PHASE_CATALOG } from '../../src/ruleset/index.js';
import { OUTPUT_TIMESTAMP_FORMATS } from '../../src/logpush/job.js';
import {
  checkedTemplate, checkResponse, EXTENDED_PHASES, EXTENDED_TIMESTAMP_FORMATS, NEWER_THAN_DOCUMENT, officialDocument, officialOperations,
  SCHEMA_EXCEPTIONS, selfContradictions, SPEC_EXTENSIONS, templateShape,
} from '../helpers/official-schema.js';
import { USERS } from './sdk-suite.js';

/** The official operations the server serves, as `METHOD template` of the document: all 66. */
const SERVED = [
  'GET /accounts/{account_identifier}/rules/lists/bulk_operations/{operation_id}',
  'GET /accounts/{account_identifier}/rules/lists/{list_id}/items/{item_id}',
  'GET /accounts/{account_id}/logpush/datasets/{dataset_id}/fields',
  'GET /accounts/{account_id}/logpush/datasets/{dataset_id}/jobs',
  'GET /accounts/{account_id}/logpush/jobs',
  'POST /accounts/{account_id}/logpush/jobs',
  'DELETE /accounts/{account_id}/logpush/jobs/{job_id}',
  'GET /accounts/{account_id}/logpush/jobs/{job_id}',
  'PUT /accounts/{account_id}/logpush/jobs/{job_id}',
  'POST /accounts/{account_id}/logpush/ownership',
  'POST /accounts/{account_id}/logpush/ownership/validate',
  'POST /accounts/{account_id}/logpush/validate/destination/exists',
  'POST /accounts/{account_id}/logpush/validate/origin',
  'GET /accounts/{account_id}/rules/lists',
  'POST /accounts/{account_id}/rules/lists',
  'DELETE /accounts/{account_id}/rules/lists/{list_id}',
  'GET /accounts/{account_id}/rules/lists/{list_id}',
  'PUT /accounts/{account_id}/rules/lists/{list_id}',
  'DELETE /accounts/{account_id}/rules/lists/{list_id}/items',
  'GET /accounts/{account_id}/rules/lists/{list_id}/items',
  'POST /accounts/{account_id}/rules/lists/{list_id}/items',
  'PUT /accounts/{account_id}/rules/lists/{list_id}/items',
  'GET /accounts/{account_id}/rulesets',
  'POST /accounts/{account_id}/rulesets',
  'GET /accounts/{account_id}/rulesets/phases/{ruleset_phase}/entrypoint',
  'PUT /accounts/{account_id}/rulesets/phases/{ruleset_phase}/entrypoint',
  'GET /accounts/{account_id}/rulesets/phases/{ruleset_phase}/entrypoint/versions',
  'GET /accounts/{account_id}/rulesets/phases/{ruleset_phase}/entrypoint/versions/{ruleset_version}',
  'DELETE /accounts/{account_id}/rulesets/{ruleset_id}',
  'GET /accounts/{account_id}/rulesets/{ruleset_id}',
  'PUT /accounts/{account_id}/rulesets/{ruleset_id}',
  'POST /accounts/{account_id}/rulesets/{ruleset_id}/rules',
  'DELETE /accounts/{account_id}/rulesets/{ruleset_id}/rules/{rule_id}',
  'PATCH /accounts/{account_id}/rulesets/{ruleset_id}/rules/{rule_id}',
  'GET /accounts/{account_id}/rulesets/{ruleset_id}/versions',
  'DELETE /accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}',
  'GET /accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}',
  'GET /accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}/by_tag/{rule_tag}',
  'GET /zones/{zone_id}/logpush/datasets/{dataset_id}/fields',
  'GET /zones/{zone_id}/logpush/datasets/{dataset_id}/jobs',
  'GET /zones/{zone_id}/logpush/edge',
  'POST /zones/{zone_id}/logpush/edge',
  'GET /zones/{zone_id}/logpush/jobs',
  'POST /zones/{zone_id}/logpush/jobs',
  'DELETE /zones/{zone_id}/logpush/jobs/{job_id}',
  'GET /zones/{zone_id}/logpush/jobs/{job_id}',
  'PUT /zones/{zone_id}/logpush/jobs/{job_id}',
  'POST /zones/{zone_id}/logpush/ownership',
  'POST /zones/{zone_id}/logpush/ownership/validate',
  'POST /zones/{zone_id}/logpush/validate/destination/exists',
  'POST /zones/{zone_id}/logpush/validate/origin',
  'GET /zones/{zone_id}/rulesets',
  'POST /zones/{zone_id}/rulesets',
  'GET /zones/{zone_id}/rulesets/phases/{ruleset_phase}/entrypoint',
  'PUT /zones/{zone_id}/rulesets/phases/{ruleset_phase}/entrypoint',
  'GET /zones/{zone_id}/rulesets/phases/{ruleset_phase}/entrypoint/versions',
  'GET /zones/{zone_id}/rulesets/phases/{ruleset_phase}/entrypoint/versions/{ruleset_version}',
  'DELETE /zones/{zone_id}/rulesets/{ruleset_id}',
  'GET /zones/{zone_id}/rulesets/{ruleset_id}',
  'PUT /zones/{zone_id}/rulesets/{ruleset_id}',
  'POST /zones/{zone_id}/rulesets/{ruleset_id}/rules',
  'DELETE /zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}',
  'PATCH /zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}',
  'GET /zones/{zone_id}/rulesets/{ruleset_id}/versions',
  'DELETE /zones/{zone_id}/rulesets/{ruleset_id}/versions/{ruleset_version}',
  'GET /zones/{zone_id}/rulesets/{ruleset_id}/versions/{ruleset_version}',
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
  '/components/schemas/lists_item example': 'the example of a list item is none of the item kinds its oneOf offers (an exception: read as one of the members ip, redirect, hostname, asn)',
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
  /** A fresh IP list of Alice's account with one item, and the operation that added it. */
  list(): Promise<{ id: string; item: string; operation: string }>;
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
const MISSING_LIST = 'fedcba9876543210fedcba9876543210';
const LISTS = '/accounts/acc-alice/rules/lists';
/** A phase both levels have (an entry point is `root` at account level, `zone` at zone level). */
const PHASE = 'http_request_firewall_custom';
/** A phase both levels have whose entry point no case creates. */
const ABSENT_PHASE = 'http_ratelimit';
const DATASET: Record<Scope, string> = { accounts: 'audit_logs', zones: 'http_requests' };

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
  { op: 'GET /{scope}/rulesets/phases/{ruleset_phase}/entrypoint', what: 'read', status: 200, run: async (t, s) => (await t.call('PUT', `${at(s)}/rulesets/phases/${PHASE}/entrypoint`, { rules: [] }), t.call('GET', `${at(s)}/rulesets/phases/${PHASE}/entrypoint`)) },
  { op: 'GET /{scope}/rulesets/phases/{ruleset_phase}/entrypoint', what: 'no entry point yet', status: 404, run: (t, s) => t.call('GET', `${at(s)}/rulesets/phases/${ABSENT_PHASE}/entrypoint`) },
  { op: 'GET /{scope}/rulesets/phases/{ruleset_phase}/entrypoint', what: 'an unknown phase', status: 400, run: (t, s) => t.call('GET', `${at(s)}/rulesets/phases/no_such_phase/entrypoint`) },
  { op: 'PUT /{scope}/rulesets/phases/{ruleset_phase}/entrypoint', what: 'create or replace', status: 200, run: (t, s) => t.call('PUT', `${at(s)}/rulesets/phases/${PHASE}/entrypoint`, { description: 'entry', rules: [(RULESET[s]['rules'] as object[])[0]] }) },
  { op: 'PUT /{scope}/rulesets/phases/{ruleset_phase}/entrypoint', what: 'a bad expression', status: 400, run: (t, s) => t.call('PUT', `${at(s)}/rulesets/phases/${PHASE}/entrypoint`, { rules: [{ action: 'block', expression: 'ip.src eq' }] }) },
  { op: 'GET /{scope}/rulesets/phases/{ruleset_phase}/entrypoint/versions', what: 'list', status: 200, run: async (t, s) => (await t.call('PUT', `${at(s)}/rulesets/phases/${PHASE}/entrypoint`, { rules: [] }), t.call('GET', `${at(s)}/rulesets/phases/${PHASE}/entrypoint/versions`)) },
  { op: 'GET /{scope}/rulesets/phases/{ruleset_phase}/entrypoint/versions', what: 'an unknown phase', status: 400, run: (t, s) => t.call('GET', `${at(s)}/rulesets/phases/no_such_phase/entrypoint/versions`) },
  { op: 'GET /{scope}/rulesets/phases/{ruleset_phase}/entrypoint/versions/{ruleset_version}', what: 'read version 1', status: 200, run: async (t, s) => (await t.call('PUT', `${at(s)}/rulesets/phases/${PHASE}/entrypoint`, { rules: [] }), t.call('GET', `${at(s)}/rulesets/phases/${PHASE}/entrypoint/versions/1`)) },
  { op: 'GET /{scope}/rulesets/phases/{ruleset_phase}/entrypoint/versions/{ruleset_version}', what: 'an unknown version', status: 404, run: async (t, s) => (await t.call('PUT', `${at(s)}/rulesets/phases/${PHASE}/entrypoint`, { rules: [] }), t.call('GET', `${at(s)}/rulesets/phases/${PHASE}/entrypoint/versions/99999`)) },

  { op: 'POST /{scope}/rulesets/{ruleset_id}/rules', what: 'add a rule first', status: 200, run: async (t, s) => t.call('POST', `${at(s)}/rulesets/${(await t.ruleset(s)).id}/rules`, { ...(RULESET[s]['rules'] as object[])[1], ref: 'added', position: { index: 1 } }) },
  { op: 'POST /{scope}/rulesets/{ruleset_id}/rules', what: 'a bad expression', status: 400, run: async (t, s) => t.call('POST', `${at(s)}/rulesets/${(await t.ruleset(s)).id}/rules`, { action: 'block', expression: 'ip.src eq' }) },
  { op: 'POST /{scope}/rulesets/{ruleset_id}/rules', what: 'an unknown ruleset', status: 404, run: (t, s) => t.call('POST', `${at(s)}/rulesets/${MISSING_RULESET}/rules`, { action: 'block', expression: 'true' }) },
  {
    op: 'PATCH /{scope}/rulesets/{ruleset_id}/rules/{rule_id}', what: 'disable and move a rule', status: 200,
    run: async (t, s) => {
      const rs = await t.ruleset(s);
      return t.call('PATCH', `${at(s)}/rulesets/${rs.id}/rules/${rs.rules[1]!.id}`, { enabled: false, position: { before: rs.rules[0]!.id } });
    },
  },
  { op: 'PATCH /{scope}/rulesets/{ruleset_id}/rules/{rule_id}', what: 'an unknown rule', status: 404, run: async (t, s) => t.call('PATCH', `${at(s)}/rulesets/${(await t.ruleset(s)).id}/rules/${MISSING_RULESET}`, { enabled: false }) },
  { op: 'DELETE /{scope}/rulesets/{ruleset_id}/rules/{rule_id}', what: 'delete a rule', status: 200, run: async (t, s) => { const rs = await t.ruleset(s); return t.call('DELETE', `${at(s)}/rulesets/${rs.id}/rules/${rs.rules[0]!.id}`); } },
  { op: 'DELETE /{scope}/rulesets/{ruleset_id}/rules/{rule_id}', what: 'an unknown rule', status: 404, run: async (t, s) => t.call('DELETE', `${at(s)}/rulesets/${(await t.ruleset(s)).id}/rules/${MISSING_RULESET}`) },

  { op: 'GET /{scope}/rulesets/{ruleset_id}/versions/{ruleset_version}', what: 'read version 1', status: 200, run: async (t, s) => t.call('GET', `${at(s)}/rulesets/${(await t.ruleset(s)).id}/versions/1`) },
  { op: 'GET /{scope}/rulesets/{ruleset_id}/versions/{ruleset_version}', what: 'an unknown version', status: 404, run: async (t, s) => t.call('GET', `${at(s)}/rulesets/${(await t.ruleset(s)).id}/versions/7`) },
  {
    op: 'DELETE /{scope}/rulesets/{ruleset_id}/versions/{ruleset_version}', what: 'delete an old version', status: 204,
    run: async (t, s) => {
      const rs = await t.ruleset(s);
      await t.call('PUT', `${at(s)}/rulesets/${rs.id}`, { rules: [] });
      return t.call('DELETE', `${at(s)}/rulesets/${rs.id}/versions/1`);
    },
  },
  { op: 'DELETE /{scope}/rulesets/{ruleset_id}/versions/{ruleset_version}', what: 'the current version', status: 400, run: async (t, s) => t.call('DELETE', `${at(s)}/rulesets/${(await t.ruleset(s)).id}/versions/1`) },
  { op: 'GET /accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}/by_tag/{rule_tag}', what: 'the rules of a tag', status: 200, run: async (t) => t.call('GET', `${at('accounts')}/rulesets/${(await t.ruleset('accounts')).id}/versions/1/by_tag/wordpress`) },
  { op: 'GET /accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}/by_tag/{rule_tag}', what: 'an unknown version', status: 404, run: async (t) => t.call('GET', `${at('accounts')}/rulesets/${(await t.ruleset('accounts')).id}/versions/9/by_tag/wordpress`) },

  { op: 'GET /{scope}/logpush/datasets/{dataset_id}/fields', what: 'the catalog’s fields', status: 200, run: (t, s) => t.call('GET', `${at(s)}/logpush/datasets/${DATASET[s]}/fields`) },
  { op: 'GET /{scope}/logpush/datasets/{dataset_id}/fields', what: 'an unknown dataset', status: 404, run: (t, s) => t.call('GET', `${at(s)}/logpush/datasets/no_such_dataset/fields`) },
  { op: 'GET /{scope}/logpush/datasets/{dataset_id}/jobs', what: 'the jobs of a dataset', status: 200, run: async (t, s) => (await t.job(s), t.call('GET', `${at(s)}/logpush/datasets/${DATASET[s]}/jobs`)) },
  { op: 'GET /{scope}/logpush/datasets/{dataset_id}/jobs', what: 'an unknown dataset', status: 404, run: (t, s) => t.call('GET', `${at(s)}/logpush/datasets/no_such_dataset/jobs`) },
  { op: 'POST /{scope}/logpush/ownership', what: 'a challenge for an s3 bucket', status: 200, run: (t, s) => t.call('POST', `${at(s)}/logpush/ownership`, { destination_conf: 's3://logs-bucket/{DATE}?region=us-east-1' }) },
  { op: 'POST /{scope}/logpush/ownership', what: 'no destination_conf', status: 400, run: (t, s) => t.call('POST', `${at(s)}/logpush/ownership`, {}) },
  { op: 'POST /{scope}/logpush/ownership/validate', what: 'a token not issued', status: 200, run: (t, s) => t.call('POST', `${at(s)}/logpush/ownership/validate`, { destination_conf: 's3://logs-bucket/{DATE}?region=us-east-1', ownership_challenge: 'not-a-token' }) },
  { op: 'POST /{scope}/logpush/ownership/validate', what: 'no ownership_challenge', status: 400, run: (t, s) => t.call('POST', `${at(s)}/logpush/ownership/validate`, { destination_conf: 's3://logs-bucket' }) },
  { op: 'POST /{scope}/logpush/validate/destination/exists', what: 'a destination in use', status: 200, run: async (t, s) => (await t.job(s), t.call('POST', `${at(s)}/logpush/validate/destination/exists`, { destination_conf: JOB[s]['destination_conf'] })) },
  { op: 'POST /{scope}/logpush/validate/destination/exists', what: 'destination_conf not a string', status: 400, run: (t, s) => t.call('POST', `${at(s)}/logpush/validate/destination/exists`, { destination_conf: 7 }) },
  { op: 'POST /{scope}/logpush/validate/origin', what: 'options with a bad value', status: 200, run: (t, s) => t.call('POST', `${at(s)}/logpush/validate/origin`, { logpull_options: 'fields=RayID&timestamps=iso' }) },
  { op: 'POST /{scope}/logpush/validate/origin', what: 'no logpull_options', status: 400, run: (t, s) => t.call('POST', `${at(s)}/logpush/validate/origin`, {}) },
  { op: 'POST /zones/{zone_id}/logpush/edge', what: 'start a session', status: 200, run: (t) => t.call('POST', `${at('zones')}/logpush/edge`, { fields: 'ClientIP,RayID', sample: 10, filter: '' }) },
  { op: 'POST /zones/{zone_id}/logpush/edge', what: 'sample 0', status: 400, run: (t) => t.call('POST', `${at('zones')}/logpush/edge`, { sample: 0 }) },
  { op: 'GET /zones/{zone_id}/logpush/edge', what: 'the session', status: 200, run: async (t) => (await t.call('POST', `${at('zones')}/logpush/edge`, { fields: 'ClientIP' }), t.call('GET', `${at('zones')}/logpush/edge`)) },
  { op: 'GET /zones/{zone_id}/logpush/edge', what: 'another user’s zone', status: 403, run: (t) => t.call('GET', `${othersAt('zones')}/logpush/edge`) },

  { op: 'GET /accounts/{account_id}/rules/lists', what: 'list', status: 200, run: async (t) => (await t.list(), t.call('GET', LISTS)) },
  { op: 'GET /accounts/{account_id}/rules/lists', what: 'another user’s', status: 403, run: (t) => t.call('GET', '/accounts/acc-bob/rules/lists') },
  { op: 'POST /accounts/{account_id}/rules/lists', what: 'create', status: 200, run: (t) => t.call('POST', LISTS, { name: `made_${Math.random().toString(36).slice(2, 10)}`, kind: 'hostname', description: 'hosts' }) },
  { op: 'POST /accounts/{account_id}/rules/lists', what: 'a name with a dash', status: 400, run: (t) => t.call('POST', LISTS, { name: 'bad-name', kind: 'ip' }) },
  { op: 'POST /accounts/{account_id}/rules/lists', what: 'a name taken', status: 409, run: async (t) => { const l = await t.list(); const name = (await t.call('GET', `${LISTS}/${l.id}`)).json.result.name; return t.call('POST', LISTS, { name, kind: 'ip' }); } },
  { op: 'GET /accounts/{account_id}/rules/lists/{list_id}', what: 'read', status: 200, run: async (t) => t.call('GET', `${LISTS}/${(await t.list()).id}`) },
  { op: 'GET /accounts/{account_id}/rules/lists/{list_id}', what: 'an unknown id', status: 404, run: (t) => t.call('GET', `${LISTS}/${MISSING_LIST}`) },
  { op: 'PUT /accounts/{account_id}/rules/lists/{list_id}', what: 'a new description', status: 200, run: async (t) => t.call('PUT', `${LISTS}/${(await t.list()).id}`, { description: 'changed' }) },
  { op: 'PUT /accounts/{account_id}/rules/lists/{list_id}', what: 'a new kind', status: 400, run: async (t) => t.call('PUT', `${LISTS}/${(await t.list()).id}`, { kind: 'asn' }) },
  { op: 'DELETE /accounts/{account_id}/rules/lists/{list_id}', what: 'delete', status: 200, run: async (t) => t.call('DELETE', `${LISTS}/${(await t.list()).id}`) },
  { op: 'DELETE /accounts/{account_id}/rules/lists/{list_id}', what: 'an unknown id', status: 404, run: (t) => t.call('DELETE', `${LISTS}/${MISSING_LIST}`) },
  { op: 'GET /accounts/{account_id}/rules/lists/{list_id}/items', what: 'the items', status: 200, run: async (t) => t.call('GET', `${LISTS}/${(await t.list()).id}/items`) },
  { op: 'GET /accounts/{account_id}/rules/lists/{list_id}/items', what: 'per_page 0', status: 400, run: async (t) => t.call('GET', `${LISTS}/${(await t.list()).id}/items?per_page=0`) },
  { op: 'POST /accounts/{account_id}/rules/lists/{list_id}/items', what: 'add items', status: 200, run: async (t) => t.call('POST', `${LISTS}/${(await t.list()).id}/items`, [{ ip: '198.51.100.0/24', comment: 'docs' }]) },
  { op: 'POST /accounts/{account_id}/rules/lists/{list_id}/items', what: 'an item of another kind', status: 400, run: async (t) => t.call('POST', `${LISTS}/${(await t.list()).id}/items`, [{ asn: 13335 }]) },
  { op: 'PUT /accounts/{account_id}/rules/lists/{list_id}/items', what: 'replace the items', status: 200, run: async (t) => t.call('PUT', `${LISTS}/${(await t.list()).id}/items`, [{ ip: '203.0.113.7' }]) },
  { op: 'PUT /accounts/{account_id}/rules/lists/{list_id}/items', what: 'an unknown list', status: 404, run: (t) => t.call('PUT', `${LISTS}/${MISSING_LIST}/items`, []) },
  { op: 'DELETE /accounts/{account_id}/rules/lists/{list_id}/items', what: 'delete an item', status: 200, run: async (t) => { const l = await t.list(); return t.call('DELETE', `${LISTS}/${l.id}/items`, { items: [{ id: l.item }] }); } },
  { op: 'DELETE /accounts/{account_id}/rules/lists/{list_id}/items', what: 'items not an array', status: 400, run: async (t) => t.call('DELETE', `${LISTS}/${(await t.list()).id}/items`, { items: 'all' }) },
  { op: 'GET /accounts/{account_identifier}/rules/lists/{list_id}/items/{item_id}', what: 'read an item', status: 200, run: async (t) => { const l = await t.list(); return t.call('GET', `${LISTS}/${l.id}/items/${l.item}`); } },
  { op: 'GET /accounts/{account_identifier}/rules/lists/{list_id}/items/{item_id}', what: 'an unknown item', status: 404, run: async (t) => t.call('GET', `${LISTS}/${(await t.list()).id}/items/${MISSING_LIST}`) },
  { op: 'GET /accounts/{account_identifier}/rules/lists/bulk_operations/{operation_id}', what: 'a completed operation', status: 200, run: async (t) => t.call('GET', `${LISTS}/bulk_operations/${(await t.list()).operation}`) },
  { op: 'GET /accounts/{account_identifier}/rules/lists/bulk_operations/{operation_id}', what: 'an unknown operation', status: 404, run: (t) => t.call('GET', `${LISTS}/bulk_operations/${MISSING_LIST}`) },
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
      const template = checkedTemplate(method, path);
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
    async list() {
      const made = await tools.call('POST', LISTS, { name: `fresh_${Math.random().toString(36).slice(2, 10)}`, kind: 'ip' });
      expect(made.status, made.text).toBe(200);
      const added = await tools.call('POST', `${LISTS}/${made.json.result.id}/items`, [{ ip: '192.0.2.1', comment: 'one' }]);
      expect(added.status, added.text).toBe(200);
      const items = await tools.call('GET', `${LISTS}/${made.json.result.id}/items`);
      return { id: made.json.result.id, item: items.json.result[0].id, operation: added.json.result.operation_id };
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

  it('SERVED is the official operations the server routes; every other API route is rulekit’s own (OWN) or newer than the document', async () => {
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
    expect(own.sort(), 'routes that are no official operation (add to OWN or NEWER_THAN_DOCUMENT, or fix the path)').toEqual([...OWN, ...Object.keys(NEWER_THAN_DOCUMENT)].sort());
    for (const [route, newer] of Object.entries(NEWER_THAN_DOCUMENT)) {
      if (newer.sameAs) expect(SERVED, `${route} is the newer path of ${newer.sameAs}, which is served too`).toContain(`${route.split(' ')[0]} ${newer.sameAs}`);
    }
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
    // The phases SPEC_EXTENSIONS names conform; any other phase still fails.
    for (const phase of Object.keys(EXTENDED_PHASES)) expect(get(ok({ ...rs, kind: 'root', phase })), phase).toEqual([]);
    expect(get(ok({ ...rs, phase: 'no_such_phase' })).join('\n')).toMatch(/phase must be equal to one of the allowed values/);
    expect(get(ok({ ...rs, phase: 'network_transit_v2' })).join('\n')).toMatch(/phase must be equal to one of the allowed values/);
  });

  it('SPEC_EXTENSIONS add exactly the catalog’s phases and timestamp formats the document lacks, and {DATE}; nothing else', () => {
    const doc = officialDocument();
    const listed = (pointer: string) => (pointer.split('/').slice(1).reduce<any>((n, k) => n?.[k], doc) as { enum: string[] }).enum;
    const phases = listed('/components/schemas/rulesets_RulesetPhase');
    expect(Object.keys(EXTENDED_PHASES).sort()).toEqual(Object.keys(PHASE_CATALOG).filter((p) => !phases.includes(p)).sort());
    const formats = listed('/components/schemas/logpush_output_options/properties/timestamp_format');
    expect(Object.keys(EXTENDED_TIMESTAMP_FORMATS).sort()).toEqual(OUTPUT_TIMESTAMP_FORMATS.filter((f) => !formats.includes(f)).sort());
    for (const x of SPEC_EXTENSIONS) expect(x.evidence(doc), `${x.pointer}: ${x.reason}`).not.toEqual([]);

    const ok = (result: unknown) => JSON.stringify({ result, success: true, errors: [], messages: [] });
    const job = (extra: Record<string, unknown>) => checkResponse('GET', '/zones/{zone_id}/logpush/jobs/{job_id}', 200, ok({ id: 1, dataset: 'http_requests', destination_conf: 's3://b/logs?region=us-east-1', ...extra }));
    expect(job({})).toEqual([]);
    expect(job({ destination_conf: 's3://b/logs/{DATE}?region=us-east-1' })).toEqual([]);
    expect(job({ destination_conf: 's3://b/logs/{date}?region=us-east-1' })).not.toEqual([]); // only {DATE} is a placeholder
    expect(job({ destination_conf: 'not a uri' })).not.toEqual([]);
    expect(job({ output_options: { timestamp_format: 'rfc3339ms' } })).toEqual([]);
    expect(job({ output_options: { timestamp_format: 'rfc3339us' } })).not.toEqual([]);
  });

  it('the exceptions read the document as named, and no further', () => {
    const ok = (result: unknown, more: Record<string, unknown> = {}) => JSON.stringify({ result, success: true, errors: [], messages: [], ...more });
    const failed = (success = false) => JSON.stringify({ result: null, success, errors: [{ code: 10000, message: 'm' }], messages: [] });
    const job = (extra: Record<string, unknown>) => checkResponse('GET', '/zones/{zone_id}/logpush/jobs/{job_id}', 200, ok({ id: 1, ...extra }));
    for (const member of ['max_upload_bytes', 'max_upload_records', 'max_upload_interval_seconds']) {
      expect(job({ [member]: 0 }), member).toEqual([]); // "or 0 to disable it"
      expect(job({ [member]: 1 }), member).not.toEqual([]);
      expect(job({ [member]: 2_000_000_000 }), member).not.toEqual([]);
    }
    expect(job({ max_upload_bytes: 5_000_000, max_upload_records: 1000, max_upload_interval_seconds: 30 })).toEqual([]);

    const list = { id: '2c0fc9fa937b11eaa1b71c4d701ab86e', name: 'l', kind: 'ip', num_items: 0, num_referencing_filters: 0, created_on: '2020-01-01T08:00:00Z', modified_on: '2020-01-01T08:00:00Z' };
    const getList = (body: string, status = 200) => checkResponse('GET', '/accounts/{account_id}/rules/lists/{list_id}', status, body);
    expect(getList(ok(list))).toEqual([]);
    expect(getList(ok([list]))).not.toEqual([]);
    expect(getList(ok({ ...list, kind: 'cidr' }))).not.toEqual([]);
    expect(getList(failed(), 404)).toEqual([]);
    expect(getList(failed(true), 404)).not.toEqual([]);
    expect(checkResponse('POST', '/zones/{zone_id}/logpush/edge', 400, failed())).toEqual([]);

    const items = (...result: unknown[]) => checkResponse('GET', '/accounts/{account_id}/rules/lists/{list_id}/items', 200, ok(result, { result_info: { cursors: {} } }));
    const item = { id: '34b12448945f11eaa1b71c4d701ab86e', created_on: '2020-01-01T08:00:00Z', modified_on: '2020-01-01T08:00:00Z' };
    expect(items({ ...item, ip: '10.0.0.1' }, { ...item, asn: 13335 }, { ...item, hostname: { url_hostname: 'example.com' } }, { ...item, redirect: { source_url: 'example.com/a', target_url: 'https://example.com/b' } })).toEqual([]);
    expect(items(item)).not.toEqual([]); // no kind
    expect(items({ ...item, ip: '10.0.0.1', asn: 1 })).not.toEqual([]); // two kinds
    expect(items({ ...item, asn: '13335' })).not.toEqual([]);
    expect(items('10.0.0.1')).not.toEqual([]); // a bare value, as the published oneOf reads
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
