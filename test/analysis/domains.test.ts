/**
 * The analysis's building blocks held to outside oracles: interval and string domains against plain sets
 * over a small universe, and expressions as cubes against the interpreter on every packet of an
 * enumerated space (cubes true exactly where the expression is, negated cubes exactly where it is not,
 * differences exactly the packets of one side and not the other).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { complement, hasValue, intersect, intersectIntervals, isEmpty, normalize, overlaps, subtractIntervals, type Domain, type Interval, type OrderedDomain } from '../../src/analysis/domains.js';
import { coalesce, difference, firstOutside, ipKey, keyToIp, meet, Normalizer, satisfiable, subtractAll, type Cube } from '../../src/analysis/formula.js';
import { checkExpression, interpret, NETWORK_SCHEME, parseIpAddress, type Packet } from '../../src/index.js';

const U = 40;
const universe: Interval[] = [[0n, BigInt(U)]];
const setOf = (xs: readonly Interval[]) => {
  const s = new Set<number>();
  for (const [a, b] of xs) for (let v = Number(a); v <= Number(b); v++) s.add(v);
  return s;
};
const intervals = fc.array(fc.tuple(fc.integer({ min: 0, max: U }), fc.integer({ min: 0, max: U })), { maxLength: 6 })
  .map((xs) => xs.map(([a, b]) => [BigInt(Math.min(a, b)), BigInt(Math.max(a, b))] as Interval));
const wellFormed = (xs: readonly Interval[]) => xs.every(([a, b], i) => a <= b && (i === 0 || xs[i - 1]![1] + 1n < a));

describe('interval domains against plain sets', () => {
  it('normalize keeps the set and leaves sorted, disjoint, non-adjacent intervals', () => {
    fc.assert(fc.property(intervals, (xs) => {
      const n = normalize(xs);
      expect(wellFormed(n)).toBe(true);
      expect(setOf(n)).toEqual(setOf(xs));
    }));
  });

  it('intersection, both by merging and by searching a much longer list', () => {
    const long = fc.array(fc.integer({ min: 0, max: U }), { minLength: 20, maxLength: 40 }).map((vs) => normalize(vs.map((v) => [BigInt(v), BigInt(v)] as Interval)));
    fc.assert(fc.property(fc.oneof(intervals, long), intervals, (a, b) => {
      const x = normalize(a);
      const y = normalize(b);
      for (const [p, q] of [[x, y], [y, x]] as const) {
        const got = intersectIntervals(p, q);
        expect(wellFormed(normalize(got))).toBe(true);
        expect(setOf(got)).toEqual(new Set([...setOf(p)].filter((v) => setOf(q).has(v))));
      }
    }));
  });

  it('subtraction from the universe and complement', () => {
    fc.assert(fc.property(intervals, fc.boolean(), (a, missing) => {
      const x = normalize(a);
      const rest = subtractIntervals(universe, x);
      expect(wellFormed(rest)).toBe(true);
      const all = Array.from({ length: U + 1 }, (_, i) => i);
      expect(setOf(rest)).toEqual(new Set(all.filter((v) => !setOf(x).has(v))));
      const d: Domain = { kind: 'ordered', values: x, universe, missing };
      const c = complement(d);
      expect(c.missing).toBe(!missing);
      expect(setOf((c as OrderedDomain).values)).toEqual(setOf(rest));
      expect(complement(c)).toEqual(d);
    }));
  });

  it('intersect, overlaps, isEmpty and hasValue agree with the sets, missing-ness included', () => {
    fc.assert(fc.property(intervals, intervals, fc.boolean(), fc.boolean(), (a, b, ma, mb) => {
      const x: Domain = { kind: 'ordered', values: normalize(a), universe, missing: ma };
      const y: Domain = { kind: 'ordered', values: normalize(b), universe, missing: mb };
      const i = intersect(x, y);
      const common = [...setOf(x.values)].filter((v) => setOf(y.values).has(v));
      expect(setOf((i as OrderedDomain).values)).toEqual(new Set(common));
      expect(i.missing).toBe(ma && mb);
      expect(overlaps(x, y)).toBe(common.length > 0 || (ma && mb));
      expect(isEmpty(i)).toBe(common.length === 0 && !(ma && mb));
      expect(hasValue(i)).toBe(common.length > 0);
      const full: Domain = { kind: 'ordered', values: universe, universe, missing: true };
      expect(intersect(full, x)).toEqual(x);
      expect(intersect(x, full)).toEqual(x);
    }));
  });

  it('string domains, finite and co-finite', () => {
    const items = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 });
    const str = fc.record({ cofinite: fc.boolean(), items, missing: fc.boolean() }).map((r): Domain => ({ kind: 'string', cofinite: r.cofinite, items: new Set(r.items), missing: r.missing }));
    // 'z' stands for every string the sets do not name.
    const holds = (d: Domain, s: string) => d.kind === 'string' && (d.cofinite ? !d.items.has(s) : d.items.has(s));
    const space = ['a', 'b', 'c', 'd', 'z'];
    fc.assert(fc.property(str, str, (x, y) => {
      const i = intersect(x, y);
      for (const s of space) expect(holds(i, s)).toBe(holds(x, s) && holds(y, s));
      const c = complement(x);
      for (const s of space) expect(holds(c, s)).toBe(!holds(x, s));
      expect(overlaps(x, y)).toBe(space.some((s) => holds(x, s) && holds(y, s)) || (x.missing && y.missing));
      expect(hasValue(i)).toBe(space.some((s) => holds(i, s)));
    }));
  });

  it('address keys round-trip and keep the families apart', () => {
    for (const t of ['0.0.0.0', '10.1.2.3', '255.255.255.255', '::', '2001:db8:0:0:0:0:0:1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']) {
      const k = ipKey(parseIpAddress(t)!);
      expect(parseIpAddress(keyToIp(k))).toEqual(parseIpAddress(t));
    }
    expect(ipKey(parseIpAddress('::')!)).toBeGreaterThan(ipKey(parseIpAddress('255.255.255.255')!) + 1n);
  });
});

// Every packet of a small space: one transport each, ports 0..5, four sources, three countries or none.
const SPACE: Packet[] = (() => {
  const out: Packet[] = [];
  const srcs = ['10.0.0.1', '10.0.0.6', '10.0.1.1', '2001:db8::1'];
  const countries = ['DE', 'US', undefined];
  for (const src of srcs) for (const country of countries) {
    const base: Record<string, unknown> = { 'ip.src': src };
    if (country) base['ip.src.country'] = country;
    for (let port = 0; port <= 5; port++) {
      for (const syn of [true, false]) out.push({ ...base, 'ip.proto': 'tcp', 'tcp.dstport': port, 'tcp.flags.syn': syn });
      out.push({ ...base, 'ip.proto': 'udp', 'udp.dstport': port });
    }
    out.push({ ...base, 'ip.proto': 'icmp', 'icmp.type': 8 });
  }
  return out;
})();

/** Whether a packet lies in a cube: each constrained field missing where the domain allows it, else inside. */
function inCube(c: Cube, p: Packet): boolean {
  for (const [k, d] of c) {
    const v = p[k];
    if (v === undefined) {
      if (!d.missing) return false;
      continue;
    }
    if (d.kind === 'string') {
      if (typeof v !== 'string' || (d.cofinite ? d.items.has(v) : !d.items.has(v))) return false;
      continue;
    }
    const key = typeof v === 'boolean' ? (v ? 1n : 0n) : typeof v === 'number' ? BigInt(v) : ipKey(parseIpAddress(v as string)!);
    if (!d.values.some(([a, b]) => a <= key && key <= b)) return false;
  }
  return true;
}

