/**
 * A checked expression as a union of cubes (disjunctive normal form): each cube constrains some fields to
 * a domain each and leaves the others free. Negations are pushed to the predicates, so a cube is a plain
 * product of domains, and intersection, difference and emptiness are exact.
 *
 * What the domains cannot express — regexes, `contains`, `bitwise_and`, `bit_slice`, ordering of strings,
 * unknown lists — becomes an opaque boolean named by its printed text (`#…` keys, {@link print}: layout
 * and operator spellings normalized, literals kept as written): the same printed text in two rules is
 * the same unknown. An opaque atom may take either value, so a claim that something is empty
 * holds whatever the atom's truth: the analysis never claims more than it can show.
 *
 * Packets have at most one transport header (tcp.*, udp.* or icmp.* fields, not two): a cube is
 * satisfiable only when one choice of transport lets every constrained field be what the cube says.
 * @module
 */
import { domainBounds, print, type CheckedExpression, type ExprNode, type FieldDef, type IntDomain, type Predicate, type Scheme } from '../expression/index.js';
import type { IpAddress, IpSet } from '../net/index.js';
import { complement, hasValue, intersect, isEmpty, normalize, overlaps, type Domain, type Interval, type OrderedDomain } from './domains.js';

/** A conjunction of field domains; a field that is not a key is free. */
export type Cube = ReadonlyMap<string, Domain>;

/** The expression cannot be put in the bounded normal form. */
export class TooComplex extends Error {}

/** Most cubes one expression or one difference may have before the analysis gives up on it. */
export const MAX_CUBES = 4096;

const V6_BASE = 1n << 33n;
export const IP_UNIVERSE: readonly Interval[] = [[0n, (1n << 32n) - 1n], [V6_BASE, V6_BASE + (1n << 128n) - 1n]];
const BOOL_UNIVERSE: readonly Interval[] = [[0n, 1n]];
/** Int fields hold 64-bit integers, as the language defines them. */
const INT_MIN = -(1n << 63n);
const INT_MAX = (1n << 63n) - 1n;
const INT_UNIVERSE: readonly Interval[] = [[INT_MIN, INT_MAX]];

/** The key of an address: IPv4 as its value, IPv6 above 2^33. */
export function ipKey(a: IpAddress): bigint {
  let v = 0n;
  for (const b of a.bytes) v = (v << 8n) | BigInt(b);
  return a.family === 4 ? v : V6_BASE + v;
}

/** The address text of a key. */
export function keyToIp(k: bigint): string {
  if (k < V6_BASE) return [24n, 16n, 8n, 0n].map((s) => String((k >> s) & 255n)).join('.');
  const v = k - V6_BASE;
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((v >> s) & 0xffffn).toString(16));
  return groups.join(':');
}

function universeOf(f: FieldDef): readonly Interval[] {
  if (f.type === 'Ip') return IP_UNIVERSE;
  if (f.type === 'Bool') return BOOL_UNIVERSE;
  // The field's domain, else its literal range: `ip.src.asnum lt 100` is 0..99, never a negative AS number.
  if (f.domain) return domainUniverse(f.domain);
  return f.range ? [[BigInt(f.range[0]), BigInt(f.range[1])]] : INT_UNIVERSE;
}

const domainUniverses = new WeakMap<IntDomain, readonly Interval[]>();

/** One universe object per domain: `intersect` and `complement` recognise a domain's whole universe by identity. */
function domainUniverse(d: IntDomain): readonly Interval[] {
  let u = domainUniverses.get(d);
  if (!u) domainUniverses.set(d, (u = [domainBounds(d)]));
  return u;
}

function ordered(f: FieldDef, values: Interval[]): OrderedDomain {
  const universe = universeOf(f);
  return { kind: 'ordered', values: normalized(values, universe), universe, missing: false };
}

const normalizedLists = new WeakMap<Interval[], Interval[]>();

/** Values clipped to the universe and merged, once per list (a large list's rules share the result). */
function normalized(values: Interval[], universe: readonly Interval[]): Interval[] {
  let v = normalizedLists.get(values);
  if (!v) {
    v = normalize(intersectUniverse(normalize(values), universe));
    normalizedLists.set(values, v);
  }
  return v;
}

