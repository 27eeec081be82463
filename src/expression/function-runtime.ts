/**
 * The implementations of the Rules language's functions (the catalog in `functions.ts` says which is
 * which). Each takes present, well-typed arguments (`values.ts` `callFunction` sees to that) and returns
 * a value, or undefined for a missing one; none throws on any input. Strings are UTF-8 text (see the
 * `Packet` doc comment in `interpreter.ts`) that may carry raw bytes: every function that reads a value's
 * bytes reads them through `valueBytes`, and every one that makes a value of bytes through `bytesValue`
 * (`bytes.ts`), so that `len(sha256(x))` is 32. HMAC-SHA256 comes from `@noble/hashes` (pure JS: the core
 * stays browser-safe).
 * @module
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { regexEngine } from './deferred.js';
import { wildcardLiterals } from './wildcard.js';
import { formatIpAddress, parseIpAddress } from '../net/index.js';
import { bytesValue, hasEscapedBytes, valueByteLength, valueBytes } from './bytes.js';
import type { RE2JS } from 're2js';

/** Only ASCII characters (the common case, where the engine's own case mapping is the ASCII one). */
const ASCII = /^[\x00-\x7f]*$/;

/** `lower`: ASCII A-Z only, other bytes unchanged. */
export function lower(s: string): string {
  return ASCII.test(s) ? s.toLowerCase() : s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** `upper`: ASCII a-z only. */
export function upper(s: string): string {
  return ASCII.test(s) ? s.toUpperCase() : s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** `len`: byte length of a string, or the number of items of an array. */
export function len(v: unknown): number | undefined {
  if (typeof v === 'string') return valueByteLength(v);
  if (Array.isArray(v)) return v.length;
  return undefined;
}

/**
 * Strings joined, through bytes when one carries escaped bytes: two halves of a character cut apart
 * become that character again, as the same bytes always make the same value.
 */
function joinValues(parts: readonly string[], sep = ''): string {
  const s = parts.join(sep);
  return hasEscapedBytes(s) ? bytesValue(valueBytes(s)) : s;
}

/** `concat`: all strings, or all arrays. */
export function concat(...args: unknown[]): unknown {
  if (args.every((a) => typeof a === 'string')) return joinValues(args as string[]);
  if (args.every((a) => Array.isArray(a))) return (args as unknown[][]).flat(1);
  return undefined;
}

/** `join(items, separator)`. */
export function join(items: unknown, sep: unknown): string | undefined {
  if (!Array.isArray(items) || typeof sep !== 'string' || !items.every((x) => typeof x === 'string')) return undefined;
  return joinValues(items as string[], sep);
}

/** `split(input, separator, limit)`: at most `limit` items, the last holding the rest. */
export function split(input: string, sep: string, limit: number): string[] | undefined {
  if (sep === '' || limit < 1) return undefined;
  const parts = input.split(sep);
  if (parts.length <= limit) return parts;
  return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(sep)];
}

/** `substring(field, start, end?)` on bytes; negative indexes count from the end. */
export function substring(s: string, start: number, end?: number): string {
  // ASCII (the common case) is cut as it is: a byte per character, no encoding.
  const bytes = ASCII.test(s) ? undefined : valueBytes(s);
  const length = bytes ? bytes.length : s.length;
  const at = (i: number) => (i < 0 ? Math.max(0, length + i) : Math.min(i, length));
  const from = at(start);
  const to = end === undefined ? length : at(end);
  if (to <= from) return '';
  return bytes ? bytesValue(bytes.subarray(from, to)) : s.slice(from, to);
}

/** `remove_bytes(source, bytes)`: every byte of `bytes` removed from `source`. */
export function removeBytes(s: string, remove: string): string {
  const drop = new Set(valueBytes(remove));
  return bytesValue(valueBytes(s).filter((x) => !drop.has(x)));
}

/** `to_string(Int | Bool | Ip)`. */
export function toString(v: unknown): string | undefined {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') {
    const a = parseIpAddress(v);
    return a ? formatIpAddress(a) : undefined;
  }
  return undefined;
}

/**
 * Is `part` the bytes of `s` at `at` (from the end when negative)? On the strings themselves unless one
 * carries escaped bytes: a prefix cut through a character is then a byte prefix, not a string one.
 */
function bytesAt(s: string, part: string, end: boolean): boolean {
  // Equal code units are equal bytes, unless `part` cuts a surrogate pair of `s` at its inner edge.
  const cut = (part.charCodeAt(end ? 0 : part.length - 1) & 0xfc00) === (end ? 0xdc00 : 0xd800);
  if (!cut) {
    if (end ? s.endsWith(part) : s.startsWith(part)) return true;
    // `part` has at most 3 bytes a code unit and each code unit of `s` at least 1, so the bytes compared
    // lie within 3 × part.length code units of the edge: without escaped bytes there, text decides.
    const near = end ? s.slice(Math.max(0, s.length - 3 * part.length)) : s.slice(0, 3 * part.length);
    if (!hasEscapedBytes(near) && !hasEscapedBytes(part)) return false;
  }
  const a = valueBytes(s);
  const b = valueBytes(part);
  if (b.length > a.length) return false;
  const off = end ? a.length - b.length : 0;
  for (let i = 0; i < b.length; i++) if (a[off + i] !== b[i]) return false;
  return true;
}

