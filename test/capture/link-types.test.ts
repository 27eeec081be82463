/**
 * The link-layer table against the tcpdump.org LINKTYPE registry (header layouts of NULL, LOOP, ETHERNET,
 * RAW and its DLT 12/14 aliases, IPV4, IPV6, LINUX_SLL, LINUX_SLL2) and the BSD loopback address families
 * (AF_INET 2; AF_INET6 10 on Linux, 24 on NetBSD/OpenBSD, 28 on FreeBSD, 30 on Darwin), on frames built
 * here byte by byte: where the IP header starts, which frames are not IP, and where a header is cut.
 */
import { describe, expect, it } from 'vitest';
import { LINK_LAYERS, LINK_TRUNCATED, NOT_IP, ethernetIpOffset, rawIpOffset } from '../../src/capture/link-types.js';

const v4 = [0x45, 0, 0, 20];
const v6 = [0x60, 0, 0, 0];
const ipOffset = (linkType: number, bytes: number[]) => LINK_LAYERS.get(linkType)!.ipOffset(Uint8Array.from(bytes));
const mac = new Array(12).fill(0xaa);
const le32 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];
const be32 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

describe('the LINKTYPE registry rows', () => {
  it('names each link type the decoder reads', () => {
    expect(Object.fromEntries([...LINK_LAYERS].map(([k, v]) => [k, v.name]))).toEqual({
      0: 'NULL', 1: 'ETHERNET', 12: 'RAW (DLT 12)', 14: 'RAW (DLT 14)', 101: 'RAW', 108: 'LOOP', 113: 'LINUX_SLL', 228: 'IPV4', 229: 'IPV6', 276: 'LINUX_SLL2',
    });
  });

  it('NULL: a 4-byte family in the capturing host\'s byte order', () => {
    for (const fam of [2, 10, 24, 28, 30]) {
      expect(ipOffset(0, [...le32(fam), ...v4]), `little-endian ${fam}`).toBe(4);
      expect(ipOffset(0, [...be32(fam), ...v4]), `big-endian ${fam}`).toBe(4);
    }
    for (const fam of [0, 1, 7, 23, 29, 0x800]) {
      expect(ipOffset(0, [...le32(fam), ...v4]), `family ${fam}`).toBe(NOT_IP);
      expect(ipOffset(0, [...be32(fam), ...v4]), `family ${fam}`).toBe(NOT_IP);
    }
    expect(ipOffset(0, [2, 0, 0])).toBe(LINK_TRUNCATED);
    expect(ipOffset(0, [2, 0, 0, 0])).toBe(4);
  });

  it('LOOP: the family is always big-endian', () => {
    expect(ipOffset(108, [...be32(2), ...v4])).toBe(4);
    expect(ipOffset(108, [...be32(30), ...v6])).toBe(4);
    expect(ipOffset(108, [...le32(2), ...v4])).toBe(NOT_IP);
    expect(ipOffset(108, [0, 0, 0])).toBe(LINK_TRUNCATED);
  });

  it('ETHERNET: 14 bytes, IPv4 0x0800 and IPv6 0x86DD, VLAN tags 0x8100, 0x88A8 and 0x9100 skipped', () => {
    expect(ipOffset(1, [...mac, 0x08, 0x00, ...v4])).toBe(14);
    expect(ipOffset(1, [...mac, 0x86, 0xdd, ...v6])).toBe(14);
    expect(ipOffset(1, [...mac, 0x08, 0x06, 0, 1])).toBe(NOT_IP); // ARP
    expect(ipOffset(1, [...mac, 0x88, 0xcc])).toBe(NOT_IP); // LLDP
    for (const tpid of [0x8100, 0x88a8, 0x9100]) {
      expect(ipOffset(1, [...mac, tpid >> 8, tpid & 255, 0, 5, 0x08, 0x00, ...v4]), tpid.toString(16)).toBe(18);
      expect(ipOffset(1, [...mac, tpid >> 8, tpid & 255, 0, 5, 0x81, 0x00, 0, 6, 0x86, 0xdd, ...v6]), `${tpid.toString(16)} + 8100`).toBe(22);
      // A tag cut short.
      expect(ipOffset(1, [...mac, tpid >> 8, tpid & 255, 0, 5, 0x08])).toBe(LINK_TRUNCATED);
      expect(ipOffset(1, [...mac, tpid >> 8, tpid & 255, 0, 5, 0x08, 0x00])).toBe(18);
    }
    expect(ipOffset(1, [...mac, 0x08])).toBe(LINK_TRUNCATED);
    expect(ipOffset(1, [...mac, 0x08, 0x00])).toBe(14);
  });

  it('RAW and its aliases: the version nibble decides; IPV4 and IPV6 take only their own version', () => {
    for (const t of [101, 12, 14]) {
      expect(ipOffset(t, v4), `${t} v4`).toBe(0);
      expect(ipOffset(t, v6), `${t} v6`).toBe(0);
      expect(ipOffset(t, [0x50]), `${t} v5`).toBe(NOT_IP);
      expect(ipOffset(t, []), `${t} empty`).toBe(LINK_TRUNCATED);
    }
    expect([ipOffset(228, v4), ipOffset(228, v6), ipOffset(228, [])]).toEqual([0, NOT_IP, LINK_TRUNCATED]);
    expect([ipOffset(229, v6), ipOffset(229, v4), ipOffset(229, [])]).toEqual([0, NOT_IP, LINK_TRUNCATED]);
  });

  it('LINUX_SLL: a 16-byte header with the protocol in its last two bytes', () => {
    const head = (proto: number) => [0, 0, 0, 1, 0, 6, ...new Array(8).fill(0), proto >> 8, proto & 255];
    expect(ipOffset(113, [...head(0x0800), ...v4])).toBe(16);
    expect(ipOffset(113, [...head(0x86dd), ...v6])).toBe(16);
    expect(ipOffset(113, [...head(0x8100), 0, 5, 0x08, 0x00, ...v4])).toBe(20);
    expect(ipOffset(113, [...head(0x0806)])).toBe(NOT_IP);
    expect(ipOffset(113, head(0x0800).slice(0, 15))).toBe(LINK_TRUNCATED);
  });

  it('LINUX_SLL2: a 20-byte header with the protocol first', () => {
    const head = (proto: number) => [proto >> 8, proto & 255, ...new Array(18).fill(0)];
    expect(ipOffset(276, [...head(0x0800), ...v4])).toBe(20);
    expect(ipOffset(276, [...head(0x86dd), ...v6])).toBe(20);
    expect(ipOffset(276, [...head(0x8100), 0, 5, 0x86, 0xdd, ...v6])).toBe(24);
    expect(ipOffset(276, [...head(0x8100), 0, 5])).toBe(LINK_TRUNCATED);
    expect(ipOffset(276, head(0x0806))).toBe(NOT_IP);
    expect(ipOffset(276, head(0x0800).slice(0, 19))).toBe(LINK_TRUNCATED);
  });
});

describe('the in-place readers', () => {
  it('read the frame d[start, end) alone, not the bytes around it', () => {
    const frame = [...mac, 0x81, 0x00, 0, 5, 0x08, 0x00, ...v4];
    const d = Uint8Array.from([9, 9, 9, ...frame, 0x08, 0x00]);
    expect(ethernetIpOffset(d, 3, 3 + frame.length)).toBe(3 + 18);
    // Cut inside the tag: the bytes after `end` do not complete it.
    expect(ethernetIpOffset(d, 3, 3 + 16)).toBe(LINK_TRUNCATED);
    expect(ethernetIpOffset(d, 3, 3 + 13)).toBe(LINK_TRUNCATED);
    expect(ethernetIpOffset(d, 3, 3 + 14)).toBe(LINK_TRUNCATED);
    const raw = Uint8Array.from([0x45, 0x60, 0x50]);
    expect([rawIpOffset(raw, 0, 3), rawIpOffset(raw, 1, 3), rawIpOffset(raw, 2, 3), rawIpOffset(raw, 3, 3), rawIpOffset(raw, 1, 1)]).toEqual([0, 1, NOT_IP, LINK_TRUNCATED, LINK_TRUNCATED]);
  });
});
