/**
 * Resolved predicates: what the checker makes of each comparison, `in` and bare field, with the field
 * resolved and the literal read by type ("resolved at plan time rather than at runtime", cel-go's
 * planner). The interpreter and the compiler both evaluate these, with the semantics defined here once.
 * @module
 */
import type { RE2JS } from 're2js';
import type { FieldDef } from './scheme.js';
import type { IpAddress, IpSet } from '../net/index.js';
import { compareIpAddress, isIpAddressText, parseIpAddress } from '../net/index.js';
import type { LogicalOperator } from './ast.js';
import { evaluateValue, planFields, type ValuePlan } from './values.js';
import { compareValues } from './bytes.js';
import type { StringList } from './lists.js';

/**
 * How the left-hand side is read from a packet: a plain field (most rules; the fast paths), bit_slice,
 * a value of the Rules language (`lower(http.host)`, `http.request.headers["host"][0]`, `x[*]`; `type` is
 * its scalar type, and with `[*]` it is read per item), or `any(…)` / `all(…)` over an array of booleans.
 */
export type LhsPlan =
  | { kind: 'field'; field: FieldDef }
  | { kind: 'bit_slice'; field: FieldDef; start: number; end: number }
  | { kind: 'value'; plan: ValuePlan; type: 'Int' | 'String' | 'Ip' | 'Bool' }
  | { kind: 'quantifier'; op: 'any' | 'all'; arg: VectorPlan };

/**
 * The argument of `any` / `all`: one boolean per item. A test is a predicate on an unpacked (`[*]`) value;
 * `and`/`or`/`xor` combine item by item (to the shorter array, as wirefilter does), `not` negates each.
 * A `scalar` is one condition on the whole request beside them (the docs' `any(ids[*] eq 1 and leaked)`):
 * it stands for the same boolean at every item.
 */
export type VectorPlan =
  | { kind: 'test'; predicate: Predicate }
  | { kind: 'scalar'; predicate: Predicate }
  | { kind: 'logical'; op: LogicalOperator; items: VectorPlan[] }
  | { kind: 'not'; item: VectorPlan };

/** A vector's booleans, or one boolean that stands for every item (a scalar part). */
export type VectorValue = boolean[] | boolean;

/** `and`/`or`/`xor` item by item, to the shortest array; a lone boolean is every item's. */
export function combineVector(op: LogicalOperator, parts: readonly VectorValue[]): VectorValue {
  const arrays = parts.filter((p): p is boolean[] => typeof p !== 'boolean');
  const at = (p: VectorValue, i: number) => (typeof p === 'boolean' ? p : p[i]!);
  const n = arrays.length ? Math.min(...arrays.map((p) => p.length)) : 1;
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) {
    let acc = at(parts[0]!, i);
    for (let j = 1; j < parts.length; j++) acc = op === 'and' ? acc && at(parts[j]!, i) : op === 'or' ? acc || at(parts[j]!, i) : acc !== at(parts[j]!, i);
    out.push(acc);
  }
  return arrays.length ? out : out[0]!;
}

/** `not` of a vector value. */
export function notVector(v: VectorValue): VectorValue {
  return typeof v === 'boolean' ? !v : v.map((b) => !b);
}

/** The booleans of a vector plan on a record; `scalar` decides a scalar part (the interpreter's predicate evaluation). */
export function evaluateVector(v: VectorPlan, record: Readonly<Record<string, unknown>>, scalar: (p: Predicate, record: Readonly<Record<string, unknown>>) => boolean): VectorValue {
  switch (v.kind) {
    case 'test': {
      const p = v.predicate;
      if (p.lhs.kind !== 'value') return [];
      const type = valueType(p);
      const items = evaluateValue(p.lhs.plan, record) as unknown[];
      return items.map((x) => typeof x === type && testValue(p, x));
    }
    case 'scalar':
      return scalar(v.predicate, record);
    case 'not':
      return notVector(evaluateVector(v.item, record, scalar));
    case 'logical':
      return combineVector(v.op, v.items.map((i) => evaluateVector(i, record, scalar)));
  }
}

