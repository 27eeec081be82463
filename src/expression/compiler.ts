/**
 * The compiled matcher: turns a checked AST once into one JavaScript function (wirefilter compiles each
 * node once into a closure; we go one step further and generate the source of a single function, so V8
 * inlines field loads with constant keys — the benchmark in bench/expression.ts shows it matching a
 * hand-written closure). User text enters the generated source ONLY through `jsString` (src/codegen);
 * numbers are validated safe integers; sets, regexes and IP
 * indexes are passed in as constants, never as source. Where `new Function` is not allowed (a strict
 * Content-Security-Policy), {@link compile} falls back to a tree of closures with the same semantics.
 * @module
 */
import type * as A from './ast.js';
import type { CheckedExpression } from './checker.js';
import { evaluatePredicate, type Packet } from './interpreter.js';
import { compareValues } from './bytes.js';
import { bitSlice, bitwiseAnd, combineVector, compareBig, compareIpText, inRanges, notVector, type LhsPlan, type Predicate, type VectorPlan } from './predicates.js';
import { arrayAt, callFunction, mapKey, readField, unpack, unpackEach, type ValuePlan } from './values.js';
import { isIpAddressText, type IpSet } from '../net/index.js';
import { evaluationOrder, INLINE_SET_MAX } from './cost.js';
import { jsString } from '../codegen/index.js';

/** A compiled matcher: true when the packet matches. */
export type Matcher = (packet: Packet) => boolean;

/** Options of {@link compile}. */
export interface CompileOptions {
  /** Generate a function with `new Function` (default true); false builds closures. */
  codegen?: boolean;
}

/** Runtime helpers the generated code calls (`h` in generated source). */
export const HELPERS = Object.freeze({
  bitSlice,
  bitwiseAnd,
  inRanges,
  ipCmp: compareIpText,
  cmpBytes: compareValues,
  ipNe: (set: IpSet, t: string) => isIpAddressText(t) && !set.has(t),
  compareBig,
  mapKey,
  arrayAt,
  unpack,
  unpackEach,
  callFunction,
  readField,
  /** Combine boolean arrays item by item, to the shorter one (wirefilter's and/or/xor on Array<Bool>); a boolean is every item's. */
  zip: combineVector,
  notVector,
  /** any()/all() of a vector value. */
  quantify: (op: 'any' | 'all', v: boolean[] | boolean) => (typeof v === 'boolean' ? v : op === 'any' ? v.includes(true) : !v.includes(false)),
});

/** The packet used in place of a non-object (`E` in generated source). */
export const EMPTY_PACKET: Packet = Object.freeze({});
const EMPTY = EMPTY_PACKET;

/** Compile a checked expression (which must have no errors) into a matcher. */
export function compile(checked: CheckedExpression, options: CompileOptions = {}): Matcher {
  if (options.codegen !== false) {
    const generated = generate(checked);
    try {
      const factory = new Function('k', 'h', 'E', generated.source) as (k: unknown[], h: typeof HELPERS, e: Packet) => Matcher;
      return factory(generated.constants, HELPERS, EMPTY);
    } catch {
      // new Function is blocked (CSP): fall through to closures.
    }
  }
  return closures(checked, checked.ast);
}

/** Generated source and its constants (exposed for tests that inspect what user text became). */
export interface GeneratedMatcher {
  source: string;
  constants: unknown[];
}

/** Generate the matcher's source. */
export function generate(checked: CheckedExpression): GeneratedMatcher {
  const constants: unknown[] = [];
  const k = (v: unknown) => `k[${constants.push(v) - 1}]`;
  const body = emitExpression(checked, { constant: k, field: (name) => `p[${jsString(name)}]` });
  const source = `"use strict";\nreturn function match(p) {\n  if (p === null || typeof p !== "object") p = E;\n  let t;\n  return ${body};\n};`;
  return { source, constants };
}

/** How generated code reaches constants and packet fields. */
export interface EmitContext {
  /** Register a constant; returns the source that reads it (`k[3]`). */
  constant(value: unknown): string;
  /** Source that reads a packet field (`p["tcp.dstport"]`, or a variable the caller loaded once). */
  field(name: string): string;
  /**
   * The source of a whole predicate, when the caller holds packet values in another form than a packet
   * object (the simulator's numeric slots); undefined: the default code on packet values.
   */
  predicate?(p: Predicate): string | undefined;
  /**
   * Operands of `and`/`or` to evaluate all, without short-circuit (joined with `&`/`|`): for cheap tests
   * on numbers, where running every compare on every call gives V8 type feedback for each of them at once
   * instead of deoptimizing a large generated function each time a rarely reached compare first runs.
   */
  eager?(c: CheckedExpression, node: A.ExprNode): boolean;
}

/**
 * The source of a boolean JS expression equivalent to a checked expression. It uses `t` as scratch,
 * `h` for {@link HELPERS}, and the context for constants and fields; the caller declares them.
 */
export function emitExpression(checked: CheckedExpression, ctx: EmitContext): string {
  return emit(checked, checked.ast, ctx);
}

