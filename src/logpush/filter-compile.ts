/**
 * Compiled matchers of checked Logpush filters — the hot path, hand-written on purpose.
 *
 * Two back ends with the interpreter's semantics (filter-eval.ts):
 * - `codegen`: one JavaScript function whose body is the filter as a boolean expression, built with
 *   `new Function`. User text enters the code only as literals from `jsLiteral` (src/codegen); sets of more than
 *   a few values are passed in as `Set` objects, not as code.
 * - `closures`: a tree of specialised closures, for pages whose Content-Security-Policy forbids
 *   `new Function` (`auto` falls back to it when construction throws).
 * @module
 */
import type { FilterClause, FilterNode, FilterScalar, LogFilter } from './filter-ast.js';
import { isArrayType, scalarEquals } from './filter-eval.js';
import { OPERATOR_BY_NAME, type FilterOperator } from './operators.js';
import { jsLiteral, jsString } from '../codegen/index.js';

/** A compiled filter: true when the line passes the filter (is sent). */
export type LogLineMatcher = (line: Record<string, unknown>) => boolean;

/** Which back end builds the matcher. */
export type CompileMode = 'auto' | 'codegen' | 'closures';

/** Above this many values an `in` uses a Set instead of a chain of `===` (measured: a chain of 10 strings beats Set.has on parsed lines). */
const INLINE_SET_MAX = 16;

/** Values an `in` operand matches on a line: an int of an `int or string` field also as its string. */
function setValues(c: FilterClause): FilterScalar[] {
  const out: FilterScalar[] = [];
  for (const o of c.operand as FilterScalar[]) {
    out.push(o);
    if (c.fieldType === 'int_or_string' && typeof o === 'number') out.push(String(o));
  }
  return [...new Set(out)];
}

/** Does some element of an array lie in the set (helper of generated code and closures). */
function someIn(a: unknown[], s: Set<unknown>): boolean {
  for (let i = 0; i < a.length; i++) if (s.has(a[i])) return true;
  return false;
}

// ---------------------------------------------------------------- codegen

class Gen {
  readonly consts: unknown[] = [];

  /** A positive test of base operator `op` where `v0` is the first mention of the value and `v` the rest. */
  private pos(op: FilterOperator, c: FilterClause, v0: string, v: string): string {
    const o = c.operand;
    switch (op) {
      case 'eq': {
        const lit = jsLiteral(o as FilterScalar);
        if (c.fieldType === 'int_or_string' && typeof o === 'number') return `(${v0} === ${lit} || ${v} === ${jsString(String(o))})`;
        return `${v0} === ${lit}`;
      }
      case 'lt': return `(typeof ${v0} === "number" && ${v} < ${jsLiteral(o as number)})`;
      case 'leq': return `(typeof ${v0} === "number" && ${v} <= ${jsLiteral(o as number)})`;
      case 'gt': return `(typeof ${v0} === "number" && ${v} > ${jsLiteral(o as number)})`;
      case 'geq': return `(typeof ${v0} === "number" && ${v} >= ${jsLiteral(o as number)})`;
      case 'startsWith': return `(typeof ${v0} === "string" && ${v}.startsWith(${jsString(o as string)}))`;
      case 'endsWith': return `(typeof ${v0} === "string" && ${v}.endsWith(${jsString(o as string)}))`;
      case 'contains':
        if (isArrayType(c.fieldType)) return `(Array.isArray(${v0}) && ${v}.includes(${jsLiteral(o as FilterScalar)}))`;
        return `(typeof ${v0} === "string" && ${v}.includes(${jsString(o as string)}))`;
      case 'in': {
        const values = setValues(c);
        if (isArrayType(c.fieldType)) {
          const k = this.consts.push(new Set(values)) - 1;
          return `(Array.isArray(${v0}) && someIn(${v}, k${k}))`;
        }
        if (values.length === 0) return 'false';
        if (values.length <= INLINE_SET_MAX) {
          return `(${values.map((x, i) => `${i === 0 ? v0 : v} === ${jsLiteral(x)}`).join(' || ')})`;
        }
        const k = this.consts.push(new Set(values)) - 1;
        return `k${k}.has(${v0})`;
      }
      default:
        return 'false';
    }
  }

  clause(c: FilterClause): string {
    const info = OPERATOR_BY_NAME.get(c.operator)!;
    const acc = `r[${jsString(c.key)}]`;
    if (info.negates) return `((t = ${acc}) != null && !(${this.pos(info.negates, c, "t", "t")}))`;
    // `eq` and large `in` mention the value once: no temporary needed.
    return this.pos(c.operator, c, `(t = ${acc})`, 't').replace(/^\(t = (r\[[^\]]*\])\) === /, '$1 === ');
  }

  node(n: FilterNode): string {
    if (n.kind === 'clause') return this.clause(n);
    const op = n.kind === 'and' ? ' && ' : ' || ';
    return `(${n.children.map((c) => this.node(c)).join(op)})`;
  }
}

/** The source of the generated matcher body (for inspection and tests). */
export function generateMatcherSource(filter: LogFilter): { source: string; consts: unknown[] } {
  const g = new Gen();
  const expr = g.node(filter.where);
  // Constants (Sets) are bound once to local names, so the matcher reads them from its context.
  const bind = g.consts.map((_, i) => `const k${i} = k[${i}];\n`).join('');
  const source = `"use strict";\n${bind}return function logFilterMatcher(r) {\n  var t;\n  if (r == null) return false;\n  return ${expr};\n};`;
  return { source, consts: g.consts };
}

