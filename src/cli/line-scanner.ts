/**
 * A selective reader of NDJSON log lines: from a line's UTF-8 bytes, the values of only the top-level keys
 * a filter reads, without building the whole object — the dry-run's hot path (`rulekit logfilter`), where
 * `JSON.parse` of whole lines was most of the time and the filter about 1% of it.
 *
 * It answers only when it is sure the answer is `JSON.parse`'s: the line is checked to be valid JSON to its
 * end (a line the full parse refuses must be refused, so the rest of the line is still walked after the
 * keys are found, though nothing more is decoded), and the values are decoded as `JSON.parse` decodes them
 * (plain strings from their bytes; strings with escapes, arrays and objects by `JSON.parse` of the value's
 * own bytes; numbers by the same correctly rounded conversion). On anything it cannot be sure of — a key
 * with escapes (it could spell a wanted key), a wanted key twice (the last one wins in `JSON.parse`;
 * rare enough to leave to it), nesting deeper than {@link MAX_DEPTH}, invalid JSON, a line that is not an
 * object — it says so, and the caller parses the line whole. A property test holds scanner + filter equal
 * to `JSON.parse` + filter on arbitrary lines.
 * @module
 */
import type { FilterNode, LogFilter } from '../logpush/index.js';

/** Lines nested deeper (the line's own object is the first level) are left to `JSON.parse`, which has no such limit. */
export const MAX_DEPTH = 64;

/** Bytes a JSON string holds as they are: not `"`, not `\`, not a control character. */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 256; c++) PLAIN[c] = 1;
PLAIN[0x22] = 0;
PLAIN[0x5c] = 0;
/** Bytes that may follow a backslash (`u` then needs four hex digits). */
const ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrtu') ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/** Buffer's own slicers (what `toString` calls after checking its arguments). */
interface Slicers {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

/** Set by {@link skipString} when the string had an escape. */
let escaped = false;

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

/**
 * JSON whitespace but LF: a line never holds one, so an LF ends the line wherever it is (and inside a value
 * makes the line unreadable here: the caller then finds its end and parses it whole).
 */
function skipWs(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p];
    if (c === 0x20 || c === 0x09 || c === 0x0d) p++;
    else break;
  }
  return p;
}

/**
 * From just after a string's opening quote: the index after its closing quote, or -1 when it is not a
 * valid JSON string before `end`. The byte at `end` is never a plain string byte (a line ends before LF,
 * CR or its buffer's end), so the inner loop needs no bound check.
 */
function skipString(b: Uint8Array, p: number, end: number): number {
  for (;;) {
    while (PLAIN[b[p]!] === 1) p++;
    if (p >= end) return -1;
    const c = b[p];
    if (c === 0x22) return p + 1;
    if (c !== 0x5c) return -1; // a control character
    escaped = true;
    const e = b[p + 1]!;
    if (p + 1 >= end || ESCAPE[e] !== 1) return -1;
    if (e === 0x75) {
      if (p + 5 >= end || HEX[b[p + 2]!] !== 1 || HEX[b[p + 3]!] !== 1 || HEX[b[p + 4]!] !== 1 || HEX[b[p + 5]!] !== 1) return -1;
      p += 6;
    } else p += 2;
  }
}

/** A JSON number from `p`: the index after it, or -1. */
function skipNumber(b: Uint8Array, p: number, end: number): number {
  if (b[p] === 0x2d) p++;
  if (b[p] === 0x30) p++;
  else if (isDigit(b[p]) && p < end) {
    p++;
    while (isDigit(b[p])) p++;
  } else return -1;
  if (b[p] === 0x2e) {
    p++;
    if (!isDigit(b[p])) return -1;
    while (isDigit(b[p])) p++;
  }
  if (b[p] === 0x65 || b[p] === 0x45) {
    p++;
    if (b[p] === 0x2b || b[p] === 0x2d) p++;
    if (!isDigit(b[p])) return -1;
    while (isDigit(b[p])) p++;
  }
  return p <= end ? p : -1;
}

function skipLiteral(b: Uint8Array, p: number, end: number, rest: string): number {
  if (p + rest.length >= end + 1) return -1;
  for (let i = 0; i < rest.length; i++) if (b[p + 1 + i] !== rest.charCodeAt(i)) return -1;
  return p + 1 + rest.length;
}

/** Any JSON value from `p` (no whitespace before it): the index after it, or -1. */
function skipValue(b: Uint8Array, p: number, end: number, depth: number): number {
  if (p >= end) return -1;
  const c = b[p]!;
  if (c === 0x22) return skipString(b, p + 1, end);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return skipNumber(b, p, end);
  if (c === 0x7b) return skipObject(b, p + 1, end, depth + 1);
  if (c === 0x5b) return skipArray(b, p + 1, end, depth + 1);
  if (c === 0x74) return skipLiteral(b, p, end, 'rue');
  if (c === 0x66) return skipLiteral(b, p, end, 'alse');
  if (c === 0x6e) return skipLiteral(b, p, end, 'ull');
  return -1;
}

