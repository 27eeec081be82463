/**
 * IP addresses in SQL, read from text columns exactly as rulekit reads them (src/net's strict rules: no
 * leading zeros in a dotted quad, 1–4 hex digits a group, one `::` standing for at least one group, a
 * dotted-quad tail only at the end, no zone). The family is kept apart as rulekit keeps it: `10.0.0.1` and
 * `::ffff:10.0.0.1` are different addresses, and an IPv4 range never holds an IPv6 address.
 *
 * This module holds what every dialect's reading shares: the grammar as RE2 patterns, the {@link IpSql}
 * interface, and the forms of an address a dialect compares. Each dialect's {@link IpSql} is in its file
 * under dialects/.
 * @module
 */
import type { IpAddress, IpRange } from '../net/index.js';

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
export function v4Number(a: IpAddress): number {
  return ((a.bytes[0]! << 24) >>> 0) + (a.bytes[1]! << 16) + (a.bytes[2]! << 8) + a.bytes[3]!;
}

/**
 * The SQL reading of one address column in one dialect: each function takes the column expression and
 * writes a test that is NULL or FALSE when the text is not an address of the wanted family.
 */
export interface IpSql {
  /** Whether the text is an address (either family). */
  isAddress(col: string): string;
  /** Whether the address lies in one of the ranges (any families). */
  inRanges(col: string, ranges: readonly IpRange[]): string;
  /** Compare with one address (`<`, `<=`, `>`, `>=`), same family only. */
  compare(col: string, op: '<' | '<=' | '>' | '>=', a: IpAddress): string;
  /** The same tests over an address column's keys, computed once a row (see {@link IpKeySql}). */
  readonly keys: IpKeySql;
}

/**
 * An address column's comparison keys, computed once a row by the flow source from the column's text, so
 * that the rules reading the column compare keys instead of each parsing the text again (a ruleset of 50
 * rules reads `ip.src` in a dozen). `of` gives the key expressions (each NULL unless the text is an address
 * of the key's kind); the tests take the key columns in the same order and hold as {@link IpSql}'s over
 * the text.
 */
export interface IpKeySql {
  of(col: string): string[];
  isAddress(keys: readonly string[]): string;
  inRanges(keys: readonly string[], ranges: readonly IpRange[]): string;
  compare(keys: readonly string[], op: '<' | '<=' | '>' | '>=', a: IpAddress): string;
}

/** Ranges at most this many are written as OR-ed BETWEENs; more go into one array the engine scans. */
export const INLINE_RANGES = 16;

/**
 * The array literal of a long range list, per dialect and family, kept with the list's ranges: a list of
 * 10k CIDRs is 10k pairs of text, and a ruleset compiled again (a server's dry runs) reuses it.
 */
const ARRAYS = new WeakMap<readonly IpRange[], Map<string, string>>();
export function cachedArray(ranges: readonly IpRange[], key: string, build: () => string): string {
  let m = ARRAYS.get(ranges);
  if (!m) ARRAYS.set(ranges, (m = new Map()));
  let v = m.get(key);
  if (v === undefined) m.set(key, (v = build()));
  return v;
}
