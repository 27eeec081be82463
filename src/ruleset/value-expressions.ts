/**
 * The value expressions of a rule — the expressions that give a value, not a verdict: a rewrite's or a
 * redirect's `expression` in `action_parameters`, a rate limit's `counting_expression`, and the
 * `username_expression` / `password_expression` of an `exposed_credential_check`. Where each one sits in
 * a rule ({@link ruleValueExpressions}) and how it is checked ({@link checkRuleValueExpression}) are one
 * table read by ruleset validation (JSON bodies, the server) and lint (Terraform blocks too).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkValueExpression, FUNCTIONS, walk, type AnyNode, type ExpressionOptions, type ExprNode } from '../expression/index.js';
import { childPointer } from '../json/index.js';
import { RULESET_CODES } from './codes.js';
import { phaseExpressionOptions, phaseFieldDiagnostics } from './phases.js';

/**
 * Kinds of value expression: `rewrite` gives a String (URL rewrites, header modification, dynamic
 * redirect targets: rewrite-only functions allowed), `counting` is a condition (a rate limit's
 * `counting_expression`), `credential` gives a String under the exposed credentials check's rules.
 */
export type ValueSlot = 'rewrite' | 'counting' | 'credential';

/** A value expression found in a rule: its text, its JSON pointer and its kind. */
export interface ValueExpressionAt {
  text: string;
  pointer: string;
  slot: ValueSlot;
}

/** Where {@link CREDENTIAL_CHECK} comes from. */
export const CREDENTIAL_CHECK_SOURCE = Object.freeze({
  repo: 'cloudflare/cloudflare-docs',
  path: 'src/content/docs/waf/managed-rules/check-for-exposed-credentials/configure-api.mdx',
  revision: '0309c8bed23afe438f28fd5026b5a7999e653081',
});

/**
 * The documented rules of a rule's `exposed_credential_check` object ({@link CREDENTIAL_CHECK_SOURCE}):
 * both properties required, each a String of at most 1024 characters using only these functions, not
 * nested, on a rule with one of these actions.
 */
export const CREDENTIAL_CHECK = Object.freeze({
  properties: ['username_expression', 'password_expression'] as const,
  maxLength: 1024,
  functions: ['upper', 'lower', 'url_decode', 'lookup_json_string'] as readonly string[],
  actions: ['rewrite', 'log', 'block', 'challenge', 'js_challenge'] as readonly string[],
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The value expressions of a rule (a JSON object), with their pointers under `pointer` (the rule's):
 * `action_parameters` `uri.path.expression`, `uri.query.expression`, `headers.<name>.expression`,
 * `from_value.target_url.expression`; `ratelimit.counting_expression` (when not empty); and the two
 * properties of `exposed_credential_check`. Values that are not strings are left to the shape checks.
 */
export function ruleValueExpressions(rule: Record<string, unknown>, pointer: string): ValueExpressionAt[] {
  const out: ValueExpressionAt[] = [];
  const at = (path: string[], slot: ValueSlot) => {
    let v: unknown = rule;
    for (const k of path) v = isObject(v) ? v[k] : undefined;
    if (typeof v === 'string' && !(slot === 'counting' && v === '')) out.push({ text: v, pointer: path.reduce((p, k) => childPointer(p, k), pointer), slot });
  };
  at(['action_parameters', 'uri', 'path', 'expression'], 'rewrite');
  at(['action_parameters', 'uri', 'query', 'expression'], 'rewrite');
  at(['action_parameters', 'from_value', 'target_url', 'expression'], 'rewrite');
  const params = rule['action_parameters'];
  const headers = isObject(params) ? params['headers'] : undefined;
  if (isObject(headers)) for (const name of Object.keys(headers)) at(['action_parameters', 'headers', name, 'expression'], 'rewrite');
  at(['ratelimit', 'counting_expression'], 'counting');
  for (const p of CREDENTIAL_CHECK.properties) at(['exposed_credential_check', p], 'credential');
  return out;
}

/**
 * Check a value expression of a rule of `phase`: as a value of its slot's type, with the phase's fields
 * (an HTTP field in a network phase names the phase) and, for a credential expression, the exposed
 * credentials check's own rules. Ranges are inside `text`; no pointers. Never throws.
 */
export function checkRuleValueExpression(text: string, slot: ValueSlot, phase: string | undefined, options: ExpressionOptions = {}): Diagnostic[] {
  const opts = phaseExpressionOptions(phase, options);
  const r = checkValueExpression(text, { ...opts, type: slot === 'counting' ? 'Bool' : 'String' });
  const diagnostics = phaseFieldDiagnostics(text, r.diagnostics, phase, r.ast);
  if (slot === 'credential') diagnostics.push(...credentialDiagnostics(text, r.ast, diagnostics));
  return diagnostics;
}

function credential(message: string, range: { start: number; end: number }, data: Record<string, unknown>): Diagnostic {
  return { code: 'rule-credential-expression', severity: RULESET_CODES['rule-credential-expression'].severity, message, range, data };
}

/** The exposed credentials check's rules: length, the four functions, no nesting. */
function credentialDiagnostics(text: string, ast: ExprNode | undefined, already: readonly Diagnostic[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const points = [...text];
  if (points.length > CREDENTIAL_CHECK.maxLength) {
    // The characters past the limit, counted as code points.
    const start = points.slice(0, CREDENTIAL_CHECK.maxLength).join('').length;
    out.push(credential(`a credential expression has at most ${CREDENTIAL_CHECK.maxLength} characters; this one has ${points.length}`, { start, end: text.length }, { limit: CREDENTIAL_CHECK.maxLength, length: points.length }));
  }
  if (!ast) return out;
  const allowed = CREDENTIAL_CHECK.functions.join('(), ') + '()';
  // Each call with the outermost call it sits in (walk goes parents first).
  const outer = new Map<AnyNode, string>();
  walk(ast, (n) => {
    if (n.kind !== 'call') return;
    for (const a of n.args) walk(a, (m) => {
      if (m.kind === 'call' && !outer.has(m)) outer.set(m, outer.get(n) ?? n.name);
    });
    // Unknown functions were reported by the checker already.
    if (!Object.hasOwn(FUNCTIONS, n.name) || already.some((d) => d.code === 'unknown-function' && d.range?.start === n.nameRange.start)) return;
    const inside = outer.get(n);
    if (!CREDENTIAL_CHECK.functions.includes(n.name)) {
      out.push(credential(`${n.name}() cannot be used in a credential expression; only ${allowed} can`, n.nameRange, { function: n.name, allowed: [...CREDENTIAL_CHECK.functions] }));
    } else if (inside !== undefined) {
      out.push(credential(`${n.name}() is nested in ${inside}(); the functions of a credential expression cannot be nested`, n.nameRange, { function: n.name, outer: inside }));
    }
  });
  return out;
}
