/**
 * The byte-level helpers both decoders share (src/capture/ip-layers.ts), held to what the RFCs say the
 * fields mean rather than to the other decoder (which shares them): IPv4 total length (RFC 791, with the
 * 0 of segmentation offload), IPv6 payload length (RFC 8200; 0 for a jumbogram, RFC 2675), the extension
 * header layouts (RFC 8200 §4, AH RFC 4302 in 4-byte units), the fragment offset, and SIP start lines
 * (RFC 3261 §7.1/§7.2). Cases sit at the boundaries the mutation run found untested.
 */
import { describe, expect, it } from 'vitest';
import { IPV6_WALK, MAX_EXT_HEADERS, ipv4End, ipv6End, isSip, tcpSip, udpSip, walkIpv6, walkIpv6Extensions } from '../../src/capture/ip-layers.js';

/** An IPv4 header (20 bytes) with total length `total`, followed by `extra` bytes. */
function ipv4(total: number, extra: number): Uint8Array {
  const d = new Uint8Array(20 + extra);
  d[0] = 0x45;
  d[2] = total >> 8;
  d[3] = total & 0xff;
  return d;
}

/** An IPv6 fixed header with payload length `plen` and next header `nh`, followed by `rest`. */
function ipv6(plen: number, nh: number, rest: number[]): Uint8Array {
  const d = new Uint8Array(40 + rest.length);
  d[0] = 0x60;
  d[4] = plen >> 8;
  d[5] = plen & 0xff;
  d[6] = nh;
  d.set(rest, 40);
  return d;
}

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));

describe('ipv4End: where the IPv4 packet ends', () => {
  it('at its total length when the capture holds more (Ethernet padding after it)', () => {
    expect(ipv4End(ipv4(28, 30), 0, 50, 20)).toBe(28);
  });
  it('at the capture when the total length is exactly what was captured, or beyond it', () => {
    expect(ipv4End(ipv4(50, 30), 0, 50, 20)).toBe(50);
    expect(ipv4End(ipv4(1500, 30), 0, 50, 20)).toBe(50);
  });
  it('at the capture when the total length is 0 (segmentation offload) or below the header', () => {
    expect(ipv4End(ipv4(0, 30), 0, 50, 20)).toBe(50);
    expect(ipv4End(ipv4(19, 30), 0, 50, 20)).toBe(50);
    expect(ipv4End(ipv4(20, 30), 0, 50, 20)).toBe(20);
  });
});

describe('ipv6End: where the IPv6 packet ends', () => {
  it('at 40 + payload length when the capture holds more', () => {
    expect(ipv6End(ipv6(8, 17, new Array(20).fill(0)), 0, 60)).toBe(48);
  });
  it('at the capture for payload length 0 (a jumbogram or offload), and when it reaches past it', () => {
    expect(ipv6End(ipv6(0, 17, new Array(20).fill(0)), 0, 60)).toBe(60);
    expect(ipv6End(ipv6(20, 17, new Array(20).fill(0)), 0, 60)).toBe(60);
    expect(ipv6End(ipv6(900, 17, new Array(20).fill(0)), 0, 60)).toBe(60);
  });
  it('walkIpv6 with payload length 0 still reaches the UDP header', () => {
    const d = ipv6(0, 17, [0x13, 0xc4, 0x13, 0xc4, 0, 8, 0, 0]);
    walkIpv6(d, 0, d.length);
    expect(IPV6_WALK).toMatchObject({ nh: 17, p: 40, end: 48, cut: false, laterFragment: false });
  });
});

