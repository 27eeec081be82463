/**
 * HAND-WRITTEN HOT PATH: a packet's numeric fields decoded straight into typed arrays ("slots"), for the
 * simulator's compiled ruleset. bench/decide.ts showed the object path (a packet object with address
 * TEXT that IP set tests then read back) at ~2.5× the cost of decoding into numbers and testing numbers:
 * addresses stay uint32 (IPv4) or four uint32 words (IPv6), `ip.proto` stays the protocol number, Bools
 * are 1/0, and a missing field is NaN (every comparison with NaN is false, as every comparison on a
 * missing field must be).
 *
 * The slots hold exactly what {@link decodePacket} (with `problems: false`) puts in the same fields; a
 * property test (test/capture/slots.test.ts) holds the two decoders equal on real captures, generated
 * captures and mangled frames. Country and AS number slots are filled from a country/ASN table looked up on
 * the integer addresses ({@link fillGeoSlots}). Fields outside this table (the derived `ip.geoip.*`, colo,
 * raw header bytes) are not slot fields: a ruleset that reads them is simulated on packet objects.
 * @module
 */
import { IPV6_WALK, ipv4End, ipv4FragmentOffset, tcpSip, u32, udpSip, walkIpv6 } from './ip-layers.js';
import { LINK_LAYERS, ethernetIpOffset, rawIpOffset } from './link-types.js';
import type { GeoIpLookup } from './geoip.js';

/**
 * How a slot field is held: `int` a number, `bool` 1/0, `proto` the protocol number, `ip` family +
 * address, `geo` the number {@link geoNameId} gave a country code (see {@link geoName}).
 */
export type SlotKind = 'int' | 'bool' | 'proto' | 'ip' | 'geo';

/** The slot fields in slot order. An `ip` field takes two slots: its family (4 or 6) and its IPv4 value. */
export const SLOT_FIELDS: readonly (readonly [name: string, kind: SlotKind])[] = [
  ['ip.proto', 'proto'],
  ['ip.len', 'int'],
  ['ip.hdr_len', 'int'],
  ['ip.ttl', 'int'],
  ['ip.opt.type', 'int'],
  ['tcp.srcport', 'int'],
  ['tcp.dstport', 'int'],
  ['tcp.flags', 'int'],
  ['tcp.flags.ack', 'bool'],
  ['tcp.flags.cwr', 'bool'],
  ['tcp.flags.ecn', 'bool'],
  ['tcp.flags.fin', 'bool'],
  ['tcp.flags.push', 'bool'],
  ['tcp.flags.reset', 'bool'],
  ['tcp.flags.syn', 'bool'],
  ['tcp.flags.urg', 'bool'],
  ['udp.srcport', 'int'],
  ['udp.dstport', 'int'],
  ['icmp.type', 'int'],
  ['icmp.code', 'int'],
  ['sip', 'bool'],
  ['ip.src', 'ip'],
  ['ip.dst', 'ip'],
  ['ip.src.country', 'geo'],
  ['ip.dst.country', 'geo'],
  ['ip.src.asnum', 'int'],
  ['ip.dst.asnum', 'int'],
];

/** The slot fields a country/ASN table fills ({@link fillGeoSlots}); {@link decodeSlots} leaves them missing. */
export const GEO_SLOT_FIELDS: readonly string[] = ['ip.src.country', 'ip.dst.country', 'ip.src.asnum', 'ip.dst.asnum'];

/** Slot index of each slot field (for an `ip` field: its family slot; the IPv4 value is the next one). */
export const SLOT: Readonly<Record<string, number>> = (() => {
  const out: Record<string, number> = Object.create(null);
  let i = 0;
  for (const [name, kind] of SLOT_FIELDS) {
    out[name] = i;
    i += kind === 'ip' ? 2 : 1;
  }
  return out;
})();

/** Kind of each slot field. */
export const SLOT_KIND: Readonly<Record<string, SlotKind>> = Object.assign(Object.create(null), Object.fromEntries(SLOT_FIELDS));

/** Number of slots. */
export const SLOT_COUNT: number = SLOT_FIELDS.reduce((n, [, kind]) => n + (kind === 'ip' ? 2 : 1), 0);

