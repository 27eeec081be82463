/**
 * Packets back to bytes: a packet object (expression fields) as a raw IP frame, and frames as a classic
 * pcap file (link type RAW, 101), so that packets rulekit derives — analysis witnesses — can be replayed in
 * tshark, tcpreplay or `rulekit simulate`. Header fields the packet does not give get ordinary values
 * (TTL 64, ports 40000, window 65535); checksums are computed. What a header cannot carry — countries and
 * AS numbers (they come from a geoip table), data-center fields — is named in the problems.
 * @module
 */
import { ipProtocolNumber, parseIpAddress, type IpAddress } from '../net/index.js';
/** Field name → value, as the expression evaluator reads packets. */
type Packet = Readonly<Record<string, unknown>>;

/** The link type of the frames {@link packetToIpFrame} makes. */
export const LINKTYPE_RAW = 101;

const NOT_ENCODED = new Set(['ip.src.country', 'ip.dst.country', 'ip.geoip.country', 'ip.src.asnum', 'ip.dst.asnum', 'ip.geoip.asnum', 'cf.colo.name', 'cf.colo.region', 'sip']);

const TCP_FLAG_BITS: Readonly<Record<string, number>> = {
  'tcp.flags.fin': 0x01, 'tcp.flags.syn': 0x02, 'tcp.flags.reset': 0x04, 'tcp.flags.push': 0x08,
  'tcp.flags.ack': 0x10, 'tcp.flags.urg': 0x20, 'tcp.flags.ecn': 0x40, 'tcp.flags.cwr': 0x80,
};

function sum16(bytes: Uint8Array, start: number, end: number, acc = 0): number {
  for (let i = start; i < end; i += 2) acc += (bytes[i]! << 8) | (i + 1 < end ? bytes[i + 1]! : 0);
  return acc;
}

function fold(acc: number): number {
  while (acc > 0xffff) acc = (acc & 0xffff) + (acc >>> 16);
  return ~acc & 0xffff;
}

const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isInteger(v) ? v : fallback);

/**
 * One packet as a raw IPv4 or IPv6 frame with a TCP, UDP or ICMP header (by its transport fields or
 * `ip.proto`); `problems` names the fields the bytes cannot carry, and a frame is missing only when the
 * addresses are unusable.
 */
