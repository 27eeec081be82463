/**
 * IP address values: strict parsing (through `ipaddr.js`), canonical printing, ordering, CIDRs, ranges and
 * the set items of the expression language (`10.0.0.0/8`, `192.0.2.1..192.0.2.9`, `2001:db8::/32`).
 *
 * Strictness rules (one place, so the checker, the index and the hot-path parser agree):
 * - IPv4 is a dotted quad of decimal octets 0..255 without leading zeros (`01.2.3.4` and the short forms
 *   `1.2.3`, `0x7f.1` that `inet_aton` accepts are not addresses).
 * - IPv6 is RFC 4291 text: up to eight groups of 1..4 hex digits, at most one `::`, optionally ending in a
 *   strict dotted quad. `::ffff:1.2.3.4` stays an IPv6 address (it is never turned into IPv4). Zone ids
 *   (`fe80::1%eth0`) are not accepted.
 * - No surrounding whitespace, no other characters. Anything else is `undefined`, never an exception.
 *
 * Browser-safe: no Node built-ins.
 */
import { ipaddrLib } from './deferred.js';

/** Address family: 4 or 6. */
export type IpFamily = 4 | 6;

/** One IP address: 4 (IPv4) or 16 (IPv6) bytes in network order. */
export interface IpAddress {
  readonly family: IpFamily;
  readonly bytes: Uint8Array;
}

/** An inclusive range of addresses of one family, `first <= last`. */
export interface IpRange {
  readonly first: IpAddress;
  readonly last: IpAddress;
}

/** A CIDR block. `network` has its host bits cleared; `hostBitsSet` says whether the text had any set. */
export interface IpCidr {
  readonly network: IpAddress;
  readonly prefix: number;
  readonly hostBitsSet: boolean;
}

/** A parsed set or list item: an address, a CIDR or a range, always as the range of addresses it covers. */
export type IpItem =
  | { ok: true; kind: 'address' | 'cidr' | 'range'; range: IpRange; hostBitsSet: boolean }
  | { ok: false; reason: string };

/** Longest IPv6 text we accept (`ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`). */
export const MAX_IPV6_TEXT_LENGTH = 45;
/** Longest IPv4 text we accept (`255.255.255.255`). */
export const MAX_IPV4_TEXT_LENGTH = 15;

/** Bit length of each family. */
export const FAMILY_BITS: Readonly<Record<IpFamily, number>> = { 4: 32, 6: 128 };

const STRICT_DOTTED_QUAD = /^(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}$/;
const IPV6_CHARS = /^[0-9A-Fa-f:.]+$/;

/**
 * Build an address from bytes (copied). `bytes` must hold 4 or 16 values 0..255.
 * @throws RangeError when there are not 4 or 16 bytes (a programming error, not user input).
 */
export function ipAddressFromBytes(bytes: ArrayLike<number>): IpAddress {
  const copy = Uint8Array.from(bytes as ArrayLike<number>);
  if (copy.length !== 4 && copy.length !== 16) throw new RangeError('an IP address has 4 or 16 bytes');
  return { family: copy.length === 4 ? 4 : 6, bytes: copy };
}

function parseIpv4(text: string): IpAddress | undefined {
  if (text.length > MAX_IPV4_TEXT_LENGTH || !STRICT_DOTTED_QUAD.test(text)) return undefined;
  // Four decimal octets without leading zeros, by the pattern: only their range is left to check, by
  // hand. ipaddr.js (its four-part check, parse and byte array) was ~4% of a server PUT of 50 new
  // expressions of CIDR sets (bench server, profile); the tests hold this to node:net's isIP.
  const bytes = new Uint8Array(4);
  let octet = 0;
  let i = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x2e) {
      bytes[i++] = octet;
      octet = 0;
    } else if ((octet = octet * 10 + c - 0x30) > 255) return undefined;
  }
  bytes[i] = octet;
  return { family: 4, bytes };
}

