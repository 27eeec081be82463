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

/** Intersection of two normalised interval lists. */
export function intersectIntervals(x: readonly Interval[], y: readonly Interval[]): Interval[] {
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

/** The domain with every value and the field possibly missing (what an unconstrained field has). */
export function fullOf(d: Domain): Domain {
  return d.kind === 'ordered' ? { kind: 'ordered', values: d.universe, universe: d.universe, missing: true } : { kind: 'string', cofinite: true, items: new Set(), missing: true };
}

/** Both constraints at once. */
export function intersect(a: Domain, b: Domain): Domain {
  const missing = a.missing && b.missing;
  if (a.kind === 'ordered' && b.kind === 'ordered') return { kind: 'ordered', values: intersectIntervals(a.values, b.values), universe: a.universe, missing };
  if (a.kind === 'string' && b.kind === 'string') {
    if (a.cofinite && b.cofinite) return { kind: 'string', cofinite: true, items: new Set([...a.items, ...b.items]), missing };
    if (!a.cofinite && !b.cofinite) return { kind: 'string', cofinite: false, items: new Set([...a.items].filter((s) => b.items.has(s))), missing };
    const [fin, co] = a.cofinite ? [b, a] : [a, b];
    return { kind: 'string', cofinite: false, items: new Set([...fin.items].filter((s) => !co.items.has(s))), missing };
  }
  throw new Error('domains of different kinds');
}

/** Every value and missing-ness the domain does not allow. */
export function complement(d: Domain): Domain {
  if (d.kind === 'ordered') return { kind: 'ordered', values: subtractIntervals(d.universe, d.values), universe: d.universe, missing: !d.missing };
  return { kind: 'string', cofinite: !d.cofinite, items: d.items, missing: !d.missing };
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

/** Every value fits and the field may be missing: the domain says nothing. */
export function isFull(d: Domain): boolean {
  if (!d.missing) return false;
  if (d.kind === 'string') return d.cofinite && d.items.size === 0;
  return d.values.length === d.universe.length && d.values.every((v, i) => v[0] === d.universe[i]![0] && v[1] === d.universe[i]![1]);
}

/** Same set of values and the same missing-ness. */
export function sameDomain(a: Domain, b: Domain): boolean {
  if (a.missing !== b.missing || a.kind !== b.kind) return false;
  if (a.kind === 'ordered' && b.kind === 'ordered') return a.values.length === b.values.length && a.values.every((v, i) => v[0] === b.values[i]![0] && v[1] === b.values[i]![1]);
  const x = a as StringDomain;
  const y = b as StringDomain;
  return x.cofinite === y.cofinite && x.items.size === y.items.size && [...x.items].every((s) => y.items.has(s));
}