/** The fields a left-hand side reads (for a value or quantifier, every field inside it). */
export function lhsFields(lhs: LhsPlan, out: Set<string> = new Set()): Set<string> {
  switch (lhs.kind) {
    case 'field':
    case 'bit_slice':
      out.add(lhs.field.name);
      break;
    case 'value':
      planFields(lhs.plan, out);
      break;
    case 'quantifier':
      vectorFields(lhs.arg, out);
      break;
  }
  return out;
}

function vectorFields(v: VectorPlan, out: Set<string>): void {
  if (v.kind === 'test' || v.kind === 'scalar') lhsFields(v.predicate.lhs, out);
  else if (v.kind === 'not') vectorFields(v.item, out);
  else for (const i of v.items) vectorFields(i, out);
}

/** `any` / `all` of a vector plan on a record. */
export function quantify(op: 'any' | 'all', v: VectorPlan, record: Readonly<Record<string, unknown>>, scalar: (p: Predicate, record: Readonly<Record<string, unknown>>) => boolean): boolean {
  const bools = evaluateVector(v, record, scalar);
  if (typeof bools === 'boolean') return bools;
  return op === 'any' ? bools.includes(true) : !bools.includes(false);
}

/** Int comparison operators. */
export type IntOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'bitwise_and';
/** String comparison operators (besides regex-based ones). */
export type StringOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'contains';
/** Ip comparison operators. */
export type IpOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';

/** A resolved predicate. */
export type Predicate =
  | { kind: 'bare'; lhs: LhsPlan }
  | { kind: 'int'; lhs: LhsPlan; op: IntOp; value: number; big?: bigint }
  | { kind: 'string'; lhs: LhsPlan; op: StringOp; value: string }
  | { kind: 'regex'; lhs: LhsPlan; re: RE2JS; source: string }
  | { kind: 'ip'; lhs: LhsPlan; op: IpOp; value: IpAddress; set: IpSet }
  /**
   * `values` and `ranges` are what a field's number can equal: with an item beyond ±2^53, its exact double
   * (or nothing when it has none) and ranges rounded inwards to doubles. `exact` is then the set as
   * written, in 64-bit integers, for the back ends and the analysis that reason over integers.
   */
  | { kind: 'int-set'; lhs: LhsPlan; values: readonly number[]; ranges: readonly (readonly [number, number])[]; exact?: { values: readonly bigint[]; ranges: readonly (readonly [bigint, bigint])[] } }
  | { kind: 'string-set'; lhs: LhsPlan; values: ReadonlySet<string> }
  | { kind: 'ip-set'; lhs: LhsPlan; set: IpSet; list?: string }
  /** `http.host in $hosts`, `http.request.full_uri in $redirects`: a hostname or redirect list's membership. */
  | { kind: 'string-list'; lhs: LhsPlan; set: StringList; list: string; listKind: 'hostname' | 'redirect' };

/** The type tag a value must have for a predicate kind (anything else is treated as missing). */
export function valueType(p: Predicate): 'number' | 'string' | 'boolean' {
  switch (p.kind) {
    case 'bare':
      return 'boolean';
    case 'int':
    case 'int-set':
      return 'number';
    default:
      return 'string';
  }
}

/**
 * Bits `[start, end)` of a raw header, most significant bit first, as an unsigned integer; undefined when
 * the header is shorter than `end` bits or is not bytes.
 */
export function bitSlice(bytes: unknown, start: number, end: number): number | undefined {
  if (bytes instanceof Uint8Array) {
    if (end > bytes.length * 8) return undefined;
    let v = 0;
    for (let bit = start; bit < end; bit++) v = v * 2 + ((bytes[bit >> 3]! >> (7 - (bit & 7))) & 1);
    return v;
  }
  // A String value holds one byte per character (code units above 0xff make it not bytes).
  if (typeof bytes !== 'string' || end > bytes.length * 8) return undefined;
  let v = 0;
  for (let bit = start; bit < end; bit++) {
    const c = bytes.charCodeAt(bit >> 3);
    if (c > 0xff) return undefined;
    v = v * 2 + ((c >> (7 - (bit & 7))) & 1);
  }
  return v;
}