const ALL_MISSING = new Float64Array(SLOT_COUNT).fill(NaN);

/** Offset in {@link Slots.W} of the IPv6 words (most significant first) of each `ip` field. */
export const IP_WORDS: Readonly<Record<string, number>> = Object.assign(Object.create(null), { 'ip.src': 0, 'ip.dst': 4 });

/** True when every field is a slot field (a ruleset reading only these can be decided on slots). */
export function allSlotFields(fields: Iterable<string>): boolean {
  for (const f of fields) if (SLOT_KIND[f] === undefined) return false;
  return true;
}

// What a frame's decoding fills, as bits of {@link Slots.want}: one bit per group of slots written together.
const D_PROTO = 1;
const D_LEN = 2;
const D_HDR_LEN = 4;
const D_TTL = 8;
const D_OPT = 16;
const D_SRC = 32;
const D_DST = 64;
const D_TCP_PORTS = 128;
const D_TCP_FLAGS = 256;
const D_UDP_PORTS = 512;
const D_ICMP = 1024;
const D_SIP = 2048;
const D_ALL = 4095;
/** Bits that need the transport header found (IPv4 fragment offset, IPv6 extension walk). */
const D_TRANSPORT = D_TCP_PORTS | D_TCP_FLAGS | D_UDP_PORTS | D_ICMP | D_SIP;

/** The decode bit of each slot field (country/ASN slots: the address they are looked up on). */
const DECODE_BIT: Readonly<Record<string, number>> = Object.assign(Object.create(null), {
  'ip.proto': D_PROTO,
  'ip.len': D_LEN,
  'ip.hdr_len': D_HDR_LEN,
  'ip.ttl': D_TTL,
  'ip.opt.type': D_OPT,
  'tcp.srcport': D_TCP_PORTS,
  'tcp.dstport': D_TCP_PORTS,
  'tcp.flags': D_TCP_FLAGS,
  'tcp.flags.ack': D_TCP_FLAGS,
  'tcp.flags.cwr': D_TCP_FLAGS,
  'tcp.flags.ecn': D_TCP_FLAGS,
  'tcp.flags.fin': D_TCP_FLAGS,
  'tcp.flags.push': D_TCP_FLAGS,
  'tcp.flags.reset': D_TCP_FLAGS,
  'tcp.flags.syn': D_TCP_FLAGS,
  'tcp.flags.urg': D_TCP_FLAGS,
  'udp.srcport': D_UDP_PORTS,
  'udp.dstport': D_UDP_PORTS,
  'icmp.type': D_ICMP,
  'icmp.code': D_ICMP,
  sip: D_SIP,
  'ip.src': D_SRC,
  'ip.dst': D_DST,
  'ip.src.country': D_SRC,
  'ip.src.asnum': D_SRC,
  'ip.dst.country': D_DST,
  'ip.dst.asnum': D_DST,
});

/**
 * Slots of the fields of each decode bit (what a frame's decoding resets to missing before filling); the
 * country/ASN slots go with their address, for {@link fillGeoSlots} fills them only when a table knows it.
 */
const BIT_SLOTS: readonly (readonly [bit: number, slots: readonly number[]])[] = (() => {
  const by = new Map<number, number[]>();
  for (const [name, kind] of SLOT_FIELDS) {
    const bit = DECODE_BIT[name]!;
    const list = by.get(bit) ?? by.set(bit, []).get(bit)!;
    list.push(SLOT[name]!);
    if (kind === 'ip') list.push(SLOT[name]! + 1);
  }
  return [...by];
})();

/** One decoded packet in slots: `V` the values (NaN: missing), `W` the IPv6 words of `ip.src` and `ip.dst`. */
export class Slots {
  readonly V = new Float64Array(SLOT_COUNT);
  readonly W = new Uint32Array(8);
  /** Which groups of slot fields {@link decodeSlots} fills (`D_*` bits); set through {@link Slots.only} and {@link Slots.sip}. */
  private decode = D_ALL;
  /** The slots {@link decodeSlots} resets to missing for each frame, when not all of them. */
  private resetList: Int32Array | undefined;

  /** The decode bits (internal to {@link decodeSlots}). */
  get want(): number {
    return this.decode;
  }

