/**
 * Country and AS-number lookups for the `ip.*.country` / `ip.*.asnum` fields, and the in-memory
 * longest-prefix table that CSV tables load into: CIDRs are flattened into disjoint address ranges, each
 * carrying the most specific entry that covers it, and looked up by binary search. IPv4 ranges are
 * unsigned 32-bit numbers; IPv6 ranges four 32-bit words each, compared word by word (no allocation).
 * IPv4-mapped IPv6 addresses fall back to the IPv4 blocks.
 * @module
 */
import { parseIpAddress } from '../net/index.js';

/** What a table knows about an address. */
export interface GeoIpInfo {
  /** ISO 3166-1 alpha-2 country code, upper case. */
  readonly country?: string;
  /** Autonomous system number. */
  readonly asn?: number;
}

/** A country/ASN lookup the decoder can use (see {@link geoIpFromCsv} and {@link geoIpFromMmdb}). */
export interface GeoIpLookup {
  /** Look up an IPv4 address given as an unsigned 32-bit number. */
  lookupV4(address: number): GeoIpInfo | undefined;
  /** Look up the IPv6 address held in the 16 bytes at `offset` of `bytes`. */
  lookupV6(bytes: Uint8Array, offset: number): GeoIpInfo | undefined;
  /** Look up an address given as IPv4 or IPv6 text; undefined when it is no address or not in the table. */
  lookup(address: string): GeoIpInfo | undefined;
}

/** One CIDR entry of a table: the covered range as 4 or 16 bytes, and what it maps to. */
export interface GeoIpEntry {
  /** First address of the block (network order, 4 or 16 bytes). */
  first: Uint8Array;
  /** Last address of the block. */
  last: Uint8Array;
  /** Prefix length, to order nested blocks. */
  prefix: number;
  info: GeoIpInfo;
}

/** A disjoint-range table for one family: `lo`/`hi` hold `words` 32-bit words per range. */
interface FamilyTable {
  words: number;
  lo: Uint32Array;
  hi: Uint32Array;
  values: GeoIpInfo[];
}