describe('walkIpv6Extensions: the extension-header chain', () => {
  /** A destination-options header (60) of 8 bytes whose next header is `next`. */
  const dstOpts = (next: number) => [next, 0, 1, 4, 0, 0, 0, 0];

  it(`stops after ${MAX_EXT_HEADERS} headers and takes the next as the upper layer`, () => {
    const chain = (n: number, last: number) => Array.from({ length: n }, (_, i) => dstOpts(i === n - 1 ? last : 60)).flat();
    const exact = ipv6(0, 60, [...chain(MAX_EXT_HEADERS, 6), ...new Array(20).fill(0)]);
    walkIpv6Extensions(exact, 60, 40, exact.length);
    expect(IPV6_WALK).toMatchObject({ nh: 6, p: 40 + 8 * MAX_EXT_HEADERS, cut: false });
    const longer = ipv6(0, 60, [...chain(MAX_EXT_HEADERS + 1, 6), ...new Array(20).fill(0)]);
    walkIpv6Extensions(longer, 60, 40, longer.length);
    expect(IPV6_WALK).toMatchObject({ nh: 60, p: 40 + 8 * MAX_EXT_HEADERS, cut: false });
  });

  it('a generic header cut short: before its length byte, and inside its body', () => {
    const one = ipv6(0, 60, [6]);
    walkIpv6Extensions(one, 60, 40, one.length);
    expect(IPV6_WALK).toMatchObject({ nh: 60, p: 40, cut: true });
    const body = ipv6(0, 60, [6, 1, 0, 0, 0, 0, 0, 0, 0, 0]); // says 16 bytes, has 10
    walkIpv6Extensions(body, 60, 40, body.length);
    expect(IPV6_WALK).toMatchObject({ nh: 60, p: 40, cut: true });
    const whole = ipv6(0, 60, [6, 1, ...new Array(14).fill(0)]); // exactly 16 bytes
    walkIpv6Extensions(whole, 60, 40, whole.length);
    expect(IPV6_WALK).toMatchObject({ nh: 6, p: 56, cut: false });
  });

  it('AH counts its length in 4-byte units, minus 2 (RFC 4302)', () => {
    const ah = ipv6(0, 51, [17, 4, 0, 0, ...new Array(20).fill(0), 0x13, 0xc4, 0x13, 0xc4, 0, 8, 0, 0]); // (4 + 2) * 4 = 24
    walkIpv6Extensions(ah, 51, 40, ah.length);
    expect(IPV6_WALK).toMatchObject({ nh: 17, p: 64, cut: false });
    const cutAh = ipv6(0, 51, [17, 4, 0, 0, 0, 0]);
    walkIpv6Extensions(cutAh, 51, 40, cutAh.length);
    expect(IPV6_WALK).toMatchObject({ nh: 51, p: 40, cut: true });
  });

  it('a fragment header: 8 bytes, the offset in its upper 13 bits, cut when shorter', () => {
    const first = ipv6(0, 44, [6, 0, 0x00, 0x01, 0, 0, 0, 1]); // offset 0, M flag set
    walkIpv6Extensions(first, 44, 40, first.length);
    expect(IPV6_WALK).toMatchObject({ nh: 6, p: 48, laterFragment: false, cut: false });
    const later = ipv6(0, 44, [6, 0, 0x00, 0x08, 0, 0, 0, 1]); // offset 1 (8 bytes)
    walkIpv6Extensions(later, 44, 40, later.length);
    expect(IPV6_WALK).toMatchObject({ nh: 6, laterFragment: true });
    const high = ipv6(0, 44, [6, 0, 0x80, 0x00, 0, 0, 0, 1]); // offset 4096: only the high byte set
    walkIpv6Extensions(high, 44, 40, high.length);
    expect(IPV6_WALK).toMatchObject({ laterFragment: true });
    const cut = ipv6(0, 44, [6, 0, 0, 0, 0, 0, 0]); // 7 of 8 bytes
    walkIpv6Extensions(cut, 44, 40, cut.length);
    expect(IPV6_WALK).toMatchObject({ nh: 44, p: 40, cut: true });
  });
});

describe('SIP start lines', () => {
  const at = (s: string) => Uint8Array.from(ascii(s));
  it('a status line needs "SIP/2.0 " whole; a request line a method, a space and a SIP/SIPS/TEL URI', () => {
    expect(isSip(at('SIP/2.0 200 OK'), 0, 14)).toBe(true);
    expect(isSip(at('SIP/2.0 '), 0, 8)).toBe(true);
    expect(isSip(at('SIP/2.0'), 0, 7)).toBe(false);
    expect(isSip(at('INVITE sip:bob@example.com SIP/2.0'), 0, 34)).toBe(true);
    expect(isSip(at('BYE tel:+1'), 0, 10)).toBe(true);
    expect(isSip(at('INVITE '), 0, 7)).toBe(false);
    expect(isSip(at('INVITE sip'), 0, 10)).toBe(false);
    expect(isSip(at('INVITEsip:'), 0, 10)).toBe(false);
    expect(isSip(at('GET / HTTP/1.1'), 0, 14)).toBe(false);
  });
  it('the data end bounds the match: a start line past `end` is not seen', () => {
    const d = at('INVITE sip:x');
    expect(isSip(d, 0, 6)).toBe(false); // the space after the method lies at `end`
    expect(isSip(d, 0, 10)).toBe(false); // the scheme is cut
    expect(isSip(d, 0, 11)).toBe(true);
    expect(isSip(d, 12, 12)).toBe(false);
  });
  it('TCP: the payload starts after the data offset; UDP: after 8 bytes; short headers are not SIP', () => {
    const tcp = new Uint8Array(20 + 8);
    tcp[12] = 5 << 4;
    tcp.set(ascii('SIP/2.0 '), 20);
    expect(tcpSip(tcp, 0, tcp.length)).toBe(true);
    expect(tcpSip(tcp, 0, 19)).toBe(false);
    const tcpOptions = new Uint8Array(24 + 8);
    tcpOptions[12] = 6 << 4;
    tcpOptions.set(ascii('SIP/2.0 '), 24);
    expect(tcpSip(tcpOptions, 0, tcpOptions.length)).toBe(true);
    const udp = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, ...ascii('SIP/2.0 ')]);
    expect(udpSip(udp, 0, udp.length)).toBe(true);
    expect(udpSip(udp, 0, 7)).toBe(false);
  });
});
