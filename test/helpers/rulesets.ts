/**
 * Rulesets made from the catalog for tests that loop over it: the smallest `action_parameters` an action's
 * shape takes (its required members, recursively), and the same ruleset written as a JSON body and as a
 * Terraform `cloudflare_ruleset` (provider v5), so every reader can be given the same thing.
 */
import { ACTION_CATALOG, phaseInfo, type Shape } from '../../src/ruleset/index.js';

/** The smallest value of a shape: its required members only (or its first), empty arrays, `"x"`, `1`, `true`. */
export function minimalValue(shape: Shape): unknown {
  switch (shape.type) {
    case 'object': {
      // Its required members, or its first one when it needs some (minMembers) and none is required.
      const names = shape.required?.length ? shape.required : shape.minMembers ? Object.keys(shape.members ?? {}).slice(0, shape.minMembers) : [];
      return Object.fromEntries(names.map((m) => [m, minimalValue(shape.members![m]!)]));
    }
    case 'array':
      return [];
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
  }
}

/**
 * The smallest `action_parameters` a rule of the action takes in the phase (undefined when none are
 * needed): a network phase's skip needs `"ruleset": "current"` (the packet simulation reads it).
 */
export function minimalParameters(action: string, phase: string): Record<string, unknown> | undefined {
  if (action === 'skip' && phaseInfo(phase)?.fields !== 'http') return { ruleset: 'current' };
  const shape = (ACTION_CATALOG as Record<string, { parameters: Shape }>)[action]?.parameters;
  if (!shape?.required?.length && !shape?.minMembers) return undefined;
  return minimalValue(shape) as Record<string, unknown>;
}

/** A JSON value as an HCL expression (objects with `key = value`, keys quoted when not identifiers). */
export function hclOf(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(hclOf).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{ ${Object.entries(v).map(([k, x]) => `${/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) && !k.includes('-') ? k : JSON.stringify(k)} = ${hclOf(x)}`).join(', ')} }`;
  }
  return JSON.stringify(v);
}

/** One ruleset: its kind, phase, level and rules. */
export interface RulesetCase {
  kind: string;
  phase: string;
  scope: 'account' | 'zone';
  rules: { action: string; expression: string; action_parameters?: unknown }[];
}

/** The create body of a case. */
export const jsonBody = (c: RulesetCase) => ({ name: 'r', kind: c.kind, phase: c.phase, rules: c.rules });

/** The case as a Terraform resource of provider v5 (`rules = [{ … }]`). */
export function terraformOf(c: RulesetCase): string {
  const rules = c.rules.map((r) => hclOf(r)).join(',\n    ');
  return `resource "cloudflare_ruleset" "r" {
  ${c.scope === 'zone' ? 'zone_id' : 'account_id'} = "023e105f4ecef8ad9ca31a8372d0c353"
  name  = "r"
  kind  = ${JSON.stringify(c.kind)}
  phase = ${JSON.stringify(c.phase)}
  rules = [
    ${rules}
  ]
}
`;
}
