/**
 * The prefix index behind `ip.src in {…}` and `ip.src in $list`: a set of IPv4 and IPv6 addresses built
 * once from addresses, CIDRs and ranges, answering membership without scanning.
 *
 * Layout (per family, separately):
 * - the ranges are sorted and every overlapping or adjacent pair merged, leaving disjoint ranges in
 *   ascending order;
 * - IPv4: starts and ends as two `Uint32Array`s; IPv6: starts and ends as four uint32 words per range
 *   (most significant first) in two `Uint32Array`s;
 * - a bucket table on the top bits of the (first word of the) address: `bucket[h]` is the number of ranges
 *   that start before bucket `h`, so a lookup binary-searches only the ranges starting inside its own
 *   bucket (and falls back to the one just before). The table has up to 2^16 + 1 entries (256 KiB) and
 *   shrinks with the range count, so small literal sets stay small.
 *
 * Browser-safe: no Node built-ins.
 */
import { FAMILY_BITS, formatIpAddress, parseIpItem, type IpAddress, type IpFamily, type IpRange } from './address.js';
import { parseIpv4Number, parseIpv6Words, v6Words } from './fast-parse.js';

/** One rejected item of `IpSet.fromItems`. */
export interface IpItemError {
  /** Position of the item in the input. */
  index: number;
  /** The item as given. */
  item: string;
  /** Why it was rejected, as a readable sentence. */
  reason: string;
}

/** Above this many ranges the fast Float64 key sort no longer fits in 53 bits; use a comparator sort. */
const KEY_SORT_LIMIT = 1 << 21;
/** What `IpSet.fromItems` returns. */
export interface IpSetBuild {
  /** The set of every accepted item. */
  set: IpSet;
  /** The rejected items, in input order. */
  errors: IpItemError[];
  /** Index of the first accepted IPv6 item, or -1 (account lists are IPv4-only in the public service). */
  firstV6Index: number;
}

const EMPTY_TABLE = new Uint32Array(3);

/** Number of bucket bits for `m` ranges: about one range per bucket, between 1 and 16 bits. */
function bucketBits(m: number): number {
  let bits = 1;
  while (bits < 16 && 1 << bits < m) bits++;
  return bits;
}

/**
 * `table[h]` = number of ranges whose key (top `bits` bits of the first word) is below `h`. One step per
 * range, the runs of equal entries written by `fill`: a list is built once per run, in code not yet
 * optimized, where a step per bucket (16k for a 10k-CIDR list) cost ~3 ms of `rulekit simulate`'s start.
 */
function bucketTable(firstWords: Uint32Array, stride: number, m: number, bits: number): Uint32Array {
  const size = 1 << bits;
  const shift = 32 - bits;
  const table = new Uint32Array(size + 1);
  let h = 0;
  for (let j = 0; j < m; j++) {
    // Buckets h..key hold the ranges before j: the keys ascend, so j is the first range at or past them.
    const key = firstWords[j * stride]! >>> shift;
    if (key >= h) {
      table.fill(j, h, key + 1);
      h = key + 1;
    }
  }
  table.fill(m, h);
  return table;
}

function v4Number(a: IpAddress): number {
  const b = a.bytes;
  return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
}

function v6Word(a: IpAddress, w: number): number {
  const b = a.bytes;
  const k = w * 4;
  return ((b[k]! << 24) | (b[k + 1]! << 16) | (b[k + 2]! << 8) | b[k + 3]!) >>> 0;
}

/** Collects ranges as plain numbers before the index is built. */
class RangeCollector {
  /** start, end pairs. */
  readonly v4: number[] = [];
  /** start (4 words), end (4 words) per range. */
  readonly v6: number[] = [];