function emit(c: CheckedExpression, node: A.ExprNode, k: EmitContext): string {
  switch (node.kind) {
    case 'logical': {
      // and/or operands cheapest first (src/expression/cost.ts): same verdict, less work.
      const ordered = evaluationOrder(c, node);
      if (node.op !== 'xor' && k.eager) {
        // Operands the caller calls eager are all evaluated, joined with `&`/`|` (see EmitContext.eager).
        const eager: A.ExprNode[] = [];
        const others: A.ExprNode[] = [];
        for (const o of ordered) (k.eager(c, o) ? eager : others).push(o);
        if (eager.length > 1) {
          const rest = others.map((o) => emit(c, o, k));
          const bits = `((${eager.map((o) => emit(c, o, k)).join(node.op === 'and' ? ' & ' : ' | ')}) !== 0)`;
          return `(${[bits, ...rest].join(node.op === 'and' ? ' && ' : ' || ')})`;
        }
      }
      const parts = ordered.map((o) => emit(c, o, k));
      if (node.op === 'and') return `(${parts.join(' && ')})`;
      if (node.op === 'or') return `(${parts.join(' || ')})`;
      return `((${parts.map((x) => `(${x} ? 1 : 0)`).join(' ^ ')}) === 1)`;
    }
    case 'not':
      return `!${emit(c, node.operand, k)}`;
    case 'group':
      return emit(c, node.expr, k);
    case 'error':
      return 'false';
    default: {
      const pred = c.predicates.get(node.id);
      return pred ? (k.predicate?.(pred) ?? emitPredicate(pred, k)) : 'false';
    }
  }
}

const TYPEOF: Record<Predicate['kind'], string> = {
  bare: 'boolean', int: 'number', 'int-set': 'number', string: 'string', 'string-set': 'string', regex: 'string', ip: 'string', 'ip-set': 'string', 'string-list': 'string',
};

/**
 * A condition on the variable named `t` (default `t`), which holds a present value; `typed` says whether
 * it already checks the type.
 * Constants go through `ctx.constant`; user text only through `jsString`.
 */
export function condition(p: Predicate, ctx: EmitContext, t = 't'): { code: string; typed: boolean } {
  const k = (v: unknown) => ctx.constant(v);
  switch (p.kind) {
    case 'bare':
      return { code: `${t} === true`, typed: true };
    case 'int': {
      // Beyond 2^53 the literal is a BigInt constant, compared exactly.
      if (p.big !== undefined) return { code: `h.compareBig(${t}, "${p.op}", ${k(p.big)})`, typed: false };
      const n = String(p.value);
      switch (p.op) {
        case 'eq': return { code: `${t} === ${n}`, typed: true };
        case 'ne': return { code: `${t} !== ${n}`, typed: false };
        case 'lt': return { code: `${t} < ${n}`, typed: false };
        case 'le': return { code: `${t} <= ${n}`, typed: false };
        case 'gt': return { code: `${t} > ${n}`, typed: false };
        case 'ge': return { code: `${t} >= ${n}`, typed: false };
        case 'bitwise_and': return { code: `h.bitwiseAnd(${t}, ${n})`, typed: false };
      }
      break;
    }
    case 'string': {
      const s = jsString(p.value);
      switch (p.op) {
        case 'eq': return { code: `${t} === ${s}`, typed: true };
        case 'ne': return { code: `${t} !== ${s}`, typed: false };
        case 'lt': return { code: `h.cmpBytes(${t}, ${s}) < 0`, typed: false };
        case 'le': return { code: `h.cmpBytes(${t}, ${s}) <= 0`, typed: false };
        case 'gt': return { code: `h.cmpBytes(${t}, ${s}) > 0`, typed: false };
        case 'ge': return { code: `h.cmpBytes(${t}, ${s}) >= 0`, typed: false };
        case 'contains': return { code: `${t}.includes(${s})`, typed: false };
      }
      break;
    }
    case 'regex':
      return { code: `${k(p.re)}.test(${t})`, typed: false };
    case 'ip':
      if (p.op === 'eq') return { code: `${k(p.set)}.has(${t})`, typed: false };
      if (p.op === 'ne') return { code: `h.ipNe(${k(p.set)}, ${t})`, typed: false };
      return { code: `h.ipCmp(${t}, ${k(p.value)}) ${{ lt: '<', le: '<=', gt: '>', ge: '>=' }[p.op]} 0`, typed: false };
    case 'int-set': {
      if (p.values.length + p.ranges.length <= INLINE_SET_MAX) {
        const alts = [...p.values.map((v) => `${t} === ${v}`), ...p.ranges.map(([lo, hi]) => `(${t} >= ${lo} && ${t} <= ${hi})`)];
        return { code: alts.length ? `(${alts.join(' || ')})` : 'false', typed: p.ranges.length === 0 };
      }
      const parts: string[] = [];
      if (p.values.length) parts.push(`${k(new Set(p.values))}.has(${t})`);
      if (p.ranges.length) parts.push(`h.inRanges(${k(p.ranges)}, ${t})`);
      return { code: `(${parts.join(' || ')})`, typed: p.ranges.length === 0 };
    }
    case 'string-set': {
      if (p.values.size <= INLINE_SET_MAX) {
        const alts = [...p.values].map((v) => `${t} === ${jsString(v)}`);
        return { code: alts.length ? `(${alts.join(' || ')})` : 'false', typed: true };
      }
      return { code: `${k(p.values)}.has(${t})`, typed: true };
    }
    case 'ip-set':
      return { code: `${k(p.set)}.has(${t})`, typed: false };
    case 'string-list':
      return { code: `${k(p.set)}.has(${t})`, typed: false };
  }
  return { code: 'false', typed: true };
}

