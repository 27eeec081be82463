/**
 * The OpenAPI document's request schemas against what the server accepts. The schemas are read from the
 * catalogs the validators read (routes/schemas.ts); these tests fail when the two part: a phase, action
 * or dataset that one names and the other refuses, or a body the validators accept that its schema
 * would refuse (a client validating against the document would never send it).
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, MAX_SIMULATED_PACKETS } from '../../src/server/index.js';
import { CATALOG_ACTIONS, KIND_CATALOG, PHASE_CATALOG, RULE_MEMBERS, RULESET_LIMITS, validateRuleset } from '../../src/ruleset/index.js';
import { DATASET_NAMES, validateLogpushJob } from '../../src/logpush/index.js';
import { hasErrors } from '../../src/diagnostics/index.js';
import { rules as benchRules } from '../../bench/server.js';
import { ACCOUNT_RULESET } from './sdk-suite.js';

type Schema = Record<string, unknown>;
type Level = 'account' | 'zone';
const BASE: Record<Level, string> = { account: '/client/v4/accounts/{account_id}', zone: '/client/v4/zones/{zone_id}' };

let app: FastifyInstance;
let paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
// OpenAPI 3.1's schemas are JSON Schema 2020-12.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (options: object) => { compile(schema: object): (data: unknown) => boolean };
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  app = await createServer({ users: [{ email: 's@example.com', key: 'schemas-key-01', accounts: ['a'], zones: ['z'] }] });
  paths = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body).paths;
});
afterAll(async () => {
  await app.close();
});

/** The request body schema of a route in the OpenAPI document, compiled. */
function bodyCheck(method: 'post' | 'put', path: string): (body: unknown) => boolean {
  const schema = paths[path]?.[method]?.requestBody?.content['application/json']?.schema;
  expect(schema, `${method} ${path} has a body schema`).toBeDefined();
  const check = ajv.compile(schema!);
  return (body) => check(body);
}

const createRuleset = (level: Level) => bodyCheck('post', `${BASE[level]}/rulesets`);
const updateRuleset = (level: Level) => bodyCheck('put', `${BASE[level]}/rulesets/{ruleset_id}`);
const createJob = (level: Level) => bodyCheck('post', `${BASE[level]}/logpush/jobs`);
const codes = (d: { code: string }[]) => d.map((x) => x.code);
const PHASES = Object.keys(PHASE_CATALOG);
// Not kinds, phases or actions of the API (custom and http_request_sanitize were, wrongly, until the catalog read the schema).
const JUNK = ['', 'customs', 'Network_Transit', 'http_request_snippets', '__proto__', 'blocks'];

