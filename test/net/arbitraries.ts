/**
 * fast-check generators for addresses, address texts, set items and hostile strings, shared by the
 * test/net suites.
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';

/** A few /16-ish neighbourhoods so random items and queries collide often enough to hit. */
const V4_HOT = [0x0a000000, 0xc0000200, 0x00000000, 0xffff0000, 0x7f000000];
const V6_HOT: number[][] = [
  [0x20010db8, 0, 0, 0],
  [0, 0, 0xffff, 0x01020300],
  [0, 0, 0, 0],
  [0xffffffff, 0xffffffff, 0xffffffff, 0xffff0000],
  [0xfe800000, 0, 0, 0],
];

/** An IPv4 address as a number, biased toward a few neighbourhoods and the edges of the space. */
export const v4Number = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.tuple(fc.constantFrom(...V4_HOT), fc.integer({ min: 0, max: 0xffff })).map(([b, x]) => (b + x) >>> 0),
  fc.constantFrom(0, 1, 0xffffffff, 0xfffffffe, 0x7fffffff, 0x80000000),
);

/** An IPv6 address as 4 words, biased likewise. */
export const v6Words = fc.oneof(
  fc.tuple(...[0, 1, 2, 3].map(() => fc.integer({ min: 0, max: 0xffffffff }))),
  fc
    .tuple(fc.constantFrom(...V6_HOT), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 3 }))
    .map(([b, x, w]) => b.map((v, i) => (i === w ? (v + x) >>> 0 : v >>> 0)) as [number, number, number, number]),
  fc.constantFrom<[number, number, number, number]>([0, 0, 0, 0], [0, 0, 0, 1], [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]),
);

export function v4Bytes(x: number): number[] {
  return [x >>> 24, (x >>> 16) & 0xff, (x >>> 8) & 0xff, x & 0xff];
}
export function v6Bytes(w: number[]): number[] {
  return w.flatMap(v4Bytes);
}
export function v4Text(x: number): string {
  return v4Bytes(x).join('.');
}

/** The ways one IPv6 address can be written, all valid. */
export function v6Texts(w: number[]): string[] {
  const a = ipaddr.fromByteArray(v6Bytes(w)) as ipaddr.IPv6;
  const canonical = a.toRFC5952String();
  const texts = [canonical, a.toNormalizedString(), a.parts.map((p) => p.toString(16).padStart(4, '0')).join(':'), canonical.toUpperCase()];
  // Dotted-quad tail: first six groups in hex, last two as a quad.
  const six = a.parts.slice(0, 6).map((p) => p.toString(16)).join(':');
  texts.push(`${six}:${v4Text(w[3]!)}`);
  // Compressed head with a quad tail: print the first six groups followed by 1:1 (never part of the zero
  // run), then swap the trailing `1:1` for the quad.
  const withOnes = ipaddr.fromByteArray([...v6Bytes(w).slice(0, 12), 0, 1, 0, 1]).toString();
  texts.push(`${withOnes.slice(0, -3)}${v4Text(w[3]!)}`);
  return texts;
}

export const v6Text = v6Words.chain((w) => fc.constantFrom(...v6Texts(w)).map((t) => ({ w, t })));

/** Characters that address parsers care about, and a few they must refuse. */
const ADDRESS_CHARS = '0123456789abcdefABCDEFgx:.:.%/- \t\0';
export const addressLikeString = fc
  .array(fc.constantFrom(...ADDRESS_CHARS.split('')), { maxLength: 50 })
  .map((cs) => cs.join(''));

/** A valid address text with one character inserted, deleted or replaced. */
export const mutatedAddress = fc
  .tuple(
    fc.oneof(v4Number.map(v4Text), v6Text.map((x) => x.t)),
    fc.constantFrom('insert', 'delete', 'replace'),
    fc.nat(),
    fc.constantFrom(...ADDRESS_CHARS.split(''), '\uD800', '\u0660', '\uFF11'),
  )
  .map(([s, op, at, c]) => {
    const i = at % (s.length + 1);
    if (op === 'insert') return s.slice(0, i) + c + s.slice(i);
    if (op === 'delete') return s.slice(0, i) + s.slice(i + 1);
    return s.slice(0, i) + c + s.slice(i + 1);
  });

/** Any string: random unicode (lone surrogates included), address-like junk and near-addresses. */
export const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'binary-ascii', maxLength: 60 }),
  addressLikeString,
  mutatedAddress,
  v4Number.map(v4Text),
  v6Text.map((x) => x.t),
);

/** Strings every parser must survive and refuse. */
export const HOSTILE = [
  '',
  ' ',
  '1.2.3.4.5',
  '01.2.3.4',
  '1.02.3.4',
  '1.2.3.256',
  '1.2.3',
  '1.2.3.',
  '.1.2.3',
  '1..2.3',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '2130706433',
  ' 1.2.3.4',
  '1.2.3.4 ',
  '1.2.3.4\0',
  '1.2.3.4\n',
  '\uD800',
  '1.2.3.4\uDC00',
  '\uD83D1.2.3.4',
  '١.٢.٣.٤',
  '１.２.３.４',
  ':',
  ':::',
  '::1::',
  '1:2:3:4:5:6:7:8:9',
  '1::2:3:4:5:6:7:8',
  '12345::',
  'fe80::1%eth0',
  '::ffff:01.2.3.4',
  '::ffff:1.2.3',
  '::ffff:1.2.3.4.5',
  '1:2:3:4:5:6:7:1.2.3.4',
  '1.2.3.4::',
  '[::1]',
  '__proto__',
  'constructor',
  '1'.repeat(1 << 20),
  '1.2.3.4'.repeat(150000),
  ':'.repeat(1 << 20),
  `${'0:'.repeat(500000)}0`,
];
