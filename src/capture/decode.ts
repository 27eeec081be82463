/**
 * `decodePacket`: turn one captured frame into the expression language's packet fields.
 *
 * Hot path, hand-written: byte reads on the record's bytes, no per-packet allocation beyond the packet
 * object (and address strings, raw-byte views and problem diagnostics when those are asked for or
 * found). With `options.fields` only the groups of fields a ruleset reads are decoded.
 *
 * Conventions (documented here once):
 * - `ip.src`/`ip.dst`/`ip.ttl`/`ip.len`/`ip.proto` are set for IPv4 and IPv6 alike. IPv6: `ip.ttl` is the
 *   hop limit, `ip.len` is 40 + payload length (the whole IP packet, like IPv4's total length), `ip.proto`
 *   is the upper-layer protocol after the extension headers.
 * - `ip.hdr_len` is the bytes before the transport header: IHL × 4 for IPv4; 40 + extension headers for IPv6.
 * - `ip.proto` text: see {@link IP_PROTOCOL_NAMES} (`tcp`, `udp`, `icmp`, `ipv6-icmp`, ...).
 * - `tcp.flags` is the flags byte (CWR 0x80 ... FIN 0x01); `tcp.flags.ecn` is the ECE bit (0x40).
 * - `ip.opt.type` is the first byte of the IPv4 options (absent when there are none, and for IPv6).
 * - `icmp.type`/`icmp.code` cover ICMP (IPv4, protocol 1) and ICMPv6 (IPv6, next header 58).
 * - Raw fields `ip`, `tcp`, `udp`, `icmp` are views from the start of that layer's header to the end of
 *   the captured packet (as the service documents "the raw IP packet"), so `bit_slice` offsets inside
 *   the header read the header.
 * - `sip` is true for a UDP or TCP packet whose payload starts a SIP request line or status line, false
 *   for any other IP packet.
 * - A non-first IP fragment has no transport header: its transport fields are absent.
 * - Country/ASN fields come only from `options.geoip`; the decoder never sets `ip.geoip.country` (it means
 *   source OR destination, which the evaluator derives from `ip.src.country` and `ip.dst.country`).
 * @module
 */
import { captureDiagnostic, type CaptureDiagnostic } from './diagnostic.js';
import type { CaptureCode } from './codes.js';
import { ALL_FIELDS, DECODED_FIELDS, F, FIELD_GROUPS, fieldMask, type Packet } from './fields.js';
import type { GeoIpLookup } from './geoip.js';
import { IP_PROTOCOL_NAMES } from './ip-protocols.js';
import { cachedIpv4Text, cachedIpv6Text } from './address-text.js';
import { LINK_LAYERS, LINK_TRUNCATED, ethernetIpOffset, rawIpOffset } from './link-types.js';
import { IPV6_WALK, ipv4End, ipv4FragmentOffset, tcpSip, u32, udpSip, walkIpv6 } from './ip-layers.js';
import { IpSet } from '../net/index.js';
import { jsString } from '../codegen/index.js';

/** What the decoder needs from a record (a {@link CaptureRecord} fits). */
export interface DecodeInput {
  linkType: number;
  data: Uint8Array;
  /** Byte offset of the record in its file, for problem messages. */
  offset?: number;
  /** Record index, for problem messages. */
  index?: number;
}

/** Options of {@link decodePacket}. */
export interface DecodeOptions {
  /** Decode only these fields (the simulator passes the fields its ruleset reads). Default: all. */
  fields?: ReadonlySet<string>;
  /** Country/ASN table; without one the country and ASN fields are absent. */
  geoip?: GeoIpLookup;
  /** The data center to report in `cf.colo.name` / `cf.colo.region`. */
  colo?: { name?: string; region?: string };
  /** Build problem diagnostics (default true); false skips them for speed. */
  problems?: boolean;
  /**
   * Give every packet the same shape: each of `fields` is present from the start, `undefined` until
   * decoded (which the expression engine reads as missing). All packets then share one V8 hidden class,
   * so a compiled ruleset's field loads stay monomorphic (the simulator's hot path). Needs `fields`.
   */
  fixedShape?: boolean;
  /**
   * With `fixedShape`: fill this packet (one an earlier call with the same `fields` returned) instead of
   * a new one; every field is reset to undefined first. Saves an allocation per packet (the simulator's
   * bench showed GC at 14%); the caller must copy a packet it wants to keep.
   */
  reuse?: Packet;
}

