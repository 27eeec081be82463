/**
 * The catalog of kinds, phases and actions (src/ruleset/catalog.ts) against the enums recorded from
 * Cloudflare's OpenAPI schema (test/fixtures/rulesets-schema.json, with the commit read), and against
 * the tables that other parts keep beside it (the store's entry point index, the custom-field arrays).
 * That the readers of the catalog agree with each other is test/server/catalog-readers.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ACTION_CATALOG,
  KIND_CATALOG,
  PHASE_CATALOG,
  SCHEMA_SOURCE,
  UNPLACED_ACTIONS,
  actionParameterProblems,
  validateRuleset,
  type Shape,
} from '../../src/ruleset/index.js';
import { MIGRATIONS } from '../../src/server/store/migrations.js';
import { minimalParameters } from '../helpers/rulesets.js';

interface Recorded {
  source: { repo: string; path: string; commit: string };
  kinds: string[];
  phases: string[];
  actions: Record<string, { members: string[]; required: string[] }>;
}
const schema = JSON.parse(readFileSync(new URL('../fixtures/rulesets-schema.json', import.meta.url), 'utf8')) as Recorded;
const sorted = (xs: Iterable<string>) => [...xs].sort();
const params = (a: string): Shape => (ACTION_CATALOG as Record<string, { parameters: Shape }>)[a]!.parameters;

/** Phases of the catalog the schema does not have, each with why. */
const OWN_PHASES: Record<string, string> = { network_transit: 'this project’s network firewall phase (packet rules, docs/spec/expressions.md)' };

describe('the catalog against the schema it names', () => {
  it('was read from the commit the fixture records', () => {
    expect({ repo: SCHEMA_SOURCE.repo, path: SCHEMA_SOURCE.path, commit: SCHEMA_SOURCE.revision }).toEqual(schema.source && { repo: schema.source.repo, path: schema.source.path, commit: schema.source.commit });
  });

  it('has the schema’s kinds', () => {
    expect(sorted(Object.keys(KIND_CATALOG))).toEqual(sorted(schema.kinds));
  });

  it('has the schema’s phases, and only its own beside them', () => {
    expect(sorted(Object.keys(PHASE_CATALOG).filter((p) => !Object.hasOwn(OWN_PHASES, p)))).toEqual(sorted(schema.phases));
    for (const p of Object.keys(OWN_PHASES)) expect(schema.phases).not.toContain(p);
  });

  it('has the schema’s actions, each with the schema’s action_parameters members and required ones', () => {
    expect(sorted(Object.keys(ACTION_CATALOG))).toEqual(sorted(Object.keys(schema.actions)));
    for (const [action, recorded] of Object.entries(schema.actions)) {
      const shape = params(action);
      expect(shape.type, action).toBe('object');
      expect(sorted(Object.keys(shape.members ?? {})), action).toEqual(sorted(recorded.members));
      expect(sorted(shape.required ?? []), action).toEqual(sorted(recorded.required));
    }
  });

  it('places every action in a phase that names its actions, but those no phase’s docs name', () => {
    const all = Object.keys(ACTION_CATALOG);
    // A phase that takes every action (the docs name none for it) says nothing about where an action goes.
    const naming = Object.values(PHASE_CATALOG).filter((p) => !all.every((a) => (p.actions as readonly string[]).includes(a)));
    for (const action of all) {
      const placed = naming.some((p) => (p.actions as readonly string[]).includes(action));
      expect(placed, `${action}: placed, or listed in UNPLACED_ACTIONS with why`).toBe(!Object.hasOwn(UNPLACED_ACTIONS, action));
    }
  });

  it('gives each kind levels, and only root and zone are entry points (the store’s unique index says so too)', () => {
    const entryPoints = Object.entries(KIND_CATALOG).filter(([, k]) => k.entryPoint).map(([n]) => n);
    expect(sorted(entryPoints)).toEqual(['root', 'zone']);
    // The migrations are frozen once applied: the index that keeps one entry point per phase names them.
    for (const m of MIGRATIONS) {
      for (const sql of [m.sqlite, m.postgres]) {
        const index = /CREATE UNIQUE INDEX rulesets_entry_point .* WHERE kind IN \(([^)]*)\)/.exec(sql);
        if (index) expect(sorted(index[1]!.split(',').map((s) => s.trim().replace(/'/g, '')))).toEqual(sorted(entryPoints));
      }
    }
  });
});

describe('action_parameters against their action’s shape', () => {
  it('takes the smallest parameters of every action in every phase that has it', () => {
    for (const [phase, p] of Object.entries(PHASE_CATALOG)) {
      for (const action of p.actions) {
        const rule = { action, expression: 'true', ...(minimalParameters(action, phase) ? { action_parameters: minimalParameters(action, phase) } : {}) };
        const kind = (p.scopes as readonly string[]).includes('zone') ? 'zone' : 'root';
        const errors = validateRuleset({ name: 'r', kind, phase, rules: [rule] }).filter((d) => d.severity === 'error');
        expect(errors, `${action} in ${phase}`).toEqual([]);
      }
    }
  });

  it('takes the custom-field arrays the schema has beside the three the Logpush module logs', () => {
    const found = (ap: unknown) => validateRuleset({ rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: ap }] }, { operation: 'update', phase: 'http_log_custom_fields' }).map((d) => [d.code, d.pointer]);
    expect(found({ transformed_request_fields: [{ name: 'x-a' }], raw_response_fields: [{ name: 'x-b', preserve_duplicates: true }] })).toEqual([]);
    expect(found({ raw_response_fields: [{ name: 5 }] })).toEqual([['rule-action-parameters', '/rules/0/action_parameters/raw_response_fields/0/name']]);
    expect(found({ raw_respons_fields: [] }).map((d) => d[0])).toEqual(['custom-field-unknown-parameter', 'custom-field-no-fields']);
  });

  it('refuses a wrong JSON type at its pointer, warns of an unknown member with the nearest one', () => {
    const at = (action: string, ap: unknown) => actionParameterProblems(action, ap).map((p) => [p.code, p.path.join('/')]);
    expect(at('route', { origin: { port: '8080' } })).toEqual([['rule-action-parameters', 'origin/port']]);
    expect(at('execute', { id: 'x', overrides: { rules: [{ id: 'y', enabled: 'no' }] } })).toEqual([['rule-action-parameters', 'overrides/rules/0/enabled']]);
    expect(at('rewrite', { headers: { 'x-a': { operation: 'set', valeu: 'b' } } })).toEqual([['rule-action-parameter-unknown', 'headers/x-a/valeu']]);
    expect(actionParameterProblems('rewrite', { headers: { 'x-a': { operation: 'set', valeu: 'b' } } })[0]!.data).toEqual({ action: 'rewrite', member: 'valeu', suggestion: 'value' });
    expect(at('set_config', { ssl: 'strict', rocket_loader: 1 })).toEqual([['rule-action-parameters', 'rocket_loader']]);
    expect(at('skip', { ruleset: 'current', phases: 'http_ratelimit' })).toEqual([['rule-action-parameters', 'phases']]);
    expect(at('score', {})).toEqual([['rule-action-parameters', '']]);
    // An integer is not a number with a fraction; an unknown action has no shape to be held to.
    expect(at('block', { response: { status_code: 403.5, content: 'x', content_type: 'text/plain' } })).toEqual([['rule-action-parameters', 'response/status_code']]);
    expect(at('allow', { anything: 1 })).toEqual([]);
  });
});