function intersectUniverse(values: Interval[], universe: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const [a, b] of values) for (const [u, v] of universe) {
    const lo = a > u ? a : u;
    const hi = b < v ? b : v;
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

const setIntervals = new WeakMap<IpSet, Interval[]>();

/** An address set's ranges as keys (once per set: a list is read by many rules). */
function ipSetIntervals(set: IpSet): Interval[] {
  let v = setIntervals.get(set);
  if (!v) {
    v = set.ranges().map((r) => [ipKey(r.first), ipKey(r.last)] as Interval);
    setIntervals.set(set, v);
  }
  return v;
}

/** The transport a field belongs to, if any. */
export function transportOf(field: string): 'tcp' | 'udp' | 'icmp' | undefined {
  const dot = field.indexOf('.');
  const head = dot < 0 ? field : field.slice(0, dot);
  return head === 'tcp' || head === 'udp' || head === 'icmp' ? head : undefined;
}

/** What a predicate says, as domains: one `[field, domain]` per field it may read (several for `anyOf`). */
function predicateDomains(p: Predicate, scheme: Scheme, knownList: (name: string) => boolean): [string, Domain][] | undefined {
  if (p.lhs.kind !== 'field') return undefined;
  // A list whose items were not given is empty to the evaluator, but its real contents are unknown.
  if (p.kind === 'ip-set' && p.list !== undefined && !knownList(p.list)) return undefined;
  let f = p.lhs.field;
  if (f.aliasOf) f = scheme.get(f.aliasOf) ?? f;
  const targets = f.anyOf ? f.anyOf.map((n) => scheme.get(n)).filter((x): x is FieldDef => x !== undefined) : [f];
  if (!targets.length) return undefined;
  const per = (t: FieldDef): Domain | undefined => {
    switch (p.kind) {
      case 'bare':
        return ordered(t, [[1n, 1n]]);
      case 'int': {
        const v = p.big ?? BigInt(p.value);
        switch (p.op) {
          case 'eq': return ordered(t, [[v, v]]);
          case 'ne': { const d = ordered(t, [[v, v]]); return { ...complement(d), missing: false } as Domain; }
          case 'lt': return ordered(t, [[INT_MIN, v - 1n]]);
          case 'le': return ordered(t, [[INT_MIN, v]]);
          case 'gt': return ordered(t, [[v + 1n, INT_MAX]]);
          case 'ge': return ordered(t, [[v, INT_MAX]]);
          default: return undefined;
        }
      }
      case 'int-set':
        if (p.exact) return ordered(t, [...p.exact.values.map((v) => [v, v] as Interval), ...p.exact.ranges.map(([a, b]) => [a, b] as Interval)]);
        return ordered(t, [...p.values.map((v) => [BigInt(v), BigInt(v)] as Interval), ...p.ranges.map(([a, b]) => [BigInt(a), BigInt(b)] as Interval)]);
      case 'string':
        if (p.op === 'eq') return { kind: 'string', cofinite: false, items: new Set([p.value]), missing: false };
        if (p.op === 'ne') return { kind: 'string', cofinite: true, items: new Set([p.value]), missing: false };
        return undefined;
      case 'string-set':
        return { kind: 'string', cofinite: false, items: new Set(p.values), missing: false };
      case 'ip': {
        if (p.op === 'eq') return ordered(t, ipSetIntervals(p.set));
        if (p.op === 'ne') { const d = ordered(t, ipSetIntervals(p.set)); return { ...complement(d), missing: false } as Domain; }
        const k = ipKey(p.value);
        const [lo, hi] = p.value.family === 4 ? IP_UNIVERSE[0]! : IP_UNIVERSE[1]!;
        switch (p.op) {
          case 'lt': return ordered(t, [[lo, k - 1n]]);
          case 'le': return ordered(t, [[lo, k]]);
          case 'gt': return ordered(t, [[k + 1n, hi]]);
          case 'ge': return ordered(t, [[k, hi]]);
        }
        return undefined;
      }
      case 'ip-set':
        return ordered(t, ipSetIntervals(p.set));
      default:
        return undefined;
    }
  };
  const out: [string, Domain][] = [];
  for (const t of targets) {
    const d = per(t);
    if (!d) return undefined;
    out.push([t.name, d]);
  }
  return out;
}

const TOP: Cube = new Map();

/** Intersect two cubes; undefined when some field is left with nothing. */
export function meet(a: Cube, b: Cube): Cube | undefined {
  const out = new Map(a);
  for (const [k, d] of b) {
    const prev = out.get(k);
    const next = prev ? intersect(prev, d) : d;
    if (isEmpty(next)) return undefined;
    out.set(k, next);
  }
  return out;
}

/** Pairwise intersections of two unions of cubes (the satisfiable ones). Throws {@link TooComplex} past {@link MAX_CUBES}. */
export function product(xs: readonly Cube[], ys: readonly Cube[], transport = true): Cube[] {
  const out: Cube[] = [];
  for (const x of xs) for (const y of ys) {
    const m = meet(x, y);
    if (m && satisfiable(m, transport)) {
      out.push(m);
      if (out.length > MAX_CUBES) throw new TooComplex();
    }
  }
  return out;
}

function bound(xs: Cube[]): Cube[] {
  if (xs.length > MAX_CUBES) throw new TooComplex();
  return xs;
}

/**
 * Whether two cubes may share a packet, told without building their intersection (most pairs share
 * nothing): false is exact, true may still turn out empty.
 */
export function mayOverlap(a: Cube, b: Cube): boolean {
  const ta = requiredTransport(a);
  const tb = requiredTransport(b);
  if (ta && tb && ta !== tb) return false;
  for (const [k, d] of b) {
    const ad = a.get(k);
    if (ad && !overlaps(ad, d)) return false;
  }
  return true;
}

/** The cubes of `a` minus `b`: for each field `b` constrains, the part of `a` outside it (and inside `b` on the fields before). */
export function difference(a: Cube, b: Cube): Cube[] {
  if (!mayOverlap(a, b)) return [a];
  const inter = meet(a, b);
  if (!inter || !satisfiable(inter)) return [a];
  const out: Cube[] = [];
  let prefix: Cube | undefined = a;
  for (const [k, d] of b) {
    if (!prefix) break;
    const outside = meet(prefix, new Map([[k, complement(d)]]));
    if (outside && satisfiable(outside)) out.push(outside);
    prefix = meet(prefix, new Map([[k, d]]));
  }
  return out;
}

/** Cubes of `xs` minus the union of `ys`. */
export function subtractAll(xs: readonly Cube[], ys: readonly Cube[]): Cube[] {
  let rest = [...xs];
  for (const y of ys) {
    const next: Cube[] = [];
    for (const x of rest) next.push(...difference(x, y));
    rest = bound(next);
    if (!rest.length) break;
  }
  return rest;
}

/**
 * The same packets in fewer cubes: cubes that are alike on every field but one are merged into one cube
 * whose domain on that field is the union of theirs (exact: the other fields are the same, so the union
 * of the cubes is the product). Differences cut a cube once per cube taken away (`ip.dst in A, not
 * tcp.flags.syn`, `ip.dst in B, not tcp.flags.syn`, …); merging them gives the few cubes people read.
 * Repeated until no two cubes merge; the order of the cubes is kept (each merge takes the first's place).
 */
export function coalesce(cubes: readonly Cube[]): Cube[] {
  let out = [...cubes];
  for (let changed = out.length > 1; changed; ) {
    changed = false;
    const fields = new Set<string>();
    for (const c of out) for (const k of c.keys()) fields.add(k);
    for (const field of fields) {
      // An opaque part stays as each cube assumes it (true or false, never "either": it is named in the text).
      if (field.startsWith('#')) continue;
      // Cubes grouped by all their other fields (bucketed by a hash of them, then compared); each group
      // becomes one cube. Text keys of every field of every cube were a third of the bench's 200-rule diff
      // under the profiler (87 of 266 ms).
      const buckets = new Map<number, Cube[][]>();
      const groups: Cube[][] = [];
      for (const c of out) {
        const h = restHash(c, field);
        let bucket = buckets.get(h);
        if (!bucket) buckets.set(h, (bucket = []));
        const g = bucket.find((g) => alikeBut(g[0]!, c, field));
        if (g) g.push(c);
        else {
          bucket.push([c]);
          groups.push(bucket[bucket.length - 1]!);
        }
      }
      if (groups.length === out.length) continue;
      changed = true;
      out = groups.map((g) => (g.length === 1 ? g[0]! : mergeOn(g, field)));
    }
  }
  return out;
}

/** A hash of a cube's fields other than `field` (the same for cubes alike on them). */
function restHash(c: Cube, field: string): number {
  let h = 0;
  for (const [k, d] of c) if (k !== field) h = (h + Math.imul(stringHash(k), 31) + domainHash(d)) | 0;
  return h;
}

function stringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** A hash of a domain from its size and ends (equal domains, equal hashes). */
function domainHash(d: Domain): number {
  if (d.kind === 'string') return (d.items.size * 7 + (d.cofinite ? 2 : 0) + (d.missing ? 1 : 0)) | 0;
  const first = d.values[0];
  const low = first ? Number(BigInt.asUintN(32, first[0])) : 0;
  return (Math.imul(d.values.length, 1_000_003) + low + (d.missing ? 1 : 0)) | 0;
}

/** Both cubes constrain the same fields, other than `field`, to the same domains. */
function alikeBut(x: Cube, y: Cube, field: string): boolean {
  const size = (c: Cube) => c.size - (c.has(field) ? 1 : 0);
  if (size(x) !== size(y)) return false;
  for (const [k, d] of x) {
    if (k === field) continue;
    const e = y.get(k);
    if (!e || !sameDomain(d, e)) return false;
  }
  return true;
}

function sameDomain(a: Domain, b: Domain): boolean {
  if (a === b) return true;
  if (a.missing !== b.missing) return false;
  if (a.kind === 'ordered' && b.kind === 'ordered') {
    if (a.values === b.values) return true;
    if (a.values.length !== b.values.length) return false;
    return a.values.every(([lo, hi], i) => lo === b.values[i]![0] && hi === b.values[i]![1]);
  }
  if (a.kind === 'string' && b.kind === 'string') return a.cofinite === b.cofinite && a.items.size === b.items.size && [...a.items].every((s) => b.items.has(s));
  return false;
}

/** Cubes alike but on `field`, as one: the union of their domains there (a cube that leaves it free leaves it free). */
function mergeOn(group: readonly Cube[], field: string): Cube {
  const out = new Map(group[0]!);
  let d = out.get(field);
  for (const c of group.slice(1)) {
    const e = c.get(field);
    d = d && e ? union(d, e) : undefined;
  }
  if (d) out.set(field, d);
  else out.delete(field);
  return out;
}

/** Values and missing-ness either domain allows. */
function union(a: Domain, b: Domain): Domain {
  const missing = a.missing || b.missing;
  if (a.kind === 'ordered' && b.kind === 'ordered') return { kind: 'ordered', values: normalize([...a.values, ...b.values]), universe: a.universe, missing };
  if (a.kind === 'string' && b.kind === 'string') {
    if (!a.cofinite && !b.cofinite) return { kind: 'string', cofinite: false, items: new Set([...a.items, ...b.items]), missing };
    if (a.cofinite && b.cofinite) return { kind: 'string', cofinite: true, items: new Set([...a.items].filter((s) => b.items.has(s))), missing };
    const [fin, co] = a.cofinite ? [b, a] : [a, b];
    return { kind: 'string', cofinite: true, items: new Set([...co.items].filter((s) => !fin.items.has(s))), missing };
  }
  throw new Error('domains of different kinds');
}

/** Most cube differences one search may take before the analysis gives up on a rule. */
export const MAX_STEPS = 200_000;

/**
 * A cube of packets in `xs` and outside every cube of `ys`, or undefined when there is none: a depth-first
 * search that stops at the first piece every `ys` cube leaves alone. A rule that something reaches is
 * usually told after a few steps; only an empty answer needs every piece. Throws {@link TooComplex} past
 * {@link MAX_STEPS}.
 */
export function firstOutside(xs: readonly Cube[], all: readonly Cube[]): Cube | undefined {
  // Only the cubes that may share packets with these can cut them: the rest are left out of the search.
  const ys = all.filter((y) => xs.some((x) => mayOverlap(x, y)));
  let steps = 0;
  const visit = (c: Cube, from: number): Cube | undefined => {
    for (let k = from; k < ys.length; k++) {
      const pieces = difference(c, ys[k]!);
      if (pieces.length === 1 && pieces[0] === c) continue;
      if (++steps > MAX_STEPS) throw new TooComplex();
      for (const p of pieces) {
        const found = visit(p, k + 1);
        if (found) return found;
      }
      return undefined;
    }
    return c;
  };
  for (const x of xs) {
    const found = visit(x, 0);
    if (found) return found;
  }
  return undefined;
}

/**
 * The transport a packet of this cube can have (`none`: no transport field present), or undefined when
 * none works: fields of the chosen transport must be able to hold a value, the others must be able to be
 * missing.
 */
export function transportChoice(c: Cube): 'tcp' | 'udp' | 'icmp' | 'none' | undefined {
  for (const t of ['tcp', 'udp', 'icmp', 'none'] as const) {
    let ok = true;
    for (const [k, d] of c) {
      const own = transportOf(k);
      if (!own) continue;
      if (own === t ? !hasValue(d) && !d.missing : !d.missing) {
        ok = false;
        break;
      }
    }
    if (ok) return t;
  }
  return undefined;
}

const required = new WeakMap<Cube, string | null>();

/** The transport a cube's packets must have (a field of it may not be missing), if any. */
function requiredTransport(c: Cube): string | null {
  let t = required.get(c);
  if (t === undefined) {
    t = null;
    for (const [k, d] of c) {
      const own = transportOf(k);
      if (own && !d.missing) {
        t = own;
        break;
      }
    }
    required.set(c, t);
  }
  return t;
}

/** Some packet lies in the cube. */
export function satisfiable(c: Cube, transport = true): boolean {
  for (const d of c.values()) if (isEmpty(d)) return false;
  return !transport || transportChoice(c) !== undefined;
}

/** Turns checked expressions into cubes; opaque atoms are keyed by their printed text. */
export class Normalizer {
  /** `transport: false` drops the one-transport rule (to tell why an expression matches nothing). */
  constructor(private readonly scheme: Scheme, private readonly transport = true, private readonly knownList: (name: string) => boolean = () => false) {}

  /** The cubes where the expression is true (`positive`) or false. Throws {@link TooComplex}. */
  cubes(checked: CheckedExpression, positive = true): Cube[] {
    return this.node(checked, checked.ast, positive);
  }

  /** Same, for one node of the expression. */
  node(c: CheckedExpression, n: ExprNode, positive: boolean): Cube[] {
    switch (n.kind) {
      case 'group':
        return this.node(c, n.expr, positive);
      case 'not':
        return this.node(c, n.operand, !positive);
      case 'error':
        return positive ? [] : [TOP];
      case 'logical': {
        if (n.op === 'xor') {
          let pos = this.node(c, n.operands[0]!, true);
          let neg = this.node(c, n.operands[0]!, false);
          for (const o of n.operands.slice(1)) {
            const p = this.node(c, o, true);
            const q = this.node(c, o, false);
            [pos, neg] = [bound([...product(pos, q, this.transport), ...product(neg, p, this.transport)]), bound([...product(pos, p, this.transport), ...product(neg, q, this.transport)])];
          }
          return positive ? pos : neg;
        }
        const conj = (n.op === 'and') === positive;
        if (conj) {
          let acc: Cube[] = [TOP];
          for (const o of n.operands) {
            acc = product(acc, this.node(c, o, positive), this.transport);
            if (!acc.length) break;
          }
          return acc;
        }
        return bound(n.operands.flatMap((o) => this.node(c, o, positive)));
      }
      default: {
        const pred = c.predicates.get(n.id);
        const doms = pred ? predicateDomains(pred, this.scheme, this.knownList) : undefined;
        if (!doms) {
          // Keyed by the printed node: layout and operator spellings do not matter, literal bytes do
          // (`contains "a  b"` and `contains "a b"` are two unknowns, never one).
          const key = '#' + print(n);
          const d: Domain = { kind: 'ordered', values: [[positive ? 1n : 0n, positive ? 1n : 0n]], universe: BOOL_UNIVERSE, missing: false };
          return [new Map([[key, d]])];
        }
        // True: some field holds a value in its domain. False: every field is missing or outside.
        if (positive) return doms.map(([k, d]) => new Map([[k, d]])).filter((x) => satisfiable(x, this.transport));
        const neg = new Map<string, Domain>();
        for (const [k, d] of doms) {
          const nd = complement(d);
          const prev = neg.get(k);
          neg.set(k, prev ? intersect(prev, nd) : nd);
        }
        return satisfiable(neg, this.transport) ? [neg] : [];
      }
    }
  }
}

