/**
 * Checking the values of the Rules language: `[ ]` / `[*]` indexing and calls of the catalog's functions
 * (`functions.ts`), into {@link ValuePlan}s with their types. Literal arguments are read by the type the
 * parameter wants; the documented restrictions (literal-only or field-only arguments, argument ranges,
 * functions of value expressions or of some phases only, regex_replace / wildcard_replace once) are
 * diagnostics naming the restriction. Used by the checker (`checker.ts`); never throws.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { suggest } from '../diagnostics/index.js';
import type * as A from './ast.js';
import { isValueNode } from './ast.js';
import { expressionDiagnostic } from './diagnostics.js';
import { FUNCTIONS, type FunctionInfo, type LiteralArg, type Param, type ParamType } from './functions.js';
import { readInt, readIntText, readIp, readString } from './literals.js';
import type { FieldDef } from './scheme.js';
import { isScalar, parseValueType, typeText, type ParamCheck, type ValuePlan, type ValueType } from './values.js';
import { print } from './printer.js';

/** Where an expression is used: a filter (a rule's `expression`) or a value (a rewrite's `expression`). */
export type ExpressionContext = 'filter' | 'value';

/** What the value checker needs from the checker. */
export interface ValueEnv {
  /** The field of that name (diagnostics pushed when unknown); containers allowed. */
  field(name: string, range: Range): FieldDef | undefined;
  out: Diagnostic[];
  context: ExpressionContext;
  phase?: string;
  /** The whole Rules language (HTTP phases); otherwise network rules, whose only function is bit_slice. */
  rulesLanguage: boolean;
}

const SCALAR_OF: Record<ParamType, (t: ValueType) => boolean> = {
  String: (t) => t === 'String',
  Int: (t) => t === 'Int',
  Bool: (t) => t === 'Bool',
  Ip: (t) => t === 'Ip',
  'String|Int': (t) => t === 'String' || t === 'Int',
  'String|Array': (t) => t === 'String' || (!isScalar(t) && 'array' in t),
  'Int|Bool|Ip': (t) => t === 'Int' || t === 'Bool' || t === 'Ip',
  'Array<String>': (t) => !isScalar(t) && 'array' in t && t.array === 'String',
  'Array<Bool>': (t) => !isScalar(t) && 'array' in t && t.array === 'Bool',
  Map: (t) => !isScalar(t) && 'map' in t,
  'Array|Map': (t) => !isScalar(t),
  Scalar: (t) => isScalar(t),
};

const CHECK_OF: Record<ParamType, ParamCheck> = {
  String: 'string', Int: 'number', Bool: 'boolean', Ip: 'string', 'String|Int': 'any', 'String|Array': 'any', 'Int|Bool|Ip': 'any', 'Array<String>': 'array', 'Array<Bool>': 'array', Map: 'any', 'Array|Map': 'any', Scalar: 'any',
};

/** Map fields whose keys are lower-cased names (header and cookie names; the record contract). */
const LOWER_CASE_KEYS: ReadonlySet<string> = new Set(['http.request.headers', 'http.response.headers', 'http.request.cookies']);

/** Checks value nodes; one instance per checked expression (it counts the replace functions). */
export class ValueChecker {
  private replaceCalls = 0;
  private concatCalls = 0;

  constructor(private readonly env: ValueEnv) {}

  /** The plan of a value node, or undefined (with diagnostics). */
  value(node: A.ValueNode): ValuePlan | undefined {
    switch (node.kind) {
      case 'field': {
        const f = this.env.field(node.name, node.range);
        if (!f) return undefined;
        if (f.rawHeader) {
          this.push('function-arguments', `${f.name} is raw header bytes: read bits with bit_slice(${f.name}, start, end)`, node.range);
          return undefined;
        }
        return { kind: 'field', field: f, type: f.container ? parseValueType(f.container, f.type) : f.type, multi: false };
      }
      case 'index':
        return this.index(node);
      case 'call':
        return this.call(node);
    }
  }

