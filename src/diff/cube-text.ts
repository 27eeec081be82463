/**
 * A cube as people read it: one condition per field (`tcp.dstport 443`, `ip.src outside {10.0.0.0/8}`,
 * `http.host in {"a.example" "b.example"} or missing`), each written the shorter way round (the values,
 * or `outside` the values it leaves out), and the opaque parts it assumes true or false.
 * @module
 */
import type { FieldType } from '../expression/index.js';
import { complement, IP_UNIVERSE, keyToIp, type Cube, type Domain, type Interval, type OrderedDomain } from '../analysis/index.js';
import type { RegionCondition } from './types.js';

/** The type of a field the cube names (undefined: unknown, written as numbers). */
export type FieldTypes = (field: string) => FieldType | undefined;

/** Most items written out in one set; the rest are counted. */
const MAX_ITEMS = 8;

/** The conditions on the cube's fields and what it assumes of its opaque parts (`` `x matches "a"` is true ``). */
export function describeCube(cube: Cube, types: FieldTypes): { conditions: RegionCondition[]; assumes: string[] } {
  const conditions: RegionCondition[] = [];
  const assumes: string[] = [];
  for (const [field, d] of cube) {
    if (field.startsWith('#')) {
      const truth = d.kind === 'ordered' && d.values.some(([lo]) => lo === 1n);
      assumes.push(`${field.slice(1)} is ${truth ? 'true' : 'false'}`);
      continue;
    }
    const text = conditionText(field, d, types(field));
    if (text !== undefined) conditions.push({ field, text });
  }
  return { conditions, assumes };
}

/** One field's condition, or undefined when it allows everything (every value, and missing). */
export function conditionText(field: string, d: Domain, type: FieldType | undefined): string | undefined {
  const orMissing = d.missing ? ' or missing' : '';
  if (d.kind === 'string') {
    const items = [...d.items].sort().map((s) => JSON.stringify(s));
    if (d.cofinite) return items.length ? `${field} outside ${setText(items)}${orMissing}` : d.missing ? undefined : `${field} present`;
    if (!items.length) return `${field} missing`;
    return `${field} ${items.length === 1 ? items[0] : `in ${setText(items)}`}${orMissing}`;
  }
  if (!d.values.length) return `${field} missing`;
  const outside = (complement(d) as OrderedDomain).values;
  if (!outside.length) return d.missing ? undefined : `${field} present`;
  if (type === 'Bool') return `${d.values[0]![0] === 1n ? field : `not ${field}`}${orMissing}`;
  const inside = itemsOf(d.values, type);
  const out = itemsOf(outside, type);
  if (out.length < inside.length) return `${field} outside ${setText(out)}${orMissing}`;
  return `${field} ${inside.length === 1 ? inside[0] : `in ${setText(inside)}`}${orMissing}`;
}

function setText(items: readonly string[]): string {
  const shown = items.slice(0, MAX_ITEMS).join(' ');
  return `{${shown}${items.length > MAX_ITEMS ? ` … ${items.length - MAX_ITEMS} more` : ''}}`;
}

/** Intervals as the language writes set items: numbers and `a..b`; addresses as CIDRs, else `a-b`. */
function itemsOf(values: readonly Interval[], type: FieldType | undefined): string[] {
  if (type !== 'Ip') return values.map(([lo, hi]) => (lo === hi ? String(lo) : `${lo}..${hi}`));
  return values.flatMap(([lo, hi]) => {
    const cidrs = cidrsOf(lo, hi);
    return cidrs.length <= 3 ? cidrs : [`${keyToIp(lo)}-${keyToIp(hi)}`];
  });
}

/** The fewest CIDRs that cover the keys lo..hi exactly (one family: the keys never span both). */
function cidrsOf(lo: bigint, hi: bigint): string[] {
  const v6 = lo >= IP_UNIVERSE[1]![0];
  const base = v6 ? IP_UNIVERSE[1]![0] : 0n;
  const bits = v6 ? 128n : 32n;
  const out: string[] = [];
  let a = lo - base;
  const b = hi - base;
  while (a <= b && out.length <= 3) {
    // The largest block that starts at a (aligned) and ends by b.
    let size = 0n;
    while (size < bits && (a & ((1n << (size + 1n)) - 1n)) === 0n && a + (1n << (size + 1n)) - 1n <= b) size++;
    out.push(`${keyToIp(a + base)}/${bits - size}`);
    a += 1n << size;
  }
  return a <= b ? [...out, '…'] : out.map((c) => (c.endsWith(`/${bits}`) ? c.slice(0, c.lastIndexOf('/')) : c));
}