  /**
   * Whether {@link decodeSlots} fills `sip`, a search of the payload for a SIP line (its costliest field);
   * off, `sip` stays missing. A caller whose rules do not read `sip` turns it off.
   */
  get sip(): boolean {
    return (this.decode & D_SIP) !== 0;
  }
  set sip(on: boolean) {
    this.setDecode(on ? this.decode | D_SIP : this.decode & ~D_SIP);
  }

  /**
   * Decode only `fields` (slot fields; others are ignored) from now on: the other slots stay missing
   * and their bytes are not read. A country/ASN field needs its side's address, which is then decoded
   * too. The frame counter gives the fields its ruleset reads: on those, the slots hold what a whole
   * decode puts there (test/capture/slots-fields.test.ts).
   */
  only(fields: Iterable<string>): this {
    let want = 0;
    for (const f of fields) want |= DECODE_BIT[f] ?? 0;
    this.setDecode(want);
    return this;
  }

  private setDecode(want: number): void {
    this.decode = want;
    // Every slot starts missing (the ones not decoded stay so); each frame then resets the decoded ones.
    this.V.fill(NaN);
    this.W.fill(0);
    const list: number[] = [];
    for (const [bit, slots] of BIT_SLOTS) if (want & bit) list.push(...slots);
    this.resetList = want === D_ALL ? undefined : Int32Array.from(list);
  }

  /** Reset the decoded slots to missing before a frame. */
  reset(): void {
    const list = this.resetList;
    // A copy of an all-NaN row measured ~30% cheaper than fill(NaN) for all the slots; a few are stored one by one.
    if (list === undefined || list.length > 12) this.V.set(ALL_MISSING);
    else for (let i = 0; i < list.length; i++) this.V[list[i]!] = NaN;
  }
}

// Slot indices, resolved once (the field table above is fixed).
const S_PROTO = SLOT['ip.proto']!;
const S_LEN = SLOT['ip.len']!;
const S_HDR_LEN = SLOT['ip.hdr_len']!;
const S_TTL = SLOT['ip.ttl']!;
const S_OPT = SLOT['ip.opt.type']!;
const S_TCP_SRC = SLOT['tcp.srcport']!;
const S_TCP_DST = SLOT['tcp.dstport']!;
const S_FLAGS = SLOT['tcp.flags']!;
const S_ACK = SLOT['tcp.flags.ack']!;
const S_CWR = SLOT['tcp.flags.cwr']!;
const S_ECN = SLOT['tcp.flags.ecn']!;
const S_FIN = SLOT['tcp.flags.fin']!;
const S_PUSH = SLOT['tcp.flags.push']!;
const S_RESET = SLOT['tcp.flags.reset']!;
const S_SYN = SLOT['tcp.flags.syn']!;
const S_URG = SLOT['tcp.flags.urg']!;
const S_UDP_SRC = SLOT['udp.srcport']!;
const S_UDP_DST = SLOT['udp.dstport']!;
const S_ICMP_TYPE = SLOT['icmp.type']!;
const S_ICMP_CODE = SLOT['icmp.code']!;
const S_SIP = SLOT['sip']!;
const S_SRC = SLOT['ip.src']!;
const S_DST = SLOT['ip.dst']!;
const W_SRC = IP_WORDS['ip.src']!;
const W_DST = IP_WORDS['ip.dst']!;
const S_SRC_COUNTRY = SLOT['ip.src.country']!;
const S_DST_COUNTRY = SLOT['ip.dst.country']!;
const S_SRC_ASN = SLOT['ip.src.asnum']!;
const S_DST_ASN = SLOT['ip.dst.asnum']!;

/** Country codes by number, for the `geo` slots (a table has a few hundred distinct values at most). */
const GEO_NAMES: string[] = [];
const GEO_IDS = new Map<string, number>();

/** The number a `geo` slot holds for a country code (the same number for the same code, in this thread). */
export function geoNameId(name: string): number {
  let id = GEO_IDS.get(name);
  if (id === undefined) {
    id = GEO_NAMES.push(name) - 1;
    GEO_IDS.set(name, id);
  }
  return id;
}

