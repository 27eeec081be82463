/**
 * Byte-level pieces of IP and transport decoding shared by the object decoder (decode.ts) and the slot
 * decoder (slots.ts), so the two cannot drift apart: big-endian reads, the IPv4 payload end, the IPv6
 * extension-header walk, and SIP detection. Hot path: byte reads only, no allocation.
 * @module
 */

/** Big-endian uint32 at `o`. */
export function u32(d: Uint8Array, o: number): number {
  return ((d[o]! << 24) | (d[o + 1]! << 16) | (d[o + 2]! << 8) | d[o + 3]!) >>> 0;
}

/**
 * End of the IPv4 packet whose header (`ihl` bytes) starts at `o`, the capture ending at `n`: the total
 * length when it fits, else (a total length of 0 from TCP segmentation offload, below the header, or
 * beyond the capture) what was captured.
 */
export function ipv4End(d: Uint8Array, o: number, n: number, ihl: number): number {
  const total = (d[o + 2]! << 8) | d[o + 3]!;
  return total >= ihl && o + total < n ? o + total : n;
}

/** The IPv4 fragment offset field (in 8-byte units; non-zero: a non-first fragment). */
export function ipv4FragmentOffset(d: Uint8Array, o: number): number {
  return ((d[o + 6]! & 0x1f) << 8) | d[o + 7]!;
}

/** End of the IPv6 packet whose fixed header (complete) starts at `o`, the capture ending at `n` (payload length 0: jumbogram / offload). */
export function ipv6End(d: Uint8Array, o: number, n: number): number {
  const plen = (d[o + 4]! << 8) | d[o + 5]!;
  return plen > 0 && o + 40 + plen < n ? o + 40 + plen : n;
}

/** IPv6 extension headers with the generic (next header, length in 8-byte units − 1) layout. */
const GENERIC_EXT = new Uint8Array(256);
for (const h of [0, 43, 60, 135, 139, 140]) GENERIC_EXT[h] = 1;
/** At most this many extension headers are walked; the header after them is taken as the upper layer. */
export const MAX_EXT_HEADERS = 16;

/**
 * Result of {@link walkIpv6Extensions}, in module state so that a walk allocates nothing (the decoders
 * are synchronous; read it right after the call).
 */
export const IPV6_WALK = {
  /** The upper-layer protocol (or the header where the walk stopped). */
  nh: 0,
  /** Offset of the upper-layer header. */
  p: 0,
  /** An extension header is cut short (at `p`, of type `nh`). */
  cut: false,
  /** A fragment header with a non-zero offset was seen (a non-first fragment). */
  laterFragment: false,
  /** End of the IPv6 payload (set by {@link walkIpv6}). */
  end: 0,
};

/**
 * The IPv6 packet at `o` (captured up to `n`): its payload end and, when the fixed header is complete,
 * the walk of its extension headers; without a complete header, the next header byte (or -1) at `o + 40`
 * and no walk. Sets {@link IPV6_WALK} (`nh`, `p`, `end`, `cut`, `laterFragment`).
 */
export function walkIpv6(d: Uint8Array, o: number, n: number): void {
  const have = n - o;
  if (have >= 40) {
    const end = ipv6End(d, o, n);
    walkIpv6Extensions(d, d[o + 6]!, o + 40, end);
    IPV6_WALK.end = end;
    return;
  }
  IPV6_WALK.nh = have >= 7 ? d[o + 6]! : -1;
  IPV6_WALK.p = o + 40;
  IPV6_WALK.end = n;
  IPV6_WALK.cut = false;
  IPV6_WALK.laterFragment = false;
}

/**
 * Walk the IPv6 extension headers that start at `p` with next header `nh`, up to `end` (hop-by-hop,
 * routing, destination options, mobility, HIP, shim6: generic layout; AH 51: 4-byte units; fragment 44:
 * 8 bytes). Sets {@link IPV6_WALK}.
 */
export function walkIpv6Extensions(d: Uint8Array, nh: number, p: number, end: number): void {
  let cut = false;
  let laterFragment = false;
  for (let k = 0; k < MAX_EXT_HEADERS; k++) {
    if (GENERIC_EXT[nh] || nh === 51) {
      if (p + 2 > end) {
        cut = true;
        break;
      }
      const len = nh === 51 ? (d[p + 1]! + 2) * 4 : (d[p + 1]! + 1) * 8;
      if (p + len > end) {
        cut = true;
        break;
      }
      nh = d[p]!;
      p += len;
    } else if (nh === 44) {
      if (p + 8 > end) {
        cut = true;
        break;
      }
      if (((d[p + 2]! << 8) | d[p + 3]!) >> 3 !== 0) laterFragment = true;
      nh = d[p]!;
      p += 8;
    } else break;
  }
  IPV6_WALK.nh = nh;
  IPV6_WALK.p = p;
  IPV6_WALK.cut = cut;
  IPV6_WALK.laterFragment = laterFragment;
}

const SIP_STATUS = bytes('SIP/2.0 ');
const SIP_METHODS = ['INVITE', 'ACK', 'BYE', 'CANCEL', 'OPTIONS', 'REGISTER', 'PRACK', 'SUBSCRIBE', 'NOTIFY', 'PUBLISH', 'INFO', 'REFER', 'MESSAGE', 'UPDATE'].map(bytes);
const SIP_SCHEMES = ['sip:', 'sips:', 'tel:'].map(bytes);

function bytes(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

function startsWith(d: Uint8Array, p: number, end: number, prefix: Uint8Array): boolean {
  if (end - p < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (d[p + i] !== prefix[i]) return false;
  return true;
}

/** A SIP status line (`SIP/2.0 200 OK`) or request line (`INVITE sip:bob@example.com SIP/2.0`) at `p`. */
export function isSip(d: Uint8Array, p: number, end: number): boolean {
  if (p >= end) return false;
  if (startsWith(d, p, end, SIP_STATUS)) return true;
  for (const m of SIP_METHODS) {
    // The space after the method must be before `end` too (the scheme after it must fit anyway).
    if (startsWith(d, p, end, m) && p + m.length < end && d[p + m.length] === 0x20) {
      const q = p + m.length + 1;
      for (const s of SIP_SCHEMES) if (startsWith(d, q, end, s)) return true;
    }
  }
  return false;
}

/** `sip` of a TCP segment at `p` (data up to `end`): a complete header and a SIP payload after its data offset. */
export function tcpSip(d: Uint8Array, p: number, end: number): boolean {
  return end - p >= 20 && isSip(d, p + (d[p + 12]! >> 4) * 4, end);
}

/** `sip` of a UDP datagram at `p` (data up to `end`): a complete header and a SIP payload. */
export function udpSip(d: Uint8Array, p: number, end: number): boolean {
  return end - p >= 8 && isSip(d, p + 8, end);
}
