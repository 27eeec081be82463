/**
 * Values of the whole Rules language beyond a plain field: their types (`Array<String>`,
 * `Map<Array<String>>`), the plans the checker makes of `[ ]` / `[*]` indexing and function calls, and the
 * one runtime both the interpreter and the compiled matcher evaluate them with.
 *
 * `[*]` follows wirefilter's map-each: after it a value is "unpacked" (here: `multi`), held at run time as
 * a JS array of item values; an index or a function call applies to each item, and a comparison gives one
 * boolean per item, which only `any()` / `all()` turn into a condition. A missing value (absent field,
 * missing key, index out of range, an item of the wrong JS type) is `undefined` and compares false.
 * @module
 */
import type { FieldDef, FieldType } from './scheme.js';

/** A value type: a scalar, or an array or map of a value type. */
export type ValueType = FieldType | { array: ValueType } | { map: ValueType };

/** Read a documented type (`Map<Array<String>>`) into a {@link ValueType}; the scalar is `inner`. */
export function parseValueType(doc: string, inner: FieldType): ValueType {
  const m = /^(Array|Map)<(.*)>$/.exec(doc);
  if (!m) return inner;
  const of = parseValueType(m[2]!, inner);
  return m[1] === 'Array' ? { array: of } : { map: of };
}

/** The type written as the docs write it. */
export function typeText(t: ValueType): string {
  if (typeof t === 'string') return t;
  return 'array' in t ? `Array<${typeText(t.array)}>` : `Map<${typeText(t.map)}>`;
}

/** Is this type a scalar? */
export function isScalar(t: ValueType): t is FieldType {
  return typeof t === 'string';
}

/** How a value is computed from a request record. */
export type ValuePlan =
  | { kind: 'field'; field: FieldDef; type: ValueType; multi: false }
  | { kind: 'literal'; value: unknown; type: ValueType; multi: false }
  | { kind: 'key'; target: ValuePlan; key: string; type: ValueType; multi: boolean }
  | { kind: 'at'; target: ValuePlan; index: number; type: ValueType; multi: boolean }
  | { kind: 'star'; target: ValuePlan; type: ValueType; multi: true }
  | { kind: 'call'; name: string; run: FunctionRun; args: ValuePlan[]; params: readonly ParamCheck[]; type: ValueType; multi: false };

/** A function's implementation: present, well-typed arguments in; its result, or undefined (missing), out. */
export type FunctionRun = (...args: unknown[]) => unknown;

/** What a parameter accepts at run time (an argument of another JS type is a missing value). */
export type ParamCheck = 'number' | 'string' | 'boolean' | 'array' | 'any';

function fits(v: unknown, c: ParamCheck): boolean {
  switch (c) {
    case 'number':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    default:
      return v !== undefined;
  }
}

/** A field's value from a record (its alias when absent). */
export function readField(field: FieldDef, record: Readonly<Record<string, unknown>>): unknown {
  const own = record[field.name];
  if (own !== undefined || field.aliasOf === undefined) return own;
  return record[field.aliasOf];
}

/** `m["key"]`: the entry of a Map, or undefined. */
export function mapKey(m: unknown, key: string): unknown {
  return m instanceof Map ? m.get(key) : undefined;
}

/** `a[i]`: the item of an array, or undefined. */
export function arrayAt(a: unknown, i: number): unknown {
  return Array.isArray(a) && i < a.length ? a[i] : undefined;
}

/** `x[*]`: the items of an array or the values of a Map; nothing for anything else. */
export function unpack(x: unknown): unknown[] {
  if (Array.isArray(x)) return x.slice();
  if (x instanceof Map) return [...x.values()];
  return [];
}

/** `x[*]` applied to each item of an unpacked value: the items of every item, in order. */
export function unpackEach(items: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const x of items) for (const v of unpack(x)) out.push(v);
  return out;
}

/** Apply a one-argument step to a value, or to each item when it is unpacked. */
export function each(v: unknown, multi: boolean, step: (x: unknown) => unknown): unknown {
  if (!multi) return step(v);
  return (v as unknown[]).map(step);
}

/**
 * Call a function: arguments of the wrong JS type are missing, a missing argument makes the result
 * missing; with an unpacked argument (at most one, the checker makes sure) the call is made per item.
 */
export function callFunction(run: FunctionRun, params: readonly ParamCheck[], args: unknown[], multiAt: number): unknown {
  if (multiAt < 0) return callOnce(run, params, args);
  const items = args[multiAt] as unknown[];
  const out: unknown[] = new Array(items.length);
  const vals = args.slice();
  for (let i = 0; i < items.length; i++) {
    vals[multiAt] = items[i];
    out[i] = callOnce(run, params, vals);
  }
  return out;
}

function callOnce(run: FunctionRun, params: readonly ParamCheck[], vals: unknown[]): unknown {
  const last = params.length - 1;
  for (let i = 0; i < vals.length; i++) if (!fits(vals[i], params[i < last ? i : last]!)) return undefined;
  try {
    // Direct calls for the common arities: a spread call costs more than the rest of a short function.
    switch (vals.length) {
      case 1:
        return run(vals[0]);
      case 2:
        return run(vals[0], vals[1]);
      case 3:
        return run(vals[0], vals[1], vals[2]);
      default:
        return run(...vals);
    }
  } catch {
    // Defensive: implementations are total on well-typed input; a throw is a missing value, never a crash.
    return undefined;
  }
}

/** Evaluate a value plan on a record (the interpreter's walk; the compiler emits the same steps). */
export function evaluateValue(plan: ValuePlan, record: Readonly<Record<string, unknown>>): unknown {
  switch (plan.kind) {
    case 'field':
      return readField(plan.field, record);
    case 'literal':
      return plan.value;
    case 'key': {
      const key = plan.key;
      return each(evaluateValue(plan.target, record), plan.target.multi, (x) => mapKey(x, key));
    }
    case 'at': {
      const index = plan.index;
      return each(evaluateValue(plan.target, record), plan.target.multi, (x) => arrayAt(x, index));
    }
    case 'star': {
      const target = evaluateValue(plan.target, record);
      return plan.target.multi ? unpackEach(target as unknown[]) : unpack(target);
    }
    case 'call': {
      const args = plan.args.map((a) => evaluateValue(a, record));
      return callFunction(plan.run, plan.params, args, plan.args.findIndex((a) => a.multi));
    }
  }
}

/** The fields a plan reads. */
export function planFields(plan: ValuePlan, out: Set<string> = new Set()): Set<string> {
  switch (plan.kind) {
    case 'field':
      out.add(plan.field.name);
      break;
    case 'key':
    case 'at':
    case 'star':
      planFields(plan.target, out);
      break;
    case 'call':
      for (const a of plan.args) planFields(a, out);
      break;
    default:
      break;
  }
  return out;
}
