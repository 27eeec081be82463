/**
 * Validation of ruleset request bodies (create at account or zone level, PUT of rules): every problem is
 * a diagnostic with a JSON pointer into the body (and a range when the body was given as JSON text).
 * Expressions go through the expression checker; their diagnostics are re-based to
 * `/rules/N/expression` with the range inside the expression string (`rangeIn: 'value'`).
 * @module
 */
import type { Diagnostic, Fix, Range } from '../diagnostics/index.js';
import { RULESET_CODES, type RulesetCode } from './codes.js';
import { READ_ONLY_MEMBERS, RULE_MEMBERS, RULESET_LIMITS, RULESET_MEMBERS, type RulesetPhase } from './model.js';
import { actionProblem, kindPhaseProblems, phaseExpressionOptions, phaseFieldDiagnostics, phaseInfo } from './phases.js';
import { actionParameterProblems } from './parameters.js';
import { ListCatalog, type ExpressionOptions } from '../expression/index.js';
import { checkRuleValueExpression, CREDENTIAL_CHECK, ruleValueExpressions } from './value-expressions.js';
import { checkedExpression, copyDiagnostics } from './check-cache.js';
import type { RuleCache, RuleScope } from './rule-cache.js';
import { childPointer, parseJsonText, type JsonDoc } from '../json/index.js';
import { suggest } from '../diagnostics/index.js';
import { expressionDiagnostic } from '../expression/index.js';
import { CUSTOM_FIELD_ARRAYS, validateCustomFieldRule, zoneCustomFieldLimit } from '../logpush/index.js';
import { ACTION_CATALOG } from './catalog.js';

/** The shape of log_custom_field's action_parameters in the catalog. */
const CUSTOM_FIELD_SHAPE = ACTION_CATALOG.log_custom_field.parameters;

/** What the validator should assume about the request. */
export interface RulesetContext {
  /** `create` (POST, default) or `update` (PUT of rules). */
  operation?: 'create' | 'update';
  /** Account or zone endpoint; inferred from `kind`/`phase` when absent. */
  scope?: 'account' | 'zone';
  /** Phase of the stored ruleset, for an update body that carries only `rules`. */
  phase?: RulesetPhase;
  /** Expression options (scheme, lists, service token, limits). */
  expression?: ExpressionOptions;
  /** Most rules in a ruleset (default 200). */
  maxRules?: number;
  /**
   * Answers per rule kept across calls (see {@link RuleCache}): for bodies that are JSON values, validated
   * one after another with most rules unchanged. Used for a body given as a value, not as text.
   */
  ruleCache?: RuleCache;
}

/** Build a ruleset diagnostic. */
export function rulesetDiagnostic(code: RulesetCode, message: string, pointer: string, extra: { range?: Range; fix?: Fix; data?: Record<string, unknown> } = {}): Diagnostic {
  const d: Diagnostic = { code, severity: RULESET_CODES[code].severity, message, pointer };
  if (extra.range) d.range = extra.range;
  if (extra.fix) d.fix = extra.fix;
  if (extra.data) d.data = extra.data;
  return d;
}

/**
 * Validate a ruleset request body (an object, or JSON text for ranges). Never throws.
 *
 * ```ts
 * validateRuleset({ name: 'fw', kind: 'root', phase: 'network_transit',
 *   rules: [{ action: 'block', expression: 'tcp.dstport == 23' }] }); // []
 * ```
 */
