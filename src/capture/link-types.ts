/**
 * Link layers the decoder reads, as a table keyed by LINKTYPE_* value: each entry finds where the IP
 * header starts in a frame. Returns the offset, {@link NOT_IP} for frames that carry something else (ARP,
 * LLDP), or {@link LINK_TRUNCATED} when the link header itself is cut short. Hot path: byte reads only.
 * @module
 */

/** The frame carries no IPv4/IPv6 packet. */
export const NOT_IP = -1;
/** The link-layer header is cut short. */
export const LINK_TRUNCATED = -2;

const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
/** 802.1Q, 802.1ad and the pre-standard 0x9100 QinQ tag: 4 bytes each, may be stacked. */
function isVlanTpid(type: number): boolean {
  return type === 0x8100 || type === 0x88a8 || type === 0x9100;
}

/** Skip VLAN tags after an EtherType at `typeAt`; return the IP offset or a negative code. */
function afterEtherType(d: Uint8Array, typeAt: number): number {
  if (typeAt + 2 > d.length) return LINK_TRUNCATED;
  return skipTags(d, (d[typeAt]! << 8) | d[typeAt + 1]!, typeAt + 2, d.length);
}

/** Given the EtherType `type` whose payload starts at `p` (frame ending at `end`), skip VLAN tags; return the IP offset or a negative code. */
function skipTags(d: Uint8Array, type: number, p: number, end: number): number {
  while (isVlanTpid(type)) {
    if (p + 4 > end) return LINK_TRUNCATED;
    type = (d[p + 2]! << 8) | d[p + 3]!;
    p += 4;
  }
  return type === ETHERTYPE_IPV4 || type === ETHERTYPE_IPV6 ? p : NOT_IP;
}

/**
 * HOT PATH, in place (bench: a view per frame was a good part of the simulator's GC time): the IP offset
 * in `d` of the Ethernet frame `d[start, end)` (VLAN/QinQ tags skipped), or {@link NOT_IP} /
 * {@link LINK_TRUNCATED}. The `ETHERNET` entry of {@link LINK_LAYERS} is this on a whole array.
 */
export function ethernetIpOffset(d: Uint8Array, start: number, end: number): number {
  if (end - start < 14) return LINK_TRUNCATED;
  return skipTags(d, (d[start + 12]! << 8) | d[start + 13]!, start + 14, end);
}

/** HOT PATH, in place (see {@link ethernetIpOffset}): the IP offset of the raw-IP frame `d[start, end)` (IPv4 or IPv6), or a negative code. */
export function rawIpOffset(d: Uint8Array, start: number, end: number): number {
  if (end - start < 1) return LINK_TRUNCATED;
  const v = d[start]! >> 4;
  return v === 4 || v === 6 ? start : NOT_IP;
}

function rawIp(d: Uint8Array): number {
  return rawIpOffset(d, 0, d.length);
}

/** BSD loopback address families that mean IPv6 (Linux 10; NetBSD/OpenBSD 24; FreeBSD 28; Darwin 30). */
const AF_INET6: ReadonlySet<number> = new Set([10, 24, 28, 30]);

/** IP offset (always 4, after the family word) for an IP family, else NOT_IP. */
function nullFamily(family: number): number {
  return family === 2 || AF_INET6.has(family) ? 4 : NOT_IP;
}

/** One link layer: its name and how to find the IP header. */
export interface LinkLayer {
  /** LINKTYPE_* name. */
  name: string;
  /** Offset of the IP header in `d`, or {@link NOT_IP} / {@link LINK_TRUNCATED}. */
  ipOffset(d: Uint8Array): number;
}

/** The link layers the decoder reads, keyed by LINKTYPE_* value. */
export const LINK_LAYERS: ReadonlyMap<number, LinkLayer> = new Map<number, LinkLayer>([
  [0, {
    name: 'NULL',
    // 4-byte address family in the capturing host's byte order.
    ipOffset: (d) => {
      if (d.length < 4) return LINK_TRUNCATED;
      let fam = d[0]! | (d[1]! << 8) | (d[2]! << 16) | (d[3]! << 24);
      if (fam >>> 16 !== 0) fam = (d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!;
      return nullFamily(fam >>> 0);
    },
  }],
  [108, {
    name: 'LOOP',
    // Like NULL, but the family is always big-endian.
    ipOffset: (d) => (d.length < 4 ? LINK_TRUNCATED : nullFamily(((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0)),
  }],
  [1, { name: 'ETHERNET', ipOffset: (d) => ethernetIpOffset(d, 0, d.length) }],
  [101, { name: 'RAW', ipOffset: rawIp }],
  // DLT_RAW as some systems number it in files (Wireshark reads both as raw IP).
  [12, { name: 'RAW (DLT 12)', ipOffset: rawIp }],
  [14, { name: 'RAW (DLT 14)', ipOffset: rawIp }],
  [228, { name: 'IPV4', ipOffset: (d) => (d.length < 1 ? LINK_TRUNCATED : d[0]! >> 4 === 4 ? 0 : NOT_IP) }],
  [229, { name: 'IPV6', ipOffset: (d) => (d.length < 1 ? LINK_TRUNCATED : d[0]! >> 4 === 6 ? 0 : NOT_IP) }],
  // Linux cooked v1: 16-byte header, protocol (EtherType) in its last two bytes.
  [113, { name: 'LINUX_SLL', ipOffset: (d) => (d.length < 16 ? LINK_TRUNCATED : afterEtherType(d, 14)) }],
  // Linux cooked v2: 20-byte header, protocol first.
  [276, {
    name: 'LINUX_SLL2',
    ipOffset: (d) => {
      if (d.length < 20) return LINK_TRUNCATED;
      // A VLAN-tagged payload has its tags after the header, as on Ethernet.
      return skipTags(d, (d[0]! << 8) | d[1]!, 20, d.length);
    },
  }],
]);