function emitPredicate(p: Predicate, ctx: EmitContext): string {
  const { code, typed } = condition(p, ctx);
  const test = typed ? code : `typeof t === "${TYPEOF[p.kind]}" && ${code}`;
  return read(p.lhs, test, ctx);
}

/** Read the left-hand side into `t` and apply `test` (anyOf: to each side until one holds). */
function read(lhs: LhsPlan, test: string, ctx: EmitContext): string {
  if (lhs.kind === 'value') return `(t = ${emitValue(lhs.plan, ctx)}, ${test})`;
  if (lhs.kind === 'quantifier') {
    const v = emitVector(lhs.arg, ctx);
    return `(t = h.quantify("${lhs.op}", ${v}), ${test})`;
  }
  const key = ctx.field(lhs.field.name);
  if (lhs.kind === 'bit_slice') return `(t = h.bitSlice(${key}, ${lhs.start}, ${lhs.end}), t !== undefined && ${test})`;
  const f = lhs.field;
  if (f.aliasOf !== undefined) return `(t = ${key}, t === undefined && (t = ${ctx.field(f.aliasOf)}), ${test})`;
  if (f.anyOf && f.anyOf.length) {
    const sides = f.anyOf.map((n) => `(t = ${ctx.field(n)}, ${test})`).join(' || ');
    return `((t = ${key}) !== undefined ? (${test}) : (${sides}))`;
  }
  return `(t = ${key}, ${test})`;
}

/**
 * The source of a value plan: a value or undefined, or (unpacked with [*]) an array of them. Steps on an
 * unpacked value map over its items; functions are called through `h.callFunction` with the catalog's
 * implementation as a constant.
 */
function emitValue(plan: ValuePlan, ctx: EmitContext): string {
  const k = (v: unknown) => ctx.constant(v);
  switch (plan.kind) {
    case 'field':
      return plan.field.aliasOf === undefined ? ctx.field(plan.field.name) : `h.readField(${k(plan.field)}, p)`;
    case 'literal':
      return k(plan.value);
    case 'key': {
      const key = jsString(plan.key);
      const target = emitValue(plan.target, ctx);
      return plan.target.multi ? `${target}.map((x) => h.mapKey(x, ${key}))` : `h.mapKey(${target}, ${key})`;
    }
    case 'at': {
      const target = emitValue(plan.target, ctx);
      return plan.target.multi ? `${target}.map((x) => h.arrayAt(x, ${plan.index}))` : `h.arrayAt(${target}, ${plan.index})`;
    }
    case 'star':
      return `h.${plan.target.multi ? 'unpackEach' : 'unpack'}(${emitValue(plan.target, ctx)})`;
    case 'call':
      return `h.callFunction(${k(plan.run)}, ${k(plan.params)}, [${plan.args.map((a) => emitValue(a, ctx)).join(', ')}], ${plan.args.findIndex((a) => a.multi)})`;
  }
}

/** The source of a vector plan: an array of booleans. */
function emitVector(v: VectorPlan, ctx: EmitContext): string {
  switch (v.kind) {
    case 'test': {
      const p = v.predicate;
      if (p.lhs.kind !== 'value') return '[]';
      const { code, typed } = condition(p, ctx, 't');
      const test = typed ? code : `typeof t === "${TYPEOF[p.kind]}" && ${code}`;
      return `${emitValue(p.lhs.plan, ctx)}.map((t) => ${test})`;
    }
    case 'scalar':
      return `(${emitPredicate(v.predicate, ctx)})`;
    case 'not':
      return `h.notVector(${emitVector(v.item, ctx)})`;
    case 'logical':
      return `h.zip("${v.op}", [${v.items.map((i) => emitVector(i, ctx)).join(', ')}])`;
  }
}

/** The closure fallback: one closure per node, leaves evaluate their resolved predicate. */
function closures(c: CheckedExpression, node: A.ExprNode): Matcher {
  switch (node.kind) {
    case 'logical': {
      const parts = evaluationOrder(c, node).map((o) => closures(c, o));
      if (node.op === 'and') return (p) => parts.every((f) => f(p));
      if (node.op === 'or') return (p) => parts.some((f) => f(p));
      return (p) => parts.reduce((acc, f) => acc !== f(p), false);
    }
    case 'not': {
      const inner = closures(c, node.operand);
      return (p) => !inner(p);
    }
    case 'group':
      return closures(c, node.expr);
    case 'error':
      return () => false;
    default: {
      const pred = c.predicates.get(node.id);
      if (!pred) return () => false;
      return (p) => evaluatePredicate(pred, p !== null && typeof p === 'object' ? p : EMPTY);
    }
  }
}
