/**
 * fast-check generators of network rule expressions (as text built from an AST-like recipe) and of
 * packets, over the default network scheme. Shared by the property tests and the benchmarks.
 */
import fc from 'fast-check';

const INT_FIELDS = ['tcp.srcport', 'tcp.dstport', 'udp.dstport', 'ip.ttl', 'ip.len', 'tcp.flags', 'icmp.type', 'ip.src.asnum', 'ip.geoip.asnum'];
const STRING_FIELDS = ['ip.proto', 'cf.colo.name'];
const COUNTRY_FIELDS = ['ip.geoip.country', 'ip.src.country', 'ip.dst.country'];
const IP_FIELDS = ['ip.src', 'ip.dst'];
const BOOL_FIELDS = ['tcp.flags.syn', 'tcp.flags.ack', 'sip'];
const COUNTRIES = ['BR', 'US', 'DE', 'FR', 'XX'];
const PROTOS = ['tcp', 'udp', 'icmp'];

/** Hostile strings: quotes, backslashes, template/comment breakers, line separators, surrogates. */
export const hostileString = fc.oneof(
  fc.constantFrom('"', '\\', '${', '*/', '/*', '`', '\u2028', '\u2029', '</script>', '\\u0000', "'", '\n', '\u0000', '\ud800', 'a"b', '"+process.exit()+"'),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

/**
 * Hostile strings an expression can hold: a lone surrogate has no UTF-8 form and is an error
 * (`lone-surrogate`), so literals get U+FFFD in its place; packets keep the raw hostile strings.
 */
export const hostileLiteral = hostileString.map((s) => s.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));

/** A string value the language can write: the raw-string form takes anything without `"#`. */
export function stringLiteral(value: string): string {
  if (!value.includes('"#')) return `r#"${value}"#`;
  // fall back to an escaped quoted string: escape \ and " and write every other char as is
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const utf8 = new TextEncoder();
const hex2 = (b: number) => `\\x${b.toString(16).padStart(2, '0')}`;
const octal3 = (b: number) => `\\${b.toString(8).padStart(3, '0')}`;

/**
 * A quoted string literal for `value` where each character is written as itself (`"` and `\` escaped)
 * or as its UTF-8 bytes in `\xHH` or `\OOO` escapes, as `how[i]` says (0: as itself, 1: hex, 2: octal).
 * A lone surrogate has no UTF-8 bytes: it is always written as itself.
 */
export function escapedLiteral(value: string, how: readonly number[]): string {
  let out = '"';
  let i = 0;
  for (const ch of value) {
    const mode = how.length ? how[i++ % how.length]! : 0;
    const lone = ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff;
    if (mode === 0 || lone) out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    else out += [...utf8.encode(ch)].map(mode === 1 ? hex2 : octal3).join('');
  }
  return `${out}"`;
}

/** Every way the language can write `value`: raw string, quoted, and quoted with byte escapes. */
export function literalOf(value: string): fc.Arbitrary<string> {
  const escaped = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 8 }).map((how) => escapedLiteral(value, how));
  const forms = [escaped, fc.constant(escapedLiteral(value, [1])), fc.constant(escapedLiteral(value, [2])), fc.constant(escapedLiteral(value, [0]))];
  return value.includes('"#') ? fc.oneof(...forms) : fc.oneof(fc.constant(`r#"${value}"#`), ...forms);
}

/**
 * Each Int field's literal range, from the width of the field it reads (16-bit ports and IP length, 8-bit
 * flags, TTL and ICMP type, 32-bit AS numbers); a literal outside it is an error.
 */
export const INT_FIELD_MAX: Readonly<Record<string, number>> = {
  'tcp.srcport': 0xffff, 'tcp.dstport': 0xffff, 'udp.dstport': 0xffff, 'ip.len': 0xffff,
  'ip.ttl': 0xff, 'tcp.flags': 0xff, 'icmp.type': 0xff, 'ip.src.asnum': 0xffffffff, 'ip.geoip.asnum': 0xffffffff,
};

/** An integer of 0..max: anywhere in the range, at its edges, or small (so packets and literals meet). */
export function intUpTo(max: number): fc.Arbitrary<number> {
  return fc.oneof(fc.integer({ min: 0, max }), fc.constantFrom(0, 1, max - 1, max), fc.integer({ min: 0, max: Math.min(max, 255) }));
}

