/**
 * IP addresses in SQL, read from text columns exactly as rulekit reads them (src/net's strict rules: no
 * leading zeros in a dotted quad, 1–4 hex digits a group, one `::` standing for at least one group, a
 * dotted-quad tail only at the end, no zone). The family is kept apart as rulekit keeps it: `10.0.0.1` and
 * `::ffff:10.0.0.1` are different addresses, and an IPv4 range never holds an IPv6 address.
 *
 * - ClickHouse: the engine's own `IPv4`/`IPv6` types after a strict-grammar guard (`match`, RE2), so
 *   ranges compare native values (`toUInt32(toIPv4OrNull(x)) BETWEEN …`, `toIPv6OrNull(x) BETWEEN …`).
 * - DuckDB: its `inet` extension is downloaded at first use (not possible offline, and not in a browser
 *   bundle's reach), so addresses become a family-tagged fixed-width hex key (`4` + 8 hex digits, `6` + 32)
 *   computed in SQL after the same guard; ranges compare keys as strings, which orders them as numbers.
 * @module
 */
import { formatIpAddress, type IpAddress, type IpRange } from '../net/index.js';
import { sqlString, type SqlDialect } from './quote.js';

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const QUAD = `${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}`;
const H = '[0-9a-fA-F]{1,4}';

/** rulekit's IPv4 text grammar as an RE2 pattern (whole string). */
export const IPV4_PATTERN = `^${QUAD}$`;

/** rulekit's IPv6 text grammar as an RE2 pattern (whole string): eight groups, or `::` for one or more. */
export const IPV6_PATTERN = (() => {
  const alts: string[] = [`(${H}:){7}${H}`, `(${H}:){6}${QUAD}`];
  // `::` with h groups before it and at most 7-h (hex) after it: h + t <= 7.
  for (let h = 0; h <= 7; h++) {
    const head = h === 0 ? ':' : `(${H}:){${h}}`;
    const room = 7 - h;
    alts.push(room === 0 ? `${head}:` : `${head}(:|(:${H}){1,${room}})`);
    // With a dotted-quad tail (two groups): h + t + 2 <= 7.
    const roomQ = 5 - h;
    if (roomQ >= 0) alts.push(`${head}:(${H}:){0,${roomQ}}${QUAD}`);
  }
  return `^(${alts.join('|')})$`;
})();

const HEX2 = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Bytes as hex, lower case. */
function hex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX2[bytes[i]!];
  return s;
}

/** The family-tagged key of an address (DuckDB's comparison form). */
export function ipKey(a: IpAddress): string {
  return `${a.family}${hex(a.bytes)}`;
}

/** An IPv4 address as an unsigned 32-bit integer. */
function v4Number(a: IpAddress): number {
  return ((a.bytes[0]! << 24) >>> 0) + (a.bytes[1]! << 16) + (a.bytes[2]! << 8) + a.bytes[3]!;
}

/**
 * The SQL reading of one address column per dialect: each function takes the column expression and
 * writes a test that is NULL or FALSE when the text is not an address of the wanted family.
 */
export interface IpSql {
  /** Whether the text is an address (either family). */
  isAddress(col: string): string;
  /** Whether the address lies in one of the ranges (any families). */
  inRanges(col: string, ranges: readonly IpRange[]): string;
  /** Compare with one address (`<`, `<=`, `>`, `>=`), same family only. */
  compare(col: string, op: '<' | '<=' | '>' | '>=', a: IpAddress): string;
}

/** Ranges at most this many are written as OR-ed BETWEENs; more go into one array the engine scans. */
const INLINE_RANGES = 16;

/**
 * The array literal of a long range list, per dialect and family, kept with the list's ranges: a list of
 * 10k CIDRs is 10k pairs of text, and a ruleset compiled again (a server's dry runs) reuses it.
 */
const ARRAYS = new WeakMap<readonly IpRange[], Map<string, string>>();
function cachedArray(ranges: readonly IpRange[], key: string, build: () => string): string {
  let m = ARRAYS.get(ranges);
  if (!m) ARRAYS.set(ranges, (m = new Map()));
  let v = m.get(key);
  if (v === undefined) m.set(key, (v = build()));
  return v;
}