/** The decoded fields, and the problems found on the way (absent when there were none). */
export interface DecodeResult {
  packet: Packet;
  problems?: CaptureDiagnostic[];
}

const NO_OPTIONS: DecodeOptions = {};

/**
 * Packets are made with `new PlainPacket()` rather than `{}`: objects from a constructor get V8's in-object
 * slack tracking, so the ~25 fields a full decode adds land in the object itself instead of a backing
 * store that is regrown as they are added (about twice as fast). The prototype is `Object.prototype`,
 * so the result is still a plain object.
 */
function PlainPacket(): void {}
PlainPacket.prototype = Object.prototype;
const IPV4 = 4;

let shapeFields: ReadonlySet<string> | undefined;
let shapeCtor: (new () => Packet) | undefined;
/**
 * A constructor that sets each field to undefined in a fixed order (generated once per field set; field
 * names enter the source only through jsString). Where code generation is blocked, plain packets.
 */
function shapedConstructor(fields: ReadonlySet<string>): new () => Packet {
  if (fields !== shapeFields || !shapeCtor) {
    shapeFields = fields;
    try {
      // Every field the wanted groups can produce (a group may fill siblings: tcp.srcport with tcp.dstport).
      const mask = fieldMask(fields);
      const all = DECODED_FIELDS.filter((f) => (FIELD_GROUPS[f]! & mask) !== 0);
      const body = all.map((f) => `this[${jsString(f)}] = undefined;`).join('\n');
      const ctor = new Function(body) as unknown as new () => Packet;
      (ctor as unknown as { prototype: object }).prototype = Object.prototype;
      shapeCtor = ctor;
    } catch {
      shapeCtor = PlainPacket as unknown as new () => Packet;
    }
  }
  return shapeCtor;
}

// Per-call state of the (synchronous, non-reentrant) decoder, kept in module variables so that the
// helpers need no context object.
let problems: CaptureDiagnostic[] | undefined;
let reporting = true;
let recordOffset = 0;
let recordIndex: number | undefined;
// The mask of the last field set seen (the simulator passes the same set for every packet).
let lastFields: ReadonlySet<string> | undefined;
let lastMask = ALL_FIELDS;

function problem(code: CaptureCode, message: string, extra?: Record<string, unknown>): void {
  if (!reporting) return;
  const where = recordIndex !== undefined ? `Packet ${recordIndex + 1} at byte ${recordOffset}` : `Packet at byte ${recordOffset}`;
  (problems ??= []).push(captureDiagnostic(code, recordOffset, `${where}: ${message}`, extra));
}

function truncated(layer: string, have: number, need: number): void {
  if (reporting) {
    problem('capture-truncated-packet', `the ${layer} header is cut short (${have} of ${need} bytes captured); fields after the cut are missing.`, {
      layer,
      captured: have,
      needed: need,
    });
  }
}

/**
 * Decode a captured frame into packet fields (see the module comment for the conventions). Never throws:
 * unsupported link types, non-IP frames, truncated and malformed headers become `problems`, and the
 * fields read before the problem are kept.
 */