  add(r: IpRange): void {
    const { first, last } = r;
    if (first.family !== last.family || first.bytes.length !== FAMILY_BITS[first.family] / 8 || last.bytes.length !== first.bytes.length) {
      throw new RangeError('an IpRange needs two addresses of the same family');
    }
    if (first.family === 4) {
      const s = v4Number(first);
      const e = v4Number(last);
      if (s > e) throw new RangeError(`the range ${formatIpAddress(first)}..${formatIpAddress(last)} has its low end above its high end`);
      this.v4.push(s, e);
    } else {
      const w = [0, 1, 2, 3].map((k) => v6Word(first, k));
      const x = [0, 1, 2, 3].map((k) => v6Word(last, k));
      if (compareWords(w, 0, x, 0) > 0) {
        throw new RangeError(`the range ${formatIpAddress(first)}..${formatIpAddress(last)} has its low end above its high end`);
      }
      this.v6.push(...w, ...x);
    }
  }

  /**
   * Bulk-build shortcut for the two forms that fill big lists, `address` and `address/len`: read them with
   * the hand-written scanners straight into numbers (no `IpAddress` objects). Returns false for any other
   * text, which then goes through `parseIpItem` (which also words the error). The scanners accept exactly
   * what `parseIpAddress` does, so both paths give the same ranges.
   */
  addSimpleItem(item: string): 0 | IpFamily {
    const n = item.length;
    if (n > 49) return 0;
    const slash = item.indexOf('/');
    const end = slash < 0 ? n : slash;
    let prefix = -1;
    if (slash >= 0) {
      // 1..3 decimal digits, no leading zero.
      const digits = n - slash - 1;
      if (digits < 1 || digits > 3) return 0;
      prefix = 0;
      for (let i = slash + 1; i < n; i++) {
        const c = item.charCodeAt(i);
        if (c < 48 || c > 57 || (i > slash + 1 && prefix === 0)) return 0;
        prefix = prefix * 10 + (c - 48);
      }
    }
    const x = parseIpv4Number(item, 0, end);
    if (x >= 0) {
      if (prefix < 0) {
        this.v4.push(x, x);
        return 4;
      }
      if (prefix > 32) return 0;
      const host = prefix === 32 ? 0 : 2 ** (32 - prefix) - 1;
      const lo = x - (x % (host + 1));
      this.v4.push(lo, lo + host);
      return 4;
    }
    if (!parseIpv6Words(item, 0, end)) return 0;
    if (prefix > 128) return 0;
    const bits = prefix < 0 ? 128 : prefix;
    for (let w = 0; w < 4; w++) {
      const keep = Math.max(0, Math.min(32, bits - 32 * w));
      const mask = keep === 0 ? 0 : (0xffffffff << (32 - keep)) >>> 0;
      this.v6.push((v6Words[w]! & mask) >>> 0);
    }
    for (let w = 0; w < 4; w++) {
      const keep = Math.max(0, Math.min(32, bits - 32 * w));
      const mask = keep === 0 ? 0 : (0xffffffff << (32 - keep)) >>> 0;
      this.v6.push((v6Words[w]! | ~mask) >>> 0);
    }
    return 6;
  }
}

