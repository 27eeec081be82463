/**
 * Packets back to bytes (src/capture/write.ts): each frame read back by the capture reader and decoder
 * gives the packet's fields (the decoder is held to tshark by the fixture tests), its checksums verify
 * under RFC 1071 as written here (IPv4 header; TCP/UDP/ICMPv6 with the pseudo-header of RFC 793/768/8200
 * §8.1; ICMPv4 without one), and tshark itself, where installed, reads the file with valid checksums.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePacket, readCaptureAll } from '../../src/capture/index.js';
import { LINKTYPE_RAW, packetToIpFrame, writePcap } from '../../src/capture/write.js';
import { formatIpAddress, parseIpAddress } from '../../src/net/index.js';
import { needsTool } from '../helpers/tools.js';

/** RFC 1071 one's-complement sum of 16-bit words (an odd last byte padded with zero). */
function onesSum(parts: Uint8Array[]): number {
  let acc = 0;
  for (const b of parts) for (let i = 0; i < b.length; i += 2) acc += (b[i]! << 8) | (b[i + 1] ?? 0);
  while (acc > 0xffff) acc = (acc & 0xffff) + (acc >>> 16);
  return acc;
}

/** Whether the frame's checksums verify (the sum over the covered bytes, checksum included, is 0xffff). */
function checksumsVerify(f: Uint8Array): boolean {
  const v4 = f[0]! >> 4 === 4;
  const hl = v4 ? 20 : 40;
  const proto = v4 ? f[9]! : f[6]!;
  if (v4 && onesSum([f.subarray(0, 20)]) !== 0xffff) return false;
  const l4 = f.subarray(hl);
  const src = v4 ? f.subarray(12, 16) : f.subarray(8, 24);
  const dst = v4 ? f.subarray(16, 20) : f.subarray(24, 40);
  const len = l4.length;
  const pseudo = v4 ? Uint8Array.from([0, proto, len >> 8, len & 255]) : Uint8Array.from([len >>> 24, (len >>> 16) & 255, (len >>> 8) & 255, len & 255, 0, 0, 0, proto]);
  if (proto === 1) return onesSum([l4]) === 0xffff;
  if (proto === 6 || proto === 17 || proto === 58) return onesSum([src, dst, pseudo, l4]) === 0xffff;
  return true;
}

async function readBack(frames: Uint8Array[]) {
  const { records, summary } = await readCaptureAll([writePcap(frames)]);
  expect(summary.diagnostics).toEqual([]);
  return records;
}

const v4 = fc.tuple(fc.integer({ min: 1, max: 223 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 })).map((b) => b.join('.'));
// RFC 5952 text, as the decoder writes it.
const v6 = fc
  .tuple(fc.integer({ min: 0x2001, max: 0x2fff }), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 1, max: 0xffff }))
  .map(([a, b, c]) => formatIpAddress(parseIpAddress(`${a.toString(16)}:db8:${b.toString(16)}::${c.toString(16)}`)!));
const port = fc.integer({ min: 0, max: 65535 });
const packetArb = fc.oneof(
  fc.record({ 'ip.src': v4, 'ip.dst': v4, 'ip.ttl': fc.integer({ min: 1, max: 255 }), 'tcp.srcport': port, 'tcp.dstport': port, 'tcp.flags': fc.integer({ min: 0, max: 255 }), 'ip.len': fc.integer({ min: 0, max: 200 }) }, { requiredKeys: ['tcp.dstport'] }),
  fc.record({ 'ip.src': v6, 'ip.dst': v6, 'ip.ttl': fc.integer({ min: 1, max: 255 }), 'udp.srcport': port, 'udp.dstport': port, 'ip.len': fc.integer({ min: 0, max: 200 }) }, { requiredKeys: ['udp.dstport'] }),
  fc.record({ 'ip.src': fc.oneof(v4, v6), 'icmp.type': fc.integer({ min: 0, max: 255 }), 'icmp.code': fc.integer({ min: 0, max: 255 }) }, { requiredKeys: ['icmp.type'] }),
  fc.record({ 'ip.dst': v4, 'tcp.flags.syn': fc.boolean(), 'tcp.flags.ack': fc.boolean(), 'tcp.flags.fin': fc.boolean(), 'tcp.flags.reset': fc.boolean() }, { requiredKeys: ['tcp.flags.syn'] }),
);