describe('the request schemas name what the validators accept', () => {
  it('phases: a phase is in a level’s create schema exactly when the validator takes it at that level', () => {
    for (const level of ['account', 'zone'] as const) {
      const check = createRuleset(level);
      for (const phase of [...PHASES, ...JUNK]) {
        const info = PHASE_CATALOG[phase as keyof typeof PHASE_CATALOG];
        const kind = level === 'account' ? 'root' : 'zone';
        const body = { name: 'n', kind, phase, rules: [] };
        const refused = codes(validateRuleset(body, { scope: level, operation: 'create' })).filter((c) => ['ruleset-unknown-phase', 'ruleset-scope', 'ruleset-phase-kind'].includes(c));
        expect(check(body), `${phase} at the ${level} level (catalog levels ${info?.scopes ?? 'none'}; validator: ${refused})`).toBe(refused.length === 0);
      }
    }
  });

  it('kinds: a kind is in a level’s create schema exactly when the validator takes it at that level', () => {
    for (const level of ['account', 'zone'] as const) {
      const check = createRuleset(level);
      for (const kind of [...Object.keys(KIND_CATALOG), ...JUNK]) {
        const body = { name: 'n', kind, phase: 'http_request_firewall_custom', rules: [] };
        const refused = codes(validateRuleset(body, { scope: level, operation: 'create' })).filter((c) => ['ruleset-unknown-kind', 'ruleset-scope', 'ruleset-phase-kind'].includes(c));
        expect(check(body), `${kind} at the ${level} level (validator: ${refused})`).toBe(refused.length === 0);
      }
    }
  });

  it('actions: an action is in the rule schema exactly when the catalog has it', () => {
    const check = updateRuleset('account');
    for (const action of [...CATALOG_ACTIONS, ...JUNK, 'allow']) {
      const body = { rules: [{ action, expression: 'true' }] };
      const unknown = codes(validateRuleset(body, { scope: 'account', operation: 'update', phase: 'network_transit' })).includes('rule-unknown-action');
      expect(check(body), action).toBe(!unknown);
    }
  });

  it('datasets: a dataset is in a level’s job schema exactly when the validator takes it at that level', () => {
    for (const level of ['account', 'zone'] as const) {
      const check = createJob(level);
      for (const dataset of [...DATASET_NAMES, ...JUNK]) {
        const body = { destination_conf: 's3://bucket/logs?region=us-east-1', dataset };
        const refused = codes(validateLogpushJob(body, { scope: level, operation: 'create' })).filter((c) => c === 'job-unknown-dataset' || c === 'job-dataset-scope');
        expect(check(body), `${dataset} at the ${level} level (${refused})`).toBe(refused.length === 0);
      }
    }
  });

  it('members and limits: the rule members, the rule limit, the expression length and the packet limit', () => {
    const rule = (paths[`${BASE.account}/rulesets`]!['post']!.requestBody!.content['application/json']!.schema as { properties: { rules: { maxItems: number; items: { properties: Record<string, unknown> } } } }).properties.rules;
    expect(Object.keys(rule.items.properties).sort()).toEqual([...new Set([...Object.keys(RULE_MEMBERS), 'id', 'version', 'last_updated'])].sort());
    expect(rule.maxItems).toBe(RULESET_LIMITS.maxRules);
    const update = updateRuleset('account');
    const long = (n: number) => ({ rules: [{ action: 'block', expression: 'tcp.dstport == 1'.padEnd(n) }] });
    for (const n of [4096, 4097]) {
      expect(long(n).rules[0]!.expression.length).toBe(n);
      const tooLong = codes(validateRuleset(long(n), { scope: 'account', operation: 'update', phase: 'network_transit' })).includes('expression-too-long');
      expect(update(long(n)), `${n} characters`).toBe(!tooLong);
    }
    const simulate = paths[`${BASE.account}/rulesets/{ruleset_id}/simulate`]!['post']!.requestBody!.content['application/json']!.schema as { properties: { packets: { maxItems: number } } };
    expect(simulate.properties.packets.maxItems).toBe(MAX_SIMULATED_PACKETS);
  });

  it('bodies the validators accept pass their schema: the spec’s, the benchmark’s, and generated ones', () => {
    const accepted = (body: unknown, level: Level, operation: 'create' | 'update') => !hasErrors(validateRuleset(body, { scope: level, operation, ...(operation === 'update' ? { phase: 'network_transit' } : {}) }));
    expect(accepted(ACCOUNT_RULESET, 'account', 'create')).toBe(true);
    expect(createRuleset('account')(ACCOUNT_RULESET)).toBe(true);
    const bench = { description: 'edge firewall', rules: benchRules() };
    expect(accepted(bench, 'account', 'update')).toBe(true);
    expect(updateRuleset('account')(bench)).toBe(true);

    const create = { account: createRuleset('account'), zone: createRuleset('zone') };
    const phaseAt = fc.constantFrom(...(['account', 'zone'] as const)).chain((level) =>
      fc.constantFrom(...PHASES.filter((p) => (PHASE_CATALOG[p as keyof typeof PHASE_CATALOG].scopes as readonly string[]).includes(level))).map((phase) => ({ level, phase })));
    const member = (name: string, type: string) => (type === 'string' ? fc.constantFrom('x', 'a rule', '') : type === 'boolean' ? fc.boolean() : fc.constant({})).map((v) => [name, v] as const);
    const rule = (phase: string) => fc.record({
      action: fc.constantFrom(...(PHASE_CATALOG[phase as keyof typeof PHASE_CATALOG].actions as readonly string[])),
      expression: fc.constantFrom('true', 'tcp.dstport == 22', 'ip.src in {10.0.0.0/8}', 'http.host eq "example.com"'),
      extra: fc.subarray(Object.entries(RULE_MEMBERS).filter(([k]) => !['action', 'expression', 'action_parameters'].includes(k))).chain((ms) => fc.tuple(...ms.map(([k, t]) => member(k, t)))),
    }).map(({ action, expression, extra }) => ({ action, expression, ...Object.fromEntries(extra) }));
    let checked = 0;
    fc.assert(
      fc.property(phaseAt.chain(({ level, phase }) => fc.record({ level: fc.constant(level), phase: fc.constant(phase), rules: fc.array(rule(phase), { maxLength: 4 }) })), ({ level, phase, rules }) => {
        const body = { name: 'generated', kind: level === 'account' ? 'root' : 'zone', phase, rules };
        if (!accepted(body, level, 'create')) return;
        checked++;
        expect(create[level](body), JSON.stringify(body)).toBe(true);
      }),
      { numRuns: 300 },
    );
    // Enough generated bodies were valid for the law to have been tried.
    expect(checked).toBeGreaterThan(30);
  });
});