function compareWords(a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number): number {
  for (let k = 0; k < 4; k++) {
    const d = a[i + k]! - b[j + k]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Sort the v4 (start, end) pairs by start and merge overlapping/adjacent ones. */
function mergeV4(pairs: number[]): { starts: Uint32Array; ends: Uint32Array } {
  const n = pairs.length / 2;
  let order: ArrayLike<number>;
  if (n <= KEY_SORT_LIMIT) {
    // start * 2^21 + index stays below 2^53, so a native Float64Array sort orders by start exactly.
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = pairs[2 * i]! * KEY_SORT_LIMIT + i;
    keys.sort();
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = keys[i]! % KEY_SORT_LIMIT;
    order = idx;
  } else {
    order = Array.from({ length: n }, (_, i) => i).sort((a, b) => pairs[2 * a]! - pairs[2 * b]!);
  }
  const starts = new Uint32Array(n);
  const ends = new Uint32Array(n);
  let m = 0;
  let cs = -1;
  let ce = -1;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const s = pairs[2 * i]!;
    const e = pairs[2 * i + 1]!;
    if (m > 0 && s <= ce + 1) {
      if (e > ce) ce = e;
      continue;
    }
    if (m > 0) {
      starts[m - 1] = cs;
      ends[m - 1] = ce;
    }
    cs = s;
    ce = e;
    m++;
  }
  if (m > 0) {
    starts[m - 1] = cs;
    ends[m - 1] = ce;
  }
  return { starts: starts.slice(0, m), ends: ends.slice(0, m) };
}

const nextAddress = new Uint32Array(4);

/** True when `s` (4 words at `i`) is at most `e + 1` (4 words at `j`), i.e. the ranges touch or overlap. */
function touches(s: ArrayLike<number>, i: number, e: ArrayLike<number>, j: number): boolean {
  if (compareWords(s, i, e, j) <= 0) return true;
  // e + 1 with carry; if e is the very last address, everything touches.
  for (let k = 0; k < 4; k++) nextAddress[k] = e[j + k]!;
  for (let k = 3; k >= 0; k--) {
    if (nextAddress[k] === 0xffffffff) nextAddress[k] = 0;
    else {
      nextAddress[k]!++;
      return compareWords(s, i, nextAddress, 0) <= 0;
    }
  }
  return true;
}

/** Below this many IPv6 ranges a comparator sort is cheaper than the radix sort's fixed cost. */
const V6_RADIX_MIN = 512;

/**
 * Indices of the ranges in `words` (8 words each, start first) ordered by start: a comparator sort for few
 * ranges, else an LSD radix sort on the eight 16-bit digits of the start (passes where every range has
 * the same digit are skipped, which is most of them for lists inside one prefix).
 */
function v6Order(words: Uint32Array, n: number): Uint32Array {
  let order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (n < V6_RADIX_MIN) return order.sort((a, b) => compareWords(words, 8 * a, words, 8 * b));
  let spare = new Uint32Array(n);
  const count = new Uint32Array(65537);
  for (let pass = 0; pass < 8; pass++) {
    const word = 3 - (pass >> 1);
    const shift = pass & 1 ? 16 : 0;
    count.fill(0);
    for (let i = 0; i < n; i++) count[((words[8 * order[i]! + word]! >>> shift) & 0xffff) + 1]!++;
    if (count[((words[8 * order[0]! + word]! >>> shift) & 0xffff) + 1] === n) continue;
    for (let d = 0; d < 65536; d++) count[d + 1]! += count[d]!;
    for (let i = 0; i < n; i++) {
      const k = order[i]!;
      spare[count[(words[8 * k + word]! >>> shift) & 0xffff]!++] = k;
    }
    [order, spare] = [spare, order];
  }
  return order;
}

/** Sort the v6 ranges (8 words each) by start and merge overlapping/adjacent ones. */
function mergeV6(collected: number[]): { starts: Uint32Array; ends: Uint32Array } {
  const words = Uint32Array.from(collected);
  const n = words.length / 8;
  const order = v6Order(words, n);
  const starts = new Uint32Array(4 * n);
  const ends = new Uint32Array(4 * n);
  let m = 0;
  for (let o = 0; o < n; o++) {
    const at = 8 * order[o]!;
    const last = 4 * (m - 1);
    if (m > 0 && touches(words, at, ends, last)) {
      if (compareWords(words, at + 4, ends, last) > 0) for (let k = 0; k < 4; k++) ends[last + k] = words[at + 4 + k]!;
      continue;
    }
    for (let k = 0; k < 4; k++) {
      starts[4 * m + k] = words[at + k]!;
      ends[4 * m + k] = words[at + 4 + k]!;
    }
    m++;
  }
  return { starts: starts.slice(0, 4 * m), ends: ends.slice(0, 4 * m) };
}

function addressFromWords(words: ArrayLike<number>, at: number, count: 1 | 4): IpAddress {
  const bytes = new Uint8Array(count * 4);
  for (let w = 0; w < count; w++) {
    const v = words[at + w]!;
    bytes[w * 4] = v >>> 24;
    bytes[w * 4 + 1] = (v >>> 16) & 0xff;
    bytes[w * 4 + 2] = (v >>> 8) & 0xff;
    bytes[w * 4 + 3] = v & 0xff;
  }
  return { family: count === 1 ? 4 : 6, bytes };
}

// Two-entry memo of the address texts `has` parsed last (see IpSet.has): a ruleset asks about a
// packet's source and destination addresses in turn, so two entries keep both.
class ParsedText {
  text: string | undefined = undefined;
  v4 = -1;
  v6 = false;
  readonly words = new Uint32Array(4);
  parse(ip: string): this {
    this.text = ip;
    this.v4 = parseIpv4Number(ip, 0, ip.length);
    this.v6 = this.v4 < 0 && parseIpv6Words(ip, 0, ip.length);
    if (this.v6) this.words.set(v6Words);
    return this;
  }
}
let memoA = new ParsedText();
let memoB = new ParsedText();
/** Put an already-parsed address text into the memo (see {@link IpSet.rememberIpv4Text}). */
function remember(ip: string, v4: number, w0: number, w1: number, w2: number, w3: number): void {
  if (ip === memoA.text) return;
  const older = memoB;
  memoB = memoA;
  memoA = older;
  older.text = ip;
  older.v4 = v4;
  older.v6 = v4 < 0;
  if (v4 < 0) {
    const w = older.words;
    w[0] = w0;
    w[1] = w1;
    w[2] = w2;
    w[3] = w3;
  }
}
function parsed(ip: string): ParsedText {
  if (ip === memoA.text) return memoA;
  if (ip === memoB.text) return memoB;
  const older = memoB;
  memoB = memoA;
  memoA = older;
  return older.parse(ip);
}

/** The index of an {@link IpSet} as plain data ({@link IpSet.toParts}). */
export interface IpSetParts {
  rangeCount4: number;
  rangeCount6: number;
  starts4: Uint32Array;
  ends4: Uint32Array;
  table4: Uint32Array;
  shift4: number;
  starts6: Uint32Array;
  ends6: Uint32Array;
  table6: Uint32Array;
  shift6: number;
}

/**
 * An immutable set of IPv4 and IPv6 addresses, built once from ranges, CIDRs and addresses. IPv4 and
 * IPv6 never mix: `::ffff:1.2.3.4` is not in a set that holds `1.2.3.4`.
 */
export class IpSet {
  /** Number of disjoint IPv4 ranges after merging. */
  readonly rangeCount4: number;
  /** Number of disjoint IPv6 ranges after merging. */
  readonly rangeCount6: number;

  readonly #starts4: Uint32Array;
  readonly #ends4: Uint32Array;
  readonly #table4: Uint32Array;
  readonly #shift4: number;
  readonly #starts6: Uint32Array;
  readonly #ends6: Uint32Array;
  readonly #table6: Uint32Array;
  readonly #shift6: number;

  private constructor(collected: RangeCollector, parts?: IpSetParts) {
    if (parts) {
      this.rangeCount4 = parts.rangeCount4;
      this.rangeCount6 = parts.rangeCount6;
      this.#starts4 = parts.starts4;
      this.#ends4 = parts.ends4;
      this.#table4 = parts.table4;
      this.#shift4 = parts.shift4;
      this.#starts6 = parts.starts6;
      this.#ends6 = parts.ends6;
      this.#table6 = parts.table6;
      this.#shift6 = parts.shift6;
      return;
    }
    const v4 = mergeV4(collected.v4);
    const v6 = mergeV6(collected.v6);
    this.rangeCount4 = v4.starts.length;
    this.rangeCount6 = v6.starts.length / 4;
    this.#starts4 = v4.starts;
    this.#ends4 = v4.ends;
    this.#starts6 = v6.starts;
    this.#ends6 = v6.ends;
    const bits4 = bucketBits(this.rangeCount4);
    const bits6 = bucketBits(this.rangeCount6);
    this.#shift4 = 32 - bits4;
    this.#shift6 = 32 - bits6;
    this.#table4 = this.rangeCount4 === 0 ? EMPTY_TABLE : bucketTable(v4.starts, 1, this.rangeCount4, bits4);
    this.#table6 = this.rangeCount6 === 0 ? EMPTY_TABLE : bucketTable(v6.starts, 4, this.rangeCount6, bits6);
    if (this.rangeCount4 === 0) this.#shift4 = 31;
    if (this.rangeCount6 === 0) this.#shift6 = 31;
  }

  /**
   * Build a set from ranges (any order, overlaps allowed). Overlapping and adjacent ranges are merged,
   * per family. Throws a `RangeError` on a range that breaks the `IpRange` contract (mixed families or
   * low end above high end); to build from user text, use `fromItems`, which reports instead.
   */
  static fromRanges(ranges: Iterable<IpRange>): IpSet {
    const c = new RangeCollector();
    for (const r of ranges) c.add(r);
    return new IpSet(c);
  }

  /**
   * Build a set from item texts (`10.0.0.0/8`, `192.0.2.1..192.0.2.9`, `2001:db8::1`, as `parseIpItem`
   * reads them). Never throws: bad items are left out and listed in `errors` with a reason.
   */
  static fromItems(items: Iterable<string>): IpSetBuild {
    const c = new RangeCollector();
    const errors: IpItemError[] = [];
    let firstV6Index = -1;
    let index = 0;
    for (const item of items) {
      let family = typeof item === 'string' ? c.addSimpleItem(item) : 0;
      if (family === 0) {
        const parsed = parseIpItem(item);
        if (parsed.ok) {
          c.add(parsed.range);
          family = parsed.range.first.family;
        } else errors.push({ index, item, reason: parsed.reason });
      }
      if (family === 6 && firstV6Index < 0) firstV6Index = index;
      index++;
    }
    return { set: new IpSet(c), errors, firstV6Index };
  }

  /**
   * The index arrays, to rebuild the set in another thread with {@link IpSet.fromParts} (structured
   * clone copies them; `rulekit simulate`'s worker threads get the ruleset's sets this way).
   */
  toParts(): IpSetParts {
    return {
      rangeCount4: this.rangeCount4,
      rangeCount6: this.rangeCount6,
      starts4: this.#starts4,
      ends4: this.#ends4,
      table4: this.#table4,
      shift4: this.#shift4,
      starts6: this.#starts6,
      ends6: this.#ends6,
      table6: this.#table6,
      shift6: this.#shift6,
    };
  }

  /** The set whose {@link IpSet.toParts} these are (trusted input: not checked). */
  static fromParts(parts: IpSetParts): IpSet {
    return new IpSet(new RangeCollector(), parts);
  }

  /** The merged, disjoint ranges in ascending order (IPv4 first). */
  ranges(): IpRange[] {
    const out: IpRange[] = [];
    for (let i = 0; i < this.rangeCount4; i++) {
      out.push({ first: addressFromWords(this.#starts4, i, 1), last: addressFromWords(this.#ends4, i, 1) });
    }
    for (let i = 0; i < this.rangeCount6; i++) {
      out.push({ first: addressFromWords(this.#starts6, 4 * i, 4), last: addressFromWords(this.#ends6, 4 * i, 4) });
    }
    return out;
  }

  /** Bytes held by the index arrays (ranges and bucket tables). */
  get indexBytes(): number {
    return this.#starts4.byteLength + this.#ends4.byteLength + this.#table4.byteLength + this.#starts6.byteLength + this.#ends6.byteLength + this.#table6.byteLength;
  }

  /**
   * HAND-WRITTEN HOT PATH: is the address written in `ip` in the set? Reads the text with the
   * allocation-free scanners of `fast-parse.ts`, then looks it up. False for text that is not an address
   * (same strict rules as `parseIpAddress`); never throws.
   */
  has(ip: string): boolean {
    if (typeof ip !== 'string') return false;
    // A compiled ruleset asks many sets about the same packet's addresses: parse each text once (a
    // two-entry memo, compared by value) and skip a family the set does not hold.
    const a = parsed(ip);
    if (a.v4 >= 0) return this.rangeCount4 !== 0 && this.hasUint32(a.v4);
    const w = a.words;
    return a.v6 && this.rangeCount6 !== 0 && this.hasWords(w[0]!, w[1]!, w[2]!, w[3]!);
  }

  /**
   * Whether `text` is an IPv4 or IPv6 address (as `isIpAddressText`), through the memo `has` reads: a
   * decider that checks a packet's addresses before testing sets (src/diff/pair-decider.ts) parses each
   * once for both.
   */
  static isAddressText(text: string): boolean {
    const a = parsed(text);
    return a.v4 >= 0 || a.v6;
  }

  /**
   * HAND-WRITTEN HOT PATH (bench/decide.ts: re-parsing the decoder's address text in `has` was 15-19%
   * of `rulekit simulate`): tell every set that `text` is the IPv4 address `x`, so the next `has(text)`
   * skips parsing. `text` MUST be the canonical text of `x` (the capture decoder builds it from the
   * same bytes); the memo holds the two latest texts (a packet's source and destination).
   */
  static rememberIpv4Text(text: string, x: number): void {
    remember(text, x >>> 0, 0, 0, 0, 0);
  }

  /** As {@link IpSet.rememberIpv4Text}, for the IPv6 address given as four uint32 words (most significant first). */
  static rememberIpv6Text(text: string, w0: number, w1: number, w2: number, w3: number): void {
    remember(text, -1, w0, w1, w2, w3);
  }

  /** Is the address in the set? */
  hasAddress(a: IpAddress): boolean {
    if (a.family === 4) return a.bytes.length === 4 && this.hasUint32(v4Number(a));
    if (a.bytes.length !== 16) return false;
    return this.hasWords(v6Word(a, 0), v6Word(a, 1), v6Word(a, 2), v6Word(a, 3));
  }

  /** HAND-WRITTEN HOT PATH: is the IPv4 address `x` (0..2^32-1, network order as a number) in the set? */
  hasUint32(x: number): boolean {
    const starts = this.#starts4;
    const table = this.#table4;
    const h = x >>> this.#shift4;
    let lo = table[h]!;
    let hi = table[h + 1]!;
    // Last range starting at or before x: search the ranges starting in x's bucket, else the one before.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && this.#ends4[lo - 1]! >= x;
  }

  /** HAND-WRITTEN HOT PATH: is the IPv6 address given as four uint32 words (most significant first) in the set? */
  hasWords(w0: number, w1: number, w2: number, w3: number): boolean {
    const s = this.#starts6;
    const table = this.#table6;
    const h = w0 >>> this.#shift6;
    let lo = table[h]!;
    let hi = table[h + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = mid << 2;
      const a0 = s[k]!;
      let le: boolean;
      if (a0 !== w0) le = a0 < w0;
      else {
        const a1 = s[k + 1]!;
        if (a1 !== w1) le = a1 < w1;
        else {
          const a2 = s[k + 2]!;
          le = a2 !== w2 ? a2 < w2 : s[k + 3]! <= w3;
        }
      }
      if (le) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return false;
    const e = this.#ends6;
    const k = (lo - 1) << 2;
    const e0 = e[k]!;
    if (e0 !== w0) return e0 > w0;
    const e1 = e[k + 1]!;
    if (e1 !== w1) return e1 > w1;
    const e2 = e[k + 2]!;
    if (e2 !== w2) return e2 > w2;
    return e[k + 3]! >= w3;
  }
}

/** Build a set from item texts and return it with the rejected items (same as `IpSet.fromItems`). */
export function ipSetFromItems(items: Iterable<string>): IpSetBuild {
  return IpSet.fromItems(items);
}

/** Build a set from whitespace-separated item text, as in a set literal's body (`10.0.0.0/8 2001:db8::/32`). */
export function ipSetFromText(text: string): IpSetBuild {
  const items = typeof text === 'string' ? text.split(/\s+/).filter((t) => t.length > 0) : [];
  return IpSet.fromItems(items);
}