function parseIpv6(text: string): IpAddress | undefined {
  if (text.length > MAX_IPV6_TEXT_LENGTH || !IPV6_CHARS.test(text)) return undefined;
  let hex = text;
  const lastColon = text.lastIndexOf(':');
  if (lastColon < 0) return undefined;
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    // ipaddr.js reads `::1.2.3.4` as `::ffff:1.2.3.4` and accepts octal/hex octets in the embedded quad,
    // so we check the quad ourselves and hand ipaddr.js the equivalent all-hex text.
    const v4 = parseIpv4(tail);
    if (!v4) return undefined;
    const b = v4.bytes;
    hex = `${text.slice(0, lastColon + 1)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  } else if (text.includes('.')) {
    return undefined;
  }
  const ipaddr = ipaddrLib();
  if (!ipaddr.IPv6.isValid(hex)) return undefined;
  const parsed = ipaddr.IPv6.parse(hex);
  if (parsed.zoneId !== undefined) return undefined;
  return { family: 6, bytes: Uint8Array.from(parsed.toByteArray()) };
}

/**
 * Parse an IPv4 dotted quad or IPv6 text strictly (see the module comment). Returns `undefined` for
 * anything that is not an address; never throws.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_IPV6_TEXT_LENGTH) return undefined;
  try {
    return text.includes(':') ? parseIpv6(text) : parseIpv4(text);
  } catch {
    return undefined;
  }
}

/** True when `a` is in `::ffff:0:0/96` (an IPv4-mapped IPv6 address). */
export function isIpv4Mapped(a: IpAddress): boolean {
  if (a.family !== 6) return false;
  const b = a.bytes;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/**
 * Canonical text: dotted quad for IPv4; RFC 5952 for IPv6 (lower case, longest zero run of two or more
 * groups compressed, leftmost on ties), with IPv4-mapped addresses printed as `::ffff:a.b.c.d`.
 */
export function formatIpAddress(a: IpAddress): string {
  const b = a.bytes;
  if (a.family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (isIpv4Mapped(a)) return `::ffff:${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  return ipaddrLib().fromByteArray(Array.from(b)).toString();
}

/** Order addresses: IPv4 before IPv6, then by bytes (numeric order). Returns <0, 0 or >0. */
export function compareIpAddress(a: IpAddress, b: IpAddress): number {
  if (a.family !== b.family) return a.family - b.family;
  const x = a.bytes;
  const y = b.bytes;
  for (let i = 0; i < x.length; i++) {
    const d = x[i]! - y[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** The address with the low `hostBits` bits all set (`fill` true) or all cleared. */
function withHostBits(a: IpAddress, prefix: number, fill: boolean): IpAddress {
  const out = new Uint8Array(a.bytes);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8)); // network bits in this byte
    const hostMask = keep === 8 ? 0 : 0xff >> keep;
    out[i] = fill ? out[i]! | hostMask : out[i]! & ~hostMask & 0xff;
  }
  return { family: a.family, bytes: out };
}

const PREFIX_DIGITS = /^(?:0|[1-9]\d{0,2})$/;

/** Shorten user text for a message and quote it. */
function quote(text: string): string {
  const short = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return JSON.stringify(short);
}

/** Parse `addr/len` into a CIDR with the network masked. Returns `undefined` if it is not one. */
export function parseIpCidr(text: string): IpCidr | undefined {
  const r = parseCidrDetailed(text);
  return 'reason' in r ? undefined : r;
}

function parseCidrDetailed(text: string): IpCidr | { reason: string } {
  const slash = text.indexOf('/');
  if (slash < 0 || slash !== text.lastIndexOf('/')) return { reason: `${quote(text)} is not a CIDR (address/length)` };
  const addrText = text.slice(0, slash);
  const lenText = text.slice(slash + 1);
  const addr = parseIpAddress(addrText);
  if (!addr) return { reason: addressReason(addrText) };
  if (!PREFIX_DIGITS.test(lenText)) {
    return { reason: `the prefix length ${quote(lenText)} is not a decimal number without leading zeros` };
  }
  const prefix = Number(lenText);
  const max = FAMILY_BITS[addr.family];
  if (prefix > max) return { reason: `prefix length ${prefix} is above ${max}` };
  const network = withHostBits(addr, prefix, false);
  return { network, prefix, hostBitsSet: compareIpAddress(network, addr) !== 0 };
}

/** The inclusive range of addresses a CIDR covers. */
export function cidrToRange(c: IpCidr): IpRange {
  return { first: c.network, last: withHostBits(c.network, c.prefix, true) };
}

/** Why `text` is not an address, as a readable sentence (checks run in order, first hit wins). */
const ADDRESS_PROBLEMS: readonly { test: (t: string) => boolean; say: (t: string) => string }[] = [
  { test: (t) => t.length === 0, say: () => 'the item is empty' },
  { test: (t) => t.trim() !== t, say: (t) => `${quote(t)} has leading or trailing whitespace` },
  { test: (t) => t.includes('%'), say: (t) => `${quote(t)} has a zone id (%...), which IP literals do not take` },
  { test: (t) => t.length > MAX_IPV6_TEXT_LENGTH, say: (t) => `${quote(t)} is too long to be an IP address (${t.length} characters)` },
  {
    test: (t) => !t.includes(':') && /^\d+(\.\d+){3}$/.test(t) && t.split('.').some((o) => o.length > 1 && o.startsWith('0')),
    say: (t) => `${quote(t)} has an IPv4 octet with a leading zero (octal-looking octets are not accepted)`,
  },
  {
    test: (t) => !t.includes(':') && /^\d+(\.\d+){3}$/.test(t) && t.split('.').some((o) => Number(o) > 255),
    say: (t) => `${quote(t)} has an IPv4 octet above 255`,
  },
  {
    test: (t) => !t.includes(':') && /^[\d.]+$/.test(t) && t.split('.').length !== 4,
    say: (t) => `${quote(t)} is not a dotted quad (an IPv4 address has exactly four octets)`,
  },
];

function addressReason(text: string): string {
  for (const p of ADDRESS_PROBLEMS) if (p.test(text)) return p.say(text);
  return `${quote(text)} is not an IPv4 or IPv6 address`;
}

/**
 * Parse one set or list item: an address (`192.0.2.1`, `2001:db8::1`), a CIDR (`10.0.0.0/8`) or a range
 * (`10.0.0.1..10.0.0.9` or `10.0.0.1-10.0.0.9`, one family, low end first). Never throws; a bad item gets a
 * readable reason.
 */
export function parseIpItem(text: string): IpItem {
  if (typeof text !== 'string') return { ok: false, reason: 'the item is not a string' };
  if (text.length > 200) return { ok: false, reason: `${quote(text)} is too long to be an IP item (${text.length} characters)` };
  if (text.includes('/')) {
    const c = parseCidrDetailed(text);
    if ('reason' in c) return { ok: false, reason: c.reason };
    return { ok: true, kind: 'cidr', range: cidrToRange(c), hostBitsSet: c.hostBitsSet };
  }
  const dots = text.indexOf('..');
  const dash = text.indexOf('-');
  if (dots >= 0 || dash >= 0) {
    const at = dots >= 0 ? dots : dash;
    const sep = dots >= 0 ? '..' : '-';
    const lowText = text.slice(0, at);
    const highText = text.slice(at + sep.length);
    const low = parseIpAddress(lowText);
    if (!low) return { ok: false, reason: `the low end of the range: ${addressReason(lowText)}` };
    const high = parseIpAddress(highText);
    if (!high) return { ok: false, reason: `the high end of the range: ${addressReason(highText)}` };
    if (low.family !== high.family) {
      return { ok: false, reason: `mixed address families: the range ${quote(text)} goes from IPv${low.family} to IPv${high.family}` };
    }
    if (compareIpAddress(low, high) > 0) {
      return { ok: false, reason: `the range ${lowText}..${highText} has its low end above its high end` };
    }
    return { ok: true, kind: 'range', range: { first: low, last: high }, hostBitsSet: false };
  }
  const a = parseIpAddress(text);
  if (!a) return { ok: false, reason: addressReason(text) };
  return { ok: true, kind: 'address', range: { first: a, last: a }, hostBitsSet: false };
}

/** Canonical text of a range: `a` for one address, `a/len` when it is exactly a CIDR block, else `a..b`. */
export function formatIpRange(r: IpRange): string {
  if (compareIpAddress(r.first, r.last) === 0) return formatIpAddress(r.first);
  const bits = FAMILY_BITS[r.first.family];
  for (let prefix = 0; prefix <= bits; prefix++) {
    const net = withHostBits(r.first, prefix, false);
    if (compareIpAddress(net, r.first) !== 0) continue;
    if (compareIpAddress(withHostBits(r.first, prefix, true), r.last) === 0) return `${formatIpAddress(r.first)}/${prefix}`;
  }
  return `${formatIpAddress(r.first)}..${formatIpAddress(r.last)}`;
}