export function validateRuleset(body: unknown, context: RulesetContext = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  let doc: JsonDoc | undefined;
  let value = body;
  if (typeof body === 'string') {
    // A byte order mark before the JSON is skipped: as a space it keeps every offset where it was.
    const text = body.charCodeAt(0) === 0xfeff ? ' ' + body.slice(1) : body;
    const parsed = parseJsonText(text, 64);
    if (!parsed.doc) {
      return parsed.errors.map((e) => rulesetDiagnostic('ruleset-invalid-json', `the ruleset body is not valid JSON: ${e.message}`, '', { range: e.range }));
    }
    doc = parsed.doc;
    value = doc.value;
    out.push(...loneSurrogateEscapes(text));
    for (const dup of doc.duplicates) out.push(rulesetDiagnostic('ruleset-duplicate-member', `"${dup.key}" appears twice in this object; only the last one counts`, dup.pointer, { range: dup.range }));
  }
  try {
    new Validator(context, out, doc).ruleset(value);
  } catch (e) {
    // Defensive: a validator bug must not crash a server; report it as a diagnostic.
    out.push(rulesetDiagnostic('ruleset-not-object', `the ruleset could not be validated: ${(e as Error).message}`, ''));
  }
  return out;
}

class Validator {
  private readonly lists: ListCatalog | undefined;
  /** Whether the ruleset's unchecked action_parameters were noted (once per ruleset). */
  private parametersNoted = false;

  constructor(
    private readonly context: RulesetContext,
    private out: Diagnostic[],
    private readonly doc: JsonDoc | undefined,
  ) {
    const l = context.expression?.lists;
    this.lists = l === undefined ? undefined : l instanceof ListCatalog ? l : ListCatalog.from(l, { serviceToken: context.expression?.serviceToken });
  }

  private add(code: RulesetCode, message: string, pointer: string, extra: { fix?: Fix; data?: Record<string, unknown>; key?: boolean } = {}): void {
    const range = this.doc ? (extra.key ? this.doc.keyRange(pointer) : this.doc.valueRange(pointer)) : undefined;
    this.out.push(rulesetDiagnostic(code, message, pointer, { ...extra, range }));
  }

  ruleset(body: unknown): void {
    if (!isObject(body)) {
      this.add('ruleset-not-object', `the ruleset body must be a JSON object, not ${describe(body)}`, '');
      return;
    }
    const operation = this.context.operation ?? 'create';
    this.members(body, '', RULESET_MEMBERS, 'ruleset');
    const kind = body['kind'];
    const phase = body['phase'];
    if (operation === 'create') {
      for (const m of ['name', 'kind', 'phase']) {
        if (!(m in body)) this.add('ruleset-missing-member', `a new ruleset needs "${m}"`, '', { data: { member: m } });
      }
    } else if (!('rules' in body)) {
      this.add('ruleset-missing-member', 'an update (PUT) replaces all rules and needs "rules"', '', { data: { member: 'rules' } });
    }
    let knownPhase: RulesetPhase | undefined = this.context.phase;
    if (typeof phase === 'string' && phaseInfo(phase)) knownPhase = phase as RulesetPhase;
    // Kind, phase and level: the checks Terraform lint makes too (phases.ts), at their members here.
    for (const p of kindPhaseProblems(typeof kind === 'string' ? kind : undefined, typeof phase === 'string' ? phase : undefined, this.context.scope)) {
      const fix = p.replacement && p.code !== 'ruleset-unknown-phase' && p.code !== 'ruleset-unknown-kind' ? { title: `set ${p.at} to "${p.replacement}"`, edits: [] } : undefined;
      this.add(p.code, p.message, `/${p.at}`, { fix });
    }
    const rules = body['rules'];
    if (rules === undefined) return;
    if (!Array.isArray(rules)) return; // member type reported above
    const max = this.context.maxRules ?? RULESET_LIMITS.maxRules;
    if (rules.length > max) {
      // Refused by its count before any rule is read: the service refuses it whole, and checking 100,000
      // rules to list their errors would cost seconds and an answer of megabytes.
      this.add('ruleset-too-many-rules', `the ruleset has ${rules.length} rules; the limit is ${max} (its rules were not checked)`, '/rules', { data: { limit: max, count: rules.length } });
      return;
    }
    // One zone ruleset per phase: its log_custom_field rules share the zone's 40-field limit.
    this.out.push(...zoneCustomFieldLimit(rules.filter((r) => isObject(r) && r['action'] === 'log_custom_field'), '/rules'));
    const refs = new Map<string, number>();
    this.parametersNoted = false;
    const cache = this.doc === undefined ? this.context.ruleCache?.scope(knownPhase, phaseExpressionOptions(knownPhase, { ...this.context.expression, lists: this.lists })) : undefined;
    for (let i = 0; i < rules.length; i++) {
      if (cache && isObject(rules[i])) this.cachedRule(cache, rules[i] as Record<string, unknown>, `/rules/${i}`, knownPhase);
      else this.rule(rules[i], `/rules/${i}`, knownPhase);
      const ref = isObject(rules[i]) ? (rules[i] as Record<string, unknown>)['ref'] : undefined;
      if (typeof ref === 'string') {
        const first = refs.get(ref);
        if (first !== undefined) this.add('ruleset-duplicate-ref', `rule ${i} has the same ref "${ref}" as rule ${first}`, `/rules/${i}/ref`);
        else refs.set(ref, i);
      }
    }
  }