/** The country code of a `geo` slot's number; undefined for NaN (missing). */
export function geoName(id: number): string | undefined {
  return GEO_NAMES[id];
}

const V6_BYTES = new Uint8Array(16);

/**
 * Fill the country and AS number slots from `geo`, looked up on the decoded addresses (IPv4 as its
 * uint32, IPv6 from its words): what {@link decodePacket} with the same table puts in those fields.
 * `source`/`destination` false skip a side no rule reads (a lookup is a binary search).
 */
export function fillGeoSlots(s: Slots, geo: GeoIpLookup, source = true, destination = true): void {
  const V = s.V;
  if (source) side(V, s.W, geo, S_SRC, W_SRC, S_SRC_COUNTRY, S_SRC_ASN);
  if (destination) side(V, s.W, geo, S_DST, W_DST, S_DST_COUNTRY, S_DST_ASN);
}

function side(V: Float64Array, W: Uint32Array, geo: GeoIpLookup, slot: number, w: number, country: number, asn: number): void {
  const family = V[slot];
  let info;
  if (family === 4) info = geo.lookupV4(V[slot + 1]!);
  else if (family === 6) {
    for (let i = 0; i < 4; i++) {
      const x = W[w + i]!;
      V6_BYTES[4 * i] = x >>> 24;
      V6_BYTES[4 * i + 1] = (x >>> 16) & 0xff;
      V6_BYTES[4 * i + 2] = (x >>> 8) & 0xff;
      V6_BYTES[4 * i + 3] = x & 0xff;
    }
    info = geo.lookupV6(V6_BYTES, 0);
  }
  if (info === undefined) return;
  if (info.country !== undefined) V[country] = geoNameId(info.country);
  if (info.asn !== undefined) V[asn] = info.asn;
}

/**
 * HAND-WRITTEN HOT PATH (bench/decide.ts: packet objects with address text cost ~2.5× decoding into
 * numbers): decode the frame `d[start, end)` of pcap link type `linkType` into `s`, every slot field
 * (missing ones NaN). The slots say exactly what {@link decodePacket} with `problems: false` says in the
 * same fields (the byte-level steps are shared through ip-layers.ts and link-types.ts). Ethernet (with
 * or without VLAN tags) and raw IP are read in place without allocating; the other link types take a
 * view for their {@link LINK_LAYERS} entry. Never throws.
 */
export function decodeSlots(s: Slots, d: Uint8Array, start: number, end: number, linkType: number): void {
  const V = s.V;
  // Every decoded slot missing to begin with.
  s.reset();
  let o: number;
  if (linkType === 1) o = ethernetIpOffset(d, start, end);
  else if (linkType === 101) o = rawIpOffset(d, start, end);
  else {
    const link = LINK_LAYERS.get(linkType);
    if (link === undefined) return;
    o = link.ipOffset(d.subarray(start, end));
    if (o >= 0) o += start;
  }
  if (o < 0 || o >= end) return;
  const version = d[o]! >> 4;
  if (version === 4) ipv4(V, d, o, end, s.want);
  else if (version === 6) ipv6(V, s.W, d, o, end, s.want);
}

/** IPv4 into slots: the steps of decode.ts's decodeIpv4, field for field. */
function ipv4(V: Float64Array, d: Uint8Array, o: number, n: number, want: number): void {
  const have = n - o;
  const ihl = (d[o]! & 0x0f) * 4;
  if (want & D_SRC && have >= 16) {
    V[S_SRC] = 4;
    V[S_SRC + 1] = u32(d, o + 12);
  }
  if (want & D_DST && have >= 20) {
    V[S_DST] = 4;
    V[S_DST + 1] = u32(d, o + 16);
  }
  const proto = have >= 10 ? d[o + 9]! : -1;
  if (want & D_PROTO && proto >= 0) V[S_PROTO] = proto;
  if (want & D_LEN && have >= 4) V[S_LEN] = (d[o + 2]! << 8) | d[o + 3]!;
  if (want & D_HDR_LEN) V[S_HDR_LEN] = ihl;
  if (want & D_TTL && have >= 9) V[S_TTL] = d[o + 8]!;
  if (want & D_OPT && ihl > 20 && have > 20) V[S_OPT] = d[o + 20]!;
  // Truncated header, header length below 20, header cut short: no transport fields.
  if ((want & D_TRANSPORT) === 0 || have < 20 || ihl < 20 || have < ihl) return;
  if (ipv4FragmentOffset(d, o) !== 0) {
    if (want & D_SIP) V[S_SIP] = 0;
    return;
  }
  transport(V, d, o + ihl, ipv4End(d, o, n, ihl), proto, 1, want);
}