export function decodePacket(record: DecodeInput, options: DecodeOptions = NO_OPTIONS): DecodeResult {
  const fields = options.fields;
  let want = ALL_FIELDS;
  if (fields) {
    if (fields !== lastFields) {
      lastMask = fieldMask(fields);
      lastFields = fields;
    }
    want = lastMask;
  }
  let packet: Packet;
  if (options.fixedShape && fields) {
    const ctor = shapedConstructor(fields);
    const reuse = options.reuse;
    // Reset a reused packet by running the generated constructor on it (not possible with the fallback).
    if (reuse !== undefined && ctor !== (PlainPacket as unknown)) {
      (ctor as unknown as (this: Packet) => void).call(reuse);
      packet = reuse;
    } else packet = new ctor();
  } else packet = new (PlainPacket as unknown as new () => Packet)();
  problems = undefined;
  reporting = options.problems !== false;
  recordOffset = typeof record?.offset === 'number' ? record.offset : 0;
  recordIndex = typeof record?.index === 'number' ? record.index : undefined;
  const d = record?.data;
  if (!(d instanceof Uint8Array)) {
    recordOffset = 0;
    recordIndex = undefined;
    problem('capture-bad-record', 'the record has no `data` bytes (a Uint8Array); nothing was decoded.');
    const found = problems;
    problems = undefined;
    return found ? { packet, problems: found } : { packet };
  }
  if (want & F.COLO && options.colo) {
    if (options.colo.name !== undefined) packet['cf.colo.name'] = options.colo.name;
    if (options.colo.region !== undefined) packet['cf.colo.region'] = options.colo.region;
  }
  const link = LINK_LAYERS.get(record.linkType);
  if (!link) {
    problem('capture-unsupported-link-type', `link type ${record.linkType} is not one the decoder reads (Ethernet, raw IP, Linux cooked v1/v2, loopback); no fields were decoded.`, {
      linkType: record.linkType,
    });
  } else {
    const o = link.ipOffset(d);
    if (o === LINK_TRUNCATED) {
      problem('capture-truncated-packet', `the ${link.name} link-layer header is cut short (${d.length} bytes captured); no IP fields were decoded.`, {
        layer: link.name,
        captured: d.length,
      });
    } else if (o < 0) problem('capture-not-ip', `the ${link.name} frame does not carry IPv4 or IPv6; no IP fields were decoded.`);
    else if (o >= d.length) truncated('IP', 0, 20);
    else {
      decodeIp(d, o, d.length, packet, want, options.geoip);
    }
  }
  const found = problems;
  problems = undefined;
  return found ? { packet, problems: found } : { packet };
}

function decodeIp(d: Uint8Array, o: number, n: number, packet: Packet, want: number, geo: GeoIpLookup | undefined): void {
  const version = d[o]! >> 4;
  if (version === IPV4) decodeIpv4(d, o, n, packet, want, geo);
  else if (version === 6) decodeIpv6(d, o, n, packet, want, geo);
  else problem('capture-bad-ip-header', `IP version ${version} is neither 4 nor 6; no IP fields were decoded.`, { version });
}

const frameInput: { linkType: number; data: Uint8Array } = { linkType: 0, data: new Uint8Array(0) };

/**
 * HAND-WRITTEN HOT PATH (bench/decide.ts: a Uint8Array view and a result object per record were a good
 * part of the simulator's GC time): decode the frame `d[start..end)` of link type `linkType` into
 * `packet`, which an earlier `decodePacket(…, { fields, fixedShape: true })` with the same options
 * returned. Same fields as {@link decodePacket} with `problems: false` and `reuse: packet`; Ethernet
 * (with or without VLAN tags) and raw IP are read in place, other frames through a view.
 */
export function decodeFrameInto(packet: Packet, d: Uint8Array, start: number, end: number, linkType: number, options: DecodeOptions): void {
  // Ethernet (VLAN tags included) and raw IP in place; the others through a view.
  const o = linkType === 1 ? ethernetIpOffset(d, start, end) : linkType === 101 ? rawIpOffset(d, start, end) : -1;
  const fields = options.fields;
  const ctor = fields && options.fixedShape ? shapedConstructor(fields) : undefined;
  if (o < 0 || o >= end || ctor === undefined || ctor === (PlainPacket as unknown)) {
    frameInput.linkType = linkType;
    frameInput.data = d.subarray(start, end);
    decodePacket(frameInput, { ...options, problems: false, reuse: packet });
    return;
  }
  let want = lastMask;
  if (fields !== lastFields) {
    lastMask = want = fieldMask(fields);
    lastFields = fields;
  }
  (ctor as unknown as (this: Packet) => void).call(packet);
  problems = undefined;
  reporting = false;
  if (want & F.COLO && options.colo) {
    if (options.colo.name !== undefined) packet['cf.colo.name'] = options.colo.name;
    if (options.colo.region !== undefined) packet['cf.colo.region'] = options.colo.region;
  }
  decodeIp(d, o, end, packet, want, options.geoip);
}

// Both IP versions assign fields in one order (addresses, protocol, lengths, TTL, options, raw bytes,
// geo, then transport), so IPv4 and IPv6 packets of the same transport share object shapes and the
// property stores stay monomorphic.

