/**
 * JSON Schemas of the routes' parameters and bodies, for the OpenAPI document. They describe shapes only:
 * the server checks bodies with rulekit's validators (which answer with positions, codes and fixes), not
 * with these, so the schemas never disagree with what is enforced about the parts they leave open.
 * @module
 */
import type { Scope } from './common.js';

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

const rule = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Assigned by the server; give it in a PUT to keep a rule’s identity.' },
    action: { type: 'string', enum: ['skip', 'block', 'log_custom_field'] },
    expression: { type: 'string', maxLength: 4096 },
    action_parameters: { type: 'object' },
    description: { type: 'string' },
    enabled: { type: 'boolean', default: true },
    ref: { type: 'string' },
  },
  required: ['action', 'expression'],
} as const;

export const rulesetBodySchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    kind: { type: 'string', enum: ['root', 'zone'] },
    phase: { type: 'string', enum: ['network_transit', 'http_log_custom_fields'] },
    rules: { type: 'array', maxItems: 200, items: rule },
  },
} as const;

export const jobBodySchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    destination_conf: { type: 'string' },
    dataset: { type: 'string' },
    logpull_options: { type: 'string' },
    ownership_challenge: { type: 'string' },
    filter: { type: 'string', description: 'A JSON document {"where": …} as a string.' },
    enabled: { type: 'boolean' },
    frequency: { type: 'string', enum: ['high', 'low'] },
  },
} as const;

export const simulateBodySchema = {
  type: 'object',
  properties: {
    packets: { type: 'array', maxItems: 10000, items: { type: 'object', description: 'Field name → value, e.g. {"ip.src": "192.0.2.1", "tcp.dstport": 443}.' } },
    lists: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    results: { type: 'boolean', default: true, description: 'false: answer only the summary.' },
  },
  required: ['packets'],
} as const;
