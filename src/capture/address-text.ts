/**
 * Address text for the decoder's hot path: IPv4 dotted quads and RFC 5952 IPv6 text straight from packet
 * bytes, without intermediate arrays. The output matches `formatIpAddress` of src/net (IPv4-mapped
 * addresses print as `::ffff:a.b.c.d`).
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