function decodeIpv4(d: Uint8Array, o: number, n: number, packet: Packet, want: number, geo: GeoIpLookup | undefined): void {
  const have = n - o;
  const ihl = (d[o]! & 0x0f) * 4;
  const proto = have >= 10 ? d[o + 9]! : -1;
  // The bench (bench/decide.ts) showed IP set tests re-parsing this text: hand the parsed form over too.
  if (want & F.SRC && have >= 16) IpSet.rememberIpv4Text((packet['ip.src'] = cachedIpv4Text(d, o + 12)), u32(d, o + 12));
  if (want & F.DST && have >= 20) IpSet.rememberIpv4Text((packet['ip.dst'] = cachedIpv4Text(d, o + 16)), u32(d, o + 16));
  if (want & F.PROTO && proto >= 0) packet['ip.proto'] = IP_PROTOCOL_NAMES[proto]!;
  if (want & F.LEN && have >= 4) packet['ip.len'] = (d[o + 2]! << 8) | d[o + 3]!;
  if (want & F.HDR_LEN) packet['ip.hdr_len'] = ihl;
  if (want & F.TTL && have >= 9) packet['ip.ttl'] = d[o + 8]!;
  if (want & F.OPT && ihl > 20 && have > 20) packet['ip.opt.type'] = d[o + 20]!;
  if (want & F.RAW_IP) packet.ip = d.subarray(o, n);
  if (geo) {
    if (have >= 16 && want & (F.SRC_COUNTRY | F.SRC_ASN)) setGeo(packet, geo.lookupV4(u32(d, o + 12)), want, true);
    if (have >= 20 && want & (F.DST_COUNTRY | F.DST_ASN)) setGeo(packet, geo.lookupV4(u32(d, o + 16)), want, false);
  }
  if (have < 20) {
    truncated('IPv4', have, 20);
    return;
  }
  if (ihl < 20) {
    problem('capture-bad-ip-header', `the IPv4 header length is ${ihl} bytes, below the minimum of 20; transport fields were not decoded.`, { headerLength: ihl });
    return;
  }
  if (have < ihl) {
    truncated('IPv4', have, ihl);
    return;
  }
  const fragOffset = ipv4FragmentOffset(d, o);
  if (fragOffset !== 0) {
    problem('capture-ip-fragment', `IPv4 fragment at offset ${fragOffset * 8}: it carries no transport header, so transport fields are missing.`, {
      fragmentOffset: fragOffset * 8,
    });
    if (want & F.SIP) packet.sip = false;
    return;
  }
  transport(d, o + ihl, ipv4End(d, o, n, ihl), proto, packet, want, 1);
}

function decodeIpv6(d: Uint8Array, o: number, n: number, packet: Packet, want: number, geo: GeoIpLookup | undefined): void {
  const have = n - o;
  // Walk the extension headers first (when the fixed header is complete) to know the upper-layer protocol.
  walkIpv6(d, o, n);
  const { nh, p, end, cut, laterFragment } = IPV6_WALK;
  if (want & F.SRC && have >= 24) rememberV6((packet['ip.src'] = cachedIpv6Text(d, o + 8)), d, o + 8);
  if (want & F.DST && have >= 40) rememberV6((packet['ip.dst'] = cachedIpv6Text(d, o + 24)), d, o + 24);
  if (want & F.PROTO && nh >= 0) packet['ip.proto'] = IP_PROTOCOL_NAMES[nh]!;
  if (want & F.LEN && have >= 6) packet['ip.len'] = 40 + ((d[o + 4]! << 8) | d[o + 5]!);
  if (want & F.HDR_LEN && have >= 40 && !cut) packet['ip.hdr_len'] = p - o;
  if (want & F.TTL && have >= 8) packet['ip.ttl'] = d[o + 7]!;
  if (want & F.RAW_IP) packet.ip = d.subarray(o, n);
  if (geo) {
    if (have >= 24 && want & (F.SRC_COUNTRY | F.SRC_ASN)) setGeo(packet, geo.lookupV6(d, o + 8), want, true);
    if (have >= 40 && want & (F.DST_COUNTRY | F.DST_ASN)) setGeo(packet, geo.lookupV6(d, o + 24), want, false);
  }
  if (have < 40) {
    truncated('IPv6', have, 40);
    return;
  }
  if (cut) {
    truncated(`IPv6 extension (${IP_PROTOCOL_NAMES[nh]})`, end - p, 8);
    return;
  }
  if (laterFragment) {
    problem('capture-ip-fragment', 'non-first IPv6 fragment: it carries no transport header, so transport fields are missing.');
    if (want & F.SIP) packet.sip = false;
    return;
  }
  transport(d, p, end, nh, packet, want, 58);
}

