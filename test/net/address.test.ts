import { isIP } from 'node:net';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import {
  cidrToRange,
  compareIpAddress,
  formatIpAddress,
  formatIpRange,
  ipAddressFromBytes,
  isIpv4Mapped,
  parseIpAddress,
  parseIpCidr,
  parseIpItem,
  IP_PROTOCOL_NAMES,
  ipProtocolNumber,
  MAX_IPV4_TEXT_LENGTH,
  MAX_IPV6_TEXT_LENGTH,
  type IpAddress,
} from '../../src/net/index.js';
import { anyString, HOSTILE, v4Bytes, v4Number, v4Text, v6Bytes, v6Text, v6Texts, v6Words } from './arbitraries.js';

const bytesOf = (a: IpAddress | undefined) => (a ? [a.family, ...a.bytes] : undefined);

describe('parseIpAddress / formatIpAddress', () => {
  it.each([
    ['1.2.3.4', 4, '1.2.3.4'],
    ['0.0.0.0', 4, '0.0.0.0'],
    ['255.255.255.255', 4, '255.255.255.255'],
    ['::', 6, '::'],
    ['::1', 6, '::1'],
    ['2001:DB8::1', 6, '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', 6, '2001:db8::1:0:0:1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', 6, '2001:db8::1'],
    ['1:2:3:4:5:6:7::', 6, '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', 6, '0:2:3:4:5:6:7:8'],
    ['::ffff:1.2.3.4', 6, '::ffff:1.2.3.4'],
    ['::FFFF:102:304', 6, '::ffff:1.2.3.4'],
    ['0:0:0:0:0:ffff:1.2.3.4', 6, '::ffff:1.2.3.4'],
    ['::1.2.3.4', 6, '::102:304'],
    ['64:ff9b::192.0.2.33', 6, '64:ff9b::c000:221'],
  ] as const)('%s is IPv%i, printed %s', (text, family, printed) => {
    const a = parseIpAddress(text);
    expect(a?.family).toBe(family);
    expect(formatIpAddress(a!)).toBe(printed);
  });

  it('keeps ::ffff:1.2.3.4 an IPv6 address with the mapped bytes', () => {
    const a = parseIpAddress('::ffff:1.2.3.4')!;
    expect(a.family).toBe(6);
    expect([...a.bytes]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect(isIpv4Mapped(a)).toBe(true);
    expect(compareIpAddress(a, parseIpAddress('1.2.3.4')!)).toBeGreaterThan(0);
  });

  it.each(HOSTILE.map((s) => [s.length > 40 ? `${s.slice(0, 20)}… (${s.length} chars)` : JSON.stringify(s), s]))(
    'refuses hostile %s without throwing',
    (_, s) => {
      expect(parseIpAddress(s)).toBeUndefined();
      const item = parseIpItem(s);
      expect(item.ok).toBe(false);
      if (!item.ok) expect(item.reason.length).toBeLessThan(300);
    },
  );

  it('round-trips IPv4 bytes → text → bytes', () => {
    fc.assert(
      fc.property(v4Number, (x) => {
        const a = ipAddressFromBytes(v4Bytes(x));
        expect(formatIpAddress(a)).toBe(v4Text(x));
        expect(bytesOf(parseIpAddress(formatIpAddress(a)))).toEqual([4, ...v4Bytes(x)]);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips IPv6 bytes → text → bytes, and every spelling parses to the same bytes', () => {
    fc.assert(
      fc.property(v6Words, (w) => {
        const a = ipAddressFromBytes(v6Bytes(w));
        const printed = formatIpAddress(a);
        expect(bytesOf(parseIpAddress(printed))).toEqual([6, ...v6Bytes(w)]);
        for (const t of v6Texts(w)) expect(bytesOf(parseIpAddress(t)), t).toEqual([6, ...v6Bytes(w)]);
        // Canonical text is a fixed point.
        expect(formatIpAddress(parseIpAddress(printed)!)).toBe(printed);
      }),
      { numRuns: 2000 },
    );
  });

  it('prints RFC 5952 text (as the WHATWG URL host serializer does, apart from the ::ffff: quad)', () => {
    fc.assert(
      fc.property(v6Words, (w) => {
        const a = ipAddressFromBytes(v6Bytes(w));
        const url = new URL(`http://[${formatIpAddress(a)}]/`).hostname.slice(1, -1);
        if (isIpv4Mapped(a)) expect(formatIpAddress(a)).toBe(`::ffff:${v4Text(w[3]!)}`);
        else expect(formatIpAddress(a)).toBe(url);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts exactly what node:net isIP accepts, zone ids aside', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const ours = parseIpAddress(s);
        const node = s.includes('%') ? 0 : isIP(s);
        expect(ours?.family ?? 0, JSON.stringify(s)).toBe(node);
      }),
      { numRuns: 20000 },
    );
  });

  it('reads a dotted quad of decimal octets as node:net does, octet by octet', () => {
    const octet = fc.oneof(fc.nat(300), fc.constantFrom(0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255, 256, 260, 299, 999));
    fc.assert(fc.property(fc.tuple(octet, octet, octet, octet), fc.constantFrom('', '0'), fc.nat(3), (quad, zero, at) => {
      const parts = quad.map(String);
      parts[at] = zero + parts[at];
      const text = parts.join('.');
      const a = parseIpAddress(text);
      expect(a !== undefined).toBe(isIP(text) === 4);
      if (a) expect([...a.bytes]).toEqual(quad);
    }), { numRuns: 2000 });
  });

  it('orders IPv4 before IPv6 and by numeric value within a family', () => {
    fc.assert(
      fc.property(v4Number, v4Number, v6Text, (x, y, v6) => {
        const a = parseIpAddress(v4Text(x))!;
        const b = parseIpAddress(v4Text(y))!;
        expect(Math.sign(compareIpAddress(a, b))).toBe(Math.sign(x - y));
        expect(compareIpAddress(a, parseIpAddress(v6.t)!)).toBeLessThan(0);
      }),
    );
  });
});

describe('parseIpCidr / cidrToRange', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0', '10.255.255.255', false],
    ['10.1.2.3/8', '10.0.0.0', '10.255.255.255', true],
    ['0.0.0.0/0', '0.0.0.0', '255.255.255.255', false],
    ['1.2.3.4/32', '1.2.3.4', '1.2.3.4', false],
    ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['::/0', '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['::1/128', '::1', '::1', false],
    ['2001:db8::1/127', '2001:db8::', '2001:db8::1', true],
    ['::ffff:1.2.3.4/120', '::ffff:1.2.3.0', '::ffff:1.2.3.255', true],
  ] as const)('%s covers %s..%s (host bits set: %s)', (text, first, last, hostBits) => {
    const c = parseIpCidr(text)!;
    expect(c.hostBitsSet).toBe(hostBits);
    const r = cidrToRange(c);
    expect(formatIpAddress(r.first)).toBe(first);
    expect(formatIpAddress(r.last)).toBe(last);
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/08', '10.0.0.0/-1', '10.0.0.0/8/8', '/8', '10.0.0/8', '10.0.0.0/ 8'])(
    'refuses %s',
    (text) => expect(parseIpCidr(text)).toBeUndefined(),
  );

  it('agrees with ipaddr.js on which addresses a CIDR holds', async () => {
    const ipaddr = (await import('ipaddr.js')).default;
    fc.assert(
      fc.property(v4Number, v4Number, fc.integer({ min: 0, max: 32 }), (net, q, len) => {
        const r = cidrToRange(parseIpCidr(`${v4Text(net)}/${len}`)!);
        const a = parseIpAddress(v4Text(q))!;
        const inside = compareIpAddress(r.first, a) <= 0 && compareIpAddress(a, r.last) <= 0;
        expect(inside).toBe(ipaddr.IPv4.parse(v4Text(q)).match(ipaddr.IPv4.parse(v4Text(net)), len));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseIpItem', () => {
  it.each([
    ['192.0.2.1', 'address', '192.0.2.1'],
    ['10.0.0.0/8', 'cidr', '10.0.0.0/8'],
    ['192.0.2.1..192.0.2.9', 'range', '192.0.2.1..192.0.2.9'],
    ['192.0.2.1-192.0.2.9', 'range', '192.0.2.1..192.0.2.9'],
    ['10.0.0.0..10.255.255.255', 'range', '10.0.0.0/8'],
    ['2001:db8::1..2001:db8::ff', 'range', '2001:db8::1..2001:db8::ff'],
    ['2001:db8::-2001:db8::ff', 'range', '2001:db8::/120'],
    ['2001:db8::1-2001:db8::ff', 'range', '2001:db8::1..2001:db8::ff'],
    ['2001:db8::/32', 'cidr', '2001:db8::/32'],
    ['::ffff:1.2.3.4', 'address', '::ffff:1.2.3.4'],
  ] as const)('%s is a %s covering %s', (text, kind, printed) => {
    const item = parseIpItem(text);
    expect(item.ok && item.kind).toBe(kind);
    if (item.ok) expect(formatIpRange(item.range)).toBe(printed);
  });

  it.each([
    ['10.0.0.9..10.0.0.1', 'the range 10.0.0.9..10.0.0.1 has its low end above its high end'],
    ['10.0.0.1..::1', 'mixed address families'],
    ['10.0.0.0/33', 'prefix length 33 is above 32'],
    ['::/129', 'prefix length 129 is above 128'],
    ['01.2.3.4', 'leading zero'],
    ['1.2.3.256', 'above 255'],
    ['1.2.3', 'dotted quad'],
    [' 1.2.3.4', 'whitespace'],
    ['fe80::1%eth0', 'zone id'],
    ['10.0.0.1..', 'high end'],
    ['', 'empty'],
  ])('%s is refused: %s', (text, reason) => {
    const item = parseIpItem(text);
    expect(item.ok).toBe(false);
    if (!item.ok) expect(item.reason).toContain(reason);
  });

  it('flags host bits in a CIDR item', () => {
    const item = parseIpItem('192.0.2.7/24');
    expect(item.ok && item.hostBitsSet).toBe(true);
  });

  it('never throws and always explains a refusal', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const item = parseIpItem(s);
        if (!item.ok) expect(item.reason).toMatch(/\w/);
        else expect(compareIpAddress(item.range.first, item.range.last)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 20000 },
    );
  });
});

describe('why an item is refused (each check of the reason list, in order)', () => {
  // Written from the strictness rules of the module comment, one row per rule, plus the texts that sit on
  // a rule's boundary (a rule that must not fire is shown by the reason that does).
  it.each([
    ['', 'the item is empty'],
    [' 1.2.3.4', '" 1.2.3.4" has leading or trailing whitespace'],
    ['1.2.3.4\t', '"1.2.3.4\\t" has leading or trailing whitespace'],
    ['fe80::1%eth0', '"fe80::1%eth0" has a zone id (%...), which IP literals do not take'],
    [`1:2:3:4:5:6:7:${'8'.repeat(32)}`, `"1:2:3:4:5:6:7:${'8'.repeat(32)}" is too long to be an IP address (46 characters)`],
    [`1:2:3:4:5:6:7:${'8'.repeat(31)}`, `"1:2:3:4:5:6:7:${'8'.repeat(31)}" is not an IPv4 or IPv6 address`],
    ['01.2.3.4', '"01.2.3.4" has an IPv4 octet with a leading zero (octal-looking octets are not accepted)'],
    ['1.2.3.00', '"1.2.3.00" has an IPv4 octet with a leading zero (octal-looking octets are not accepted)'],
    ['1.2.3.256', '"1.2.3.256" has an IPv4 octet above 255'],
    ['1.2.3.1000', '"1.2.3.1000" has an IPv4 octet above 255'],
    ['1.2.3', '"1.2.3" is not a dotted quad (an IPv4 address has exactly four octets)'],
    ['1.2.3.4.5', '"1.2.3.4.5" is not a dotted quad (an IPv4 address has exactly four octets)'],
    ['2130706433', '"2130706433" is not a dotted quad (an IPv4 address has exactly four octets)'],
    // A quad of digits whose octets are fine but which has a colon: not an IPv4 question.
    ['1:2.3.4.5', '"1:2.3.4.5" is not an IPv4 or IPv6 address'],
    ['0.0.0.0:80', '"0.0.0.0:80" is not an IPv4 or IPv6 address'],
    ['x1.2.3.4', '"x1.2.3.4" is not an IPv4 or IPv6 address'],
    ['1.2.3.4x', '"1.2.3.4x" is not an IPv4 or IPv6 address'],
    ['1.2.3.4.', '"1.2.3.4." is not a dotted quad (an IPv4 address has exactly four octets)'],
    ['1234', '"1234" is not a dotted quad (an IPv4 address has exactly four octets)'],
    // A leading zero, or an octet above 255, counts only in text shaped as a dotted quad of digits.
    ['01.2.3', '"01.2.3" is not a dotted quad (an IPv4 address has exactly four octets)'],
    ['a1.2.3.04', '"a1.2.3.04" is not an IPv4 or IPv6 address'],
    ['1.2.3.04x', '"1.2.3.04x" is not an IPv4 or IPv6 address'],
    ['0.0.0.256', '"0.0.0.256" has an IPv4 octet above 255'],
    ['300.1.2.3', '"300.1.2.3" has an IPv4 octet above 255'],
    ['256.256.256.256', '"256.256.256.256" has an IPv4 octet above 255'],
    ['a1.2.3.256', '"a1.2.3.256" is not an IPv4 or IPv6 address'],
    ['1.2.3.256a', '"1.2.3.256a" is not an IPv4 or IPv6 address'],
    ['1.2.3.256.5', '"1.2.3.256.5" is not a dotted quad (an IPv4 address has exactly four octets)'],
    ['1.2.3.4.05', '"1.2.3.4.05" is not a dotted quad (an IPv4 address has exactly four octets)'],
    ['x1.2.3', '"x1.2.3" is not an IPv4 or IPv6 address'],
    ['1.2.3x', '"1.2.3x" is not an IPv4 or IPv6 address'],
    ['.1.2.3', '".1.2.3" is not an IPv4 or IPv6 address'],
    ['g::1', '"g::1" is not an IPv4 or IPv6 address'],
  ])('%j: %s', (text, reason) => {
    const item = parseIpItem(text);
    expect(item).toEqual({ ok: false, reason });
  });

  it('quotes long texts shortened to 57 characters and "..." (60 in all), and shorter texts whole', () => {
    const sixty = `1.2.3.4/${'9'.repeat(52)}`;
    expect(sixty.length).toBe(60);
    expect(parseIpItem(sixty)).toEqual({ ok: false, reason: `the prefix length "${'9'.repeat(52)}" is not a decimal number without leading zeros` });
    const long = `x${'1'.repeat(60)}`;
    const r = parseIpItem(long);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe(`"${long.slice(0, 57)}..." is too long to be an IP address (61 characters)`);
    const exactly60 = `x${'1'.repeat(59)}`;
    const r60 = parseIpItem(exactly60);
    if (!r60.ok) expect(r60.reason).toBe(`"${exactly60}" is too long to be an IP address (60 characters)`);
    else expect.unreachable();
  });

  it('refuses items above 200 characters before reading them, and reads those of 200', () => {
    const at200 = `10.0.0.0/8${' '.repeat(190)}`;
    expect(at200.length).toBe(200);
    const r200 = parseIpItem(at200);
    expect(r200.ok === false && r200.reason).toBe(`the prefix length "8${' '.repeat(56)}..." is not a decimal number without leading zeros`);
    const r201 = parseIpItem(`${at200} `);
    expect(r201.ok === false && r201.reason).toBe(`"10.0.0.0/8${' '.repeat(47)}..." is too long to be an IP item (201 characters)`);
  });

  it.each([
    ['10.0.0.0', 'is not a CIDR'],
    ['10.0.0.0/8/8', '"10.0.0.0/8/8" is not a CIDR (address/length)'],
    ['10.0.0/8', '"10.0.0" is not a dotted quad'],
    ['10.0.0.0/', 'the prefix length "" is not a decimal number without leading zeros'],
    ['10.0.0.0/08', 'the prefix length "08" is not a decimal number without leading zeros'],
    ['10.0.0.0/1234', 'the prefix length "1234" is not a decimal number without leading zeros'],
    ['10.0.0.0/33', 'prefix length 33 is above 32'],
    ['::/129', 'prefix length 129 is above 128'],
  ])('CIDR %s: %s', (text, reason) => {
    if (!text.includes('/')) {
      expect(parseIpCidr(text)).toBeUndefined();
      return;
    }
    const item = parseIpItem(text);
    expect(item.ok === false && item.reason).toContain(reason);
  });

  it.each([
    ['10.0.0.1..x', 'the high end of the range: "x" is not an IPv4 or IPv6 address'],
    ['10.0.0.1..1..2.3', 'the high end of the range: "1..2.3" is not an IPv4 or IPv6 address'],
    ['/8', 'the item is empty'],
    ['x..10.0.0.1', 'the low end of the range: "x" is not an IPv4 or IPv6 address'],
    ['10.0.0.1-', 'the high end of the range: the item is empty'],
    ['-10.0.0.1', 'the low end of the range: the item is empty'],
    ['..10.0.0.1', 'the low end of the range: the item is empty'],
    ['10.0.0.1...10.0.0.2', 'the high end of the range: ".10.0.0.2" is not a dotted quad (an IPv4 address has exactly four octets)'],
    ['10.0.0.1..10.0.0.2-10.0.0.3', 'the high end of the range: "10.0.0.2-10.0.0.3" is not an IPv4 or IPv6 address'],
    ['10.0.0.1-10.0.0.2..10.0.0.3', 'the low end of the range: "10.0.0.1-10.0.0.2" is not an IPv4 or IPv6 address'],
    ['::1..10.0.0.1', 'mixed address families: the range "::1..10.0.0.1" goes from IPv6 to IPv4'],
    ['10.0.0.1-::1', 'mixed address families: the range "10.0.0.1-::1" goes from IPv4 to IPv6'],
    ['::9-::1', 'the range ::9..::1 has its low end above its high end'],
  ])('range %s: %s', (text, reason) => {
    expect(parseIpItem(text)).toEqual({ ok: false, reason });
  });

  it('a range of one address is a range, not an error', () => {
    const item = parseIpItem('10.0.0.1..10.0.0.1');
    expect(item.ok && [item.kind, formatIpRange(item.range), item.hostBitsSet]).toEqual(['range', '10.0.0.1', false]);
  });

  it('says "not a string" for a non-string from an untyped caller', () => {
    expect(parseIpItem(42 as unknown as string)).toEqual({ ok: false, reason: 'the item is not a string' });
    expect(parseIpAddress(42 as unknown as string)).toBeUndefined();
    // An array whose text is an address is still not one.
    expect(parseIpAddress(['1.2.3.4'] as unknown as string)).toBeUndefined();
    expect(parseIpAddress(['::1'] as unknown as string)).toBeUndefined();
  });

  it('an address item has no host bits', () => {
    const item = parseIpItem('192.0.2.1');
    expect(item.ok && [item.kind, item.hostBitsSet]).toEqual(['address', false]);
  });
});

describe('ip.proto names (IANA "Assigned Internet Protocol Numbers")', () => {
  // Rows copied from the IANA registry (keyword in lower case); numbers without a keyword are their
  // decimal text.
  it.each([
    [0, 'hopopt'],
    [1, 'icmp'],
    [6, 'tcp'],
    [17, 'udp'],
    [41, 'ipv6'],
    [43, 'ipv6-route'],
    [44, 'ipv6-frag'],
    [47, 'gre'],
    [50, 'esp'],
    [51, 'ah'],
    [58, 'ipv6-icmp'],
    [59, 'ipv6-nonxt'],
    [60, 'ipv6-opts'],
    [61, '61'],
    [132, 'sctp'],
    [145, 'nsh'],
    [146, '146'],
    [253, '253'],
    [255, '255'],
  ] as const)('%i is %s, and back', (n, name) => {
    expect(IP_PROTOCOL_NAMES[n]).toBe(name);
    expect(ipProtocolNumber(name)).toBe(n);
  });

  it('names nothing else', () => {
    expect(IP_PROTOCOL_NAMES).toHaveLength(256);
    for (const name of ['', 'TCP', 'ip', '256', '-1', 'constructor']) expect(ipProtocolNumber(name), name).toBeUndefined();
  });
});

describe('the longest texts', () => {
  it('reads the longest IPv4 and IPv6 texts and nothing a character longer', () => {
    const v6 = 'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255';
    expect(v6.length).toBe(MAX_IPV6_TEXT_LENGTH);
    expect(isIP(v6)).toBe(6);
    expect(formatIpAddress(parseIpAddress(v6)!)).toBe('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
    expect(parseIpAddress(`0${v6}`)).toBeUndefined();
    expect(parseIpAddress('0000:0000:0000:0000:0000:0000:0000:0000')).toBeDefined();
    expect(parseIpAddress('255.255.255.255')?.family).toBe(4);
    expect('255.255.255.255'.length).toBe(MAX_IPV4_TEXT_LENGTH);
    const cidr = parseIpItem(`${v6}/128`);
    expect(cidr.ok && formatIpRange(cidr.range)).toBe('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
    const range = parseIpItem(`${v6}..${v6}`);
    expect(range.ok && range.kind).toBe('range');
  });
});

describe('ipAddressFromBytes', () => {
  it('takes 4 or 16 bytes (a copy) and nothing else', () => {
    const src = [192, 0, 2, 1];
    const a = ipAddressFromBytes(src);
    src[0] = 10;
    expect([a.family, formatIpAddress(a)]).toEqual([4, '192.0.2.1']);
    expect(ipAddressFromBytes(new Uint8Array(16)).family).toBe(6);
    for (const n of [0, 1, 3, 5, 8, 15, 17, 32]) expect(() => ipAddressFromBytes(new Array(n).fill(0)), `${n} bytes`).toThrow(new RangeError('an IP address has 4 or 16 bytes'));
  });
});

describe('isIpv4Mapped against ipaddr.js\'s ipv4Mapped range (::ffff:0:0/96)', () => {
  it.each([
    ['::ffff:1.2.3.4', true],
    ['::ffff:0:0', true],
    ['::ffff:ffff:ffff', true],
    ['::ff:102:304', false],
    ['::ff00:102:304', false],
    ['::fffe:102:304', false],
    ['1::ffff:102:304', false],
    ['0:0:0:0:1:ffff:102:304', false],
    ['::1:0:ffff:102:304', false],
    ['1.2.3.4', false],
    ['0.0.0.0', false],
  ] as const)('%s: %s', (text, mapped) => {
    const a = parseIpAddress(text)!;
    expect(isIpv4Mapped(a)).toBe(mapped);
    if (a.family === 6) {
      expect(ipaddr.IPv6.parse(text).range() === 'ipv4Mapped').toBe(mapped);
      // Printed as ipaddr.js prints it unless mapped (then with the quad).
      expect(formatIpAddress(a)).toBe(mapped ? `::ffff:${[...a.bytes.slice(12)].join('.')}` : ipaddr.IPv6.parse(text).toRFC5952String());
    } else expect(formatIpAddress(a)).toBe(text);
  });

  it('agrees on random addresses near the mapped prefix', () => {
    fc.assert(
      fc.property(v6Words, fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 255 }), (w, at, byte) => {
        const bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v6Bytes(w).slice(12)];
        bytes[at] = byte;
        const a = ipAddressFromBytes(bytes);
        expect(isIpv4Mapped(a)).toBe(ipaddr.fromByteArray(bytes).range() === 'ipv4Mapped');
      }),
      { numRuns: 2000 },
    );
  });
});