  private members(obj: Record<string, unknown>, pointer: string, table: Readonly<Record<string, string>>, what: string): void {
    for (const key of Object.keys(obj)) {
      const p = childPointer(pointer, key);
      const type = Object.hasOwn(table, key) ? table[key] : undefined;
      if (type === undefined) {
        const guess = suggest(key, Object.keys(table));
        this.add('ruleset-unknown-member', `a ${what} has no member "${key}"${guess ? `; did you mean "${guess}"?` : ''}`, p, { key: true, data: guess ? { suggestion: guess } : undefined });
        continue;
      }
      const v = obj[key];
      const actual = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
      if (actual !== type) {
        this.add('ruleset-member-type', `"${key}" of a ${what} must be ${type === 'array' ? 'an array' : type === 'object' ? 'an object' : `a ${type}`}, not ${describe(v)}`, p);
        continue;
      }
      if (READ_ONLY_MEMBERS.has(key)) this.add('ruleset-read-only-member', `"${key}" is assigned by the service; it is ignored in a request`, p, { key: true });
    }
  }

  /** {@link rule} through the cache of rule answers: made afresh (as if no rule before gave the parameters note) when not kept. */
  private cachedRule(cache: RuleScope, rule: Record<string, unknown>, pointer: string, phase: RulesetPhase | undefined): void {
    const key = JSON.stringify(rule);
    let answer = cache.get(key, pointer, this.parametersNoted);
    if (!answer) {
      const out = this.out;
      const noted = this.parametersNoted;
      this.out = [];
      this.parametersNoted = false;
      try {
        this.rule(rule, pointer, phase);
        answer = cache.put(key, pointer, this.out, noted);
      } finally {
        this.out = out;
        this.parametersNoted = noted;
      }
    }
    for (const d of answer.diagnostics) this.out.push(d);
    if (answer.notes) this.parametersNoted = true;
  }