function wordsOf(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) out.push(((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0);
  return out;
}

function toBig(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/**
 * Flatten nested/disjoint CIDR blocks of one family into disjoint ranges with the most specific value.
 * Blocks are sorted by start, wider first; a stack holds the blocks that contain the current position.
 */
function flatten(entries: GeoIpEntry[], bytes: number): FamilyTable {
  const items = entries
    .map((e, i) => ({ first: toBig(e.first), last: toBig(e.last), prefix: e.prefix, info: e.info, i }))
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : a.prefix - b.prefix || a.i - b.i));
  const lo: bigint[] = [];
  const hi: bigint[] = [];
  const values: GeoIpInfo[] = [];
  const emit = (from: bigint, to: bigint, info: GeoIpInfo): void => {
    if (from > to) return;
    const n = values.length;
    if (n > 0 && values[n - 1] === info && hi[n - 1]! + 1n === from) hi[n - 1] = to;
    else {
      lo.push(from);
      hi.push(to);
      values.push(info);
    }
  };
  const stack: typeof items = [];
  let cursor = 0n;
  for (const c of items) {
    while (stack.length > 0 && stack[stack.length - 1]!.last < c.first) {
      const top = stack.pop()!;
      emit(cursor, top.last, top.info);
      if (top.last + 1n > cursor) cursor = top.last + 1n;
    }
    if (stack.length > 0) emit(cursor, c.first - 1n, stack[stack.length - 1]!.info);
    cursor = c.first;
    stack.push(c);
  }
  while (stack.length > 0) {
    const top = stack.pop()!;
    emit(cursor, top.last, top.info);
    if (top.last + 1n > cursor) cursor = top.last + 1n;
  }
  const words = bytes / 4;
  const loW = new Uint32Array(lo.length * words);
  const hiW = new Uint32Array(lo.length * words);
  const buf = new Uint8Array(bytes);
  const put = (arr: Uint32Array, at: number, v: bigint): void => {
    for (let i = bytes - 1; i >= 0; i--) {
      buf[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    const w = wordsOf(buf);
    for (let k = 0; k < words; k++) arr[at * words + k] = w[k]!;
  };
  for (let i = 0; i < lo.length; i++) {
    put(loW, i, lo[i]!);
    put(hiW, i, hi[i]!);
  }
  return { words, lo: loW, hi: hiW, values };
}

/** A longest-prefix-match table built from CIDR entries (IPv4 and IPv6). */
export class GeoIpTable implements GeoIpLookup {
  private readonly v4: FamilyTable;
  private readonly v6: FamilyTable;
  /** Scratch words for IPv6 lookups (avoids allocation). */
  private readonly key = new Uint32Array(4);

  /** Build from entries; on equal CIDRs the later entry wins. */
  constructor(entries: readonly GeoIpEntry[]) {
    this.v4 = flatten(entries.filter((e) => e.first.length === 4), 4);
    this.v6 = flatten(entries.filter((e) => e.first.length === 16), 16);
  }

  /** Number of disjoint ranges held (IPv4 + IPv6). */
  get size(): number {
    return this.v4.values.length + this.v6.values.length;
  }

  /** Most specific entry covering an IPv4 address given as an unsigned 32-bit number. */
  lookupV4(address: number): GeoIpInfo | undefined {
    const t = this.v4;
    const lo = t.lo;
    let a = 0;
    let b = t.values.length - 1;
    // Find the last range whose start <= address.
    let found = -1;
    while (a <= b) {
      const m = (a + b) >>> 1;
      if (lo[m]! <= address) {
        found = m;
        a = m + 1;
      } else b = m - 1;
    }
    return found >= 0 && address <= t.hi[found]! ? t.values[found] : undefined;
  }

  /** Most specific entry covering the IPv6 address in the 16 bytes at `offset`. */
  lookupV6(bytes: Uint8Array, offset: number): GeoIpInfo | undefined {
    const k = this.key;
    for (let i = 0; i < 4; i++) {
      const o = offset + 4 * i;
      k[i] = ((bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!) >>> 0;
    }
    const t = this.v6;
    let a = 0;
    let b = t.values.length - 1;
    let found = -1;
    while (a <= b) {
      const m = (a + b) >>> 1;
      if (compare4(t.lo, m * 4, k) <= 0) {
        found = m;
        a = m + 1;
      } else b = m - 1;
    }
    if (found >= 0 && compare4(t.hi, found * 4, k) >= 0) return t.values[found];
    // An IPv4-mapped address (::ffff:a.b.c.d) that no IPv6 block covers is looked up as IPv4, as MaxMind
    // databases alias ::ffff:0:0/96 to their IPv4 tree.
    if (k[0] === 0 && k[1] === 0 && k[2] === 0xffff) return this.lookupV4(k[3]!);
    return undefined;
  }

  /** Most specific entry covering an address given as text; undefined for non-addresses. */
  lookup(address: string): GeoIpInfo | undefined {
    const bytes = addressBytes(address);
    if (!bytes) return undefined;
    return bytes.length === 4
      ? this.lookupV4(((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0)
      : this.lookupV6(bytes, 0);
  }
}

function compare4(arr: Uint32Array, at: number, k: Uint32Array): number {
  for (let i = 0; i < 4; i++) {
    const x = arr[at + i]!;
    const y = k[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Bytes of an address text (strict, as src/net parses it). */
export function addressBytes(text: string): Uint8Array | undefined {
  return parseIpAddress(text)?.bytes;
}

/** Combine lookups (e.g. a GeoLite2-Country and a GeoLite2-ASN database): each field from the first that has it. */
export function combineGeoIp(...lookups: GeoIpLookup[]): GeoIpLookup {
  const merge = (get: (l: GeoIpLookup) => GeoIpInfo | undefined): GeoIpInfo | undefined => {
    let country: string | undefined;
    let asn: number | undefined;
    for (const l of lookups) {
      const r = get(l);
      if (!r) continue;
      country ??= r.country;
      asn ??= r.asn;
      if (country !== undefined && asn !== undefined) break;
    }
    if (country === undefined && asn === undefined) return undefined;
    return { ...(country !== undefined ? { country } : {}), ...(asn !== undefined ? { asn } : {}) };
  };
  return {
    lookupV4: (a) => merge((l) => l.lookupV4(a)),
    lookupV6: (b, o) => merge((l) => l.lookupV6(b, o)),
    lookup: (t) => merge((l) => l.lookup(t)),
  };
}