const atom = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map((p) => `tcp.dstport == ${p}`),
  fc.integer({ min: 0, max: 5 }).map((p) => `tcp.dstport != ${p}`),
  fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })).map(([a, b]) => `tcp.dstport in {${Math.min(a, b)}..${Math.max(a, b)} 9}`),
  fc.integer({ min: 0, max: 5 }).map((p) => `udp.dstport >= ${p}`),
  fc.integer({ min: 0, max: 5 }).map((p) => `udp.dstport < ${p}`),
  fc.constantFrom('ip.src in {10.0.0.0/29}', 'ip.src in {10.0.0.4/30 2001:db8::/32}', 'ip.src == 10.0.1.1', 'ip.src != 10.0.0.1', 'ip.src > 10.0.0.5', 'ip.src <= 2001:db8::1'),
  fc.constantFrom('ip.src.country == "DE"', 'ip.src.country != "DE"', 'ip.src.country in {"US" "FR"}', 'tcp.flags.syn', 'icmp.type == 8', 'ip.proto == "udp"', 'ip.geoip.country == "US"'),
);
const expr: fc.Arbitrary<string> = fc.letrec((tie) => ({
  e: fc.oneof({ depthSize: 'small', withCrossShrink: true }, atom, fc.tuple(tie('e'), fc.constantFrom('and', 'or', 'xor'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`), tie('e').map((a) => `not ${a}`)),
})).e as fc.Arbitrary<string>;

const normalizer = new Normalizer(NETWORK_SCHEME);
const cubesOf = (text: string, positive = true) => {
  const c = checkExpression(text).checked!;
  return { cubes: normalizer.cubes(c, positive), checked: c };
};

describe('expressions as cubes, against the interpreter on every packet of the space', () => {
  it('the cubes hold exactly where the expression is true, the negated cubes exactly where it is false', () => {
    fc.assert(fc.property(expr, (text) => {
      const { cubes, checked } = cubesOf(text);
      const neg = cubesOf(text, false).cubes;
      for (const p of SPACE) {
        const truth = interpret(checked, p);
        expect(cubes.some((c) => inCube(c, p)), `${text} on ${JSON.stringify(p)}`).toBe(truth);
        expect(neg.some((c) => inCube(c, p)), `not ${text} on ${JSON.stringify(p)}`).toBe(!truth);
      }
      for (const c of cubes) expect(satisfiable(c)).toBe(true);
    }), { numRuns: 300 });
  });

  it('differences, subtraction and the first piece outside are exact', () => {
    fc.assert(fc.property(expr, expr, (a, b) => {
      const xs = cubesOf(a).cubes;
      const ys = cubesOf(b).cubes;
      const rest = subtractAll(xs, ys);
      const outside = firstOutside(xs, ys);
      const want = SPACE.filter((p) => xs.some((c) => inCube(c, p)) && !ys.some((c) => inCube(c, p)));
      for (const p of SPACE) expect(rest.some((c) => inCube(c, p))).toBe(want.includes(p));
      // Pieces may hold packets outside the space (other ports, addresses); inside it they are exact.
      if (outside) for (const p of SPACE) if (inCube(outside, p)) expect(want.includes(p)).toBe(true);
      expect(outside === undefined).toBe(rest.length === 0);
      for (const x of xs) for (const y of ys) {
        const pieces = difference(x, y);
        for (const p of SPACE) expect(pieces.some((c) => inCube(c, p))).toBe(inCube(x, p) && !inCube(y, p));
        const m = meet(x, y);
        for (const p of SPACE) expect(m !== undefined && inCube(m, p)).toBe(inCube(x, p) && inCube(y, p));
      }
    }), { numRuns: 200 });
  });

  it('coalescing keeps the packets of the cubes, in no more cubes', () => {
    fc.assert(fc.property(expr, expr, (a, b) => {
      // Differences cut cubes into pieces alike but on a field: what coalesce is for.
      const xs = subtractAll(cubesOf(a).cubes, cubesOf(b).cubes);
      const merged = coalesce(xs);
      expect(merged.length).toBeLessThanOrEqual(xs.length);
      for (const p of SPACE) expect(merged.some((c) => inCube(c, p))).toBe(xs.some((c) => inCube(c, p)));
    }), { numRuns: 200 });
    const piece = (port: bigint, syn: boolean): Cube => new Map<string, Domain>([
      ['tcp.dstport', { kind: 'ordered', values: [[port, port]], universe: [[0n, 65535n]], missing: false }],
      ['tcp.flags.syn', { kind: 'ordered', values: syn ? [[1n, 1n]] : [[0n, 0n]], universe: [[0n, 1n]], missing: false }],
    ]);
    // Alike but on the port: one cube of both ports. Then alike but on syn: one cube of every syn.
    const merged = coalesce([piece(22n, true), piece(80n, true), piece(22n, false), piece(80n, false)]);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.get('tcp.dstport')).toMatchObject({ values: [[22n, 22n], [80n, 80n]] });
    expect(merged[0]!.get('tcp.flags.syn')).toMatchObject({ values: [[0n, 1n]] });
  });
});
