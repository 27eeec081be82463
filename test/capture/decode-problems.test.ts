/**
 * What the decoder says about frames it cannot read whole (docs/diagnostics.md: capture-truncated-packet,
 * capture-not-ip, capture-unsupported-link-type, capture-bad-record), with the record's number and byte
 * offset as a reader reports them, and the colo fields it fills in both decoders. Frames built here.
 */
import { describe, expect, it } from 'vitest';
import { decodeFrameInto, decodePacket, type Packet } from '../../src/capture/index.js';

const mac = new Array(12).fill(0xaa);
/** An IPv4 header (20 bytes, protocol `proto`) from 192.0.2.1 to 198.51.100.7, then `rest`. */
const ipv4 = (proto: number, rest: number[]) => [0x45, 0, 0, 20 + rest.length, 0, 0, 0, 0, 64, proto, 0, 0, 192, 0, 2, 1, 198, 51, 100, 7, ...rest];
const ether = (type: number, rest: number[]) => Uint8Array.from([...mac, type >> 8, type & 255, ...rest]);

describe('decode problems', () => {
  it('name the packet by number and byte offset when the reader gave them, by offset alone otherwise', () => {
    const short = ether(0x0800, []).subarray(0, 10);
    const r = decodePacket({ linkType: 1, data: short, index: 4, offset: 1234 });
    expect(r.problems!.map((p) => [p.code, p.message, p.data])).toEqual([
      ['capture-truncated-packet', 'Packet 5 at byte 1234: the ETHERNET link-layer header is cut short (10 bytes captured); no IP fields were decoded.', { offset: 1234, layer: 'ETHERNET', captured: 10 }],
    ]);
    const anonymous = decodePacket({ linkType: 1, data: short });
    expect(anonymous.problems![0]!.message).toBe('Packet at byte 0: the ETHERNET link-layer header is cut short (10 bytes captured); no IP fields were decoded.');
  });

  it('a frame that is not IP, an unknown link type, a frame that ends where IP would start', () => {
    const arp = decodePacket({ linkType: 1, data: ether(0x0806, new Array(28).fill(0)), index: 0, offset: 24 });
    expect(arp.problems!.map((p) => [p.code, p.message])).toEqual([['capture-not-ip', 'Packet 1 at byte 24: the ETHERNET frame does not carry IPv4 or IPv6; no IP fields were decoded.']]);
    const odd = decodePacket({ linkType: 147, data: Uint8Array.from([1, 2, 3]), index: 1, offset: 100 });
    expect(odd.problems!.map((p) => [p.code, p.message, p.data])).toEqual([
      ['capture-unsupported-link-type', 'Packet 2 at byte 100: link type 147 is not one the decoder reads (Ethernet, raw IP, Linux cooked v1/v2, loopback); no fields were decoded.', { offset: 100, linkType: 147 }],
    ]);
    const empty = decodePacket({ linkType: 1, data: ether(0x0800, []) });
    expect(empty.problems!.map((p) => [p.code, p.data])).toEqual([['capture-truncated-packet', { offset: 0, layer: 'IP', captured: 0, needed: 20 }]]);
    for (const r of [arp, odd, empty]) expect(Object.values(r.packet).filter((v) => v !== undefined)).toEqual([]);
  });

  it('a record without bytes is a bad record at byte 0, whatever offset it claims', () => {
    const r = decodePacket({ linkType: 1, data: 'x' as never, index: 3, offset: 99 });
    expect(r.problems!.map((p) => [p.code, p.data.offset, p.message])).toEqual([['capture-bad-record', 0, 'Packet at byte 0: the record has no `data` bytes (a Uint8Array); nothing was decoded.']]);
  });

  it('problems: false reports nothing and still decodes what is there', () => {
    const frame = ether(0x0800, ipv4(6, [0x9c, 0x40]));
    const quiet = decodePacket({ linkType: 1, data: frame }, { problems: false });
    expect(quiet.problems).toBeUndefined();
    expect([quiet.packet['ip.src'], quiet.packet['tcp.srcport']]).toEqual(['192.0.2.1', undefined]);
    for (const data of [ether(0x0806, new Array(28).fill(0)), ether(0x0800, []).subarray(0, 5)]) expect(decodePacket({ linkType: 1, data }, { problems: false }).problems).toBeUndefined();
    expect(decodePacket({ linkType: 147, data: frame }, { problems: false }).problems).toBeUndefined();
    const loud = decodePacket({ linkType: 1, data: frame });
    expect(loud.problems!.map((p) => [p.code, p.data])).toEqual([['capture-truncated-packet', { offset: 0, layer: 'TCP', captured: 2, needed: 20 }]]);
  });
});

describe('an IPv6 header with nothing after it', () => {
  it('names the next header that is missing (an extension header is at least 8 bytes, RFC 8200 §4)', () => {
    const cases: [number, string, number][] = [[0, 'IPv6 extension (hopopt)', 8], [44, 'IPv6 extension (ipv6-frag)', 8], [6, 'TCP', 20], [17, 'UDP', 8]];
    for (const [nh, layer, needed] of cases) {
      const d = new Uint8Array(40);
      d.set([0x60, 0, 0, 0, 0, 0, nh, 64, 0x20, 0x01], 0);
      const r = decodePacket({ linkType: 101, data: d });
      expect(r.problems!.map((p) => [p.code, p.data]), layer).toEqual([['capture-truncated-packet', { offset: 0, layer, captured: 0, needed }]]);
      expect(r.packet['ip.ttl']).toBe(64);
    }
  });
});

describe('colo fields', () => {
  const frame = ether(0x0800, ipv4(17, [0, 53, 0, 53, 0, 8, 0, 0]));
  it('both decoders fill the name and region given, and only those', () => {
    for (const colo of [{ name: 'AMS', region: 'WEUR' }, { name: 'LHR' }, { region: 'ENAM' }]) {
      const fields = new Set(['cf.colo.name', 'cf.colo.region', 'udp.dstport']);
      const byObject = decodePacket({ linkType: 1, data: frame }, { colo }).packet;
      const into = decodePacket({ linkType: 1, data: new Uint8Array(0) }, { fields, fixedShape: true, problems: false }).packet as Packet;
      const buffer = new Uint8Array(frame.length + 4);
      buffer.set(frame, 2);
      decodeFrameInto(into, buffer, 2, 2 + frame.length, 1, { fields, fixedShape: true, problems: false, colo });
      for (const p of [byObject, into]) {
        expect([p['cf.colo.name'], p['cf.colo.region'], p['udp.dstport']], JSON.stringify(colo)).toEqual([colo.name, colo.region, 53]);
      }
    }
    expect(decodePacket({ linkType: 1, data: frame }).packet['cf.colo.name']).toBeUndefined();
    // Not asked for: not filled.
    expect(decodePacket({ linkType: 1, data: frame }, { colo: { name: 'AMS' }, fields: new Set(['udp.dstport']) }).packet['cf.colo.name']).toBeUndefined();
  });
});
