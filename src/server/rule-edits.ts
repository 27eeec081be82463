/**
 * Single-rule edits of a stored ruleset (POST …/rules, PATCH and DELETE …/rules/{rule_id}), as plain
 * functions: each turns the stored ruleset and the request into the list of rules a PUT would send (the
 * other rules by their ids, so they keep their ids, refs and versions), and says where the rule of the
 * request is in it. The route validates that list with the PUT's validator and stores what
 * `replaceRules` makes of it, so a single-rule edit is a PUT the server writes for the client.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { StoredRule, StoredRuleset } from './store/index.js';
import { serverDiagnostic } from './envelope.js';

type Body = Readonly<Record<string, unknown>>;

/**
 * Where a rule goes: before a rule (`""`: first), after a rule (`""`: last), or at an index from 1
 * (the service's `position` object).
 */
export type Position = { before: string } | { after: string } | { index: number };

/** The rules of a PUT body and the index of the rule the request names in them. */
export interface RuleList {
  rules: Record<string, unknown>[];
  index: number;
}

/** The service assigns these; in a single rule's body they are ignored (the validator warns of them). */
const ASSIGNED = ['id', 'version', 'last_updated'] as const;

/** A stored rule as a PUT body sends it back: its id, ref and content (what it was validated as). */
export function bodyOfRule(rule: StoredRule): Record<string, unknown> {
  const body: Record<string, unknown> = { ...rule };
  delete body['version'];
  delete body['last_updated'];
  return body;
}

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `position` of a rule body: absent, a {@link Position}, or the problem with it (at `/position…`). */
export function positionOf(body: Body): { position?: Position } | { problem: Diagnostic } {
  const p = body['position'];
  if (p === undefined) return {};
  const bad = (message: string, pointer = '/position') => ({ problem: serverDiagnostic('server-invalid-position', message, pointer) });
  if (!isObject(p)) return bad('"position" must be an object: {"before": rule id}, {"after": rule id} or {"index": n}');
  const keys = Object.keys(p);
  if (keys.length !== 1) return bad(`"position" takes exactly one of "before", "after" and "index"${keys.length ? `, not ${keys.map((k) => `"${k}"`).join(' and ')}` : ''}`);
  const key = keys[0]!;
  const v = p[key];
  if (key === 'before' || key === 'after') {
    if (typeof v !== 'string') return bad(`"position.${key}" must be a rule id (a string; "" for the ${key === 'before' ? 'first' : 'last'} place)`, `/position/${key}`);
    return { position: key === 'before' ? { before: v } : { after: v } };
  }
  if (key === 'index') {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) return bad('"position.index" must be an integer from 1 (1 is the first rule)', '/position/index');
    return { position: { index: v } };
  }
  return bad(`"position" has no member "${key}"; it takes "before", "after" or "index"`, `/position/${key}`);
}

/**
 * Put `item` into `others` (the ruleset's rules without it) where `position` says; `fallback` is the
 * index when there is no position (the end for a new rule, its place for an edited one).
 */
function place(others: readonly Record<string, unknown>[], item: Record<string, unknown>, position: Position | undefined, fallback: number, self?: string): RuleList | { problem: Diagnostic } {
  let at = fallback;
  if (position && 'index' in position) {
    if (position.index > others.length + 1) {
      return { problem: serverDiagnostic('server-invalid-position', `index ${position.index} is past the end: with this rule the ruleset has ${others.length + 1} rule${others.length ? 's' : ''}, so the index is 1 to ${others.length + 1}`, '/position/index') };
    }
    at = position.index - 1;
  } else if (position) {
    const before = 'before' in position;
    const ref = before ? position.before : position.after;
    const pointer = before ? '/position/before' : '/position/after';
    if (ref === '') at = before ? 0 : others.length;
    else {
      const i = others.findIndex((r) => r['id'] === ref);
      if (i < 0) {
        const message = ref === self ? `a rule cannot be placed ${before ? 'before' : 'after'} itself` : `this ruleset has no rule with id ${JSON.stringify(ref)} to place the rule ${before ? 'before' : 'after'}`;
        return { problem: serverDiagnostic('server-invalid-position', message, pointer) };
      }
      at = before ? i : i + 1;
    }
  }
  const rules = [...others];
  rules.splice(at, 0, item);
  return { rules, index: at };
}