export function packetToIpFrame(p: Packet): { frame?: Uint8Array; problems: string[] } {
  const problems: string[] = [];
  for (const k of Object.keys(p)) if (NOT_ENCODED.has(k)) problems.push(`${k} is not in the packet's bytes (simulate with --geoip or give it otherwise)`);
  const srcText = typeof p['ip.src'] === 'string' ? p['ip.src'] : undefined;
  const dstText = typeof p['ip.dst'] === 'string' ? p['ip.dst'] : undefined;
  let src: IpAddress | undefined = srcText ? parseIpAddress(srcText) : undefined;
  let dst: IpAddress | undefined = dstText ? parseIpAddress(dstText) : undefined;
  if ((srcText && !src) || (dstText && !dst)) return { problems: [...problems, 'an address is not an IP address'] };
  const family = src?.family ?? dst?.family ?? 4;
  if (src && dst && src.family !== dst.family) return { problems: [...problems, `ip.src and ip.dst are of different families (${src.family}, ${dst.family})`] };
  src ??= parseIpAddress(family === 4 ? '198.51.100.1' : '2001:db8::1')!;
  dst ??= parseIpAddress(family === 4 ? '192.0.2.1' : '2001:db8::2')!;

  const named = typeof p['ip.proto'] === 'string' ? ipProtocolNumber(p['ip.proto']) : undefined;
  const transport = Object.keys(p).some((k) => k.startsWith('tcp.')) ? 6 : Object.keys(p).some((k) => k.startsWith('udp.')) ? 17 : Object.keys(p).some((k) => k.startsWith('icmp.')) ? (family === 4 ? 1 : 58) : undefined;
  const proto = named ?? transport ?? 6;
  if (named !== undefined && transport !== undefined && named !== transport) problems.push(`ip.proto ${String(p['ip.proto'])} disagrees with the transport fields; the header says ${named}`);

  // Transport header.
  let l4: Uint8Array;
  if (proto === 6) {
    l4 = new Uint8Array(20);
    const v = new DataView(l4.buffer);
    v.setUint16(0, num(p['tcp.srcport'], 40000));
    v.setUint16(2, num(p['tcp.dstport'], 80));
    let flags = num(p['tcp.flags'], -1);
    if (flags < 0) {
      flags = 0;
      for (const [k, bit] of Object.entries(TCP_FLAG_BITS)) if (p[k] === true) flags |= bit;
    }
    l4[12] = 5 << 4;
    l4[13] = flags & 0xff;
    v.setUint16(14, 65535);
  } else if (proto === 17) {
    l4 = new Uint8Array(8);
    const v = new DataView(l4.buffer);
    v.setUint16(0, num(p['udp.srcport'], 40000));
    v.setUint16(2, num(p['udp.dstport'], 53));
    v.setUint16(4, 8);
  } else if (proto === 1 || proto === 58) {
    l4 = new Uint8Array(8);
    l4[0] = num(p['icmp.type'], 8);
    l4[1] = num(p['icmp.code'], 0);
  } else l4 = new Uint8Array(0);

  // Pad to ip.len when it asks for more than the headers.
  const headerLen = family === 4 ? 20 : 40;
  const wantLen = num(p['ip.len'], 0);
  const payload = Math.max(0, wantLen - headerLen - l4.length);
  const total = headerLen + l4.length + payload;
  const frame = new Uint8Array(total);
  const v = new DataView(frame.buffer);
  if (family === 4) {
    frame[0] = 0x45;
    v.setUint16(2, total);
    frame[6] = 0x40; // don't fragment
    frame[8] = num(p['ip.ttl'], 64);
    frame[9] = proto;
    frame.set(src.bytes, 12);
    frame.set(dst.bytes, 16);
    v.setUint16(10, fold(sum16(frame, 0, 20)));
  } else {
    frame[0] = 0x60;
    v.setUint16(4, total - 40);
    frame[6] = proto;
    frame[7] = num(p['ip.ttl'], 64);
    frame.set(src.bytes, 8);
    frame.set(dst.bytes, 24);
  }
  frame.set(l4, headerLen);
  if (proto === 17) v.setUint16(headerLen + 4, total - headerLen);
  // Transport checksum over the pseudo-header (ICMPv4 has none).
  const csumAt = proto === 6 ? 16 : proto === 17 ? 6 : proto === 1 || proto === 58 ? 2 : -1;
  if (csumAt >= 0) {
    let acc = sum16(frame, headerLen, total);
    if (proto !== 1) {
      acc = sum16(src.bytes, 0, src.bytes.length, acc);
      acc = sum16(dst.bytes, 0, dst.bytes.length, acc);
      acc += proto + (total - headerLen);
    }
    let c = fold(acc);
    if (proto === 17 && c === 0) c = 0xffff;
    v.setUint16(headerLen + csumAt, c);
  }
  return { frame, problems };
}

/** Frames as a classic pcap file (microseconds, little-endian), one second apart from the epoch. */
export function writePcap(frames: readonly Uint8Array[], linkType: number = LINKTYPE_RAW): Uint8Array {
  const size = 24 + frames.reduce((n, f) => n + 16 + f.length, 0);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0xa1b2c3d4, true);
  v.setUint16(4, 2, true);
  v.setUint16(6, 4, true);
  v.setUint32(16, 65535, true);
  v.setUint32(20, linkType, true);
  let at = 24;
  frames.forEach((f, i) => {
    v.setUint32(at, i + 1, true);
    v.setUint32(at + 8, f.length, true);
    v.setUint32(at + 12, f.length, true);
    out.set(f, at + 16);
    at += 16 + f.length;
  });
  return out;
}
