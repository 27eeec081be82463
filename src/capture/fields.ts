/**
 * The packet fields the decoder fills, their value types, and the bit groups that let a caller decode
 * only the fields its ruleset reads (`decodePacket(rec, { fields })`).
 * @module
 */

/** A decoded packet: keys are expression field names; a field that does not apply is absent. */
export interface Packet {
  'ip.src'?: string;
  'ip.dst'?: string;
  'ip.proto'?: string;
  'ip.len'?: number;
  'ip.hdr_len'?: number;
  'ip.ttl'?: number;
  'ip.opt.type'?: number;
  'tcp.srcport'?: number;
  'tcp.dstport'?: number;
  'tcp.flags'?: number;
  'tcp.flags.ack'?: boolean;
  'tcp.flags.cwr'?: boolean;
  'tcp.flags.ecn'?: boolean;
  'tcp.flags.fin'?: boolean;
  'tcp.flags.push'?: boolean;
  'tcp.flags.reset'?: boolean;
  'tcp.flags.syn'?: boolean;
  'tcp.flags.urg'?: boolean;
  'udp.srcport'?: number;
  'udp.dstport'?: number;
  'icmp.type'?: number;
  'icmp.code'?: number;
  ip?: Uint8Array;
  tcp?: Uint8Array;
  udp?: Uint8Array;
  icmp?: Uint8Array;
  sip?: boolean;
  'ip.src.country'?: string;
  'ip.dst.country'?: string;
  'ip.src.asnum'?: number;
  'ip.dst.asnum'?: number;
  'ip.geoip.asnum'?: number;
  'cf.colo.name'?: string;
  'cf.colo.region'?: string;
}

/** Bit groups of fields decoded together. */
export const F = {
  SRC: 1 << 0,
  DST: 1 << 1,
  PROTO: 1 << 2,
  LEN: 1 << 3,
  HDR_LEN: 1 << 4,
  TTL: 1 << 5,
  OPT: 1 << 6,
  TCP_PORTS: 1 << 7,
  TCP_FLAGS: 1 << 8,
  UDP_PORTS: 1 << 9,
  ICMP: 1 << 10,
  RAW_IP: 1 << 11,
  RAW_TCP: 1 << 12,
  RAW_UDP: 1 << 13,
  RAW_ICMP: 1 << 14,
  SRC_COUNTRY: 1 << 15,
  DST_COUNTRY: 1 << 16,
  SRC_ASN: 1 << 17,
  DST_ASN: 1 << 18,
  COLO: 1 << 19,
  SIP: 1 << 20,
} as const;

/** Every group. */
export const ALL_FIELDS = (1 << 21) - 1;

/**
 * Field name → the group that produces it. `ip.geoip.country` (source OR destination country, decided by
 * the evaluator) needs both country lookups; `ip.geoip.asnum` is the source's AS number.
 */
export const FIELD_GROUPS: Readonly<Record<string, number>> = Object.freeze({
  __proto__: null,
  'ip.src': F.SRC,
  'ip.dst': F.DST,
  'ip.proto': F.PROTO,
  'ip.len': F.LEN,
  'ip.hdr_len': F.HDR_LEN,
  'ip.ttl': F.TTL,
  'ip.opt.type': F.OPT,
  'tcp.srcport': F.TCP_PORTS,
  'tcp.dstport': F.TCP_PORTS,
  'tcp.flags': F.TCP_FLAGS,
  'tcp.flags.ack': F.TCP_FLAGS,
  'tcp.flags.cwr': F.TCP_FLAGS,
  'tcp.flags.ecn': F.TCP_FLAGS,
  'tcp.flags.fin': F.TCP_FLAGS,
  'tcp.flags.push': F.TCP_FLAGS,
  'tcp.flags.reset': F.TCP_FLAGS,
  'tcp.flags.syn': F.TCP_FLAGS,
  'tcp.flags.urg': F.TCP_FLAGS,
  'udp.srcport': F.UDP_PORTS,
  'udp.dstport': F.UDP_PORTS,
  'icmp.type': F.ICMP,
  'icmp.code': F.ICMP,
  ip: F.RAW_IP,
  tcp: F.RAW_TCP,
  udp: F.RAW_UDP,
  icmp: F.RAW_ICMP,
  sip: F.SIP,
  'ip.src.country': F.SRC_COUNTRY,
  'ip.dst.country': F.DST_COUNTRY,
  'ip.geoip.country': F.SRC_COUNTRY | F.DST_COUNTRY,
  'ip.src.asnum': F.SRC_ASN,
  'ip.dst.asnum': F.DST_ASN,
  'ip.geoip.asnum': F.SRC_ASN,
  'cf.colo.name': F.COLO,
  'cf.colo.region': F.COLO,
} as unknown as Record<string, number>);

/** Names of every field the decoder can fill (the keys of {@link Packet}). */
export const DECODED_FIELDS: readonly string[] = Object.keys(FIELD_GROUPS).filter((f) => f !== 'ip.geoip.country');

const masks = new WeakMap<ReadonlySet<string>, number>();

/** The group mask of a field set (cached per set object); unknown names add nothing. */
export function fieldMask(fields: ReadonlySet<string> | undefined): number {
  if (!fields) return ALL_FIELDS;
  let m = masks.get(fields);
  if (m === undefined) {
    m = 0;
    for (const f of fields) m |= Object.hasOwn(FIELD_GROUPS, f) ? FIELD_GROUPS[f]! : 0;
    masks.set(fields, m);
  }
  return m;
}