/** Compare a packet's address text with an address: NaN when unparsable or of another family. */
export function compareIpText(text: string, value: IpAddress): number {
  const a = parseIpAddress(text);
  if (!a || a.family !== value.family) return NaN;
  return compareIpAddress(a, value);
}

/** `(n & mask) != 0` on integers up to 2^53 (JS `&` alone truncates to 32 bits); false for non-integers. */
export function bitwiseAnd(n: number, mask: number): boolean {
  if (!Number.isSafeInteger(n)) return false;
  if (n >= 0 && n <= 0xffffffff && mask <= 0xffffffff) return (n & mask) !== 0;
  return (BigInt(n) & BigInt(mask)) !== 0n;
}

/** `n op big`, exactly (JS relational operators compare a number with a bigint by value). */
export function compareBig(n: number, op: IntOp, big: bigint): boolean {
  if (!Number.isFinite(n)) return false;
  // A non-integer is within ±2^53 here, where a double orders exactly against the rounded literal.
  const c = Number.isInteger(n) ? (BigInt(n) < big ? -1 : BigInt(n) > big ? 1 : 0) : n < Number(big) ? -1 : 1;
  switch (op) {
    case 'eq': return c === 0;
    case 'ne': return c !== 0;
    case 'lt': return c < 0;
    case 'le': return c <= 0;
    case 'gt': return c > 0;
    case 'ge': return c >= 0;
    case 'bitwise_and': return Number.isInteger(n) && (BigInt(n) & big) !== 0n;
  }
}

/** Is `v` in the sorted disjoint inclusive ranges? (binary search) */
export function inRanges(ranges: readonly (readonly [number, number])[], v: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    // `v <= r[1]`, not `!(v > r[1])`: NaN is in no range (every comparison with it is false).
    if (v < r[0]) hi = mid - 1;
    else if (v <= r[1]) return true;
    else lo = mid + 1;
  }
  return false;
}

/** Test one present value of the right type against a predicate. */
export function testValue(p: Predicate, v: unknown): boolean {
  switch (p.kind) {
    case 'bare':
      return v === true;
    case 'int': {
      const n = v as number;
      // A literal beyond 2^53 is compared exactly as a BigInt (JS compares number and bigint exactly).
      if (p.big !== undefined) return compareBig(n, p.op, p.big);
      switch (p.op) {
        case 'eq': return n === p.value;
        case 'ne': return n !== p.value;
        case 'lt': return n < p.value;
        case 'le': return n <= p.value;
        case 'gt': return n > p.value;
        case 'ge': return n >= p.value;
        case 'bitwise_and': return bitwiseAnd(n, p.value);
      }
      return false;
    }
    case 'string': {
      const s = v as string;
      switch (p.op) {
        case 'eq': return s === p.value;
        case 'ne': return s !== p.value;
        case 'lt': return compareValues(s, p.value) < 0;
        case 'le': return compareValues(s, p.value) <= 0;
        case 'gt': return compareValues(s, p.value) > 0;
        case 'ge': return compareValues(s, p.value) >= 0;
        case 'contains': return s.includes(p.value);
      }
      return false;
    }
    case 'regex':
      return p.re.test(v as string);
    case 'ip': {
      if (p.op === 'eq') return p.set.has(v as string);
      if (p.op === 'ne') return isIpAddressText(v as string) && !p.set.has(v as string);
      const c = compareIpText(v as string, p.value);
      if (Number.isNaN(c)) return false;
      switch (p.op) {
        case 'lt': return c < 0;
        case 'le': return c <= 0;
        case 'gt': return c > 0;
        case 'ge': return c >= 0;
      }
      return false;
    }
    case 'int-set': {
      const n = v as number;
      return p.values.includes(n) || inRanges(p.ranges, n);
    }
    case 'string-set':
      return p.values.has(v as string);
    case 'ip-set':
      return p.set.has(v as string);
    case 'string-list':
      return p.set.has(v as string);
  }
}