  private index(node: A.IndexNode): ValuePlan | undefined {
    const target = this.value(node.target);
    if (!target) return undefined;
    const t = target.type;
    const what = `${print(node.target)} is ${article(typeText(t))} ${typeText(t)}`;
    if (isScalar(t)) {
      this.push('index-type-mismatch', `${what}: only arrays and maps are indexed with [ ]`, node.range);
      return undefined;
    }
    const inner = 'array' in t ? t.array : t.map;
    if (node.key === null) return { kind: 'star', target, type: inner, multi: true };
    const key = node.key;
    if ('map' in t) {
      if (key.form !== 'string' && key.form !== 'raw') {
        this.push('index-type-mismatch', `${what}: its keys are strings in quotes, e.g. ${print(node.target)}["${key.text}"]`, key.range, {
          fix: { title: `write ["${key.text}"]`, edits: [{ range: key.range, newText: JSON.stringify(key.text) }] },
        });
        return undefined;
      }
      const name = key.value ?? '';
      if (target.kind === 'field' && LOWER_CASE_KEYS.has(target.field.name) && name !== name.toLowerCase()) {
        const lower = JSON.stringify(name.toLowerCase());
        this.push('uppercase-map-key', `the keys of ${target.field.name} are lower case, so ${key.text} never matches; write ${lower}`, key.range, {
          fix: { title: `write ${lower}`, edits: [{ range: key.range, newText: lower }] },
        });
      }
      return { kind: 'key', target, key: name, type: inner, multi: target.multi };
    }
    const r = key.form === 'int' ? readIntText(key.text) : undefined;
    if (!r || !r.ok || r.value < 0 || !Number.isSafeInteger(r.value)) {
      this.push('index-type-mismatch', `${what}: its items are read by position, a non-negative integer such as [0] (or every item with [*])`, key.range);
      return undefined;
    }
    return { kind: 'at', target, index: r.value, type: inner, multi: target.multi };
  }

  /** Plan of a call of a catalog function with generic parameters. */
  call(node: A.CallNode): ValuePlan | undefined {
    const fn = this.function(node);
    if (!fn) return undefined;
    if (fn.quantifier || fn.check || !fn.params || !fn.run) {
      this.push('function-arguments', `${node.name}() is a condition, not a value: use it on its own (${fn.example})`, node.range);
      return undefined;
    }
    if (!this.restriction(node, fn)) return undefined;
    const params = fn.params;
    const required = params.filter((p) => !p.optional).length;
    const variadic = params[params.length - 1]?.variadic === true;
    const n = node.args.length;
    if (n < required || (!variadic && n > params.length)) {
      const count = variadic ? `at least ${required}` : required === params.length ? `${required}` : `${required} to ${params.length}`;
      this.push('function-arguments', `${node.name} takes ${count} argument${count === '1' ? '' : 's'}, not ${n}: ${fn.signature}`, node.range, { data: { function: node.name } });
      return undefined;
    }
    const plans: ValuePlan[] = [];
    const checks: ParamCheck[] = [];
    const literals: (LiteralArg | undefined)[] = [];
    let ok = true;
    for (let i = 0; i < n; i++) {
      const param = params[Math.min(i, params.length - 1)]!;
      const arg = node.args[i]!;
      const plan = this.argument(node, fn, param, arg);
      if (!plan) {
        ok = false;
        continue;
      }
      plans.push(plan);
      checks.push(plan.kind === 'literal' ? 'any' : CHECK_OF[param.type]);
      literals.push(plan.kind === 'literal' ? { value: plan.value, node: arg } : undefined);
    }
    if (!ok) return undefined;
    if (plans.filter((p) => p.multi).length > 1) {
      this.push('function-arguments', `${node.name}() takes at most one argument unpacked with [*]`, node.range);
      return undefined;
    }
    // The docs allow [*] in a function's first argument only (the call is then made per item).
    const starAt = plans.findIndex((p) => p.multi);
    if (starAt > 0) {
      this.push('function-arguments', `${node.name}(): [*] may unpack only a function's first argument, not argument ${starAt + 1}`, node.args[starAt]!.range);
      return undefined;
    }
    if (fn.literals && !fn.literals(literals, node, this.env.out)) return undefined;
    // A literal the check consumed (wildcard_replace's flags, compiled into its pattern) is dropped.
    literals.forEach((l, i) => {
      const p = plans[i]!;
      if (l && p.kind === 'literal') p.value = l.value;
    });
    while (plans.length && plans[plans.length - 1]!.kind === 'literal' && (plans[plans.length - 1] as { value: unknown }).value === undefined) {
      plans.pop();
      checks.pop();
    }
    const returns = typeof fn.returns === 'function' ? fn.returns(plans.map((p) => p.type)) : fn.returns;
    if (returns === undefined) {
      this.push('function-arguments', `${node.name}: ${fn.mismatch ?? 'takes all strings or all arrays of one type'}: ${fn.signature}`, node.range);
      return undefined;
    }
    // With an unpacked argument the call is made per item and gives an array (wirefilter: `lower(x[*])` is
    // an Array<String>, unpacked again with [*] to compare its items).
    const each = plans.some((p) => p.multi);
    return { kind: 'call', name: node.name, run: fn.run, args: plans, params: checks, type: each ? { array: returns } : returns, multi: false };
  }

