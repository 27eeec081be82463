/**
 * The members of a stored rule and of a stored ruleset, declared once, in the order of their JSON text
 * (the service's key order: id, version, action, …). The records the server makes, their text, the
 * comparison of a rule with a body's, and the parts the compact form keeps are all read from these
 * tables, so a member added here is added everywhere at once.
 * @module
 */
import type { StoredRule, StoredRuleset } from './types.js';

/** A member of a stored rule: assigned by the `server`, or taken from the `body` (with its default). */
export type RuleMember =
  | { readonly name: 'id' | 'version' | 'last_updated' | 'ref'; readonly from: 'server' }
  | { readonly name: 'action' | 'expression' | 'description'; readonly from: 'body'; readonly type: 'string'; readonly default: string }
  | { readonly name: 'enabled'; readonly from: 'body'; readonly type: 'boolean'; readonly default: boolean }
  | { readonly name: 'action_parameters'; readonly from: 'body'; readonly type: 'object'; readonly optional: true };

/** A stored rule's members, in text order. */
export const STORED_RULE_MEMBERS: readonly RuleMember[] = [
  { name: 'id', from: 'server' },
  { name: 'version', from: 'server' },
  { name: 'action', from: 'body', type: 'string', default: '' },
  { name: 'expression', from: 'body', type: 'string', default: '' },
  { name: 'description', from: 'body', type: 'string', default: '' },
  { name: 'last_updated', from: 'server' },
  { name: 'ref', from: 'server' },
  { name: 'enabled', from: 'body', type: 'boolean', default: true },
  { name: 'action_parameters', from: 'body', type: 'object', optional: true },
];

/** A stored ruleset's members, in text order (`rules` last). */
export const STORED_RULESET_MEMBERS = ['id', 'name', 'description', 'kind', 'phase', 'version', 'last_updated', 'rules'] as const satisfies readonly (keyof StoredRuleset)[];

// Every member of the types is in its table (a compile-time check).
type Missing<T, Named> = Exclude<keyof T, Named>;
const everyRuleMember: Missing<StoredRule, RuleMember['name']> extends never ? true : never = true;
const everyRulesetMember: Missing<StoredRuleset, (typeof STORED_RULESET_MEMBERS)[number]> extends never ? true : never = true;
void everyRuleMember;
void everyRulesetMember;

/** The members a body gives (everything but what the server assigns). */
export type BodyMember = Extract<RuleMember, { from: 'body' }>;
export const BODY_MEMBERS: readonly BodyMember[] = STORED_RULE_MEMBERS.filter((m): m is BodyMember => m.from === 'body');

/** A rule's members as a body gives them: each of {@link BODY_MEMBERS}, with its default when the body has none. */
export type RuleContent = Pick<StoredRule, BodyMember['name']>;

/** The content of a body rule: each body member of its type, else its default (`action_parameters`: whatever the body gives, when it gives one). */
export function ruleContent(rule: Readonly<Record<string, unknown>>): RuleContent {
  const content: Record<string, unknown> = {};
  for (const m of BODY_MEMBERS) {
    const v = rule[m.name];
    if (m.type === 'object') {
      if (v !== undefined) content[m.name] = v;
    } else content[m.name] = typeof v === m.type ? v : m.default;
  }
  return content as unknown as RuleContent;
}

/** The members the server assigns to a rule. */
export type Assigned = Pick<StoredRule, Extract<RuleMember, { from: 'server' }>['name']>;

/** A stored rule of a content and what the server assigned, its members in text order. */
export function storedRule(content: RuleContent, assigned: Assigned): StoredRule {
  const rule: Record<string, unknown> = {};
  for (const m of STORED_RULE_MEMBERS) {
    const v = m.from === 'server' ? assigned[m.name] : content[m.name];
    if (v !== undefined) rule[m.name] = v;
  }
  return rule as unknown as StoredRule;
}

/** Whether a stored rule has this content and ref: a PUT that leaves them alone keeps the rule's version. */
export function sameRule(a: StoredRule, content: RuleContent, ref: string): boolean {
  if (a.ref !== ref) return false;
  for (const m of BODY_MEMBERS) {
    const x = a[m.name];
    const y = content[m.name];
    if (m.type === 'object' ? JSON.stringify(x ?? null) !== JSON.stringify(y ?? null) : x !== y) return false;
  }
  return true;
}