function skipObject(b: Uint8Array, p: number, end: number, depth: number): number {
  if (depth > MAX_DEPTH) return -1;
  p = skipWs(b, p, end);
  if (b[p] === 0x7d && p < end) return p + 1;
  for (;;) {
    if (b[p] !== 0x22 || p >= end) return -1;
    p = skipString(b, p + 1, end);
    if (p < 0) return -1;
    p = skipWs(b, p, end);
    if (b[p] !== 0x3a || p >= end) return -1;
    p = skipValue(b, skipWs(b, p + 1, end), end, depth);
    if (p < 0) return -1;
    p = skipWs(b, p, end);
    if (p >= end) return -1;
    if (b[p] === 0x2c) p = skipWs(b, p + 1, end);
    else if (b[p] === 0x7d) return p + 1;
    else return -1;
  }
}

function skipArray(b: Uint8Array, p: number, end: number, depth: number): number {
  if (depth > MAX_DEPTH) return -1;
  p = skipWs(b, p, end);
  if (b[p] === 0x5d && p < end) return p + 1;
  for (;;) {
    p = skipValue(b, p, end, depth);
    if (p < 0) return -1;
    p = skipWs(b, p, end);
    if (p >= end) return -1;
    if (b[p] === 0x2c) p = skipWs(b, p + 1, end);
    else if (b[p] === 0x5d) return p + 1;
    else return -1;
  }
}

/** Sentinel: the value could not be read with certainty. */
const UNSURE = Symbol('unsure');

/** The JSON number at [p, q) (already checked against the grammar) as `JSON.parse` reads it. */
function numberAt(b: Uint8Array & Slicers, p: number, q: number): number {
  // Integers of up to 15 digits are exact in a double: summed digit by digit. Others take the string path.
  const neg = b[p] === 0x2d;
  const s = neg ? p + 1 : p;
  if (q - s <= 15) {
    let n = 0;
    let i = s;
    for (; i < q; i++) {
      const c = b[i]!;
      if (c < 0x30 || c > 0x39) break;
      n = n * 10 + (c - 0x30);
    }
    if (i === q) return neg ? -n : n;
  }
  return Number(b.latin1Slice(p, q));
}

/** Strings of at most this many bytes are looked up in {@link shortString}'s cache. */
const SHORT = 16;
const SLOTS = 512;
const cachedBytes = new Uint8Array(SLOTS * SHORT);
const cachedLength = new Int8Array(SLOTS).fill(-1);
const cachedString: string[] = new Array<string>(SLOTS).fill('');

/**
 * The string of the bytes [s, e) (at most {@link SHORT}, valid UTF-8, no escape), from a small cache of
 * the strings last decoded by their bytes: a field's short values (countries, methods, cache states)
 * repeat from line to line, and are then neither decoded nor allocated again.
 */
