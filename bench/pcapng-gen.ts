/**
 * A pcap written by bench/capture-gen.ts rewritten as pcapng, for the bench that reads the same capture
 * in both formats (bench/simulate.ts).
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * The same capture as pcapng (what `editcap -F pcapng` writes, without needing it): a Section Header
 * Block, one Interface Description Block (the pcap's link type; microsecond units, the default) and an
 * Enhanced Packet Block per record, little-endian. Reads the little-endian microsecond pcaps this module
 * writes, in ~1 MiB pieces. Returns the bytes written.
 */
export function writePcapngOf(pcapPath: string, target: string): number {
  const input = openSync(pcapPath, 'r');
  const output = openSync(target, 'w');
  let written = 0;
  const put = (b: Uint8Array) => {
    for (let off = 0; off < b.length; ) off += writeSync(output, b, off, b.length - off);
    written += b.length;
  };
  try {
    const head = new Uint8Array(24);
    if (readSync(input, head, 0, 24, 0) !== 24) throw new Error(`${pcapPath}: no pcap header`);
    const hv = new DataView(head.buffer);
    if (hv.getUint32(0, true) !== 0xa1b2c3d4) throw new Error(`${pcapPath}: not a little-endian microsecond pcap`);
    const start = new Uint8Array(28 + 20);
    const sv = new DataView(start.buffer);
    sv.setUint32(0, 0x0a0d0d0a, true);
    sv.setUint32(4, 28, true);
    sv.setUint32(8, 0x1a2b3c4d, true);
    sv.setUint16(12, 1, true);
    sv.setBigInt64(16, -1n, true);
    sv.setUint32(24, 28, true);
    sv.setUint32(28, 1, true);
    sv.setUint32(32, 20, true);
    sv.setUint16(36, hv.getUint32(20, true) & 0xffff, true);
    sv.setUint32(40, hv.getUint32(16, true), true);
    sv.setUint32(44, 20, true);
    put(start);
    const inBuf = new Uint8Array(1 << 20);
    const out = new Uint8Array(2 << 20);
    const ov = new DataView(out.buffer);
    let position = 24;
    let have = 0;
    for (;;) {
      const n = readSync(input, inBuf, have, inBuf.length - have, position);
      position += n;
      have += n;
      const iv = new DataView(inBuf.buffer, 0, have);
      let p = 0;
      let o = 0;
      while (p + 16 <= have) {
        const caplen = iv.getUint32(p + 8, true);
        if (p + 16 + caplen > have) break;
        const units = BigInt(iv.getUint32(p, true)) * 1_000_000n + BigInt(iv.getUint32(p + 4, true));
        const len = 32 + ((caplen + 3) & ~3);
        ov.setUint32(o, 6, true);
        ov.setUint32(o + 4, len, true);
        ov.setUint32(o + 8, 0, true);
        ov.setUint32(o + 12, Number(units >> 32n), true);
        ov.setUint32(o + 16, Number(units & 0xffffffffn), true);
        ov.setUint32(o + 20, caplen, true);
        ov.setUint32(o + 24, iv.getUint32(p + 12, true), true);
        out.set(inBuf.subarray(p + 16, p + 16 + caplen), o + 28);
        out.fill(0, o + 28 + caplen, o + len - 4);
        ov.setUint32(o + len - 4, len, true);
        o += len;
        p += 16 + caplen;
      }
      put(out.subarray(0, o));
      inBuf.copyWithin(0, p, have);
      have -= p;
      if (n === 0) break;
    }
    if (have > 0) throw new Error(`${pcapPath}: ends inside a record`);
  } finally {
    closeSync(input);
    closeSync(output);
  }
  return written;
}