/** Hand IpSet the words of an address text the decoder built (see decodeIpv4). */
function rememberV6(text: string, d: Uint8Array, o: number): void {
  IpSet.rememberIpv6Text(text, u32(d, o), u32(d, o + 4), u32(d, o + 8), u32(d, o + 12));
}

function setGeo(packet: Packet, info: { country?: string; asn?: number } | undefined, want: number, source: boolean): void {
  if (!info) return;
  if (source) {
    if (want & F.SRC_COUNTRY && info.country !== undefined) packet['ip.src.country'] = info.country;
    if (want & F.SRC_ASN && info.asn !== undefined) {
      packet['ip.src.asnum'] = info.asn;
      packet['ip.geoip.asnum'] = info.asn;
    }
  } else {
    if (want & F.DST_COUNTRY && info.country !== undefined) packet['ip.dst.country'] = info.country;
    if (want & F.DST_ASN && info.asn !== undefined) packet['ip.dst.asnum'] = info.asn;
  }
}

/** Decode the transport header at `p` (data up to `end`); `icmpProto` is 1 for IPv4, 58 for IPv6. */
function transport(d: Uint8Array, p: number, end: number, proto: number, packet: Packet, want: number, icmpProto: number): void {
  const have = end - p;
  if (proto === 6) {
    if (have >= 4 && want & F.TCP_PORTS) {
      packet['tcp.srcport'] = (d[p]! << 8) | d[p + 1]!;
      packet['tcp.dstport'] = (d[p + 2]! << 8) | d[p + 3]!;
    }
    if (have >= 14 && want & F.TCP_FLAGS) {
      const f = d[p + 13]!;
      packet['tcp.flags'] = f;
      packet['tcp.flags.fin'] = (f & 0x01) !== 0;
      packet['tcp.flags.syn'] = (f & 0x02) !== 0;
      packet['tcp.flags.reset'] = (f & 0x04) !== 0;
      packet['tcp.flags.push'] = (f & 0x08) !== 0;
      packet['tcp.flags.ack'] = (f & 0x10) !== 0;
      packet['tcp.flags.urg'] = (f & 0x20) !== 0;
      packet['tcp.flags.ecn'] = (f & 0x40) !== 0;
      packet['tcp.flags.cwr'] = (f & 0x80) !== 0;
    }
    if (have > 0 && want & F.RAW_TCP) packet.tcp = d.subarray(p, end);
    if (have < 20) truncated('TCP', Math.max(0, have), 20);
    if (want & F.SIP) packet.sip = tcpSip(d, p, end);
  } else if (proto === 17) {
    if (have >= 4 && want & F.UDP_PORTS) {
      packet['udp.srcport'] = (d[p]! << 8) | d[p + 1]!;
      packet['udp.dstport'] = (d[p + 2]! << 8) | d[p + 3]!;
    }
    if (have > 0 && want & F.RAW_UDP) packet.udp = d.subarray(p, end);
    if (have < 8) truncated('UDP', Math.max(0, have), 8);
    if (want & F.SIP) packet.sip = udpSip(d, p, end);
  } else {
    if (proto === icmpProto) {
      if (want & F.ICMP) {
        if (have >= 1) packet['icmp.type'] = d[p]!;
        if (have >= 2) packet['icmp.code'] = d[p + 1]!;
      }
      if (have > 0 && want & F.RAW_ICMP) packet.icmp = d.subarray(p, end);
      if (have < 4) truncated(icmpProto === 1 ? 'ICMP' : 'ICMPv6', Math.max(0, have), 4);
    }
    if (want & F.SIP) packet.sip = false;
  }
}