  /** The catalog entry of a call, or undefined (unknown-function). */
  function(node: A.CallNode): FunctionInfo | undefined {
    const fn = Object.hasOwn(FUNCTIONS, node.name) ? FUNCTIONS[node.name] : undefined;
    if (fn && !this.env.rulesLanguage && !fn.check) {
      this.push('unknown-function', `network rule expressions have one function, bit_slice(field, start_bit, end_bit); ${node.name}() is a function of the HTTP phases`, node.nameRange);
      return undefined;
    }
    if (fn) return fn;
    const guess = suggest(node.name, Object.keys(FUNCTIONS));
    this.push('unknown-function', `unknown function ${node.name}()${guess ? `; did you mean ${guess}?` : ''}`, node.nameRange, {
      fix: guess ? { title: `replace with ${guess}`, edits: [{ range: node.nameRange, newText: guess }] } : undefined,
    });
    return undefined;
  }

  /** Is this function allowed here? (value-only functions in filters, phase-only ones elsewhere, replace once). */
  restriction(node: A.CallNode, fn: FunctionInfo): boolean {
    const r = fn.restriction;
    if (r?.valueOnly && this.env.context !== 'value') {
      this.push('function-context', `${node.name}() is only available in ${r.where}, not in a filter expression`, node.nameRange, { data: { function: node.name } });
      return false;
    }
    if (r?.phases && this.env.phase === undefined) {
      // A linter without the phase (an expression checked on its own, a ruleset whose phase is not
      // written out) cannot refuse it, nor pass it silently: it says where the function is allowed.
      this.push('function-phase-unknown', `${node.name}() is only available in ${r.where} (phases ${r.phases.join(', ')}); the phase is not known here, so this use was not checked`, node.nameRange, {
        data: { function: node.name, phases: [...r.phases] },
      });
    }
    if (r?.phases && this.env.phase !== undefined && !r.phases.includes(this.env.phase)) {
      this.push('function-context', `${node.name}() is only available in ${r.where} (phases ${r.phases.join(', ')}), not in ${this.env.phase}`, node.nameRange, {
        data: { function: node.name, phase: this.env.phase },
      });
      return false;
    }
    if (fn.once === 'concat' && this.env.context === 'value' && ++this.concatCalls > 1) {
      this.push('function-context', `concat() may be used once in a rewrite expression (the URL rewrite reference); join the parts in one concat(…)`, node.nameRange, { data: { function: node.name } });
      return false;
    }
    if (fn.once === 'replace' && ++this.replaceCalls > 1) {
      this.push('function-context', `regex_replace() and wildcard_replace() may be used once per expression, and not nested in each other`, node.nameRange, { data: { function: node.name } });
      return false;
    }
    return true;
  }