/** Integers around every field's edges, valid or not (each is valid for some fields only). */
export const edgeInt = fc.oneof(
  fc.constantFrom(0, 1, 254, 255, 256, 65534, 65535, 65536, 0xffffffff, 0x100000000, -1, -65536, 2 ** 53, 2 ** 63),
  fc.integer({ min: -70000, max: 70000 }),
);

const port = fc.integer({ min: 0, max: 255 });
const V4_HOT = [10, 192, 198];
/** IPv4 over the whole space, with a few hot /16s so that packets and literals meet. */
const v4 = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...V4_HOT), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })).map((a) => a.join('.')) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((a) => a.join('.')) },
  { weight: 1, arbitrary: fc.constantFrom('0.0.0.0', '255.255.255.255', '127.0.0.1', '0.0.0.1') },
);
const v6 = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('2001:db8', 'fe80', '::ffff'), fc.integer({ min: 0, max: 3 })).map(([p, n]) => (p === '::ffff' ? `::ffff:10.0.0.${n}` : `${p}::${n}`)) },
  { weight: 1, arbitrary: fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':')) },
  { weight: 1, arbitrary: fc.constantFrom('::', '::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff') },
);
export const ip = fc.oneof(v4, v6);

/** The address `a` (IPv4 or IPv6 text) with host bits cleared under a `len`-bit prefix, as CIDR text. */
function cidrOf(a: string, len: number): string {
  if (!a.includes(':')) {
    const n = a.split('.').reduce((x, o) => x * 256 + Number(o), 0);
    const l = len % 33;
    const masked = l === 0 ? 0 : Number((BigInt(n) >> BigInt(32 - l)) << BigInt(32 - l));
    return `${[24, 16, 8, 0].map((k) => Math.floor(masked / 2 ** k) % 256).join('.')}/${l}`;
  }
  const l = len % 129;
  const words = expandV6(a);
  const big = words.reduce((x, w) => (x << 16n) | BigInt(w), 0n);
  const masked = l === 0 ? 0n : (big >> BigInt(128 - l)) << BigInt(128 - l);
  const groups = Array.from({ length: 8 }, (_, i) => Number((masked >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return `${groups.join(':')}/${l}`;
}

/** The eight 16-bit groups of an IPv6 text (with `::` and a dotted-quad tail). */
function expandV6(a: string): number[] {
  const quad = a.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  const text = quad ? `${a.slice(0, -quad[0].length)}${((+quad[1]! << 8) | +quad[2]!).toString(16)}:${((+quad[3]! << 8) | +quad[4]!).toString(16)}` : a;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':').map((g) => parseInt(g, 16)) : [];
  const t = tail ? tail.split(':').map((g) => parseInt(g, 16)) : [];
  return tail === undefined ? h : [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** A range `a..b` of one family (ends in order). */
const ipRange = fc.oneof(fc.tuple(v4, v4), fc.tuple(v6, v6)).map(([a, b]) => {
  const key = (x: string) => (x.includes(':') ? expandV6(x).map((g) => g.toString(16).padStart(4, '0')).join('') : x.split('.').map((o) => o.padStart(3, '0')).join(''));
  return key(a) <= key(b) ? `${a}..${b}` : `${b}..${a}`;
});
/** A set item: an address, a CIDR of either family with any prefix length, or a range. */
export const ipItem = fc.oneof(ip, fc.tuple(ip, fc.nat(128)).map(([a, l]) => cidrOf(a, l)), ipRange, fc.constant('10.0.0.1..10.0.2.0'));

const INT_FIELD_NAMES = Object.keys(INT_FIELD_MAX);
/** An Int literal in decimal or hexadecimal. */
const intText = (n: number) => fc.constantFrom(String(n), `0x${n.toString(16)}`);
const intPredicate = fc.oneof(
  fc.tuple(fc.constantFrom(...INT_FIELD_NAMES), fc.constantFrom('==', '!=', '<', '<=', '>', '>=', 'eq', 'ne', 'lt', 'ge', '&'))
    .chain(([f, o]) => intUpTo(INT_FIELD_MAX[f]!).chain(intText).map((v) => `${f} ${o} ${v}`)),
  fc.constantFrom(...INT_FIELD_NAMES).chain((f) => {
    const v = intUpTo(INT_FIELD_MAX[f]!);
    const item = fc.oneof(v.map(String), fc.tuple(v, v).map(([a, b]) => `${Math.min(a, b)}..${Math.max(a, b)}`));
    return fc.array(item, { maxLength: 14 }).map((items) => `${f} in {${items.join(' ')}}`);
  }),
  fc.tuple(fc.constantFrom('ip', 'tcp'), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 16 }), port).map(([f, s, n, v]) => `bit_slice(${f}, ${s}, ${s + n}) == ${v}`),
);
const stringPredicate = fc.oneof(
  fc.tuple(fc.constantFrom(...STRING_FIELDS), fc.constantFrom('==', '!=', 'contains', '<', '>=', 'matches', 'wildcard', 'strict wildcard'), fc.oneof(fc.constantFrom(...PROTOS, 'tc*', 'u.p', 'TCP'), hostileLiteral)).chain(
    ([f, o, v]) => literalOf(o === 'matches' ? v.replace(/[\\^$.|?*+()[\]{}]/g, '') : o.includes('wildcard') ? v.replace(/\\/g, '\\\\').replace(/\*+/g, '*') : v).map((lit) => `${f} ${o} ${lit}`),
  ),
  fc.tuple(fc.constantFrom(...STRING_FIELDS), fc.array(fc.oneof(fc.constantFrom(...PROTOS), hostileLiteral).chain(literalOf), { maxLength: 14 })).map(([f, vs]) => `${f} in {${vs.join(' ')}}`),
  fc.tuple(fc.constantFrom(...COUNTRY_FIELDS), fc.constantFrom('==', '!='), fc.constantFrom(...COUNTRIES)).map(([f, o, v]) => `${f} ${o} "${v}"`),
);
const ipPredicate = fc.oneof(
  fc.tuple(fc.constantFrom(...IP_FIELDS), fc.constantFrom('==', '!=', '<', '>='), ip).map(([f, o, v]) => `${f} ${o} ${v}`),
  fc.tuple(fc.constantFrom(...IP_FIELDS), fc.array(ipItem, { maxLength: 5 })).map(([f, vs]) => `${f} in {${vs.join(' ')}}`),
  fc.tuple(fc.constantFrom(...IP_FIELDS), fc.constantFrom('$svc.anonymizer', '$blocklist')).map(([f, l]) => `${f} in ${l}`),
);
const boolPredicate = fc.constantFrom(...BOOL_FIELDS);

/** A valid expression over the network scheme. */
export const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { weight: 6, arbitrary: fc.oneof(intPredicate, stringPredicate, ipPredicate, boolPredicate) },
    { weight: 2, arbitrary: tie('atom').map((a) => `not ${a}`) },
    { weight: 2, arbitrary: tie('expr').map((e) => `(${e})`) },
  ),
  expr: fc.oneof(
    { weight: 3, arbitrary: tie('atom') },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('and', '&&', 'or', '||', 'xor', '^^'), fc.array(tie('atom'), { minLength: 2, maxLength: 4 }))
        .map(([op, parts]) => parts.join(` ${op} `)),
    },
  ),
})).expr;