/** `starts_with`, on bytes. */
export function startsWith(s: string, prefix: string): boolean {
  return bytesAt(s, prefix, false);
}

/** `ends_with`, on bytes. */
export function endsWith(s: string, suffix: string): boolean {
  return bytesAt(s, suffix, true);
}

/** One pass of percent decoding (`+` is a space; `u` also reads `%uXXXX`); bytes made a value. */
function percentDecode(s: string, unicode: boolean): string {
  const bytes: number[] = [];
  const src = valueBytes(s);
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === 0x2b) bytes.push(0x20);
    else if (c === 0x25 && unicode && (src[i + 1] === 0x75 || src[i + 1] === 0x55) && isHexRun(src, i + 2, 4)) {
      const cp = parseInt(String.fromCharCode(...src.subarray(i + 2, i + 6)), 16);
      for (const b of valueBytes(String.fromCharCode(cp))) bytes.push(b);
      i += 5;
    } else if (c === 0x25 && isHexRun(src, i + 1, 2)) {
      bytes.push(parseInt(String.fromCharCode(src[i + 1]!, src[i + 2]!), 16));
      i += 2;
    } else bytes.push(c);
  }
  return bytesValue(new Uint8Array(bytes));
}

function isHexRun(b: Uint8Array, from: number, n: number): boolean {
  if (from + n > b.length) return false;
  for (let i = from; i < from + n; i++) {
    const c = b[i]!;
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** `url_decode(source, options?)`: options `r` (recursive) and `u` (`%uXXXX`). */
export function urlDecode(s: string, options = ''): string {
  const unicode = options.includes('u');
  let out = percentDecode(s, unicode);
  if (!options.includes('r')) return out;
  // Recursive decoding stops when a pass changes nothing (each changing pass shortens the text).
  for (let prev = s; out !== prev; ) {
    prev = out;
    out = percentDecode(out, unicode);
  }
  return out;
}

/** `decode_base64`: standard or URL-safe alphabet, padding optional; missing when not Base64. */
export function decodeBase64(s: string): string | undefined {
  const b = base64Bytes(s);
  return b ? bytesValue(b) : undefined;
}

function base64Bytes(s: string): Uint8Array | undefined {
  const t = s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(t) || t.length % 4 === 1) return undefined;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of t) {
    acc = (acc << 6) | alphabet.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return new Uint8Array(out);
}

/** `sha256`: the SHA-256 digest (32 raw bytes) of the value's bytes. */
export function sha256Digest(s: string): string {
  return bytesValue(sha256(valueBytes(s)));
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** `encode_base64`: standard alphabet without padding; flags "u" URL-safe alphabet, "p" padding. */
export function encodeBase64(s: string, flags = ''): string {
  const bytes = valueBytes(s);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    for (let k = 0; k < chars; k++) out += B64[(n >> (18 - 6 * k)) & 63];
    if (flags.includes('p')) out += '='.repeat(4 - chars);
  }
  return flags.includes('u') ? out.replace(/\+/g, '-').replace(/\//g, '_') : out;
}

/** A JSON document, or not. */
function parseJson(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

function lookupJson(doc: string, keys: unknown[]): unknown {
  const parsed = parseJson(doc);
  if (!parsed.ok) return undefined;
  let v = parsed.value;
  for (const k of keys) {
    if (typeof k === 'number') v = Array.isArray(v) ? v[k] : undefined;
    else if (typeof k === 'string') v = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
    else return undefined;
  }
  return v;
}

/** `lookup_json_string(field, key, ...)`. */
export function lookupJsonString(doc: string, ...keys: unknown[]): string | undefined {
  const v = lookupJson(doc, keys);
  return typeof v === 'string' ? v : undefined;
}

/**
 * `lookup_json_integer(field, key, ...)`. JSON.parse reads 42.0 as 42, so such a number is taken as the
 * integer 42 here, where the docs say the service does not.
 */
export function lookupJsonInteger(doc: string, ...keys: unknown[]): number | undefined {
  const v = lookupJson(doc, keys);
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

/** Expand `${n}` (n 1..8) and `$$` in a replacement with the groups of a match. */
export function expandReplacement(replacement: string, group: (n: number) => string | undefined): string {
  return replacement.replace(/\$\$|\$\{([1-8])\}/g, (m, n: string | undefined) => (m === '$$' ? '$' : (group(Number(n)) ?? '')));
}

/** `regex_replace(source, regex, replacement)`: the first match replaced. */
export function regexReplace(s: string, re: RE2JS, replacement: string): string {
  const m = re.matcher(s);
  if (!m.find()) return s;
  const out = expandReplacement(replacement, (n) => (n <= m.groupCount() ? (m.group(n) ?? '') : undefined));
  return s.slice(0, m.start()) + out + s.slice(m.end());
}

/** `wildcard_replace(source, pattern, replacement, flags?)`: the whole source must match; `*` is lazy. */
export function wildcardReplace(s: string, re: RE2JS, replacement: string): string {
  const m = re.matcher(s);
  if (!m.matches()) return s;
  return expandReplacement(replacement, (n) => (n <= m.groupCount() ? (m.group(n) ?? '') : undefined));
}

/** The anchored, lazy RE2 pattern of a wildcard pattern with one group per `*`; or a problem. */
export function wildcardReplacePattern(pattern: string, caseSensitive: boolean): RE2JS | { problem: string } {
  const runs = wildcardLiterals(pattern);
  if (!Array.isArray(runs)) return runs;
  const RE2 = regexEngine();
  return RE2.compile(runs.map((r) => RE2.quote(r)).join('(.*?)'), RE2.DOTALL | (caseSensitive ? 0 : RE2.CASE_INSENSITIVE));
}

/** `cidr(address, v4bits, v6bits)`: the network address of an IP. */
export function cidr(ip: string, v4: number, v6: number): string | undefined {
  const a = parseIpAddress(ip);
  if (!a) return undefined;
  const bits = a.family === 4 ? v4 : v6;
  const bytes = Uint8Array.from(a.bytes);
  for (let i = 0; i < bytes.length * 8; i++) if (i >= bits) bytes[i >> 3]! &= ~(0x80 >> (i & 7));
  return formatIpAddress({ ...a, bytes });
}

/** `cidr6(address, v6bits)`: IPv4 addresses unchanged. */
export function cidr6(ip: string, v6: number): string | undefined {
  return cidr(ip, 32, v6);
}

/** `uuidv4(source)`: a version-4 UUID from the first 16 bytes of the source (missing when shorter). */
export function uuidv4(seed: string): string | undefined {
  const b = valueBytes(seed);
  if (b.length < 16) return undefined;
  const u = Uint8Array.from(b.subarray(0, 16));
  u[6] = (u[6]! & 0x0f) | 0x40;
  u[8] = (u[8]! & 0x3f) | 0x80;
  const hex = [...u].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `is_timed_hmac_valid_v0(key, messageMAC, ttl, now, separatorLength = 0, flags = "")`: messageMAC is
 * message, separator, a 10-digit UNIX time, `-`, and the Base64 HMAC-SHA256 of message + time under key
 * (URL-encoded standard Base64, or with flags "s" URL-safe Base64 without padding). Valid when the MAC
 * matches and the time is at most `ttl` seconds before `now` (and not after it).
 */
export function isTimedHmacValid(key: string, messageMac: string, ttl: number, now: number, separatorLength = 0, flags = ''): boolean {
  const m = /^([\s\S]+)(\d{10})-([\s\S]{43,})$/.exec(messageMac);
  if (!m) return false;
  const head = m[1]!;
  if (separatorLength > head.length - 1) return false;
  const message = head.slice(0, head.length - separatorLength);
  const time = Number(m[2]);
  if (time > now || now - time > ttl) return false;
  let macText = m[3]!;
  if (flags !== 's') {
    try {
      macText = decodeURIComponent(macText);
    } catch {
      return false;
    }
  } else if (/[=+/]/.test(macText)) return false;
  const given = base64Bytes(macText);
  if (!given) return false;
  const want = hmac(sha256, valueBytes(key), valueBytes(message + m[2]!));
  if (given.length !== want.length) return false;
  let diff = 0;
  for (let i = 0; i < want.length; i++) diff |= want[i]! ^ given[i]!;
  return diff === 0;
}

/** HMAC-SHA256 as Base64 (standard alphabet with padding): for tests and docs that build tokens. */
export function hmacSha256Base64(key: string, message: string): string {
  const mac = hmac(sha256, valueBytes(key), valueBytes(message));
  let bin = '';
  for (const b of mac) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** `has_key(map, key)`: a Map field's key (records hold Map fields as Maps). */
export function hasKey(map: unknown, key: unknown): boolean | undefined {
  if (!(map instanceof Map) || typeof key !== 'string') return undefined;
  return map.has(key);
}

/** `has_value(items, value)`: an array's item, or a Map's value, equal to the value. */
export function hasValue(items: unknown, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(items)) return items.includes(value);
  if (items instanceof Map) {
    for (const v of items.values()) if (v === value) return true;
    return false;
  }
  return undefined;
}
