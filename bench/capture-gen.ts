/**
 * Synthetic packet captures for benches and memory tests: a classic little-endian microsecond pcap of N
 * Ethernet frames, mixed TCP/UDP/ICMP over IPv4/IPv6, with addresses, ports, TTLs and TCP flags drawn
 * from a seeded PRNG (the same seed gives the same bytes). Streams in ~64 KiB chunks, so a 1M-packet
 * file never sits in memory.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Options of the generator. */
export interface SyntheticCaptureOptions {
  /** PRNG seed (default 1). */
  seed?: number;
  /** Share of IPv6 packets, 0..1 (default 0.25). */
  ipv6Share?: number;
  /** Relative weights of TCP, UDP and ICMP (default 6:3:1). */
  mix?: { tcp: number; udp: number; icmp: number };
  /** Payload bytes after the transport header (default 0). */
  payloadBytes?: number;
  /** Distinct IPv4 source addresses to draw from (default 4096; destinations use a pool of 256). */
  sources?: number;
  /** Bytes per chunk (default 65536). */
  chunkBytes?: number;
}

/** Default options. */
export const SYNTHETIC_DEFAULTS: Required<SyntheticCaptureOptions> = {
  seed: 1,
  ipv6Share: 0.25,
  mix: { tcp: 6, udp: 3, icmp: 1 },
  payloadBytes: 0,
  sources: 4096,
  chunkBytes: 65536,
};

/** mulberry32: a small, fast, seeded 32-bit PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON_PORTS = [22, 25, 53, 80, 123, 443, 3389, 5060, 8080, 8443];
const TCP_FLAGS = [0x02, 0x12, 0x10, 0x18, 0x11, 0x04, 0x14, 0x19];
const ICMP4 = [[8, 0], [0, 0], [3, 1], [3, 3], [11, 0]] as const;
const ICMP6 = [[128, 0], [129, 0], [1, 4], [135, 0]] as const;

/** The synthetic pcap as a sequence of byte chunks (the first holds the file header). */
export function* syntheticPcapChunks(count: number, options: SyntheticCaptureOptions = {}): Generator<Uint8Array> {
  const o = { ...SYNTHETIC_DEFAULTS, ...options };
  const rnd = prng(o.seed);
  const srcPool = Array.from({ length: Math.max(1, o.sources) }, () => (rnd() * 4294967296) >>> 0);
  const dstPool = Array.from({ length: 256 }, (_, i) => ((203 << 24) | (0 << 16) | (113 << 8) | i) >>> 0);
  const total = o.mix.tcp + o.mix.udp + o.mix.icmp;
  const maxRecord = 16 + 14 + 40 + 20 + o.payloadBytes;
  const size = Math.max(o.chunkBytes, maxRecord + 24);
  let buf = new Uint8Array(size);
  let view = new DataView(buf.buffer);
  let at = 0;
  // File header: LE microsecond pcap, snaplen 262144, Ethernet.
  view.setUint32(0, 0xa1b2c3d4, true);
  view.setUint16(4, 2, true);
  view.setUint16(6, 4, true);
  view.setUint32(16, 262144, true);
  view.setUint32(20, 1, true);
  at = 24;
  const port = (): number => (rnd() < 0.5 ? COMMON_PORTS[(rnd() * COMMON_PORTS.length) | 0]! : 1024 + ((rnd() * 64512) | 0));
  for (let i = 0; i < count; i++) {
    if (at + maxRecord > size) {
      yield buf.subarray(0, at);
      buf = new Uint8Array(size);
      view = new DataView(buf.buffer);
      at = 0;
    }
    const v6 = rnd() < o.ipv6Share;
    const pick = rnd() * total;
    const l4 = pick < o.mix.tcp ? 6 : pick < o.mix.tcp + o.mix.udp ? 17 : v6 ? 58 : 1;
    const l4len = l4 === 6 ? 20 : 8;
    const iplen = (v6 ? 40 : 20) + l4len + o.payloadBytes;
    const caplen = 14 + iplen;
    const rec = at;
    view.setUint32(rec, 1700000000 + Math.floor(i / 1000), true);
    view.setUint32(rec + 4, (i % 1000) * 1000, true);
    view.setUint32(rec + 8, caplen, true);
    view.setUint32(rec + 12, caplen, true);
    const e = rec + 16;
    // Ethernet: locally administered MACs, EtherType.
    buf[e] = 0x02;
    buf[e + 5] = 0x02;
    buf[e + 6] = 0x02;
    buf[e + 11] = 0x01;
    view.setUint16(e + 12, v6 ? 0x86dd : 0x0800);
    const ip = e + 14;
    const src = srcPool[(rnd() * srcPool.length) | 0]!;
    const dst = dstPool[(rnd() * dstPool.length) | 0]!;
    const ttl = 32 + ((rnd() * 96) | 0);
    let t: number;
    if (v6) {
      view.setUint32(ip, 0x60000000);
      view.setUint16(ip + 4, l4len + o.payloadBytes);
      buf[ip + 6] = l4;
      buf[ip + 7] = ttl;
      view.setUint32(ip + 8, 0x20010db8);
      view.setUint32(ip + 20, src);
      view.setUint32(ip + 24, 0x20010db8);
      view.setUint32(ip + 28, 0x00000001);
      view.setUint32(ip + 36, dst);
      t = ip + 40;
    } else {
      buf[ip] = 0x45;
      view.setUint16(ip + 2, iplen);
      view.setUint16(ip + 4, i & 0xffff);
      view.setUint16(ip + 6, 0x4000);
      buf[ip + 8] = ttl;
      buf[ip + 9] = l4;
      view.setUint32(ip + 12, src);
      view.setUint32(ip + 16, dst);
      t = ip + 20;
    }
    if (l4 === 6) {
      view.setUint16(t, port());
      view.setUint16(t + 2, port());
      view.setUint32(t + 4, (rnd() * 4294967296) >>> 0);
      buf[t + 12] = 0x50;
      buf[t + 13] = TCP_FLAGS[(rnd() * TCP_FLAGS.length) | 0]!;
      view.setUint16(t + 14, 65535);
    } else if (l4 === 17) {
      view.setUint16(t, port());
      view.setUint16(t + 2, port());
      view.setUint16(t + 4, 8 + o.payloadBytes);
    } else {
      const [type, code] = (v6 ? ICMP6 : ICMP4)[(rnd() * (v6 ? ICMP6.length : ICMP4.length)) | 0]!;
      buf[t] = type;
      buf[t + 1] = code;
    }
    at = rec + 16 + caplen;
  }
  if (at > 0) yield buf.subarray(0, at);
}

/**
 * Write a synthetic pcap of `count` packets to a file path, or hand its chunks to `sink`. Returns the
 * number of bytes written.
 */
export function writeSyntheticPcap(target: string | ((chunk: Uint8Array) => void), count: number, options: SyntheticCaptureOptions = {}): number {
  let bytes = 0;
  if (typeof target === 'function') {
    for (const c of syntheticPcapChunks(count, options)) {
      target(c);
      bytes += c.length;
    }
    return bytes;
  }
  const fd = openSync(target, 'w');
  try {
    for (const c of syntheticPcapChunks(count, options)) {
      let off = 0;
      while (off < c.length) off += writeSync(fd, c, off, c.length - off);
      bytes += c.length;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}