function compileCodegen(filter: LogFilter): LogLineMatcher {
  const { source, consts } = generateMatcherSource(filter);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function('k', 'someIn', source) as (k: unknown[], s: typeof someIn) => LogLineMatcher;
  return factory(consts, someIn);
}

// ---------------------------------------------------------------- closures

type Test = (v: unknown) => boolean;

function positiveTest(op: FilterOperator, c: FilterClause): Test {
  const o = c.operand;
  switch (op) {
    case 'eq': {
      if (c.fieldType === 'int_or_string' && typeof o === 'number') {
        const s = String(o);
        return (v) => v === o || v === s;
      }
      return (v) => v === o;
    }
    case 'lt': { const n = o as number; return (v) => typeof v === 'number' && v < n; }
    case 'leq': { const n = o as number; return (v) => typeof v === 'number' && v <= n; }
    case 'gt': { const n = o as number; return (v) => typeof v === 'number' && v > n; }
    case 'geq': { const n = o as number; return (v) => typeof v === 'number' && v >= n; }
    case 'startsWith': { const s = o as string; return (v) => typeof v === 'string' && v.startsWith(s); }
    case 'endsWith': { const s = o as string; return (v) => typeof v === 'string' && v.endsWith(s); }
    case 'contains': {
      if (isArrayType(c.fieldType)) return (v) => Array.isArray(v) && v.includes(o);
      const s = o as string;
      return (v) => typeof v === 'string' && v.includes(s);
    }
    case 'in': {
      const set = new Set<unknown>(setValues(c));
      if (isArrayType(c.fieldType)) return (v) => Array.isArray(v) && someIn(v, set);
      return (v) => set.has(v);
    }
    default:
      return () => false;
  }
}

/** A positive clause as one closure that reads the field itself (no second call per clause). */
function positiveClause(c: FilterClause): LogLineMatcher | undefined {
  const k = c.key;
  const o = c.operand;
  if (c.fieldType === 'int_or_string' || isArrayType(c.fieldType)) return undefined;
  switch (c.operator) {
    case 'eq': return (r) => r[k] === o;
    case 'lt': { const n = o as number; return (r) => { const v = r[k]; return typeof v === 'number' && v < n; }; }
    case 'leq': { const n = o as number; return (r) => { const v = r[k]; return typeof v === 'number' && v <= n; }; }
    case 'gt': { const n = o as number; return (r) => { const v = r[k]; return typeof v === 'number' && v > n; }; }
    case 'geq': { const n = o as number; return (r) => { const v = r[k]; return typeof v === 'number' && v >= n; }; }
    case 'startsWith': { const x = o as string; return (r) => { const v = r[k]; return typeof v === 'string' && v.startsWith(x); }; }
    case 'endsWith': { const x = o as string; return (r) => { const v = r[k]; return typeof v === 'string' && v.endsWith(x); }; }
    case 'contains': { const x = o as string; return (r) => { const v = r[k]; return typeof v === 'string' && v.includes(x); }; }
    case 'in': {
      const set = new Set<unknown>(setValues(c));
      return (r) => set.has(r[k]);
    }
    default: return undefined;
  }
}

function clauseClosure(c: FilterClause): LogLineMatcher {
  const key = c.key;
  const info = OPERATOR_BY_NAME.get(c.operator)!;
  if (info.negates) {
    const t = positiveTest(info.negates, c);
    return (r) => {
      const v = r[key];
      return v != null && !t(v);
    };
  }
  const direct = positiveClause(c);
  if (direct) return direct;
  const t = positiveTest(c.operator, c);
  return (r) => t(r[key]);
}

function nodeClosure(n: FilterNode): LogLineMatcher {
  if (n.kind === 'clause') return clauseClosure(n);
  const parts = n.children.map(nodeClosure);
  if (parts.length === 1) return parts[0]!;
  if (n.kind === 'and') {
    if (parts.length === 2) { const [a, b] = parts as [LogLineMatcher, LogLineMatcher]; return (r) => a(r) && b(r); }
    if (parts.length === 3) { const [a, b, c] = parts as [LogLineMatcher, LogLineMatcher, LogLineMatcher]; return (r) => a(r) && b(r) && c(r); }
    return (r) => { for (let i = 0; i < parts.length; i++) if (!parts[i]!(r)) return false; return true; };
  }
  if (parts.length === 2) { const [a, b] = parts as [LogLineMatcher, LogLineMatcher]; return (r) => a(r) || b(r); }
  if (parts.length === 3) { const [a, b, c] = parts as [LogLineMatcher, LogLineMatcher, LogLineMatcher]; return (r) => a(r) || b(r) || c(r); }
  return (r) => { for (let i = 0; i < parts.length; i++) if (parts[i]!(r)) return true; return false; };
}

function compileClosures(filter: LogFilter): LogLineMatcher {
  const m = nodeClosure(filter.where);
  return (r) => r != null && m(r);
}

/**
 * Compile a checked filter into a matcher. `auto` (default) generates code and falls back to closures
 * when the environment forbids `new Function` (a CSP without `unsafe-eval`).
 */
export function compileMatcher(filter: LogFilter, mode: CompileMode = 'auto'): LogLineMatcher {
  if (mode === 'closures') return compileClosures(filter);
  if (mode === 'codegen') return compileCodegen(filter);
  try {
    return compileCodegen(filter);
  } catch {
    return compileClosures(filter);
  }
}

