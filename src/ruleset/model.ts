/**
 * The ruleset model of the service's API: rulesets, rules, actions and their parameters, as plain data.
 * @module
 */

import { PHASE_CATALOG, type CatalogPhase, type RulesetKind } from './catalog.js';

/** The rule actions rulekit evaluates (the catalog of phases, `phases.ts`, has every action of every phase). */
export type RuleAction = 'skip' | 'block' | 'log_custom_field';
/** Ruleset phases: the phases of the catalog (`phases.ts`). */
export type RulesetPhase = CatalogPhase;
/** Ruleset kinds: the kinds of the catalog (`catalog.ts`). */
export type { RulesetKind };

/** A rule as sent to or returned by the service. */
export interface Rule {
  id?: string;
  version?: string;
  action: RuleAction;
  action_parameters?: Record<string, unknown>;
  expression: string;
  description?: string;
  last_updated?: string;
  ref?: string;
  enabled?: boolean;
}

/** A ruleset as sent to or returned by the service. */
export interface Ruleset {
  id?: string;
  name?: string;
  description?: string;
  kind?: RulesetKind;
  phase?: RulesetPhase;
  version?: string;
  rules: Rule[];
  last_updated?: string;
}

/** The actions rulekit evaluates, with the phase whose semantics it gives them (each is in that phase's catalog entry: a test checks). */
export const ACTIONS: Readonly<Record<RuleAction, { phase: RulesetPhase; doc: string }>> = {
  skip: { phase: 'network_transit', doc: 'Skip: with `ruleset: "current"` the remaining rules of this ruleset are skipped and the packet is allowed.' },
  block: { phase: 'network_transit', doc: 'Block: the packet is dropped and evaluation ends.' },
  log_custom_field: { phase: 'http_log_custom_fields', doc: 'Adds request/response headers and cookies to the zone’s HTTP log lines.' },
};

/**
 * The phases with the kind and scope of their first level, derived from the catalog of phases
 * (`PHASE_CATALOG` has every level of a phase that exists at both).
 */
export const PHASES: Readonly<Record<RulesetPhase, { kind: RulesetKind; scope: 'account' | 'zone' }>> = Object.fromEntries(
  Object.entries(PHASE_CATALOG).map(([name, p]) => [name, { kind: p.scopes[0] === 'account' ? 'root' : 'zone', scope: p.scopes[0] }]),
) as Record<RulesetPhase, { kind: RulesetKind; scope: 'account' | 'zone' }>;

/** Members of a rule in a request, with their JSON types. */
export const RULE_MEMBERS: Readonly<Record<string, 'string' | 'object' | 'boolean'>> = {
  action: 'string',
  action_parameters: 'object',
  expression: 'string',
  description: 'string',
  enabled: 'boolean',
  ref: 'string',
  id: 'string',
  version: 'string',
  last_updated: 'string',
  // Members of HTTP-phase rules (rate limiting, logging of skip rules, leaked credentials); their
  // contents are not checked yet.
  ratelimit: 'object',
  logging: 'object',
  exposed_credential_check: 'object',
};

/** Members of a ruleset body, with their JSON types. */
export const RULESET_MEMBERS: Readonly<Record<string, 'string' | 'array'>> = {
  name: 'string',
  description: 'string',
  kind: 'string',
  phase: 'string',
  rules: 'array',
  id: 'string',
  version: 'string',
  last_updated: 'string',
};

/** Members the service assigns; sent back in a request they are ignored. */
export const READ_ONLY_MEMBERS: ReadonlySet<string> = new Set(['id', 'version', 'last_updated']);

/** Default limits (expressions.md). */
export const RULESET_LIMITS = Object.freeze({ maxRules: 200 });
