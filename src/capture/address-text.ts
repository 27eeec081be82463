/**
 * Address text for the decoder's hot path: IPv4 dotted quads and RFC 5952 IPv6 text straight from packet
 * bytes, without intermediate arrays. The output matches `formatIpAddress` of src/net (IPv4-mapped
 * addresses print as `::ffff:a.b.c.d`).
 *
 * Traffic repeats addresses, and building the text is most of the decoder's cost, so the decoder goes
 * through small direct-mapped caches ({@link cachedIpv4Text}, {@link cachedIpv6Text}): a hit costs a
 * hash and a compare, and allocates nothing.
 * @module
 */

const DEC: readonly string[] = Array.from({ length: 256 }, (_, i) => String(i));
/** Byte as hex without leading zeros, and as exactly two hex digits. */
const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16));
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Dotted quad of the 4 bytes at `o`. */
export function ipv4Text(d: Uint8Array, o: number): string {
  return DEC[d[o]!]! + '.' + DEC[d[o + 1]!]! + '.' + DEC[d[o + 2]!]! + '.' + DEC[d[o + 3]!]!;
}

/** RFC 5952 text of the 16 bytes at `o`: lower case, the longest run (≥ 2) of zero groups as `::`, leftmost on ties. */
export function ipv6Text(d: Uint8Array, o: number): string {
  // Longest run of zero groups.
  let bestStart = -1;
  let bestLen = 0;
  let runStart = -1;
  for (let g = 0; g < 8; g++) {
    const zero = d[o + 2 * g] === 0 && d[o + 2 * g + 1] === 0;
    if (zero) {
      if (runStart < 0) runStart = g;
      const len = g - runStart + 1;
      if (len > bestLen) {
        bestLen = len;
        bestStart = runStart;
      }
    } else {
      runStart = -1;
    }
  }
  if (bestStart === 0 && bestLen === 5 && d[o + 10] === 0xff && d[o + 11] === 0xff) {
    return '::ffff:' + ipv4Text(d, o + 12);
  }
  if (bestLen < 2) bestStart = -1;
  let s = '';
  for (let g = 0; g < 8; g++) {
    if (g === bestStart) {
      s += g === 0 ? '::' : ':';
      g += bestLen - 1;
      continue;
    }
    const hi = d[o + 2 * g]!;
    s += hi === 0 ? HEX[d[o + 2 * g + 1]!]! : HEX[hi]! + HEX2[d[o + 2 * g + 1]!]!;
    if (g < 7) s += ':';
  }
  return s;
}

const V4_SLOTS = 8192;
const v4Keys = new Int32Array(V4_SLOTS);
const v4Texts: (string | undefined)[] = new Array<string | undefined>(V4_SLOTS).fill(undefined);

/** {@link ipv4Text} through a direct-mapped cache keyed by the address. */
export function cachedIpv4Text(d: Uint8Array, o: number): string {
  const key = (d[o]! << 24) | (d[o + 1]! << 16) | (d[o + 2]! << 8) | d[o + 3]!;
  const slot = Math.imul(key, 0x9e3779b1) >>> 19;
  const hit = v4Texts[slot];
  if (hit !== undefined && v4Keys[slot] === key) return hit;
  const text = ipv4Text(d, o);
  v4Keys[slot] = key;
  v4Texts[slot] = text;
  return text;
}

const V6_SLOTS = 4096;
const v6Keys = new Int32Array(V6_SLOTS * 4);
const v6Texts: (string | undefined)[] = new Array<string | undefined>(V6_SLOTS).fill(undefined);

/** {@link ipv6Text} through a direct-mapped cache keyed by the address. */
export function cachedIpv6Text(d: Uint8Array, o: number): string {
  const a = (d[o]! << 24) | (d[o + 1]! << 16) | (d[o + 2]! << 8) | d[o + 3]!;
  const b = (d[o + 4]! << 24) | (d[o + 5]! << 16) | (d[o + 6]! << 8) | d[o + 7]!;
  const c = (d[o + 8]! << 24) | (d[o + 9]! << 16) | (d[o + 10]! << 8) | d[o + 11]!;
  const e = (d[o + 12]! << 24) | (d[o + 13]! << 16) | (d[o + 14]! << 8) | d[o + 15]!;
  const slot = Math.imul(a ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35) ^ Math.imul(e, 0x9e3779b1), 0x27d4eb2f) >>> 20;
  const k = slot * 4;
  const hit = v6Texts[slot];
  if (hit !== undefined && v6Keys[k] === a && v6Keys[k + 1] === b && v6Keys[k + 2] === c && v6Keys[k + 3] === e) return hit;
  const text = ipv6Text(d, o);
  v6Keys[k] = a;
  v6Keys[k + 1] = b;
  v6Keys[k + 2] = c;
  v6Keys[k + 3] = e;
  v6Texts[slot] = text;
  return text;
}

/** Dotted quad of an IPv4 address given as a number 0..2^32-1. */
export function ipv4TextOfNumber(x: number): string {
  return DEC[(x >>> 24) & 255]! + '.' + DEC[(x >>> 16) & 255]! + '.' + DEC[(x >>> 8) & 255]! + '.' + DEC[x & 255]!;
}

const scratch16 = new Uint8Array(16);

/** RFC 5952 text of an IPv6 address given as four uint32 words, most significant first. */
export function ipv6TextOfWords(w0: number, w1: number, w2: number, w3: number): string {
  const words = [w0, w1, w2, w3];
  for (let i = 0; i < 4; i++) {
    const w = words[i]!;
    scratch16[4 * i] = (w >>> 24) & 255;
    scratch16[4 * i + 1] = (w >>> 16) & 255;
    scratch16[4 * i + 2] = (w >>> 8) & 255;
    scratch16[4 * i + 3] = w & 255;
  }
  return ipv6Text(scratch16, 0);
}