/** The 16 address bytes at `o` as four uint32 words into `W[at..at+4)`. */
function words(W: Uint32Array, at: number, d: Uint8Array, o: number): void {
  W[at] = u32(d, o);
  W[at + 1] = u32(d, o + 4);
  W[at + 2] = u32(d, o + 8);
  W[at + 3] = u32(d, o + 12);
}

/** IPv6 into slots: the steps of decode.ts's decodeIpv6, field for field. */
function ipv6(V: Float64Array, W: Uint32Array, d: Uint8Array, o: number, n: number, want: number): void {
  const have = n - o;
  if (want & D_SRC && have >= 24) {
    V[S_SRC] = 6;
    words(W, W_SRC, d, o + 8);
  }
  if (want & D_DST && have >= 40) {
    V[S_DST] = 6;
    words(W, W_DST, d, o + 24);
  }
  if (want & D_LEN && have >= 6) V[S_LEN] = 40 + ((d[o + 4]! << 8) | d[o + 5]!);
  if (want & D_TTL && have >= 8) V[S_TTL] = d[o + 7]!;
  // The extension headers are walked (when the fixed header is complete) only for what lies past them.
  if ((want & (D_PROTO | D_HDR_LEN | D_TRANSPORT)) === 0) return;
  walkIpv6(d, o, n);
  const { nh, p, end, cut, laterFragment } = IPV6_WALK;
  if (want & D_PROTO && nh >= 0) V[S_PROTO] = nh;
  if (want & D_HDR_LEN && have >= 40 && !cut) V[S_HDR_LEN] = p - o;
  if ((want & D_TRANSPORT) === 0 || have < 40 || cut) return;
  if (laterFragment) {
    if (want & D_SIP) V[S_SIP] = 0;
    return;
  }
  transport(V, d, p, end, nh, 58, want);
}

/** The transport header at `p` (data up to `end`) into slots; `icmpProto` is 1 for IPv4, 58 for IPv6; `want`: the decode bits. */
function transport(V: Float64Array, d: Uint8Array, p: number, end: number, proto: number, icmpProto: number, want: number): void {
  const have = end - p;
  if (proto === 6) {
    if (want & D_TCP_PORTS && have >= 4) {
      V[S_TCP_SRC] = (d[p]! << 8) | d[p + 1]!;
      V[S_TCP_DST] = (d[p + 2]! << 8) | d[p + 3]!;
    }
    if (want & D_TCP_FLAGS && have >= 14) {
      const f = d[p + 13]!;
      V[S_FLAGS] = f;
      V[S_FIN] = f & 0x01;
      V[S_SYN] = (f >> 1) & 1;
      V[S_RESET] = (f >> 2) & 1;
      V[S_PUSH] = (f >> 3) & 1;
      V[S_ACK] = (f >> 4) & 1;
      V[S_URG] = (f >> 5) & 1;
      V[S_ECN] = (f >> 6) & 1;
      V[S_CWR] = f >> 7;
    }
    if (want & D_SIP) V[S_SIP] = tcpSip(d, p, end) ? 1 : 0;
  } else if (proto === 17) {
    if (want & D_UDP_PORTS && have >= 4) {
      V[S_UDP_SRC] = (d[p]! << 8) | d[p + 1]!;
      V[S_UDP_DST] = (d[p + 2]! << 8) | d[p + 3]!;
    }
    if (want & D_SIP) V[S_SIP] = udpSip(d, p, end) ? 1 : 0;
  } else {
    if (want & D_ICMP && proto === icmpProto) {
      if (have >= 1) V[S_ICMP_TYPE] = d[p]!;
      if (have >= 2) V[S_ICMP_CODE] = d[p + 1]!;
    }
    if (want & D_SIP) V[S_SIP] = 0;
  }
}