function shortString(b: Uint8Array & Slicers, s: number, e: number): string {
  const n = e - s;
  let h = n;
  for (let i = s; i < e; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  const slot = (h >>> 0) % SLOTS;
  const at = slot * SHORT;
  if (cachedLength[slot] === n) {
    let i = 0;
    while (i < n && cachedBytes[at + i] === b[s + i]) i++;
    if (i === n) return cachedString[slot]!;
  }
  const str = b.utf8Slice(s, e);
  for (let i = 0; i < n; i++) cachedBytes[at + i] = b[s + i]!;
  cachedLength[slot] = n;
  cachedString[slot] = str;
  return str;
}

/** The value at `p` decoded as `JSON.parse` would, its end in `scanEnd`; {@link UNSURE} when not sure. */
let scanEnd = 0;
function valueAt(b: Uint8Array & Slicers, p: number, end: number): unknown {
  const c = b[p];
  if (p >= end) return UNSURE;
  if (c === 0x22) {
    escaped = false;
    const q = skipString(b, p + 1, end);
    if (q < 0) return UNSURE;
    scanEnd = q;
    return escaped ? parseSlice(b, p, q) : q - p - 2 <= SHORT ? shortString(b, p + 1, q - 1) : b.utf8Slice(p + 1, q - 1);
  }
  if (c === 0x2d || (c! >= 0x30 && c! <= 0x39)) {
    const q = skipNumber(b, p, end);
    if (q < 0) return UNSURE;
    scanEnd = q;
    return numberAt(b, p, q);
  }
  const q = skipValue(b, p, end, 1);
  if (q < 0) return UNSURE;
  scanEnd = q;
  if (c === 0x74) return true;
  if (c === 0x66) return false;
  if (c === 0x6e) return null;
  return parseSlice(b, p, q);
}

function parseSlice(b: Uint8Array & Slicers, p: number, q: number): unknown {
  try {
    return JSON.parse(b.utf8Slice(p, q));
  } catch {
    return UNSURE;
  }
}

/**
 * Reads the given top-level keys of log lines. The record it gives is one object, the same at every line:
 * a view whose properties are the wanted keys, read from the line last scanned (an absent key reads
 * `undefined`, as a filter reads a key a parsed line lacks). The bytes must be valid UTF-8 (the caller
 * checks; lines that are not go to `JSON.parse` of their decoded text).
 */
export class LineScanner {
  private readonly keyBytes: Uint8Array[];
  /** Indexes of the wanted keys by their length in bytes. */
  private readonly byLength: number[][] = [];
  private readonly values: unknown[];
  /** The record: a getter per wanted key reading {@link values}, so a line writes no property. */
  readonly record: Record<string, unknown>;

  constructor(readonly keys: readonly string[]) {
    this.keyBytes = keys.map((k) => new TextEncoder().encode(k));
    this.keyBytes.forEach((k, i) => (this.byLength[k.length] ??= []).push(i));
    const values = (this.values = keys.map(() => undefined));
    const record: Record<string, unknown> = {};
    keys.forEach((k, i) => Object.defineProperty(record, k, { enumerable: true, get: () => values[i] }));
    this.record = record;
  }

  /**
   * Scan the line that starts at `start` and ends at the first LF, or at `limit`. Returns the index of
   * that LF (or `limit`), the wanted values then in {@link record}; or -1: the line must be parsed whole
   * (its end not told).
   */
  scanLine(buf: Uint8Array, start: number, limit: number): number {
    const b = buf as Uint8Array & Slicers;
    const keys = this.keys;
    const values = this.values;
    for (let i = 0; i < keys.length; i++) values[i] = undefined;
    const end = limit;
    let seen = 0;
    let p = skipWs(b, start, end);
    if (b[p] !== 0x7b || p >= end) return -1;
    p = skipWs(b, p + 1, end);
    if (b[p] === 0x7d && p < end) p++;
    else {
      for (;;) {
        if (b[p] !== 0x22 || p >= end) return -1;
        escaped = false;
        const q = skipString(b, p + 1, end);
        if (q < 0 || escaped) return -1;
        const k = this.keyAt(b, p + 1, q - 1);
        p = skipWs(b, q, end);
        if (b[p] !== 0x3a || p >= end) return -1;
        p = skipWs(b, p + 1, end);
        if (k < 0) {
          p = skipValue(b, p, end, 1);
          if (p < 0) return -1;
        } else {
          const bit = 1 << k;
          if (seen & bit) return -1;
          seen |= bit;
          const v = valueAt(b, p, end);
          if (v === UNSURE) return -1;
          values[k] = v;
          p = scanEnd;
        }
        p = skipWs(b, p, end);
        if (p >= end) return -1;
        if (b[p] === 0x2c) p = skipWs(b, p + 1, end);
        else if (b[p] === 0x7d) {
          p++;
          break;
        } else return -1;
      }
    }
    p = skipWs(b, p, end);
    return p === end || b[p] === 0x0a ? p : -1;
  }

  /** The record of the line `b[start, end)` (see the class), or `undefined`: parse it whole. */
  scan(buf: Uint8Array, start: number, end: number): Record<string, unknown> | undefined {
    return this.scanLine(buf, start, end) === end ? this.record : undefined;
  }

  /** Which wanted key the bytes [s, e) spell, or -1. */
  private keyAt(b: Uint8Array, s: number, e: number): number {
    const candidates = this.byLength[e - s];
    if (candidates === undefined) return -1;
    for (let j = 0; j < candidates.length; j++) {
      const i = candidates[j]!;
      const k = this.keyBytes[i]!;
      let x = 0;
      while (x < k.length && b[s + x] === k[x]) x++;
      if (x === k.length) return i;
    }
    return -1;
  }
}

/** The top-level keys a filter reads, each once. */
export function filterKeys(where: FilterNode): string[] {
  const keys = new Set<string>();
  const walk = (n: FilterNode): void => {
    if (n.kind === 'clause') keys.add(n.key);
    else n.children.forEach(walk);
  };
  walk(where);
  return [...keys];
}

/**
 * A scanner for the keys of a filter, or `undefined` when the filter is better served by `JSON.parse`:
 * a key that names something every object inherits (`constructor`, `__proto__`: the record would read it
 * differently from a parsed line) or more keys than the scanner tracks (31).
 */
export function lineScannerFor(filter: LogFilter): LineScanner | undefined {
  const keys = filterKeys(filter.where);
  if (keys.length > 31 || keys.some((k) => k === '__proto__' || k in Object.prototype)) return undefined;
  return new LineScanner(keys);
}