/** The rule of a single-rule body: its members but `position` and those the service assigns. */
function ruleMembers(body: Body): Record<string, unknown> {
  const rule: Record<string, unknown> = { ...body };
  delete rule['position'];
  for (const k of ASSIGNED) delete rule[k];
  return rule;
}

/** The rules with a new rule added (POST …/rules): at its position, by default last. */
export function addRule(current: StoredRuleset, body: Body, position: Position | undefined): RuleList | { problem: Diagnostic } {
  const others = current.rules.map(bodyOfRule);
  return place(others, ruleMembers(body), position, others.length);
}

/**
 * The rules with one rule edited (PATCH …/rules/{rule_id}): the members the body gives replace the
 * rule's, the others stay (a new `action` without `action_parameters` drops the old action's
 * parameters, which belong to it); `position` moves it, else it stays where it is. Undefined when the
 * ruleset has no such rule.
 */
export function editRule(current: StoredRuleset, ruleId: string, body: Body, position: Position | undefined): RuleList | { problem: Diagnostic } | undefined {
  const at = current.rules.findIndex((r) => r.id === ruleId);
  if (at < 0) return undefined;
  const old = bodyOfRule(current.rules[at]!);
  const given = ruleMembers(body);
  const edited: Record<string, unknown> = { ...old, ...given, id: ruleId };
  if (given['action'] !== undefined && given['action'] !== old['action'] && given['action_parameters'] === undefined) delete edited['action_parameters'];
  const others = current.rules.filter((_, i) => i !== at).map(bodyOfRule);
  return place(others, edited, position, at, ruleId);
}

/** The rules without one (DELETE …/rules/{rule_id}); undefined when the ruleset has no such rule. */
export function removeRule(current: StoredRuleset, ruleId: string): Record<string, unknown>[] | undefined {
  if (!current.rules.some((r) => r.id === ruleId)) return undefined;
  return current.rules.filter((r) => r.id !== ruleId).map(bodyOfRule);
}

/**
 * The diagnostics of validating `{rules}` (with the request's rule at `index`) as diagnostics of the
 * request's body: those of its rule with their pointers made relative to it (`/rules/3/expression` →
 * `/expression`); errors elsewhere (the ruleset's limit of rules, another rule that shares the new
 * `ref`) at the body, saying which rule. Warnings and notes about the other rules are theirs, not the
 * request's, and are left out.
 */
export function diagnosticsOfRule(diagnostics: readonly Diagnostic[], index: number, rules: readonly Record<string, unknown>[]): Diagnostic[] {
  const own = `/rules/${index}`;
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    const p = d.pointer ?? '';
    if (p === own || p.startsWith(`${own}/`)) {
      // A range inside the member's string value (an expression's) is the same in the request's rule; a
      // range in the text of the whole body is not (the body validated was made here).
      out.push({ ...(d.rangeIn === 'value' ? d : withoutRange(d)), pointer: p.slice(own.length) });
      continue;
    }
    if (d.severity !== 'error') continue;
    const other = /^\/rules\/(\d+)/.exec(p);
    const whole = withoutRange(d);
    if (other) {
      const i = Number(other[1]);
      const id = rules[i]?.['id'];
      const member = p.slice(other[0].length);
      // A ref the request's rule shares with another: the request's `ref` is what to change.
      if (member === '/ref' && d.code === 'ruleset-duplicate-ref') {
        out.push({ ...whole, pointer: '/ref', message: `another rule of this ruleset (${typeof id === 'string' ? id : `rule ${i + 1}`}) has the ref ${JSON.stringify(rules[i]?.['ref'])}; refs are unique in a ruleset` });
        continue;
      }
      out.push({ ...whole, pointer: '', message: `with this rule, rule ${i + 1} of the ruleset${typeof id === 'string' ? ` (${id})` : ''}: ${d.message}` });
    } else out.push({ ...whole, pointer: p === '/rules' ? '' : p });
  }
  return out;
}

function withoutRange(d: Diagnostic): Diagnostic {
  const { range: _range, rangeIn: _rangeIn, ...rest } = d;
  return rest;
}
