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

const groups = new Int32Array(8);

/** Hex digit values by character code (ASCII only), -1 for anything else. */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX[48 + c] = c;
for (let c = 0; c < 6; c++) {
  HEX[97 + c] = 10 + c;
  HEX[65 + c] = 10 + c;
}

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

/**
 * Read IPv6 text from `s[from..to)` into `v6Words`. Returns false, leaving `v6Words` unspecified, when the
 * text is not an IPv6 address under the strict rules.
 */
export function parseIpv6Words(s: string, from: number, to: number): boolean {
  const n = to;
  if (to - from < 2 || to - from > 45) return false;
  let i = from;
  let g = 0; // groups read
  let gap = -1; // group index where `::` stands
  if (s.charCodeAt(i) === 58) {
    if (s.charCodeAt(i + 1) !== 58) return false;
    gap = 0;
    i += 2;
  }
  while (i < n) {
    const start = i;
    // One group: 1..4 hex digits; `c` ends as the character after them (':' stands in for the end).
    let c = s.charCodeAt(i);
    let h = c < 128 ? HEX[c]! : -1;
    if (h < 0) return false;
    let v = 0;
    const limit = start + 4 < n ? start + 4 : n;
    do {
      v = (v << 4) | h;
      if (++i === limit) {
        c = i < n ? s.charCodeAt(i) : 58;
        break;
      }
      c = s.charCodeAt(i);
      h = c < 128 ? HEX[c]! : -1;
    } while (h >= 0);
    if (c === 46) {
      // Dotted-quad tail: it must run to the end and takes two groups.
      if (g > 6) return false;
      const q = parseIpv4Number(s, start, n);
      if (q < 0) return false;
      groups[g++] = Math.floor(q / 65536);
      groups[g++] = q & 0xffff;
      break;
    }
    if (g === 8) return false;
    groups[g++] = v;
    if (i === n) break;
    if (c !== 58) return false; // a fifth hex digit or any other character
    i++;
    if (i === n) return false; // a single trailing colon
    if (s.charCodeAt(i) === 58) {
      if (gap >= 0) return false; // a second `::`
      gap = g;
      i++;
    }
  }
  if (gap < 0 ? g !== 8 : g > 7) return false;
  if (gap >= 0) {
    // Expand `::`: move the groups after it to the end and zero the gap.
    const zeros = 8 - g;
    for (let k = g - 1; k >= gap; k--) groups[k + zeros] = groups[k]!;
    for (let k = gap; k < gap + zeros; k++) groups[k] = 0;
  }
  v6Words[0] = (groups[0]! << 16) | groups[1]!;
  v6Words[1] = (groups[2]! << 16) | groups[3]!;
  v6Words[2] = (groups[4]! << 16) | groups[5]!;
  v6Words[3] = (groups[6]! << 16) | groups[7]!;
  return true;
}

/**
 * HAND-WRITTEN HOT PATH: is `text` an IP address under the strict rules? Same answer as
 * `parseIpAddress(text) !== undefined`, without allocating (for per-packet checks such as `ip.src != x`).
 */
export function isIpAddressText(text: string): boolean {
  if (typeof text !== 'string') return false;
  return parseIpv4Number(text, 0, text.length) >= 0 || parseIpv6Words(text, 0, text.length);
}