  private rule(rule: unknown, pointer: string, phase: RulesetPhase | undefined): void {
    if (!isObject(rule)) {
      this.add('ruleset-not-object', `a rule must be a JSON object, not ${describe(rule)}`, pointer);
      return;
    }
    this.members(rule, pointer, RULE_MEMBERS, 'rule');
    const action = rule['action'];
    if (action === undefined) this.add('ruleset-missing-member', 'a rule needs an "action" (skip, block or log_custom_field)', pointer, { data: { member: 'action' } });
    if (rule['expression'] === undefined) this.add('ruleset-missing-member', 'a rule needs an "expression"', pointer, { data: { member: 'expression' } });
    if (typeof action !== 'string') return;
    const info = phase ? phaseInfo(phase) : undefined;
    const problem = actionProblem(action, phase);
    if (problem) {
      this.add(problem.code, problem.message, `${pointer}/action`, { data: problem.data });
      return;
    }
    if (action === 'log_custom_field') {
      // The Logpush module checks the three arrays it logs in depth; the arrays the schema has beside them
      // (raw_response_fields, transformed_request_fields) are held to their shape in the catalog instead.
      const ap = rule['action_parameters'];
      const schemaOnly = (k: unknown) => typeof k === 'string' && Object.hasOwn(CUSTOM_FIELD_SHAPE.members!, k) && !Object.hasOwn(CUSTOM_FIELD_ARRAYS, k);
      const hasSchemaOnly = isObject(ap) && Object.keys(ap).some(schemaOnly);
      for (const d of validateCustomFieldRule(rule, { pointer })) {
        if (d.code === 'custom-field-unknown-parameter' && schemaOnly(d.data?.['key'])) continue;
        if (d.code === 'custom-field-no-fields' && hasSchemaOnly) continue;
        const range = d.range ?? (this.doc && d.pointer !== undefined ? this.doc.valueRange(d.pointer) : undefined);
        this.out.push(range ? { ...d, range } : d);
      }
      if (hasSchemaOnly) {
        for (const p of actionParameterProblems(action, ap)) {
          if (p.code === 'rule-action-parameters' && schemaOnly(p.path[0])) this.add(p.code, p.message, p.path.reduce<string>((ptr, k) => childPointer(ptr, k), `${pointer}/action_parameters`), { data: p.data });
        }
      }
      return;
    }
    // The action's shape in the catalog (members, JSON types); in network phases skip and block are held
    // to what the packet simulation reads (parameters.ts). Terraform lint makes the same checks.
    // A rule of no known phase (an update without one) is read as the default, network, phase's.
    const network = info?.fields !== 'http';
    this.parameterShape(action, rule['action_parameters'], pointer, network);
    if (rule['action_parameters'] !== undefined && !(network && (action === 'skip' || action === 'block')) && !this.parametersNoted) {
      this.parametersNoted = true;
      this.add('rule-action-parameters-not-checked', `the action_parameters of ${action}${phase ? ` in the ${phase} phase` : ''} are checked for their members and JSON types, not yet for their values, apart from their value expressions (nor those of the rules after this one)`, `${pointer}/action_parameters`);
    }
    const expression = rule['expression'];
    if (typeof expression === 'string') this.expression(expression, `${pointer}/expression`, phase);
    this.credentialCheck(rule, action, pointer);
    if (info?.fields === 'http') {
      for (const v of ruleValueExpressions(rule, pointer)) {
        this.rebase(v.text, v.pointer, checkRuleValueExpression(v.text, v.slot, phase, { ...this.context.expression, lists: this.lists }));
      }
    }
  }

  /** `action_parameters` against the action's shape in the catalog (parameters.ts), at their pointers. */
  private parameterShape(action: string, params: unknown, pointer: string, network: boolean): void {
    if (params !== undefined && !isObject(params)) return; // type reported by members()
    for (const p of actionParameterProblems(action, params, { network })) {
      const at = p.atRule ? pointer : p.path.reduce<string>((ptr, k) => childPointer(ptr, k), `${pointer}/action_parameters`);
      this.add(p.code, p.message, at, { key: p.key, data: p.data, fix: p.fix ? { title: p.fix, edits: [] } : undefined });
    }
  }

  /** The shape of `exposed_credential_check` and the actions it goes with; its expressions are value expressions. */
  private credentialCheck(rule: Record<string, unknown>, action: string, pointer: string): void {
    const check = rule['exposed_credential_check'];
    if (!isObject(check)) return; // absent, or its type reported by members()
    const at = `${pointer}/exposed_credential_check`;
    const table: Record<string, string> = Object.fromEntries(CREDENTIAL_CHECK.properties.map((p) => [p, 'string']));
    this.members(check, at, table, 'exposed_credential_check');
    for (const p of CREDENTIAL_CHECK.properties) {
      if (!(p in check)) this.add('ruleset-missing-member', `exposed_credential_check needs "${p}" (an expression giving the ${p === 'username_expression' ? 'user ID' : 'password'} to check)`, at, { data: { member: p }, fix: { title: `add "${p}"`, edits: [] } });
    }
    if (!CREDENTIAL_CHECK.actions.includes(action)) {
      this.add('rule-credential-check-action', `exposed_credential_check goes with the actions ${CREDENTIAL_CHECK.actions.join(', ')}; not with ${action}`, `${pointer}/action`, {
        data: { action, actions: [...CREDENTIAL_CHECK.actions] },
        fix: { title: 'set action to "log" (the docs recommend rewrite or log)', edits: [] },
      });
    }
  }

