/**
 * Schemas of the routes on parts of rulesets (entry points by phase, single rules, versions), for the
 * OpenAPI document, beside those of routes/schemas.ts and read from the same catalogs.
 * @module
 */
import { phasesAt } from '../../ruleset/index.js';
import { rule, rulesetBodySchema } from './schemas.js';
import type { Scope } from './common.js';

const id = { type: 'string', minLength: 1, maxLength: 64, description: 'An id (the service uses 32 hex digits).' } as const;
const version = { type: 'string', pattern: '^[1-9][0-9]*$', description: 'A version number of the ruleset, as its `version` gives it.' } as const;

const params = (scope: Scope, members: Record<string, object>) => ({
  type: 'object',
  properties: { [scope.param]: id, ...members },
  required: [scope.param, ...Object.keys(members)],
});

export const phaseParams = (scope: Scope) => params(scope, { ruleset_phase: { type: 'string', enum: phasesAt(scope.scope) } });
export const phaseVersionParams = (scope: Scope) => params(scope, { ruleset_phase: { type: 'string', enum: phasesAt(scope.scope) }, ruleset_version: version });
export const ruleParams = (scope: Scope) => params(scope, { ruleset_id: id, rule_id: id });
export const versionParams = (scope: Scope) => params(scope, { ruleset_id: id, ruleset_version: version });
export const tagParams = (scope: Scope) => params(scope, { ruleset_id: id, ruleset_version: version, rule_tag: { type: 'string', minLength: 1, description: 'A category of the rules of a managed ruleset (`categories`).' } });

/** An entry point's PUT body: the ruleset PUT's, `kind` and `phase` implied by the path. */
export const entryPointBodySchema = (scope: Scope) => rulesetBodySchema(scope, 'update');

const position = {
  description: 'Where the rule goes: before a rule ("": first), after a rule ("": last), or at an index from 1. Default: last for a new rule, its place for an edited one.',
  oneOf: [
    { type: 'object', properties: { before: { type: 'string' } }, required: ['before'], additionalProperties: false },
    { type: 'object', properties: { after: { type: 'string' } }, required: ['after'], additionalProperties: false },
    { type: 'object', properties: { index: { type: 'integer', minimum: 1 } }, required: ['index'], additionalProperties: false },
  ],
};

/** One rule with its `position`: `create` (POST: action and expression required) or `edit` (PATCH: the members given replace the rule's). */
export const ruleBodySchema = (operation: 'create' | 'edit') => ({
  ...rule,
  properties: { ...rule.properties, position },
  ...(operation === 'create' ? {} : { required: [] }),
});
