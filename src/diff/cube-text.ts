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
    const texts = [...d.items].sort().map((s) => JSON.stringify(s));
    const items: Items = { count: texts.length, shown: texts.slice(0, MAX_ITEMS) };
    if (d.cofinite) return texts.length ? `${field} outside ${setText(items)}${orMissing}` : d.missing ? undefined : `${field} present`;
    if (!texts.length) return `${field} missing`;
    return `${field} ${texts.length === 1 ? texts[0] : `in ${setText(items)}`}${orMissing}`;
  }
  if (!d.values.length) return `${field} missing`;
  const outside = (complement(d) as OrderedDomain).values;
  if (!outside.length) return d.missing ? undefined : `${field} present`;
  if (type === 'Bool') return `${d.values[0]![0] === 1n ? field : `not ${field}`}${orMissing}`;
  const inside = itemsOf(d.values, type);
  const out = itemsOf(outside, type);
  if (out.count < inside.count) return `${field} outside ${setText(out)}${orMissing}`;
  return `${field} ${inside.count === 1 ? inside.shown[0] : `in ${setText(inside)}`}${orMissing}`;
}

/** Set items as text: how many there are, and the first {@link MAX_ITEMS} written out. */
interface Items {
  count: number;
  shown: string[];
}

function setText(items: Items): string {
  return `{${items.shown.join(' ')}${items.count > MAX_ITEMS ? ` … ${items.count - MAX_ITEMS} more` : ''}}`;
}

/**
 * Intervals as the language writes set items: numbers and `a..b`; addresses as CIDRs, else `a-b`. Only
 * the items shown are written, the others only counted: a region's complement of a few prefixes runs to
 * many intervals, and writing each was most of the diff's time (the bench's 200-rule pair: 1.4 s of
 * 3.4 s under the profiler).
 */
function itemsOf(values: readonly Interval[], type: FieldType | undefined): Items {
  if (type !== 'Ip') return { count: values.length, shown: values.slice(0, MAX_ITEMS).map(([lo, hi]) => (lo === hi ? String(lo) : `${lo}..${hi}`)) };
  // Regions of one diff share their longer address lists (about half the lists of the bench's diff).
  let items = addressItems.get(values);
  if (!items) addressItems.set(values, (items = addressItemsOf(values)));
  return items;
}

const addressItems = new WeakMap<readonly Interval[], Items>();

function addressItemsOf(values: readonly Interval[]): Items {
  const items: Items = { count: 0, shown: [] };
  for (const [lo, hi] of values) {
    const blocks = cidrBlocks(lo, hi);
    items.count += blocks ? blocks.length : 1;
    if (items.shown.length >= MAX_ITEMS) continue;
    const texts = blocks ? blocks.map(cidrText) : [`${keyToIp(lo)}-${keyToIp(hi)}`];
    items.shown.push(...texts.slice(0, MAX_ITEMS - items.shown.length));
  }
  return items;
}

/** An aligned block of addresses: its first key and its size in bits (0: one address). */
type Block = { start: bigint; bits: number; v6: boolean };

/** `10.0.0.0/8`, `192.0.2.1` (a block of one), `2001:db8::/32`. */
function cidrText(b: Block): string {
  const total = b.v6 ? 128 : 32;
  return b.bits === 0 ? keyToIp(b.start) : `${keyToIp(b.start)}/${total - b.bits}`;
}

/** The fewest aligned blocks that cover the keys lo..hi exactly (one family: the keys never span both), or undefined past 3. */
function cidrBlocks(lo: bigint, hi: bigint): Block[] | undefined {
  const v6 = lo >= IP_UNIVERSE[1]![0];
  const base = v6 ? IP_UNIVERSE[1]![0] : 0n;
  const total = v6 ? 128 : 32;
  const out: Block[] = [];
  let a = lo - base;
  const b = hi - base;
  while (a <= b) {
    if (out.length === 3) return undefined;
    // The largest block that starts at a (as many low zero bits as its size) and ends by b.
    const bits = Math.min(a === 0n ? total : bitLength(a & -a) - 1, bitLength(b - a + 1n) - 1);
    out.push({ start: a + base, bits, v6 });
    a += 1n << BigInt(bits);
  }
  return out;
}

/** Bits needed to write a positive bigint. */
const bitLength = (n: bigint): number => n.toString(2).length;