  private expression(text: string, pointer: string, phase: RulesetPhase | undefined): void {
    const opts: ExpressionOptions = phaseExpressionOptions(phase, { ...this.context.expression, lists: this.lists });
    // A validator with a rule cache runs in a long-lived process that may see each text once (a server).
    const result = checkedExpression(text, opts, this.context.ruleCache !== undefined);
    const diagnostics = phaseFieldDiagnostics(text, copyDiagnostics(result.diagnostics), phase, result.ast);
    this.rebase(text, pointer, diagnostics);
  }

  /** Expression diagnostics at a JSON pointer (with their range in the document when it maps exactly). */
  private rebase(text: string, pointer: string, diagnostics: Diagnostic[]): void {
    if (diagnostics.length === 0) return;
    const docRange = this.doc?.valueRange(pointer);
    // The expression's offsets map into the JSON text only when the JSON string has no escapes.
    const exact = docRange && this.doc && docRange.end - docRange.start === text.length + 2;
    for (const d of diagnostics) {
      const rebased: Diagnostic = { ...d, pointer, rangeIn: 'value' };
      if (exact && d.range) rebased.data = { ...d.data, documentRange: { start: docRange.start + 1 + d.range.start, end: docRange.start + 1 + d.range.end } };
      this.out.push(rebased);
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `\uD800` escapes without their pair in JSON text (and raw lone surrogates): JSON.parse accepts them, but
 * the string they make has no UTF-8 encoding. A high half and a low half right after it make a pair
 * whether each is written as an escape or as the raw code unit.
 */
function loneSurrogateEscapes(text: string): Diagnostic[] {
  if (!/\\u[dD][89a-fA-F]|[\uD800-\uDFFF]/u.test(text)) return [];
  // Each match is one surrogate code unit: an escape (after an even run of backslashes, which are
  // escaped backslashes) or a raw unit (with the `u` flag only unpaired raw units match).
  const re = /(?<!\\)((?:\\\\)*)(\\u[dD][89a-fA-F][0-9a-fA-F]{2})|[\uD800-\uDFFF]/gu;
  const units: { start: number; end: number; high: boolean }[] = [];
  for (const m of text.matchAll(re)) {
    const start = m.index + (m[1]?.length ?? 0);
    const unit = m[2] ? parseInt(m[2].slice(2), 16) : m[0].charCodeAt(0);
    units.push({ start, end: m[2] ? start + m[2].length : start + 1, high: unit < 0xdc00 });
  }
  const out: Diagnostic[] = [];
  for (let i = 0; i < units.length && out.length < 10; i++) {
    const u = units[i]!;
    const next = units[i + 1];
    if (u.high && next && !next.high && next.start === u.end) {
      i++;
      continue;
    }
    const d = expressionDiagnostic('lone-surrogate', `${text.slice(u.start, u.end)} is half of a UTF-16 surrogate pair without its other half; the string cannot be encoded as UTF-8`, { start: u.start, end: u.end });
    d.pointer = '';
    out.push(d);
  }
  return out;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : `the string ${JSON.stringify(v)}`;
  if (typeof v === 'object') return 'an object';
  if (v === undefined) return 'undefined (no body)';
  if (typeof v === 'function' || typeof v === 'symbol') return `a ${typeof v}`;
  return `the ${typeof v} ${String(v)}`;
}
