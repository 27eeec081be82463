/**
 * The value domains the analysis reasons over, one per field: the set of values a packet's field may
 * hold, plus whether the field may be missing. Two shapes cover every field type:
 * - ordered keys as sorted disjoint inclusive intervals of bigints: integers as themselves, booleans as
 *   0/1, addresses as IPv4 in [0, 2^32) and IPv6 shifted above 2^33 (the two families never touch, so a
 *   CIDR or an IPv4 range is one interval);
 * - strings as a finite set, or as the complement of a finite set.
 * Every operation is exact: a domain is empty only when no value fits.
 * @module
 */

/** An inclusive interval of keys. */
export type Interval = readonly [bigint, bigint];

/** Ordered values: `values` within `universe`, both sorted, disjoint, not adjacent. */
export interface OrderedDomain {
  kind: 'ordered';
  values: readonly Interval[];
  universe: readonly Interval[];
  /** The field may be missing from the packet. */
  missing: boolean;
}

/** Strings: `items` (finite) or everything but `items` (co-finite). */
export interface StringDomain {
  kind: 'string';
  cofinite: boolean;
  items: ReadonlySet<string>;
  missing: boolean;
}

export type Domain = OrderedDomain | StringDomain;

/** Normalise intervals: sorted, merged where they overlap or touch. */
export function normalize(xs: readonly Interval[]): Interval[] {
  const sorted = [...xs].filter(([a, b]) => a <= b).sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const out: [bigint, bigint][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1n) {
      if (b > last[1]) last[1] = b;
    } else out.push([a, b]);
  }
  return out;
}

/** Index of the first interval whose end is at or after `v` (intervals sorted, disjoint). */
function firstEndingAtOrAfter(xs: readonly Interval[], v: bigint): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]![1] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Intersection of two normalised interval lists. */
export function intersectIntervals(x: readonly Interval[], y: readonly Interval[]): Interval[] {
  if (x.length > 16 * y.length || y.length > 16 * x.length) {
    // Very unequal sizes (a few ports or CIDRs against a large list): search instead of merging.
    const [small, big] = x.length <= y.length ? [x, y] : [y, x];
    const out: Interval[] = [];
    for (const [lo, hi] of small) {
      for (let k = firstEndingAtOrAfter(big, lo); k < big.length && big[k]![0] <= hi; k++) {
        const q = big[k]!;
        out.push([q[0] > lo ? q[0] : lo, q[1] < hi ? q[1] : hi]);
      }
    }
    return out;
  }
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const a = x[i]!;
    const b = y[j]!;
    const lo = a[0] > b[0] ? a[0] : b[0];
    const hi = a[1] < b[1] ? a[1] : b[1];
    if (lo <= hi) out.push([lo, hi]);
    if (a[1] < b[1]) i++;
    else j++;
  }
  return out;
}

/** `universe` minus `x` (both normalised). */
export function subtractIntervals(universe: readonly Interval[], x: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const [ulo, uhi] of universe) {
    let lo = ulo;
    for (const [a, b] of x) {
      if (b < lo || a > uhi) continue;
      if (a > lo) out.push([lo, a - 1n]);
      lo = b + 1n;
      if (lo > uhi) break;
    }
    if (lo <= uhi) out.push([lo, uhi]);
  }
  return out;
}


/** Both constraints at once. */
export function intersect(a: Domain, b: Domain): Domain {
  const missing = a.missing && b.missing;
  if (a.kind === 'ordered' && b.kind === 'ordered') {
    // A side with every value leaves the other's values as they are (large lists stay shared, not copied).
    const values = a.values === a.universe ? b.values : b.values === b.universe ? a.values : intersectIntervals(a.values, b.values);
    return { kind: 'ordered', values, universe: a.universe, missing };
  }
  if (a.kind === 'string' && b.kind === 'string') {
    if (a.cofinite && b.cofinite) return { kind: 'string', cofinite: true, items: new Set([...a.items, ...b.items]), missing };
    if (!a.cofinite && !b.cofinite) return { kind: 'string', cofinite: false, items: new Set([...a.items].filter((s) => b.items.has(s))), missing };
    const [fin, co] = a.cofinite ? [b, a] : [a, b];
    return { kind: 'string', cofinite: false, items: new Set([...fin.items].filter((s) => !co.items.has(s))), missing };
  }
  throw new Error('domains of different kinds');
}

const complementValues = new WeakMap<readonly Interval[], readonly Interval[]>();

/** Every value and missing-ness the domain does not allow (the values' complement computed once per list). */
export function complement(d: Domain): Domain {
  if (d.kind === 'string') return { kind: 'string', cofinite: !d.cofinite, items: d.items, missing: !d.missing };
  let values = complementValues.get(d.values);
  if (!values) {
    values = d.values.length === 0 ? d.universe : subtractIntervals(d.universe, d.values);
    complementValues.set(d.values, values);
    complementValues.set(values, d.values);
  }
  return { kind: 'ordered', values, universe: d.universe, missing: !d.missing };
}

/** Whether some value (or missing-ness) is in both: like `!isEmpty(intersect(a, b))`, without building it. */
export function overlaps(a: Domain, b: Domain): boolean {
  if (a.missing && b.missing) return true;
  if (a.kind === 'ordered' && b.kind === 'ordered') {
    // Each interval of the shorter list is looked up in the longer one (lists run to 10k ranges).
    const [x, y] = a.values.length <= b.values.length ? [a.values, b.values] : [b.values, a.values];
    for (const p of x) {
      const q = y[firstEndingAtOrAfter(y, p[0])];
      if (q && q[0] <= p[1]) return true;
    }
    return false;
  }
  if (a.kind === 'string' && b.kind === 'string') {
    if (a.cofinite && b.cofinite) return true;
    if (!a.cofinite && !b.cofinite) {
      for (const s of a.items) if (b.items.has(s)) return true;
      return false;
    }
    const [fin, co] = a.cofinite ? [b, a] : [a, b];
    for (const s of fin.items) if (!co.items.has(s)) return true;
    return false;
  }
  return true;
}

/** No value fits and the field may not be missing. */
export function isEmpty(d: Domain): boolean {
  if (d.missing) return false;
  return !hasValue(d);
}

/** Some present value fits. */
export function hasValue(d: Domain): boolean {
  return d.kind === 'ordered' ? d.values.length > 0 : d.cofinite || d.items.size > 0;
}