  private argument(call: A.CallNode, fn: FunctionInfo, param: Param, arg: A.ArgNode): ValuePlan | undefined {
    const label = `the ${param.name} of ${call.name}`;
    if (arg.kind === 'literal') {
      if (param.notLiteral) {
        this.push('function-literal-argument', `${label} cannot be a literal: it must be a field (or a function of one), e.g. ${fn.example}`, arg.range, { data: { function: call.name, param: param.name } });
        return undefined;
      }
      return this.literal(label, param.type, arg);
    }
    if (!isValueNode(arg)) {
      this.push('function-arguments', `${label} is a value, not a condition; only any() and all() take a condition`, arg.range);
      return undefined;
    }
    if (param.literal) {
      this.push('function-literal-argument', `${label} must be a literal (written in the expression), not ${print(arg)}`, arg.range, { data: { function: call.name, param: param.name } });
      return undefined;
    }
    const plan = this.value(arg);
    if (!plan) return undefined;
    if (!SCALAR_OF[param.type](plan.type)) {
      const type = typeText(plan.type);
      const hint = !isScalar(plan.type) && isScalarParam(param.type) ? `; read its items with [0] or every item with [*], as in ${call.name}(${print(arg)}[*])` : '';
      this.push('function-arguments', `${label} is ${article(param.type)} ${param.type}; ${print(arg)}${plan.multi ? '[…] items are' : ' is'} ${article(type)} ${type}${hint}`, arg.range, {
        data: { function: call.name, param: param.name, expected: param.type, actual: type },
      });
      return undefined;
    }
    return plan;
  }

  private literal(label: string, type: ParamType, lit: A.LiteralNode): ValuePlan | undefined {
    const out = this.env.out;
    const plan = (value: unknown, t: ValueType): ValuePlan => ({ kind: 'literal', value, type: t, multi: false });
    switch (type) {
      case 'Int': {
        const v = readInt(lit, undefined, out);
        return v === undefined ? undefined : plan(v, 'Int');
      }
      case 'Ip': {
        const ip = readIp(lit, undefined, out);
        if (!ip) return undefined;
        if (ip.kind !== 'address') {
          this.push('function-arguments', `${label} is one address, not a CIDR`, lit.range);
          return undefined;
        }
        return plan(lit.text, 'Ip');
      }
      case 'String|Int':
        return this.literal(label, lit.form === 'int' ? 'Int' : 'String', lit);
      case 'Scalar':
        return this.literal(label, lit.form === 'int' ? 'Int' : lit.form === 'string' || lit.form === 'raw' ? 'String' : 'Ip', lit);
      case 'String':
      case 'String|Array': {
        const v = readString(lit, undefined, out);
        return v === undefined ? undefined : plan(v, 'String');
      }
      case 'Int|Bool|Ip':
        if (lit.form === 'int') return this.literal(label, 'Int', lit);
        return this.literal(label, 'Ip', lit);
      default:
        this.push('function-arguments', `${label} is ${article(type)} ${type}, which no literal is`, lit.range);
        return undefined;
    }
  }

  private push(code: Parameters<typeof expressionDiagnostic>[0], message: string, range: Range, extra: Parameters<typeof expressionDiagnostic>[3] = {}): void {
    this.env.out.push(expressionDiagnostic(code, message, range, extra));
  }
}

function isScalarParam(t: ParamType): boolean {
  return !t.includes('Array');
}

function article(word: string): string {
  return /^[AEIOU]/.test(word) ? 'an' : 'a';
}
