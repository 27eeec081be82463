/**
 * Rulesets made from the catalog for tests that loop over it: the smallest `action_parameters` an action's
 * shape takes (its required members, recursively), and the same ruleset written as a JSON body and as a
 * Terraform `cloudflare_ruleset` (provider v5), so every reader can be given the same thing.
 */
import fc from 'fast-check';
import { ACTION_CATALOG, phaseInfo, type Rule, type Shape } from '../../src/ruleset/index.js';

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

/**
 * Generated network rules over a few fields, and packets with one transport each that hit the values the
 * rules name: for laws checked by the simulator on a sample of packets (the analysis, the diff).
 * `extra`: more atoms (regexes, lists not given, functions…) beside the ones the domains hold.
 */
export function smallExpressionArb(extra: readonly fc.Arbitrary<string>[] = []): fc.Arbitrary<string> {
  const ports = fc.integer({ min: 0, max: 8 });
  const atom = fc.oneof(
    ports.map((p) => `tcp.dstport == ${p}`),
    fc.tuple(ports, ports).map(([a, b]) => `tcp.dstport in {${Math.min(a, b)}..${Math.max(a, b)}}`),
    ports.map((p) => `udp.dstport == ${p}`),
    ports.map((p) => `udp.dstport > ${p}`),
    fc.integer({ min: 0, max: 3 }).map((n) => `ip.src in {10.0.${n}.0/24}`),
    fc.integer({ min: 0, max: 3 }).map((n) => `ip.src in {10.0.0.0/${22 + n}}`),
    fc.constantFrom('tcp.flags.syn', 'ip.proto == "icmp"', 'icmp.type == 8', 'ip.src.country == "DE"', 'ip.src.country in {"DE" "US"}'),
    ...extra,
  );
  return fc.letrec((tie) => ({
    e: fc.oneof({ depthSize: 'small', withCrossShrink: true }, atom, fc.tuple(tie('e'), fc.constantFrom('and', 'or', 'xor'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`), tie('e').map((a) => `not ${a}`)),
  })).e as fc.Arbitrary<string>;
}

/** A network rule (block, or a skip of the current ruleset) over {@link smallExpressionArb}'s expressions, enabled or not. */
export function smallRuleArb(extra: readonly fc.Arbitrary<string>[] = []): fc.Arbitrary<Rule> {
  return fc.record({
    action: fc.constantFrom('block', 'skip'),
    expression: smallExpressionArb(extra),
    enabled: fc.boolean(),
  }).map((r): Rule => (r.action === 'skip' ? { action: 'skip', action_parameters: { ruleset: 'current' }, expression: r.expression, enabled: r.enabled } : { action: 'block', expression: r.expression, enabled: r.enabled }));
}

/** A packet with one transport (tcp, udp or icmp) over the fields and values {@link smallExpressionArb} reads. */
export const smallPacketArb: fc.Arbitrary<Record<string, unknown>> = fc.record({
  proto: fc.constantFrom('tcp', 'udp', 'icmp'),
  port: fc.integer({ min: 0, max: 8 }),
  src: fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 255 })),
  country: fc.constantFrom('DE', 'US', 'FR', undefined),
  syn: fc.boolean(),
  type: fc.constantFrom(0, 8),
}).map((p) => {
  const out: Record<string, unknown> = { 'ip.proto': p.proto, 'ip.src': `10.0.${p.src[0]}.${p.src[1]}` };
  if (p.country) out['ip.src.country'] = p.country;
  if (p.proto === 'tcp') Object.assign(out, { 'tcp.dstport': p.port, 'tcp.flags.syn': p.syn });
  if (p.proto === 'udp') out['udp.dstport'] = p.port;
  if (p.proto === 'icmp') out['icmp.type'] = p.type;
  return out;
});

type Edit = { kind: 'insert' | 'remove' | 'expression' | 'action' | 'enabled' | 'swap'; at: number; rule: Rule };

/** A ruleset changed as people change them: rules inserted, removed, rewritten, switched, disabled, swapped. */
function applyEdits(rules: readonly Rule[], edits: readonly Edit[]): Rule[] {
  const out = [...rules];
  for (const e of edits) {
    const i = out.length ? e.at % out.length : 0;
    const r = out[i];
    if (e.kind === 'insert' || !r) out.splice(e.at % (out.length + 1), 0, e.rule);
    else if (e.kind === 'remove') out.splice(i, 1);
    else if (e.kind === 'expression') out[i] = { ...r, expression: e.rule.expression };
    else if (e.kind === 'action') out[i] = r.action === 'block' ? { ...r, action: 'skip', action_parameters: { ruleset: 'current' } } : { action: 'block', expression: r.expression, enabled: r.enabled };
    else if (e.kind === 'enabled') out[i] = { ...r, enabled: r.enabled === false };
    else if (i + 1 < out.length) [out[i], out[i + 1]] = [out[i + 1]!, r];
  }
  return out;
}

/**
 * Pairs of rulesets for the diff's laws: mostly a ruleset and an edit of it (1 to `edits` edits), else
 * two unrelated rulesets.
 */
export function rulesetPairArb(ruleArb: fc.Arbitrary<Rule>, { rules = 6, edits = 3 } = {}): fc.Arbitrary<[Rule[], Rule[]]> {
  const editArb: fc.Arbitrary<Edit> = fc.record({ kind: fc.constantFrom('insert', 'remove', 'expression', 'action', 'enabled', 'swap'), at: fc.nat(rules + 2), rule: ruleArb });
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.array(ruleArb, { maxLength: rules }), fc.array(editArb, { minLength: 1, maxLength: edits })).map(([old, es]): [Rule[], Rule[]] => [old, applyEdits(old, es)]) },
    { weight: 1, arbitrary: fc.tuple(fc.array(ruleArb, { maxLength: rules - 1 }), fc.array(ruleArb, { maxLength: rules - 1 })) },
  );
}
