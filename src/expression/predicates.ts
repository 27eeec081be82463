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

/** How the left-hand side is read from a packet. */
export type LhsPlan =
  | { kind: 'field'; field: FieldDef }
  | { kind: 'bit_slice'; field: FieldDef; start: number; end: number };

/** Int comparison operators. */
export type IntOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'bitwise_and';
/** String comparison operators (besides regex-based ones). */
export type StringOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'contains';
/** Ip comparison operators. */
export type IpOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';

/** A resolved predicate. */
export type Predicate =
  | { kind: 'bare'; lhs: LhsPlan }
  | { kind: 'int'; lhs: LhsPlan; op: IntOp; value: number }
  | { kind: 'string'; lhs: LhsPlan; op: StringOp; value: string }
  | { kind: 'regex'; lhs: LhsPlan; re: RE2JS; source: string }
  | { kind: 'ip'; lhs: LhsPlan; op: IpOp; value: IpAddress; set: IpSet }
  | { kind: 'int-set'; lhs: LhsPlan; values: readonly number[]; ranges: readonly (readonly [number, number])[] }
  | { kind: 'string-set'; lhs: LhsPlan; values: ReadonlySet<string> }
  | { kind: 'ip-set'; lhs: LhsPlan; set: IpSet; list?: string };

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

/** Is `v` in the sorted disjoint inclusive ranges? (binary search) */
export function inRanges(ranges: readonly (readonly [number, number])[], v: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    if (v < r[0]) hi = mid - 1;
    else if (v > r[1]) lo = mid + 1;
    else return true;
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
        case 'lt': return s < p.value;
        case 'le': return s <= p.value;
        case 'gt': return s > p.value;
        case 'ge': return s >= p.value;
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
  }
}