describe('packetToIpFrame and writePcap', () => {
  it('frames read back to the packet\'s fields, with checksums that verify', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(packetArb, { minLength: 1, maxLength: 6 }), async (packets) => {
        const frames = packets.map((p) => {
          const r = packetToIpFrame(p);
          expect(r.problems).toEqual([]);
          return r.frame!;
        });
        for (const f of frames) expect(checksumsVerify(f), Buffer.from(f).toString('hex')).toBe(true);
        const records = await readBack(frames);
        expect(records.length).toBe(packets.length);
        records.forEach((rec, i) => {
          expect(rec.linkType).toBe(LINKTYPE_RAW);
          expect(BigInt(rec.timestampNs)).toBe(BigInt(i + 1) * 1_000_000_000n);
          const { packet, problems } = decodePacket(rec);
          expect(problems).toBeUndefined();
          const p = packets[i]! as Record<string, unknown>;
          for (const [k, v] of Object.entries(p)) {
            if (k === 'ip.len') expect(packet['ip.len']).toBe(Math.max(v as number, rec.data.length));
            else expect(packet[k as keyof typeof packet], k).toEqual(v);
          }
          if (p['ip.ttl'] === undefined) expect(packet['ip.ttl']).toBe(64);
          expect(packet['ip.len']).toBe(rec.data.length);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('fills ordinary values for what the packet does not say', async () => {
    const [tcp, udp, icmp6, flags] = await readBack([
      packetToIpFrame({ 'tcp.flags.syn': true }).frame!,
      packetToIpFrame({ 'ip.src': '2001:db8::5', 'udp.srcport': 5 }).frame!,
      packetToIpFrame({ 'ip.dst': '2001:db8::9', 'icmp.code': 1 }).frame!,
      packetToIpFrame({ 'tcp.flags': 0x12, 'tcp.flags.fin': true }).frame!,
    ]);
    const fields = (r: typeof tcp) => decodePacket(r!).packet;
    expect([fields(tcp)['ip.src'], fields(tcp)['ip.dst'], fields(tcp)['tcp.srcport'], fields(tcp)['tcp.dstport'], fields(tcp)['tcp.flags'], fields(tcp)['ip.proto']]).toEqual(['198.51.100.1', '192.0.2.1', 40000, 80, 0x02, 'tcp']);
    expect([fields(udp)['ip.dst'], fields(udp)['udp.dstport'], fields(udp)['ip.len']]).toEqual(['2001:db8::2', 53, 48]);
    expect([fields(icmp6)['ip.src'], fields(icmp6)['icmp.type'], fields(icmp6)['icmp.code'], fields(icmp6)['ip.proto']]).toEqual(['2001:db8::1', 8, 1, 'ipv6-icmp']);
    // tcp.flags, when given, wins over the flag booleans.
    expect(fields(flags)['tcp.flags']).toBe(0x12);
    // The header says IPv4 "don't fragment".
    expect(tcp!.data[6]).toBe(0x40);
    // A UDP checksum that computes to 0 is sent as 0xffff (RFC 768: 0 means "no checksum"); port 65502
    // from 0.0.0.0 to 0.0.0.0 is such a packet.
    const zero = packetToIpFrame({ 'ip.src': '0.0.0.0', 'ip.dst': '0.0.0.0', 'udp.srcport': 0, 'udp.dstport': 65502, 'ip.len': 28 });
    expect(checksumsVerify(zero.frame!)).toBe(true);
    expect((zero.frame![26]! << 8) | zero.frame![27]!).toBe(0xffff);
  });

  it('names what the bytes cannot carry, and refuses addresses it cannot write', () => {
    expect(packetToIpFrame({ 'tcp.dstport': 1, 'ip.src.country': 'BR', 'cf.colo.name': 'AMS', sip: true }).problems).toEqual([
      'ip.src.country is not in the packet\'s bytes (simulate with --geoip or give it otherwise)',
      'cf.colo.name is not in the packet\'s bytes (simulate with --geoip or give it otherwise)',
      'sip is not in the packet\'s bytes (simulate with --geoip or give it otherwise)',
    ]);
    expect(packetToIpFrame({ 'ip.src': 'nope' })).toEqual({ problems: ['an address is not an IP address'] });
    expect(packetToIpFrame({ 'ip.dst': '300.1.1.1' })).toEqual({ problems: ['an address is not an IP address'] });
    expect(packetToIpFrame({ 'ip.src': '192.0.2.1', 'ip.dst': '2001:db8::1' })).toEqual({ problems: ['ip.src and ip.dst are of different families (4, 6)'] });
    const disagree = packetToIpFrame({ 'ip.proto': 'udp', 'tcp.dstport': 80 });
    expect(disagree.problems).toEqual(['ip.proto udp disagrees with the transport fields; the header says 17']);
    expect(disagree.frame![9]).toBe(17);
    // Another protocol: the IP header alone.
    const gre = packetToIpFrame({ 'ip.proto': 'gre' });
    expect([gre.frame!.length, gre.frame![9]]).toEqual([20, 47]);
  });

  it('writePcap: the classic header (magic, 2.4, snaplen, link type) and one record per frame', async () => {
    const out = writePcap([Uint8Array.from([0x45, 1]), Uint8Array.from([0x60])], 228);
    const v = new DataView(out.buffer);
    expect([v.getUint32(0, true), v.getUint16(4, true), v.getUint16(6, true), v.getUint32(16, true), v.getUint32(20, true)]).toEqual([0xa1b2c3d4, 2, 4, 65535, 228]);
    expect(out.length).toBe(24 + 16 + 2 + 16 + 1);
    const { records } = await readCaptureAll([out]);
    expect(records.map((r) => [r.linkType, Array.from(r.data), r.capturedLength, r.originalLength])).toEqual([[228, [0x45, 1], 2, 2], [228, [0x60], 1, 1]]);
    expect(writePcap([]).length).toBe(24);
  });

  needsTool('tshark')('tshark reads the frames with the same fields and good checksums', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-write-'));
    try {
      const packets = [{ 'ip.src': '192.0.2.1', 'tcp.dstport': 443, 'tcp.flags.syn': true }, { 'ip.src': '2001:db8::1', 'udp.dstport': 53, 'ip.len': 60 }, { 'ip.dst': '198.51.100.2', 'icmp.type': 0 }];
      const file = join(dir, 'w.pcap');
      writeFileSync(file, writePcap(packets.map((p) => packetToIpFrame(p).frame!)));
      const r = spawnSync('tshark', ['-n', '-r', file, '-o', 'ip.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE', '-T', 'fields', '-E', 'separator=,', '-e', 'tcp.dstport', '-e', 'udp.dstport', '-e', 'icmp.type', '-e', 'ip.checksum.status', '-e', 'tcp.checksum.status', '-e', 'udp.checksum.status', '-e', 'icmp.checksum.status'], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      // Checksum status 1 is "Good".
      expect(r.stdout.trim().split('\n')).toEqual(['443,,,1,1,,', ',53,,,,1,', ',,0,1,,,1']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
