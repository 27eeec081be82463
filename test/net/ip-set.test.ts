import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isIpAddressText, parseIpv4Number, parseIpv6Words, v6Words as scratchWords } from '../../src/net/fast-parse.js';
import {
  IpSet,
  compareIpAddress,
  formatIpRange,
  ipSetFromItems,
  ipSetFromText,
  parseIpAddress,
  parseIpItem,
  type IpRange,
} from '../../src/net/index.js';
import { anyString, HOSTILE, v4Number, v4Text, v6Bytes, v6Texts, v6Words } from './arbitraries.js';
import { slowUnderMutation } from '../helpers/tools.js';

// ---------------------------------------------------------------------------------------------------------
// Oracle: items parsed with ipaddr.js into [family, low, high] as BigInt; membership by a linear scan.

type OracleRange = { family: 4 | 6; lo: bigint; hi: bigint };

function bigOf(bytes: number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function oracleRange(item: string): OracleRange {
  if (item.includes('/')) {
    const isV6 = item.includes(':');
    const cls = isV6 ? ipaddr.IPv6 : ipaddr.IPv4;
    return {
      family: isV6 ? 6 : 4,
      lo: bigOf(cls.networkAddressFromCIDR(item).toByteArray()),
      hi: bigOf(cls.broadcastAddressFromCIDR(item).toByteArray()),
    };
  }
  const [a, b] = item.includes('..') ? item.split('..') : item.includes('-') ? item.split('-') : [item, item];
  const x = ipaddr.parse(a!);
  const y = ipaddr.parse(b!);
  return { family: x.kind() === 'ipv6' ? 6 : 4, lo: bigOf(x.toByteArray()), hi: bigOf(y.toByteArray()) };
}

function naiveHas(ranges: OracleRange[], family: 4 | 6, v: bigint): boolean {
  return ranges.some((r) => r.family === family && r.lo <= v && v <= r.hi);
}

// ---------------------------------------------------------------------------------------------------------
// Generators of set items (as text, printed by ipaddr.js so the oracle reads them independently of us).

const V4_MAX = 0xffffffff;
const V6_MAX = (1n << 128n) - 1n;

const v6TextOf = (w: number[]) => ipaddr.fromByteArray(v6Bytes(w)).toString();
const wordsOf = (v: bigint) => [96n, 64n, 32n, 0n].map((s) => Number((v >> s) & 0xffffffffn));

const v4Item = fc.oneof(
  fc.tuple(v4Number, fc.integer({ min: 0, max: 32 })).map(([n, l]) => `${v4Text(n)}/${l}`),
  fc.tuple(v4Number, fc.integer({ min: 16, max: 32 })).map(([n, l]) => `${v4Text(n)}/${l}`),
  fc.tuple(v4Number, v4Number, fc.constantFrom('..', '-')).map(([a, b, sep]) => `${v4Text(Math.min(a, b))}${sep}${v4Text(Math.max(a, b))}`),
  fc.tuple(v4Number, fc.integer({ min: 0, max: 300 })).map(([a, d]) => `${v4Text(a)}..${v4Text(Math.min(V4_MAX, a + d))}`),
  v4Number.map(v4Text),
  fc.constantFrom('0.0.0.0/0', '255.255.255.255/32', '0.0.0.0/32', '128.0.0.0/1'),
);

const v6Item = fc.oneof(
  fc.tuple(v6Words, fc.integer({ min: 0, max: 128 })).map(([w, l]) => `${v6TextOf(w)}/${l}`),
  fc.tuple(v6Words, fc.integer({ min: 96, max: 128 })).map(([w, l]) => `${v6TextOf(w)}/${l}`),
  fc.tuple(v6Words, v6Words).map(([a, b]) => {
    const [x, y] = [a, b].sort((p, q) => (bigOf(v6Bytes(p)) < bigOf(v6Bytes(q)) ? -1 : 1));
    return `${v6TextOf(x!)}..${v6TextOf(y!)}`;
  }),
  fc.tuple(v6Words, fc.integer({ min: 0, max: 300 })).map(([w, d]) => {
    const lo = bigOf(v6Bytes(w));
    const hi = lo + BigInt(d) > V6_MAX ? V6_MAX : lo + BigInt(d);
    return `${v6TextOf(w)}-${v6TextOf(wordsOf(hi))}`;
  }),
  v6Words.map(v6TextOf),
  fc.constantFrom('::/0', '::/128', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', '::ffff:0:0/96', '8000::/1'),
);

const items = fc.array(fc.oneof(v4Item, v6Item), { maxLength: 40 });

/** Items for big lists: narrow enough that thousands of them do not merge into a handful of ranges. */
const v4NarrowItem = fc.oneof(
  fc.tuple(v4Number, fc.integer({ min: 18, max: 32 })).map(([n, l]) => `${v4Text(n)}/${l}`),
  fc.tuple(v4Number, fc.integer({ min: 0, max: 3000 })).map(([a, d]) => `${v4Text(a)}..${v4Text(Math.min(V4_MAX, a + d))}`),
  v4Number.map(v4Text),
);
const v6NarrowItem = fc.oneof(
  fc.tuple(v6Words, fc.integer({ min: 100, max: 128 })).map(([w, l]) => `${v6TextOf(w)}/${l}`),
  fc.tuple(v6Words, fc.integer({ min: 0, max: 3000 })).map(([w, d]) => {
    const lo = bigOf(v6Bytes(w));
    const hi = lo + BigInt(d) > V6_MAX ? V6_MAX : lo + BigInt(d);
    return `${v6TextOf(w)}-${v6TextOf(wordsOf(hi))}`;
  }),
  v6Words.map(v6TextOf),
);

/** Merged ranges are sorted, disjoint and not adjacent within each family. */
function expectMergedShape(set: IpSet): void {
  const merged = set.ranges();
  expect(merged.length).toBe(set.rangeCount4 + set.rangeCount6);
  for (let i = 1; i < merged.length; i++) {
    const a = merged[i - 1]!;
    const b = merged[i]!;
    if (a.last.family !== b.first.family) continue;
    const gap = bigOf([...b.first.bytes]) - bigOf([...a.last.bytes]);
    expect(gap > 1n, `${formatIpRange(a)} then ${formatIpRange(b)}`).toBe(true);
  }
}

/** Query addresses: random ones plus the edges (and their neighbours) of every item's range. */
function queriesFor(ranges: OracleRange[], random4: number[], random6: number[][]): { family: 4 | 6; v: bigint }[] {
  const qs: { family: 4 | 6; v: bigint }[] = [];
  for (const x of random4) qs.push({ family: 4, v: BigInt(x) });
  for (const w of random6) qs.push({ family: 6, v: bigOf(v6Bytes(w)) });
  for (const r of ranges) {
    const max = r.family === 4 ? BigInt(V4_MAX) : V6_MAX;
    for (const v of [r.lo - 1n, r.lo, r.hi, r.hi + 1n]) if (v >= 0n && v <= max) qs.push({ family: r.family, v });
  }
  return qs;
}

/** Every spelling of a query address (several for IPv6, one of them with a dotted-quad tail). */
function textsOf(q: { family: 4 | 6; v: bigint }): string[] {
  return q.family === 4 ? [v4Text(Number(q.v))] : v6Texts(wordsOf(q.v));
}

describe('IpSet against a linear scan over ranges parsed by ipaddr.js', () => {
  it('has(text) and hasAddress agree with the scan on random sets, edges and every spelling', () => {
    fc.assert(
      fc.property(items, fc.array(v4Number, { maxLength: 20 }), fc.array(v6Words, { maxLength: 20 }), (its, r4, r6) => {
        const { set, errors } = IpSet.fromItems(its);
        expect(errors).toEqual([]);
        const ranges = its.map(oracleRange);
        for (const q of queriesFor(ranges, r4, r6)) {
          const expected = naiveHas(ranges, q.family, q.v);
          for (const t of textsOf(q)) {
            expect(set.has(t), `${t} in {${its.join(' ')}}`).toBe(expected);
            expect(set.hasAddress(parseIpAddress(t)!)).toBe(expected);
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('merges into sorted, disjoint, non-adjacent ranges covering the same addresses', () => {
    fc.assert(
      fc.property(items, (its) => {
        const { set } = IpSet.fromItems(its);
        const merged = set.ranges();
        expectMergedShape(set);
        // Rebuilding from the merged ranges changes nothing.
        const again = IpSet.fromRanges(merged).ranges();
        expect(again.map(formatIpRange)).toEqual(merged.map(formatIpRange));
      }),
      { numRuns: 300 },
    );
  });

  it.each([1, 2, 3])('agrees with the scan on large IPv4 and IPv6 lists (bucket tables, radix sort), seed %i', (seed) => {
    // Sampled without fast-check's small-value bias, so thousands of items stay thousands of ranges.
    const draw = <T>(arb: fc.Arbitrary<T>, n: number, salt: number) => fc.sample(fc.noBias(arb), { numRuns: n, seed: seed * 10 + salt });
    const its = [...draw(v4NarrowItem, 3000, 1), ...draw(v6NarrowItem, 1500, 2)];
    const { set } = IpSet.fromItems(its);
    expect(set.rangeCount4).toBeGreaterThan(500);
    expect(set.rangeCount6).toBeGreaterThan(300); // built from 1500 ranges, above V6_RADIX_MIN: the radix sort
    expectMergedShape(set);
    const ranges = its.map(oracleRange);
    const qs = queriesFor([...ranges.slice(0, 300), ...ranges.slice(3000, 3300)], draw(v4Number, 500, 3), draw(v6Words, 200, 4));
    const n4 = ranges.filter((r) => r.family === 4).map((r) => [Number(r.lo), Number(r.hi)] as const);
    let wrong = 0;
    for (const q of qs) {
      const expected = q.family === 4 ? n4.some(([lo, hi]) => lo <= Number(q.v) && Number(q.v) <= hi) : naiveHas(ranges, 6, q.v);
      if (set.has(textsOf(q)[0]!) !== expected) wrong++;
    }
    expect(wrong).toBe(0);
  });
});

describe('IpSet.has on any string', () => {
  const sets = [
    ipSetFromText('10.0.0.0/8 192.0.2.1..192.0.2.9 2001:db8::/32 ::ffff:0:0/96').set,
    ipSetFromText('0.0.0.0/0 ::/0').set,
    ipSetFromText('').set,
  ];

  it('agrees with hasAddress(parseIpAddress(text)) on arbitrary strings', () => {
    fc.assert(
      fc.property(anyString, fc.constantFrom(0, 1, 2), (s, k) => {
        const set = sets[k]!;
        const a = parseIpAddress(s);
        expect(set.has(s), JSON.stringify(s)).toBe(a !== undefined && set.hasAddress(a));
      }),
      { numRuns: 30000 },
    );
  });

  it('answers right when a few texts are asked about over and over, across sets (the parse memo)', () => {
    fc.assert(
      fc.property(
        fc.array(anyString, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(0, 1, 2)), { minLength: 1, maxLength: 40 }),
        (pool, asks) => {
          for (const [at, k] of asks) {
            const s = pool[at % pool.length]!;
            const a = parseIpAddress(s);
            expect(sets[k]!.has(s), JSON.stringify(s)).toBe(a !== undefined && sets[k]!.hasAddress(a));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('the hand-written scanners accept exactly what parseIpAddress accepts, with the same value', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const a = parseIpAddress(s);
        const v4 = parseIpv4Number(s, 0, s.length);
        const v6 = v4 < 0 && parseIpv6Words(s, 0, s.length);
        expect(a?.family ?? 0, JSON.stringify(s)).toBe(v4 >= 0 ? 4 : v6 ? 6 : 0);
        expect(isIpAddressText(s)).toBe(a !== undefined);
        if (a?.family === 4) expect(v4).toBe(bigOfNumber(a.bytes));
        if (a?.family === 6) expect([...scratchWords]).toEqual(wordsOf(bigOf([...a.bytes])));
      }),
      { numRuns: 50000 },
    );
  });

  it('the scanners read a slice of a longer string exactly as they read that slice alone', () => {
    fc.assert(
      fc.property(anyString, anyString, anyString, (pre, s, post) => {
        const whole = pre + s + post;
        const from = pre.length;
        const to = from + s.length;
        const v4 = parseIpv4Number(whole, from, to);
        expect(v4).toBe(parseIpv4Number(s, 0, s.length));
        const v6 = parseIpv6Words(whole, from, to);
        const words = [...scratchWords];
        expect(v6).toBe(parseIpv6Words(s, 0, s.length));
        if (v6) expect(words).toEqual([...scratchWords]);
      }),
      { numRuns: 20000 },
    );
  });

  it.each(HOSTILE.map((s) => [s.length > 40 ? `${s.slice(0, 20)}… (${s.length} chars)` : JSON.stringify(s), s]))(
    'is false for hostile %s, even in the set of everything',
    (_, s) => {
      expect(sets[1]!.has(s)).toBe(false);
    },
  );

  it('is false for non-strings passed from untyped callers', () => {
    expect(sets[1]!.has(undefined as unknown as string)).toBe(false);
    expect(sets[1]!.has(16909060 as unknown as string)).toBe(false);
  });
});

function bigOfNumber(bytes: Uint8Array): number {
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

describe('IpSet.fromItems bulk shortcut', () => {
  const nearItem = fc.oneof(
    anyString,
    fc.tuple(anyString, fc.constantFrom('/', '/0', '/00', '/8', '/08', '/32', '/33', '/128', '/129', '/1000', '/-1', '/ 8', '//8')).map(([a, b]) => a + b),
    fc.tuple(v4Number, fc.integer({ min: -1, max: 140 })).map(([n, l]) => `${v4Text(n)}/${l}`),
    fc.tuple(v6Words, fc.integer({ min: -1, max: 140 })).map(([w, l]) => `${v6Texts(w)[0]}/${l}`),
  );

  it('builds the same set and the same errors as parsing every item with parseIpItem', () => {
    fc.assert(
      fc.property(fc.array(nearItem, { maxLength: 30 }), (its) => {
        const fast = IpSet.fromItems(its);
        const ranges: IpRange[] = [];
        const errors: { index: number; item: string; reason: string }[] = [];
        its.forEach((item, index) => {
          const p = parseIpItem(item);
          if (p.ok) ranges.push(p.range);
          else errors.push({ index, item, reason: p.reason });
        });
        expect(fast.set.ranges().map(formatIpRange)).toEqual(IpSet.fromRanges(ranges).ranges().map(formatIpRange));
        expect(fast.errors).toEqual(errors);
        const v6At = its.findIndex((item) => {
          const p = parseIpItem(item);
          return p.ok && p.range.first.family === 6;
        });
        expect(fast.firstV6Index).toBe(v6At);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('IpSet families stay apart', () => {
  it('::ffff:1.2.3.4 is not in a set holding 1.2.3.4, and 1.2.3.4 not in one holding ::ffff:1.2.3.4', () => {
    const v4 = ipSetFromText('1.2.3.4 10.0.0.0/8').set;
    expect(v4.has('1.2.3.4')).toBe(true);
    expect(v4.has('::ffff:1.2.3.4')).toBe(false);
    expect(v4.has('::ffff:102:304')).toBe(false);
    expect(v4.has('::ffff:10.1.1.1')).toBe(false);
    const v6 = ipSetFromText('::ffff:1.2.3.4 ::ffff:10.0.0.0/104').set;
    expect(v6.has('::ffff:1.2.3.4')).toBe(true);
    expect(v6.has('::ffff:102:304')).toBe(true);
    expect(v6.has('1.2.3.4')).toBe(false);
    expect(v6.has('10.1.1.1')).toBe(false);
    expect(v6.has('::ffff:10.1.1.1')).toBe(true);
  });

  it('counts merged ranges per family', () => {
    const { set, errors } = ipSetFromText('10.0.0.0/8 11.0.0.0/8 12.0.0.1 2001:db8::/32 2001:db9::/32 ::1 bad 10.0.0.9..10.0.0.1');
    expect(set.rangeCount4).toBe(2);
    expect(set.rangeCount6).toBe(2);
    expect(errors.map((e) => [e.index, e.item])).toEqual([
      [6, 'bad'],
      [7, '10.0.0.9..10.0.0.1'],
    ]);
    expect(errors[1]!.reason).toBe('the range 10.0.0.9..10.0.0.1 has its low end above its high end');
  });

  it('fromRanges refuses a range that breaks the IpRange contract', () => {
    const a = parseIpAddress('10.0.0.9')!;
    const b = parseIpAddress('10.0.0.1')!;
    const c = parseIpAddress('::1')!;
    expect(() => IpSet.fromRanges([{ first: a, last: b }])).toThrow(new RangeError('the range 10.0.0.9..10.0.0.1 has its low end above its high end'));
    expect(() => IpSet.fromRanges([{ first: b, last: c } as IpRange])).toThrow(new RangeError('an IpRange needs two addresses of the same family'));
    expect(compareIpAddress(b, a)).toBeLessThan(0);
    expect(IpSet.fromRanges([{ first: b, last: a }]).has('10.0.0.5')).toBe(true);
  });

  it('an empty set holds nothing', () => {
    const empty = IpSet.fromRanges([]);
    expect(empty.rangeCount4 + empty.rangeCount6).toBe(0);
    expect(empty.has('0.0.0.0')).toBe(false);
    expect(empty.has('::')).toBe(false);
    expect(empty.has('255.255.255.255')).toBe(false);
  });
});

describe('IpSet.toParts / fromParts (how worker threads get a ruleset\'s sets)', () => {
  it('a set rebuilt from its structured-cloned parts answers like the scan over ipaddr.js ranges', () => {
    fc.assert(
      fc.property(items, fc.array(v4Number, { maxLength: 10 }), fc.array(v6Words, { maxLength: 10 }), (its, r4, r6) => {
        const built = IpSet.fromItems(its).set;
        const copy = IpSet.fromParts(structuredClone(built.toParts()));
        expect([copy.rangeCount4, copy.rangeCount6]).toEqual([built.rangeCount4, built.rangeCount6]);
        expect(copy.ranges().map(formatIpRange)).toEqual(built.ranges().map(formatIpRange));
        expect(copy.indexBytes).toBe(built.indexBytes);
        const ranges = its.map(oracleRange);
        for (const q of queriesFor(ranges, r4, r6)) {
          const t = textsOf(q)[0]!;
          expect(copy.has(t), `${t} in {${its.join(' ')}}`).toBe(naiveHas(ranges, q.family, q.v));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('IpSet.indexBytes', () => {
  // From the layout in the module comment: 4 bytes per IPv4 bound, 16 per IPv6 bound (two bounds per
  // range), plus a bucket table per family of at most 2^16 + 1 uint32 entries that shrinks with the range
  // count (about one bucket per range, at least 2 buckets).
  const bounds = (set: IpSet) => {
    const ranges = 8 * set.rangeCount4 + 32 * set.rangeCount6;
    const table = (count: number) => 4 * (Math.min(1 << 16, Math.max(2, 2 ** Math.ceil(Math.log2(Math.max(count, 1))))) + 1);
    return { ranges, tables: table(set.rangeCount4) + table(set.rangeCount6) };
  };

  it.each([
    ['', 0, 0],
    ['10.0.0.1', 1, 0],
    ['::1', 0, 1],
    ['10.0.0.0/8 11.0.0.0/8 13.0.0.1 2001:db8::/32 ::1', 2, 2],
  ])('{%s}: ranges and two small tables', (text, n4, n6) => {
    const { set } = ipSetFromText(text);
    expect([set.rangeCount4, set.rangeCount6]).toEqual([n4, n6]);
    const { ranges, tables } = bounds(set);
    expect(set.indexBytes).toBe(ranges + tables);
  });

  it('grows with the range count: a table of about one bucket per range, capped at 2^16 + 1 entries', () => {
    for (const n of [3, 4, 5, 100, 1000, 70000]) {
      const set = IpSet.fromRanges(
        Array.from({ length: n }, (_, i) => {
          const a = parseIpAddress(v4Text(i * 4 * 1000))!;
          return { first: a, last: a };
        }),
      );
      expect(set.rangeCount4).toBe(n);
      const { ranges, tables } = bounds(set);
      expect(set.indexBytes, `${n} ranges`).toBe(ranges + tables);
    }
  });
});

describe('IpSet.rememberIpv4Text / rememberIpv6Text (the decoder tells the sets what it parsed)', () => {
  const set = ipSetFromText('10.0.0.0/8 2001:db8::/32').set;

  it('has(text) then answers for the remembered value without reading the text again', () => {
    // The contract lets the caller vouch for the text; a deliberately different value shows that the
    // memo, not the text, was read.
    IpSet.rememberIpv4Text('192.0.2.1', 0x0a000001);
    expect(set.has('192.0.2.1')).toBe(true);
    IpSet.rememberIpv6Text('2001:db9::1', 0x20010db8, 0, 0, 1);
    expect(set.has('2001:db9::1')).toBe(true);
    // Both texts are still in the two-entry memo.
    expect(set.has('192.0.2.1')).toBe(true);
    expect(set.has('2001:db9::1')).toBe(true);
    // A third text pushes the oldest out; the older one is then parsed from its text again.
    IpSet.rememberIpv4Text('10.9.9.9', 0xc0000201);
    expect(set.has('10.9.9.9')).toBe(false);
    expect(set.has('2001:db9::1')).toBe(true);
    expect(set.has('192.0.2.1')).toBe(false);
    // Remembering the newest text again keeps the other one.
    IpSet.rememberIpv4Text('172.16.0.1', 0x0a0a0a0a);
    IpSet.rememberIpv4Text('172.16.0.1', 0x0a0a0a0a);
    IpSet.rememberIpv6Text('2001:db8::5', 0x20010db9, 0, 0, 5);
    expect(set.has('2001:db8::5')).toBe(false);
    expect(set.has('172.16.0.1')).toBe(true);
  });

  it('remembering the newest text again does not push the older one out', () => {
    IpSet.rememberIpv4Text('older text', 0x0a000001);
    IpSet.rememberIpv4Text('newer text', 0x0a000002);
    IpSet.rememberIpv4Text('newer text', 0x0a000002);
    // Neither text is an address: only the memo makes them members.
    expect(set.has('older text')).toBe(true);
    expect(set.has('newer text')).toBe(true);
  });

  it('an IPv6 memo entry holds all four words, and an IPv4 one reused for IPv6 forgets the IPv4 value', () => {
    const narrow = ipSetFromText('2001:db8:1:2:3:4:5:6 10.0.0.1').set;
    IpSet.rememberIpv6Text('a::1', 0x20010db8, 0x00010002, 0x00030004, 0x00050006);
    expect(narrow.has('a::1')).toBe(true);
    for (const [k, w] of [[0, 0x20010db9], [1, 0x00010003], [2, 0x00030005], [3, 0x00050007]] as const) {
      const words = [0x20010db8, 0x00010002, 0x00030004, 0x00050006];
      words[k] = w;
      IpSet.rememberIpv6Text(`b::${k}`, words[0]!, words[1]!, words[2]!, words[3]!);
      expect(narrow.has(`b::${k}`), `word ${k}`).toBe(false);
    }
    IpSet.rememberIpv4Text('c', 0x0a000001);
    expect(narrow.has('c')).toBe(true);
    IpSet.rememberIpv4Text('d', 0x0a000002);
    IpSet.rememberIpv6Text('e', 0x20010db8, 0x00010002, 0x00030004, 0x00050006);
    expect(narrow.has('e')).toBe(true);
    expect(narrow.has('d')).toBe(false);
  });
});

describe('IpSet input from untyped callers and the IpRange contract', () => {
  it('hasAddress is false for an address whose bytes do not fit its family', () => {
    const all = ipSetFromText('0.0.0.0/0 ::/0').set;
    expect(all.hasAddress({ family: 4, bytes: new Uint8Array(4) })).toBe(true);
    expect(all.hasAddress({ family: 6, bytes: new Uint8Array(16) })).toBe(true);
    expect(all.hasAddress({ family: 4, bytes: new Uint8Array(16) })).toBe(false);
    expect(all.hasAddress({ family: 6, bytes: new Uint8Array(4) })).toBe(false);
  });

  it('fromRanges refuses addresses whose byte count does not match their family, and reversed IPv6 ranges', () => {
    const v4 = parseIpAddress('10.0.0.1')!;
    const v6 = parseIpAddress('::1')!;
    const bad4 = { family: 4 as const, bytes: new Uint8Array(16) };
    const bad6 = { family: 6 as const, bytes: new Uint8Array(4) };
    expect(() => IpSet.fromRanges([{ first: bad4, last: bad4 }])).toThrow(RangeError);
    expect(() => IpSet.fromRanges([{ first: bad6, last: bad6 }])).toThrow(RangeError);
    const contract = new RangeError('an IpRange needs two addresses of the same family');
    expect(() => IpSet.fromRanges([{ first: v4, last: { family: 4, bytes: new Uint8Array([255, 255, 255, 255, 0]) } }])).toThrow(contract);
    expect(() => IpSet.fromRanges([{ first: v4, last: { family: 6, bytes: new Uint8Array([255, 255, 255, 255]) } }])).toThrow(contract);
    expect(() => IpSet.fromRanges([{ first: parseIpAddress('::2')!, last: v6 }])).toThrow(/low end above its high end/);
    expect(() => IpSet.fromRanges([{ first: parseIpAddress('1::')!, last: parseIpAddress('::ffff:ffff')! }])).toThrow(RangeError);
    expect(IpSet.fromRanges([{ first: v6, last: parseIpAddress('::2')! }]).has('::2')).toBe(true);
  });

  it('fromItems words a non-string item and keeps going', () => {
    const { set, errors, firstV6Index } = IpSet.fromItems([42 as unknown as string, '::1', '10.0.0.1', '2001:db8::/32']);
    expect(errors).toEqual([{ index: 0, item: 42, reason: 'the item is not a string' }]);
    expect(firstV6Index).toBe(1);
    expect([set.rangeCount4, set.rangeCount6]).toEqual([1, 2]);
    expect(IpSet.fromItems(['10.0.0.1', '10.0.0.0/8']).firstV6Index).toBe(-1);
    expect(IpSet.fromItems(['10.0.0.1', '::1..::2']).firstV6Index).toBe(1);
  });

  it('ipSetFromText splits on any whitespace and reads a non-string as empty', () => {
    const { set, errors } = ipSetFromText('\n\t 10.0.0.1 \t\n::1\r\n10.0.0.2  ');
    expect(errors).toEqual([]);
    expect(set.ranges().map(formatIpRange)).toEqual(['10.0.0.1..10.0.0.2', '::1']);
    const none = ipSetFromText(undefined as unknown as string);
    expect([none.set.rangeCount4, none.set.rangeCount6, none.errors, none.firstV6Index]).toEqual([0, 0, [], -1]);
  });

  it('the bulk shortcut reads prefixes of one to three digits and hands anything else to parseIpItem', () => {
    // Each row: item, the ranges it covers (ipaddr.js's reading) or the reason it is refused.
    const rows: [string, string[] | RegExp][] = [
      ['10.1.2.3/0', ['0.0.0.0/0']],
      ['10.1.2.3/9', ['10.0.0.0/9']],
      ['10.1.2.3/31', ['10.1.2.2/31']],
      ['10.1.2.3/32', ['10.1.2.3']],
      ['10.1.2.3/33', /above 32/],
      ['10.1.2.3/100', /above 32/],
      ['10.1.2.3/1000', /not a decimal number/],
      ['10.1.2.3/01', /not a decimal number/],
      ['10.1.2.3/', /not a decimal number/],
      ['10.1.2.3/3a', /not a decimal number/],
      ['10.1.2.3/a', /not a decimal number/],
      ['10.1.2.3/:', /not a decimal number/],
      ['10.1.2.3//', /not a CIDR/],
      ['2001:db8::1/0', ['::/0']],
      ['2001:db8::1/31', ['2001:db8::/31']],
      ['2001:db8::1/33', ['2001:db8::/33']],
      ['2001:db8:1:2:3:4:5:6/95', ['2001:db8:1:2:3:4::/95']],
      ['2001:db8:1:2:3:4:5:6/127', ['2001:db8:1:2:3:4:5:6/127']],
      ['2001:db8:1:2:3:4:5:7/128', ['2001:db8:1:2:3:4:5:7']],
      ['2001:db8::1/129', /above 128/],
      ['ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128', ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
      ['ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/1', ['8000::/1']],
    ];
    for (const [item, want] of rows) {
      const { set, errors } = IpSet.fromItems([item]);
      if (want instanceof RegExp) {
        expect(errors.length, item).toBe(1);
        expect(errors[0]!.reason, item).toMatch(want);
      } else {
        expect(errors, item).toEqual([]);
        expect(set.ranges().map(formatIpRange), item).toEqual(want);
        const o = oracleRange(item);
        expect(set.ranges().map((r) => [bigOf([...r.first.bytes]), bigOf([...r.last.bytes])]), item).toEqual([[o.lo, o.hi]]);
      }
    }
  });
});

describe('IpSet builds beyond the fast key sort', () => {
  // Instrumented by Stryker, its 2^21 items take minutes: every mutant it covers would.
  slowUnderMutation('2^21 items')('sorts more than 2^21 IPv4 ranges with the comparator sort, in descending input order', () => {
    // 2^21 + 1 single addresses two apart (never adjacent, so none merge), given highest first.
    const n = (1 << 21) + 1;
    function* items(): Generator<string> {
      for (let i = n - 1; i >= 0; i--) yield v4Text(i * 2);
    }
    const { set, errors } = IpSet.fromItems(items());
    expect(errors).toEqual([]);
    expect(set.rangeCount4).toBe(n);
    for (const i of [0, 1, 12345, n >> 1, n - 2, n - 1]) {
      expect(set.has(v4Text(i * 2)), `${i * 2}`).toBe(true);
      expect(set.has(v4Text(i * 2 + 1)), `${i * 2 + 1}`).toBe(false);
    }
    const r = set.ranges();
    expect([formatIpRange(r[0]!), formatIpRange(r[n - 1]!)]).toEqual(['0.0.0.0', v4Text((n - 1) * 2)]);
  }, 60_000);

  it('ipSetFromItems is IpSet.fromItems', () => {
    const its = ['10.0.0.0/8', 'bad', '::1', '192.0.2.1..192.0.2.9'];
    const a = ipSetFromItems(its);
    const b = IpSet.fromItems(its);
    expect(a.set.ranges().map(formatIpRange)).toEqual(b.set.ranges().map(formatIpRange));
    expect([a.errors, a.firstV6Index]).toEqual([b.errors, b.firstV6Index]);
    expect(a.set.ranges().map(formatIpRange)).toEqual(['10.0.0.0/8', '192.0.2.1..192.0.2.9', '::1']);
  });
});
