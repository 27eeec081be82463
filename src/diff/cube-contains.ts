/**
 * Whether a packet (or log line) lies in a cube, on its fields: the check behind attributing counted
 * traffic to regions, and behind the tests that every packet decided differently lies in a region.
 * Opaque parts are not looked at (their truth is not known here): a cube that assumes some is matched
 * on its fields only.
 * @module
 */
import { parseIpAddress } from '../net/index.js';
import { ipKey, type Cube, type Interval } from '../analysis/index.js';
import type { FieldTypes } from './cube-text.js';

/** The packet holds, on every field the cube names, a value (or missing-ness) the cube allows. */
export function cubeContains(cube: Cube, packet: Readonly<Record<string, unknown>>, types: FieldTypes): boolean {
  for (const [field, d] of cube) {
    if (field.startsWith('#')) continue;
    const v = packet[field];
    if (v === undefined || v === null) {
      if (!d.missing) return false;
      continue;
    }
    if (d.kind === 'string') {
      if (typeof v !== 'string' || d.items.has(v) !== !d.cofinite) return false;
      continue;
    }
    const key = keyOf(v, types(field));
    if (key === undefined || !inIntervals(d.values, key)) return false;
  }
  return true;
}

/** The ordered key of a value, as formula.ts keys values of its type; undefined when it is not one. */
function keyOf(v: unknown, type: ReturnType<FieldTypes>): bigint | undefined {
  if (type === 'Ip') {
    const a = typeof v === 'string' ? parseIpAddress(v) : undefined;
    return a ? ipKey(a) : undefined;
  }
  if (type === 'Bool') return typeof v === 'boolean' ? (v ? 1n : 0n) : undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'bigint') return v;
  return undefined;
}

function inIntervals(values: readonly Interval[], k: bigint): boolean {
  let lo = 0;
  let hi = values.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = values[mid]!;
    if (k < a) hi = mid - 1;
    else if (k > b) lo = mid + 1;
    else return true;
  }
  return false;
}