export function ipSql(dialect: SqlDialect): IpSql {
  const q = (s: string) => sqlString(s, dialect);
  if (dialect === 'clickhouse') {
    const is4 = (c: string) => `match(${c}, ${q(IPV4_PATTERN)})`;
    const is6 = (c: string) => `match(${c}, ${q(IPV6_PATTERN)})`;
    const n4 = (c: string) => `toUInt32(toIPv4OrNull(${c}))`;
    const a6 = (c: string) => `toIPv6OrNull(${c})`;
    const lit6 = (a: IpAddress) => `toIPv6(${q(formatIpAddress(a))})`;
    const family = (c: string, fam: 4 | 6, ranges: readonly IpRange[]): string | undefined => {
      if (ranges.length > INLINE_RANGES) {
        const array = cachedArray(ranges, `clickhouse${fam}`, () => {
          const rs = ranges.filter((r) => r.first.family === fam);
          return rs.length ? `[${rs.map((r) => (fam === 4 ? `(${v4Number(r.first)}, ${v4Number(r.last)})` : `(${lit6(r.first)}, ${lit6(r.last)})`)).join(', ')}]` : '';
        });
        if (!array) return undefined;
        return `(${fam === 4 ? is4(c) : is6(c)} AND arrayExists(r -> ${fam === 4 ? n4(c) : a6(c)} BETWEEN r.1 AND r.2, ${array}))`;
      }
      const rs = ranges.filter((r) => r.first.family === fam);
      if (!rs.length) return undefined;
      const guard = fam === 4 ? is4(c) : is6(c);
      if (fam === 4) return `(${guard} AND (${rs.map((r) => `${n4(c)} BETWEEN ${v4Number(r.first)} AND ${v4Number(r.last)}`).join(' OR ')}))`;
      return `(${guard} AND (${rs.map((r) => `${a6(c)} BETWEEN ${lit6(r.first)} AND ${lit6(r.last)}`).join(' OR ')}))`;
    };
    return {
      isAddress: (c) => `(${is4(c)} OR ${is6(c)})`,
      inRanges: (c, ranges) => {
        const parts = [family(c, 4, ranges), family(c, 6, ranges)].filter((p): p is string => p !== undefined);
        return parts.length ? `(${parts.join(' OR ')})` : 'FALSE';
      },
      compare: (c, op, a) => (a.family === 4 ? `(${is4(c)} AND ${n4(c)} ${op} ${v4Number(a)})` : `(${is6(c)} AND ${a6(c)} ${op} ${lit6(a)})`),
    };
  }
  // DuckDB: the key of one family, computed once per use through a one-element list_transform (a local
  // binding); a test reads only the family its ranges hold, so an IPv4 range never parses IPv6 text.
  const key = (c: string, fam: 4 | 6) => `list_transform([${c}], s -> ${fam === 4 ? DUCKDB_KEY4 : DUCKDB_KEY6})[1]`;
  const within = (c: string, fam: 4 | 6, ranges: readonly IpRange[]): string | undefined => {
    const rs = ranges.filter((r) => r.first.family === fam);
    if (!rs.length) return undefined;
    if (ranges.length <= INLINE_RANGES) return `list_transform([${key(c, fam)}], k -> ${rs.map((r) => `k BETWEEN ${q(ipKey(r.first))} AND ${q(ipKey(r.last))}`).join(' OR ')})[1]`;
    const array = cachedArray(ranges, `duckdb${fam}`, () => `[${rs.map((r) => `[${q(ipKey(r.first))}, ${q(ipKey(r.last))}]`).join(', ')}]`);
    return `list_transform([${key(c, fam)}], k -> len(list_filter(${array}, r -> k BETWEEN r[1] AND r[2])) > 0)[1]`;
  };
  return {
    isAddress: (c) => `(regexp_full_match(${c}, ${q(IPV4_PATTERN)}) OR regexp_full_match(${c}, ${q(IPV6_PATTERN)}))`,
    inRanges: (c, ranges) => {
      const parts = [within(c, 4, ranges), within(c, 6, ranges)].filter((p): p is string => p !== undefined);
      // Never NULL (text of the other family has no key): `!=` negates this.
      return parts.length ? `(${parts.map((p) => `COALESCE(${p}, FALSE)`).join(' OR ')})` : 'FALSE';
    },
    compare: (c, op, a) => `list_transform([${key(c, a.family)}], k -> k ${op} ${q(ipKey(a))})[1]`,
  };
}

/**
 * DuckDB: the key of the text `s` as an address of one family, NULL when it is not one. A dotted quad becomes eight hex digits;
 * an IPv6 text has its dotted-quad tail turned into two groups, its `::` expanded, each group padded.
 */
const QUAD_HEX = (t: string) =>
  `list_aggregate(list_transform(string_split(${t}, '.'), o -> lpad(lower(hex(CAST(o AS UTINYINT))), 2, '0')), 'string_agg', '')`;
const V6_GROUPS = (t: string) => `CASE WHEN ${t} = '' THEN []::VARCHAR[] ELSE string_split(${t}, ':') END`;
const DUCKDB_KEY4 = `CASE WHEN regexp_full_match(s, ${sqlString(IPV4_PATTERN)}) THEN '4' || ${QUAD_HEX('s')} END`;
const DUCKDB_KEY6 = [
  `CASE WHEN regexp_full_match(s, ${sqlString(IPV6_PATTERN)}) THEN '6' || list_transform([`,
  // t: the text with a dotted-quad tail written as two hex groups.
  `CASE WHEN contains(s, '.') THEN regexp_replace(s, '[0-9.]+$', '') || list_transform([${QUAD_HEX(`regexp_extract(s, '[0-9.]+$')`)}], x -> left(x, 4) || ':' || right(x, 4))[1] ELSE s END`,
  `], t -> list_transform([string_split(t, '::')], p -> list_aggregate(list_transform(`,
  `CASE WHEN len(p) = 1 THEN string_split(t, ':') ELSE ${V6_GROUPS('p[1]')} || list_transform(range(8 - len(${V6_GROUPS('p[1]')}) - len(${V6_GROUPS('p[2]')})), z -> '0') || ${V6_GROUPS('p[2]')} END,`,
  `g -> lpad(lower(g), 4, '0')), 'string_agg', ''))[1])[1]`,
  'END',
].join(' ');
