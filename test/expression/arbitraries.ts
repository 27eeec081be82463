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

const port = fc.integer({ min: 0, max: 255 });
const v4 = fc.tuple(fc.constantFrom(10, 192, 198), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })).map((a) => a.join('.'));
const v6 = fc.tuple(fc.constantFrom('2001:db8', 'fe80', '::ffff'), fc.integer({ min: 0, max: 3 })).map(([p, n]) => (p === '::ffff' ? `::ffff:10.0.0.${n}` : `${p}::${n}`));
const ip = fc.oneof(v4, v6);

const intPredicate = fc.oneof(
  fc.tuple(fc.constantFrom(...INT_FIELDS), fc.constantFrom('==', '!=', '<', '<=', '>', '>=', 'eq', 'ne', 'lt', 'ge', '&'), port).map(([f, o, v]) => `${f} ${o} ${v}`),
  fc.tuple(fc.constantFrom(...INT_FIELDS), fc.array(fc.oneof(port.map(String), fc.tuple(port, port).map(([a, b]) => `${Math.min(a, b)}..${Math.max(a, b)}`)), { maxLength: 14 })).map(([f, items]) => `${f} in {${items.join(' ')}}`),
  fc.tuple(fc.constantFrom('ip', 'tcp'), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 16 }), port).map(([f, s, n, v]) => `bit_slice(${f}, ${s}, ${s + n}) == ${v}`),
);
const stringPredicate = fc.oneof(
  fc.tuple(fc.constantFrom(...STRING_FIELDS), fc.constantFrom('==', '!=', 'contains', '<', '>=', 'matches', 'wildcard', 'strict wildcard'), fc.oneof(fc.constantFrom(...PROTOS, 'tc*', 'u.p', 'TCP'), hostileLiteral)).map(
    ([f, o, v]) => `${f} ${o} ${stringLiteral(o === 'matches' ? v.replace(/[\\^$.|?*+()[\]{}]/g, '') : o.includes('wildcard') ? v.replace(/\\/g, '\\\\').replace(/\*+/g, '*') : v)}`,
  ),
  fc.tuple(fc.constantFrom(...STRING_FIELDS), fc.array(fc.oneof(fc.constantFrom(...PROTOS), hostileLiteral), { maxLength: 14 })).map(([f, vs]) => `${f} in {${vs.map(stringLiteral).join(' ')}}`),
  fc.tuple(fc.constantFrom(...COUNTRY_FIELDS), fc.constantFrom('==', '!='), fc.constantFrom(...COUNTRIES)).map(([f, o, v]) => `${f} ${o} "${v}"`),
);
const ipPredicate = fc.oneof(
  fc.tuple(fc.constantFrom(...IP_FIELDS), fc.constantFrom('==', '!=', '<', '>='), ip).map(([f, o, v]) => `${f} ${o} ${v}`),
  fc.tuple(fc.constantFrom(...IP_FIELDS), fc.array(fc.oneof(ip, v4.map((a) => `${a.replace(/\.\d+$/, '.0')}/24`), fc.constant('10.0.0.1..10.0.2.0')), { maxLength: 5 })).map(([f, vs]) => `${f} in {${vs.join(' ')}}`),
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
    'tcp.srcport': port,
    'tcp.dstport': port,
    'udp.dstport': port,
    'ip.ttl': port,
    'ip.len': fc.oneof(port, fc.constant('80' as unknown as number)),
    'tcp.flags': port,
    'icmp.type': port,
    'ip.src.asnum': port,
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
