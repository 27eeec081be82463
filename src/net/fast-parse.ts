/**
 * HAND-WRITTEN HOT PATH. Address text straight into numbers, for `IpSet.has(text)` and bulk list builds.
 *
 * The bench (`bench/ipset.ts`) shows that going through `parseIpAddress` (regexes, `ipaddr.js` objects,
 * a `Uint8Array` per address) costs far more than the index lookup itself, so these two scanners read the
 * characters once and produce a uint32 (IPv4) or four uint32 words (IPv6) without allocating. They accept
 * exactly what `parseIpAddress` accepts (strict dotted quad; RFC 4291 IPv6 text with an optional strict
 * dotted-quad tail; no zone ids, no whitespace); the property tests in `test/net/` hold them to that.
 * Everywhere else, use `parseIpAddress`.
 */

/** Four uint32 words of the last IPv6 address `parseIpv6Words` accepted, most significant first. */
export const v6Words = new Uint32Array(4);

const groups = new Uint16Array(8);

/**
 * Read a strict dotted quad from `s[from..to)`. Returns the address as a number 0..2^32-1, or -1 when the
 * text is not exactly a dotted quad of decimal octets 0..255 without leading zeros.
 */
export function parseIpv4Number(s: string, from: number, to: number): number {
  const len = to - from;
  if (len < 7 || len > 15) return -1;
  let acc = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return -1; // leading zero
      octet = octet * 10 + (c - 48);
      if (octet > 255) return -1;
      digits++;
    } else if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      acc = acc * 256 + octet;
      dots++;
      octet = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (digits === 0 || dots !== 3) return -1;
  return acc * 256 + octet;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20; // fold A-F to a-f
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/**
 * Read IPv6 text (the whole of `s`) into `v6Words`. Returns false, leaving `v6Words` unspecified, when
 * `s` is not an IPv6 address under the strict rules.
 */
export function parseIpv6Words(s: string): boolean {
  const n = s.length;
  if (n < 2 || n > 45) return false;
  let i = 0;
  let g = 0; // groups read
  let gap = -1; // group index where `::` stands
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < n) {
    const start = i;
    let v = 0;
    let h: number;
    while (i < n && i - start < 5 && (h = hexValue(s.charCodeAt(i))) >= 0) {
      v = v * 16 + h;
      i++;
    }
    const len = i - start;
    if (len === 0) return false;
    if (i < n && s.charCodeAt(i) === 46) {
      // Dotted-quad tail: it must run to the end and takes two groups.
      if (g > 6) return false;
      const q = parseIpv4Number(s, start, n);
      if (q < 0) return false;
      groups[g++] = Math.floor(q / 65536);
      groups[g++] = q & 0xffff;
      i = n;
      break;
    }
    if (len > 4 || g === 8) return false;
    groups[g++] = v;
    if (i === n) break;
    if (s.charCodeAt(i) !== 58) return false;
    i++;
    if (i === n) return false; // a single trailing colon
    if (s.charCodeAt(i) === 58) {
      if (gap >= 0) return false; // a second `::`
      gap = g;
      i++;
    }
  }
  if (gap < 0 ? g !== 8 : g > 7) return false;
  // Expand `::` while packing pairs of groups into words.
  const zeros = 8 - g;
  for (let w = 0; w < 4; w++) {
    let word = 0;
    for (let k = w * 2; k < w * 2 + 2; k++) {
      let v = 0;
      if (gap < 0 || k < gap) v = groups[k]!;
      else if (k >= gap + zeros) v = groups[k - zeros]!;
      word = word * 65536 + v;
    }
    v6Words[w] = word;
  }
  return true;
}
