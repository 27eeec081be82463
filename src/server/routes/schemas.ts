/**
 * JSON Schemas of the routes' parameters and bodies, for the OpenAPI document: documentation, not checked
 * by fastify (see plugins/openapi.ts). Their enums and limits are read from the catalogs those validators read (phases and their
 * levels, actions, rule and ruleset members, datasets by scope, the limits), so the document names what
 * the server accepts; test/server/schemas.test.ts checks them against the catalogs and valid bodies
 * against them.
 * @module
 */
import { DEFAULT_LIMITS } from '../../expression/index.js';
import { CATALOG_ACTIONS, kindsAt, phasesAt, RULE_MEMBERS, RULESET_LIMITS, RULESET_MEMBERS } from '../../ruleset/index.js';
import { DATASETS_BY_SCOPE, JOB_MEMBERS, JOB_NAME_MAX, JOB_NAME_PATTERN, JOB_SETTINGS, OUTPUT_OPTIONS_MEMBERS } from '../../logpush/index.js';
import { MAX_SIMULATED_PACKETS, type Scope } from './common.js';

const id = { type: 'string', minLength: 1, maxLength: 64, description: 'An id (the service uses 32 hex digits).' } as const;

export const scopeParams = (scope: Scope) => ({ type: 'object', properties: { [scope.param]: id }, required: [scope.param] });
export const rulesetParams = (scope: Scope) => ({ type: 'object', properties: { [scope.param]: id, ruleset_id: id }, required: [scope.param, 'ruleset_id'] });
export const jobParams = (scope: Scope) => ({ type: 'object', properties: { [scope.param]: id, job_id: { type: 'string', pattern: '^[1-9][0-9]*$' } }, required: [scope.param, 'job_id'] });

export const dryRunQuery = {
  type: 'object',
  properties: {
    dry_run: { type: 'string', enum: ['true', 'false'], description: 'Validate and answer as if written, storing nothing.' },
    analyze: { type: 'string', enum: ['true', 'false'], description: 'Ruleset writes: add analysis findings (rules that can never decide, expressions never true) to `messages`; on by default for dry runs.' },
  },
} as const;

export const rule = {
  type: 'object',
  properties: {
    ...Object.fromEntries(Object.entries(RULE_MEMBERS).map(([k, type]) => [k, { type }])),
    id: { type: 'string', description: 'Assigned by the server; give it in a PUT to keep a rule’s identity.' },
    version: { type: 'string', description: 'Assigned by the server; ignored in a request.' },
    last_updated: { type: 'string', description: 'Assigned by the server; ignored in a request.' },
    action: { type: 'string', enum: CATALOG_ACTIONS },
    expression: { type: 'string', maxLength: DEFAULT_LIMITS.maxLength },
    enabled: { type: 'boolean', default: true },
  },
  required: ['action', 'expression'],
  additionalProperties: false,
} as const;

/** A ruleset body: `create` (POST: name, kind and phase required) or `update` (PUT: rules required). */
export const rulesetBodySchema = (scope: Scope, operation: 'create' | 'update') => ({
  type: 'object',
  properties: {
    ...Object.fromEntries(Object.entries(RULESET_MEMBERS).map(([k, type]) => [k, { type }])),
    id: { type: 'string', description: 'Assigned by the server; ignored in a request.' },
    version: { type: 'string', description: 'Assigned by the server; ignored in a request.' },
    last_updated: { type: 'string', description: 'Assigned by the server; ignored in a request.' },
    // The kinds and phases of the level (`KIND_CATALOG`, `PHASE_CATALOG`), as validation takes them.
    kind: { type: 'string', enum: kindsAt(scope.scope) },
    phase: { type: 'string', enum: phasesAt(scope.scope) },
    rules: { type: 'array', maxItems: RULESET_LIMITS.maxRules, items: rule },
  },
  required: operation === 'create' ? ['name', 'kind', 'phase'] : ['rules'],
  additionalProperties: false,
});

/**
 * A Logpush job body. The members the spec describes are strings (`filter` may be null); the public
 * API's settings are typed as its schema types them; a member neither names is warned about, so the
 * schema leaves further members open.
 */
export const jobBodySchema = (scope: Scope, operation: 'create' | 'update') => ({
  type: 'object',
  properties: {
    ...Object.fromEntries(JOB_MEMBERS.map((k) => [k, { type: 'string' }])),
    name: { type: 'string', pattern: JOB_NAME_PATTERN.source, maxLength: JOB_NAME_MAX },
    dataset: { type: 'string', enum: [...DATASETS_BY_SCOPE[scope.scope].keys()] },
    filter: { type: ['string', 'null'], description: 'A JSON document {"where": …} as a string.' },
    // The settings as the API schema types them (JOB_SETTINGS, which the validator reads).
    ...Object.fromEntries(Object.entries(JOB_SETTINGS).map(([k, t]) => [k, t.kind === 'boolean' ? { type: 'boolean' }
      : t.kind === 'enum' ? { type: t.nullable ? ['string', 'null'] : 'string', enum: t.nullable ? [...t.values, null] : t.values }
      : { type: ['integer', 'null'], minimum: 0, maximum: t.max, description: `0 (off), or ${t.min} to ${t.max} ${t.unit}` }])),
    output_options: { type: ['object', 'null'], properties: Object.fromEntries(Object.entries(OUTPUT_OPTIONS_MEMBERS).filter(([, t]) => t !== 'special').map(([k, t]) => [k, { type: [t, 'null'] }])) },
  },
  ...(operation === 'create' ? { required: ['destination_conf', 'dataset'] } : {}),
});

export const simulateBodySchema = {
  type: 'object',
  properties: {
    packets: { type: 'array', maxItems: MAX_SIMULATED_PACKETS, items: { type: 'object', description: 'Field name → value, e.g. {"ip.src": "192.0.2.1", "tcp.dstport": 443}.' } },
    lists: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    results: { type: 'boolean', default: true, description: 'false: answer only the summary.' },
  },
  required: ['packets'],
} as const;
