/** decodePacket: field conventions, partial decoding, field selection, problems. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DECODED_FIELDS, decodePacket, geoIpFromCsv, ipv4Text, ipv6Text, LINK_LAYERS, type CaptureRecord } from '../../src/capture/index.js';
import { cachedIpv4Text, cachedIpv6Text } from '../../src/capture/address-text.js';
import { formatIpAddress } from '../../src/net/address.js';
import { readFixture } from './helpers.js';

const mixed = async () => (await readFixture('mixed-le-usec.pcap')).records;
const decodeAll = (rs: CaptureRecord[]) => rs.map((r) => decodePacket(r));

describe('decodePacket on the mixed fixture', () => {
  it('TCP flag booleans follow the flags byte', async () => {
    const rs = await mixed();
    const names = ['fin', 'syn', 'reset', 'push', 'ack', 'urg', 'ecn', 'cwr'] as const;
    // scapy flags of packets 1..13: S SA A PA FA R RA U E C SEC FPU (none)
    const expected = [0x02, 0x12, 0x10, 0x18, 0x11, 0x04, 0x14, 0x20, 0x40, 0x80, 0xc2, 0x29, 0x00];
    rs.slice(0, 13).forEach((r, i) => {
      const p = decodePacket(r).packet;
      expect(p['tcp.flags']).toBe(expected[i]);
      names.forEach((n, bit) => expect(p[`tcp.flags.${n}`], `${i} ${n}`).toBe((expected[i]! & (1 << bit)) !== 0));
      expect(p['ip.proto']).toBe('tcp');
      expect(p['udp.srcport']).toBeUndefined();
      expect(p['icmp.type']).toBeUndefined();
    });
  });

  it('IPv4 options, fragments, ICMP, SIP', async () => {
    const d = decodeAll(await mixed());
    expect(d[16]!.packet['ip.opt.type']).toBe(148); // router alert
    expect(d[16]!.packet['ip.hdr_len']).toBe(24);
    expect(d[17]!.packet['ip.opt.type']).toBe(7); // record route
    expect(d[0]!.packet['ip.opt.type']).toBeUndefined();
    // First fragment keeps its UDP header, later fragments have none.
    expect(d[18]!.packet['udp.dstport']).toBe(7001);
    expect(d[18]!.problems).toBeUndefined();
    for (const f of [d[19]!, d[20]!]) {
      expect(f.packet['ip.proto']).toBe('udp');
      expect(f.packet['udp.dstport']).toBeUndefined();
      expect(f.problems!.map((p) => p.code)).toEqual(['capture-ip-fragment']);
    }
    expect(d[14]!.packet).toMatchObject({ 'ip.proto': 'icmp', 'icmp.type': 8, 'icmp.code': 0, 'ip.ttl': 1 });
    expect(d[15]!.packet).toMatchObject({ 'icmp.type': 3, 'icmp.code': 3 });
    expect(d[15]!.packet['udp.srcport']).toBeUndefined();
    expect(d[21]!.packet.sip).toBe(true);
    expect(d.filter((x) => x.packet.sip === true).length).toBe(1);
  });

  it('IPv6: extension headers, ICMPv6, fragments, mapped addresses, RFC 5952 text', async () => {
    const d = decodeAll(await mixed());
    expect(d[22]!.packet).toMatchObject({ 'ip.src': '2001:db8::1', 'ip.dst': '2001:db8:0:1::2', 'ip.ttl': 55, 'ip.proto': 'tcp', 'ip.len': 60, 'ip.hdr_len': 40 });
    expect(d[24]!.packet).toMatchObject({ 'ip.proto': 'ipv6-icmp', 'icmp.type': 128, 'icmp.code': 0 });
    expect(d[25]!.packet['ip.src']).toBe('::ffff:192.0.2.1');
    expect(d[26]!.packet).toMatchObject({ 'ip.proto': 'tcp', 'ip.hdr_len': 56, 'tcp.dstport': 8443, 'tcp.flags.push': true });
    expect(d[27]!.packet).toMatchObject({ 'ip.proto': 'udp', 'udp.srcport': 4444 });
    expect(d[28]!.packet).toMatchObject({ 'ip.proto': 'udp' });
    expect(d[28]!.packet['udp.srcport']).toBeUndefined();
    expect(d[28]!.problems!.map((p) => p.code)).toEqual(['capture-ip-fragment']);
    expect(d[29]!.packet).toMatchObject({ 'ip.src': '2001:db8:1:2:3:4:5:6', 'ip.dst': '1:0:0:1::1' });
  });

  it('an ARP frame is not IP: no fields, an info problem with the record offset', async () => {
    const rs = await mixed();
    const { packet, problems } = decodePacket(rs[30]!);
    expect(packet).toEqual({});
    expect(problems!.map((p) => [p.code, p.severity, p.data.offset])).toEqual([['capture-not-ip', 'info', rs[30]!.offset]]);
    expect(problems![0]!.message).toMatch(/^Packet 31 at byte \d+: the ETHERNET frame does not carry IPv4 or IPv6/);
  });

  it('raw header fields start at their layer', async () => {
    const p = decodePacket((await mixed())[0]!).packet;
    expect(p.ip![0]).toBe(0x45);
    expect(p.ip!.length).toBe(40);
    expect(Array.from(p.tcp!.subarray(0, 4))).toEqual([40000 >> 8, 40000 & 255, 443 >> 8, 443 & 255]);
    const u = decodePacket((await mixed())[13]!).packet;
    expect(u.udp!.length).toBe(8 + 20);
    const i = decodePacket((await mixed())[14]!).packet;
    expect(Array.from(i.icmp!.subarray(0, 2))).toEqual([8, 0]);
  });
});

describe('link layers', () => {
  it('VLAN, QinQ, 0x9100 double tags and tagged ARP', async () => {
    const d = decodeAll((await readFixture('vlan.pcap')).records);
    expect(d.map((x) => [x.packet['ip.src'], x.packet['ip.proto']])).toEqual([
      ['10.1.0.1', 'tcp'],
      ['10.2.0.1', 'udp'],
      ['2001:db8:30::1', 'udp'],
      ['10.4.0.1', 'icmp'],
      [undefined, undefined],
    ]);
    expect(d[4]!.problems![0]!.code).toBe('capture-not-ip');
  });

  it('Linux cooked v1 and v2, raw IP, null loopback', async () => {
    const src = async (name: string) => decodeAll((await readFixture(name)).records).map((x) => x.packet['ip.src']);
    expect(await src('sll.pcap')).toEqual(['10.9.0.1', '2001:db8:9::1', undefined]);
    expect(await src('sll2.pcap')).toEqual(['10.10.0.1', '2001:db8:10::1']);
    expect(await src('raw-ip.pcap')).toEqual(['172.16.0.1', '2001:db8:aa::1', '172.16.0.3']);
    expect(await src('loopback-null.pcap')).toEqual(['127.0.0.1', '::1']);
    expect(await src('raw-ipv4.pcap')).toEqual(['172.17.0.1']);
    expect(await src('raw-ipv6.pcap')).toEqual(['2001:db8:bb::1']);
  });

  it('a record without bytes is a problem, not an exception', () => {
    for (const bad of [undefined, null, {}, { linkType: 1, data: 'abc' }, { linkType: 1, data: [1, 2, 3] }]) {
      const r = decodePacket(bad as never);
      expect(r.packet).toEqual({});
      expect(r.problems!.map((p) => p.code)).toEqual(['capture-bad-record']);
    }
  });

  it('an unsupported link type is a problem, not an error', () => {
    const r = decodePacket({ linkType: 105, data: new Uint8Array(30), offset: 99 });
    expect(r.packet).toEqual({});
    expect(r.problems!.map((p) => [p.code, p.data.offset, p.data.linkType])).toEqual([['capture-unsupported-link-type', 99, 105]]);
  });
});

describe('truncated packets', () => {
  it('snaplen-cut packets keep the fields before the cut and report the cut', async () => {
    const d = decodeAll((await readFixture('snaplen.pcap')).records);
    // 42 bytes: Ethernet + IPv4 + 8 bytes of TCP: ports yes, flags no.
    expect(d[0]!.packet).toMatchObject({ 'ip.src': '192.0.2.1', 'tcp.srcport': 40000, 'tcp.dstport': 443 });
    expect(d[0]!.packet['tcp.flags']).toBeUndefined();
    expect(d[0]!.problems!.map((p) => [p.code, p.data.layer, p.data.captured, p.data.needed])).toEqual([['capture-truncated-packet', 'TCP', 8, 20]]);
    // IPv6: 28 of 40 header bytes: source yes, destination no.
    expect(d[22]!.packet['ip.src']).toBe('2001:db8::1');
    expect(d[22]!.packet['ip.dst']).toBeUndefined();
    expect(d[22]!.problems![0]!.data.layer).toBe('IPv6');
  });

  it('problems: false skips building problems', async () => {
    const r = decodePacket((await readFixture('snaplen.pcap')).records[0]!, { problems: false });
    expect(r.problems).toBeUndefined();
    expect(r.packet['tcp.srcport']).toBe(40000);
  });

  it('random frames on every link type never throw and give well-typed fields', () => {
    const types: Record<string, string> = { ip: 'object', tcp: 'object', udp: 'object', icmp: 'object', sip: 'boolean', 'ip.src': 'string', 'ip.dst': 'string', 'ip.proto': 'string' };
    fc.assert(
      fc.property(fc.constantFrom(...LINK_LAYERS.keys(), 9999), fc.uint8Array({ maxLength: 120 }), fc.boolean(), (linkType, data, v6) => {
        // Steer half the cases into IP: set the version nibble where the IP header would start.
        const bytes = Uint8Array.from(data);
        if (bytes.length > 20 && linkType === 101) bytes[0] = (v6 ? 0x60 : 0x45) | (bytes[0]! & 0x0f);
        const { packet, problems } = decodePacket({ linkType, data: bytes });
        for (const [k, v] of Object.entries(packet)) {
          expect(DECODED_FIELDS).toContain(k);
          const t = types[k] ?? (k.startsWith('tcp.flags.') ? 'boolean' : k.endsWith('country') || k.startsWith('cf.') ? 'string' : 'number');
          expect(typeof v, k).toBe(t);
        }
        for (const p of problems ?? []) expect(p.data.offset).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('options', () => {
  it('fields: decodes only the groups asked for', async () => {
    const r = (await mixed())[0]!;
    expect(Object.keys(decodePacket(r, { fields: new Set(['tcp.dstport']) }).packet).sort()).toEqual(['tcp.dstport', 'tcp.srcport']);
    expect(Object.keys(decodePacket(r, { fields: new Set(['ip.src', 'tcp.flags.syn', 'nonsense']) }).packet).sort()).toEqual(
      ['ip.src', 'tcp.flags', 'tcp.flags.ack', 'tcp.flags.cwr', 'tcp.flags.ecn', 'tcp.flags.fin', 'tcp.flags.push', 'tcp.flags.reset', 'tcp.flags.syn', 'tcp.flags.urg'],
    );
    expect(decodePacket(r, { fields: new Set() }).packet).toEqual({});
    // Selected fields have the same values as a full decode.
    const full = decodePacket(r).packet;
    const some = decodePacket(r, { fields: new Set(['ip.ttl', 'ip.len', 'tcp']) }).packet;
    expect(some).toEqual({ 'ip.ttl': full['ip.ttl'], 'ip.len': full['ip.len'], tcp: full.tcp });
  });

  it('geoip: country and ASN of both ends from the table; absent without one', async () => {
    const { lookup } = geoIpFromCsv('192.0.2.0/24,BR,64500\n198.51.100.0/24,DE,64510\n2001:db8::/32,FR,\n');
    const rs = await mixed();
    const p = decodePacket(rs[0]!, { geoip: lookup }).packet;
    expect(p).toMatchObject({ 'ip.src.country': 'BR', 'ip.dst.country': 'DE', 'ip.src.asnum': 64500, 'ip.dst.asnum': 64510, 'ip.geoip.asnum': 64500 });
    const v6 = decodePacket(rs[22]!, { geoip: lookup }).packet;
    expect(v6['ip.src.country']).toBe('FR');
    expect(v6['ip.src.asnum']).toBeUndefined();
    const none = decodePacket(rs[0]!).packet;
    expect(Object.keys(none).filter((k) => k.includes('country') || k.includes('asnum'))).toEqual([]);
    const onlyDst = decodePacket(rs[0]!, { geoip: lookup, fields: new Set(['ip.dst.country']) }).packet;
    expect(onlyDst).toEqual({ 'ip.dst.country': 'DE' });
  });

  it('colo fields', async () => {
    const p = decodePacket((await mixed())[30]!, { colo: { name: 'sfo06', region: 'WNAM' } }).packet;
    expect(p).toEqual({ 'cf.colo.name': 'sfo06', 'cf.colo.region': 'WNAM' });
  });
});

describe('address text', () => {
  it('the caches return the text of the address asked for, across slot collisions', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 16, maxLength: 16 }), { minLength: 1, maxLength: 50 }), fc.array(fc.nat(), { maxLength: 200 }), (addrs, order) => {
        // Few distinct low bits so that many addresses share cache slots.
        for (const i of [...order, ...addrs.keys()]) {
          const a = addrs[i % addrs.length]!;
          expect(cachedIpv4Text(a, 0)).toBe(ipv4Text(a, 0));
          expect(cachedIpv6Text(a, 0)).toBe(ipv6Text(a, 0));
          expect(cachedIpv4Text(a, 12)).toBe(ipv4Text(a, 12));
        }
      }),
      { numRuns: 300 },
    );
    // Many distinct addresses through an 8192-slot cache: collisions must never return another's text.
    const b = new Uint8Array(4);
    for (let i = 0; i < 100_000; i++) {
      b[0] = i & 255;
      b[1] = (i >> 8) & 255;
      b[2] = (i >> 16) & 255;
      b[3] = (i * 7) & 255;
      expect(cachedIpv4Text(b, 0)).toBe(`${b[0]}.${b[1]}.${b[2]}.${b[3]}`);
    }
  });

  it('ipv6Text agrees with src/net formatting on random addresses', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.integer({ min: 0, max: 255 }), (bytes, mask) => {
        // Zero some groups to get runs of zeros.
        for (let g = 0; g < 8; g++) if (mask & (1 << g)) bytes[2 * g] = bytes[2 * g + 1] = 0;
        expect(ipv6Text(bytes, 0)).toBe(formatIpAddress({ family: 6, bytes }));
      }),
      { numRuns: 2000 },
    );
  });
});
