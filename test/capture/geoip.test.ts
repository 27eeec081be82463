/** Country/ASN tables: CSV parsing and longest-prefix match, the .mmdb reader, and their agreement. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { combineGeoIp, decodePacket, geoIpFromCsv, geoIpFromMmdb } from '../../src/capture/index.js';
import { fixture, fixtureBytes, readFixture } from './helpers.js';

const csvText = () => readFileSync(fixture('geo.csv'), 'utf8');

describe('geoIpFromCsv', () => {
  it('reads the fixture table with longest-prefix match, IPv4 and IPv6', () => {
    const { lookup, diagnostics } = geoIpFromCsv(csvText());
    expect(diagnostics).toEqual([]);
    expect(lookup.lookup('192.0.2.1')).toEqual({ country: 'BR', asn: 64500 });
    expect(lookup.lookup('192.0.2.50')).toEqual({ country: 'AR', asn: 64501 });
    expect(lookup.lookup('192.0.2.54')).toEqual({ country: 'CL', asn: 64502 });
    expect(lookup.lookup('192.0.2.64')).toEqual({ country: 'BR', asn: 64500 });
    expect(lookup.lookup('203.0.113.9')).toEqual({ asn: 64520 });
    expect(lookup.lookup('203.0.113.200')).toBeUndefined();
    expect(lookup.lookup('2001:db8::1')).toEqual({ country: 'NL', asn: 64531 });
    expect(lookup.lookup('2001:db8::9')).toEqual({ country: 'BE' });
    expect(lookup.lookup('2001:db8:1::1')).toEqual({ country: 'FR', asn: 64530 });
    expect(lookup.lookup('10.0.0.1')).toBeUndefined();
    expect(lookup.lookup('::ffff:192.0.2.50')).toEqual({ country: 'AR', asn: 64501 });
    expect(lookup.lookup('not an address')).toBeUndefined();
    expect(lookup.lookupV4(0xc0000201)).toEqual({ country: 'BR', asn: 64500 });
  });

  it('comments, blank lines, CRLF, quotes, AS prefixes, lower-case countries, bare addresses', () => {
    const { lookup, diagnostics } = geoIpFromCsv('# table\r\n\r\n"10.0.0.0/8","us","AS15169"\r\n10.1.2.3,gb,\r\n');
    expect(diagnostics).toEqual([]);
    expect(lookup.lookup('10.9.9.9')).toEqual({ country: 'US', asn: 15169 });
    expect(lookup.lookup('10.1.2.3')).toEqual({ country: 'GB' });
  });

  it('bad lines and duplicates are reported with their line and offset, and skipped', () => {
    const text = 'cidr,country,asn\n10.0.0.0/33,US,1\n10.0.0.0/8,USA,1\n10.0.0.0/8,US,x\n10.0.0.1..10.0.0.5,US,1\n10.0.0.0/8,US,1\n10.0.0.0/8,DE,2\n';
    const { lookup, diagnostics } = geoIpFromCsv(text);
    expect(diagnostics.map((d) => [d.code, d.data.line, d.data.offset])).toEqual([
      ['capture-geoip-bad-line', 2, text.indexOf('10.0.0.0/33')],
      ['capture-geoip-bad-line', 3, text.indexOf('10.0.0.0/8,USA')],
      ['capture-geoip-bad-line', 4, text.indexOf('10.0.0.0/8,US,x')],
      ['capture-geoip-bad-line', 5, text.indexOf('10.0.0.1..')],
      ['capture-geoip-duplicate', 7, text.indexOf('10.0.0.0/8,DE')],
    ]);
    expect(diagnostics[0]!.message).toMatch(/^Line 2: prefix length 33 is above 32/);
    expect(lookup.lookup('10.2.3.4')).toEqual({ country: 'DE', asn: 2 });
  });

  it('limits are diagnostics', () => {
    const { diagnostics } = geoIpFromCsv('10.0.0.0/8,US,1\n11.0.0.0/8,US,1\n12.0.0.0/8,US,1\n', { maxLines: 2 });
    expect(diagnostics.map((d) => d.code)).toEqual(['capture-geoip-too-large']);
    expect(diagnostics[0]!.message).toContain('more than 2 lines');
    expect(geoIpFromCsv(123 as unknown as string).diagnostics.length).toBe(1);
  });

  it('longest-prefix match agrees with a brute-force scan (IPv4)', () => {
    const cidr = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 }));
    fc.assert(
      fc.property(fc.array(cidr, { maxLength: 30 }), fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 30 }), (cidrs, probes) => {
        const mask = (p: number) => (p === 0 ? 0 : (0xffffffff << (32 - p)) >>> 0);
        const rows = cidrs.map(([a, p], i) => ({ net: (a & mask(p)) >>> 0, p, asn: i + 1 }));
        const text = rows.map((r) => `${r.net >>> 24}.${(r.net >>> 16) & 255}.${(r.net >>> 8) & 255}.${r.net & 255}/${r.p},,${r.asn}`).join('\n');
        const { lookup } = geoIpFromCsv(text);
        // Probe random addresses and the edges of every block.
        const all = [...probes, ...rows.flatMap((r) => [r.net, (r.net | ~mask(r.p)) >>> 0])];
        for (const a of all) {
          let best: { p: number; asn: number } | undefined;
          for (const r of rows) if (((a & mask(r.p)) >>> 0) === r.net && (!best || r.p >= best.p)) best = r;
          expect(lookup.lookupV4(a)?.asn).toBe(best?.asn);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('geoIpFromMmdb', () => {
  it('reads the MaxMind-writer fixture and agrees with the CSV it was made from', async () => {
    const { lookup, diagnostics } = await geoIpFromMmdb(fixtureBytes('geo.mmdb'));
    expect(diagnostics).toEqual([]);
    const csv = geoIpFromCsv(csvText()).lookup;
    for (const a of ['192.0.2.1', '192.0.2.50', '192.0.2.54', '198.51.100.7', '203.0.113.9', '203.0.113.200', '2001:db8::1', '2001:db8::9', '2001:db8:1::1', '10.0.0.1', '::ffff:192.0.2.1']) {
      expect(lookup.lookup(a), a).toEqual(csv.lookup(a));
    }
    // Packets decode to the same geo fields with either table.
    const records = (await readFixture('mixed-le-usec.pcap')).records;
    const geoFields = (p: object) => Object.fromEntries(Object.entries(p).filter(([k]) => /country|asnum/.test(k)));
    for (const r of records) {
      expect(geoFields(decodePacket(r, { geoip: lookup }).packet)).toEqual(geoFields(decodePacket(r, { geoip: csv }).packet));
    }
    expect(records.some((r) => decodePacket(r, { geoip: lookup }).packet['ip.src.country'] === 'AR')).toBe(true);
  });

  it('bytes that are not a MaxMind DB give a diagnostic, not an exception', async () => {
    const r = await geoIpFromMmdb(new TextEncoder().encode('definitely not a database'));
    expect(r.diagnostics.map((d) => d.code)).toEqual(['capture-mmdb-invalid']);
    expect(r.lookup.lookup('192.0.2.1')).toBeUndefined();
    const truncated = await geoIpFromMmdb(fixtureBytes('geo.mmdb').subarray(0, 500));
    expect(truncated.diagnostics.map((d) => d.code)).toEqual(['capture-mmdb-invalid']);
  });

  it('combineGeoIp takes each field from the first table that has it', () => {
    const countries = geoIpFromCsv('192.0.2.0/24,BR,\n').lookup;
    const asns = geoIpFromCsv('192.0.2.0/24,,64500\n198.51.100.0/24,,64510\n').lookup;
    const both = combineGeoIp(countries, asns);
    expect(both.lookup('192.0.2.9')).toEqual({ country: 'BR', asn: 64500 });
    expect(both.lookupV4(0xc6336401)).toEqual({ asn: 64510 });
    expect(both.lookup('10.0.0.1')).toBeUndefined();
  });
});

describe('geoIpFromCsv diagnostics limit', () => {
  it('keeps the first 100 bad-line diagnostics and counts the rest in one more', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `10.${i >> 8}.${i & 255}.0/33,US,1`).join('\n') + '\n192.0.2.0/24,BR,64500\n';
    const over = geoIpFromCsv(lines(130));
    expect(over.diagnostics.length).toBe(101);
    expect(over.diagnostics.slice(0, 100).every((d) => d.code === 'capture-geoip-bad-line' && /^Line \d+: /.test(d.message))).toBe(true);
    expect(over.diagnostics[99]!.message.startsWith('Line 100: ')).toBe(true);
    const last = over.diagnostics[100]!;
    expect([last.code, last.message]).toEqual(['capture-geoip-bad-line', '30 more bad lines were skipped without a diagnostic each (limit 100).']);
    expect(last.data['limit']).toBe(100);
    expect(over.lookup.lookup('192.0.2.1')).toEqual({ country: 'BR', asn: 64500 });
    expect(geoIpFromCsv(lines(100)).diagnostics.length).toBe(100);
    expect(geoIpFromCsv(lines(101)).diagnostics.at(-1)!.message).toBe('1 more bad lines were skipped without a diagnostic each (limit 100).');
  });

  it('counts lines from 1, blank first lines included', () => {
    expect(geoIpFromCsv('\n10.0.0.0/33,US,1\n').diagnostics.map((d) => [d.data['line'], d.data.offset])).toEqual([[2, 1]]);
    expect(geoIpFromCsv('10.0.0.0/33,US,1').diagnostics.map((d) => d.data['line'])).toEqual([1]);
  });

  it('a duplicate says which line it repeats', () => {
    const { diagnostics } = geoIpFromCsv('10.0.0.0/8,US,1\n# c\n10.0.0.0/8,DE,2\n');
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([['capture-geoip-duplicate', 'Line 3: 10.0.0.0/8 already appeared on line 1; this later line wins.']]);
  });
});