/** Lists used by generated expressions. */
export const LISTS = { 'svc.anonymizer': ['198.51.100.0/24', '10.0.1.0/30', '2001:db8::/126'], blocklist: ['10.0.0.0/31', '192.0.0.0/16'] };

/** A packet: each field present or missing, sometimes of the wrong type. */
export const packet: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    'tcp.srcport': intUpTo(0xffff),
    'tcp.dstport': intUpTo(0xffff),
    'udp.dstport': fc.oneof(intUpTo(0xffff), edgeInt),
    'ip.ttl': intUpTo(0xff),
    'ip.len': fc.oneof(intUpTo(0xffff), fc.constant('80' as unknown as number)),
    'tcp.flags': intUpTo(0xff),
    'icmp.type': fc.oneof(intUpTo(0xff), edgeInt),
    'ip.src.asnum': intUpTo(0xffffffff),
    'ip.proto': fc.oneof(fc.constantFrom(...PROTOS), hostileString),
    'cf.colo.name': hostileString,
    'ip.geoip.country': fc.constantFrom(...COUNTRIES),
    'ip.src.country': fc.constantFrom(...COUNTRIES),
    'ip.dst.country': fc.constantFrom(...COUNTRIES),
    'ip.src': fc.oneof(ip, fc.constant('not an ip')),
    'ip.dst': ip,
    'tcp.flags.syn': fc.boolean(),
    'tcp.flags.ack': fc.oneof(fc.boolean(), fc.constant(1 as unknown as boolean)),
    sip: fc.boolean(),
    ip: fc.uint8Array({ minLength: 0, maxLength: 8 }),
    tcp: fc.uint8Array({ minLength: 0, maxLength: 8 }),
  },
  { requiredKeys: [] },
);
