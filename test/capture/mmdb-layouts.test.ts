/**
 * `geoIpFromMmdb` on the record layouts of the databases it names (MaxMind's documented GeoLite2/GeoIP2
 * layouts: `country.iso_code`, `registered_country.iso_code`, `autonomous_system_number`; the flat
 * `country_code`/`asn` of compatible databases), through a stand-in for `mmdb-lib`'s Reader that returns
 * one such record per address. The real reader on a real file is test/capture/geoip.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';

const records = vi.hoisted(() => new Map<string, unknown>());
const calls = vi.hoisted(() => ({ get: [] as string[], created: [] as number[] }));
vi.mock('mmdb-lib', () => ({
  Reader: class {
    constructor(db: Uint8Array) {
      if (db.length < 4) throw new Error('Cannot find metadata');
      calls.created.push(db.length);
    }
    get(ip: string): unknown {
      calls.get.push(ip);
      if (ip === '192.0.2.99') throw new Error('corrupt tree');
      return records.get(ip) ?? null;
    }
  },
}));

const { geoIpFromMmdb } = await import('../../src/capture/index.js');

const LAYOUTS: ReadonlyArray<readonly [string, string, unknown, object | undefined]> = [
  ['GeoLite2-Country', '192.0.2.1', { country: { iso_code: 'BR', names: { en: 'Brazil' } }, registered_country: { iso_code: 'PT' } }, { country: 'BR' }],
  ['registered country only (anycast, satellite)', '192.0.2.2', { registered_country: { iso_code: 'DE' } }, { country: 'DE' }],
  ['country without iso_code falls back to registered_country', '192.0.2.3', { country: { names: {} }, registered_country: { iso_code: 'FR' } }, { country: 'FR' }],
  ['flat country_code, lower case', '192.0.2.4', { country_code: 'nl' }, { country: 'NL' }],
  ['iso_code in lower case', '192.0.2.5', { country: { iso_code: 'jp' } }, { country: 'JP' }],
  ['GeoLite2-ASN', '192.0.2.6', { autonomous_system_number: 64500, autonomous_system_organization: 'Example' }, { asn: 64500 }],
  ['asn as a number', '192.0.2.7', { asn: 64501 }, { asn: 64501 }],
  ['asn as text with AS prefix', '192.0.2.8', { asn: 'AS64502' }, { asn: 64502 }],
  ['asn as text, lower-case prefix', '192.0.2.9', { asn: 'as64503' }, { asn: 64503 }],
  ['asn as bare digits', '192.0.2.10', { asn: '64504' }, { asn: 64504 }],
  ['both, from a combined record', '192.0.2.11', { country: { iso_code: 'AR' }, autonomous_system_number: 64505 }, { country: 'AR', asn: 64505 }],
  ['asn that is not an integer', '192.0.2.12', { asn: 1.5 }, undefined],
  ['asn text that is not a number', '192.0.2.13', { asn: 'ASx1' }, undefined],
  ['asn text with too many digits', '192.0.2.14', { asn: 'AS12345678901' }, undefined],
  ['a country that is not text', '192.0.2.15', { country: { iso_code: 5 }, country_code: 7 }, undefined],
  ['a record without either', '192.0.2.16', { city: { names: {} } }, undefined],
  ['a record that is not an object', '192.0.2.17', 'BR', undefined],
  ['no record', '192.0.2.18', null, undefined],
  ['IPv6', '2001:db8::1', { country: { iso_code: 'BE' } }, { country: 'BE' }],
];

describe('geoIpFromMmdb record layouts', () => {
  it.each(LAYOUTS)('%s', async (_what, address, record, want) => {
    records.set(address, record);
    const { lookup, diagnostics } = await geoIpFromMmdb(new Uint8Array(16));
    expect(diagnostics).toEqual([]);
    expect(lookup.lookup(address)).toEqual(want);
  });

  it('asks the reader once per address, by its text, and caches misses too', async () => {
    records.set('198.51.100.7', { country: { iso_code: 'DE' } });
    const { lookup } = await geoIpFromMmdb(new Uint8Array(16));
    calls.get.length = 0;
    expect(lookup.lookupV4(0xc6336407)).toEqual({ country: 'DE' });
    expect(lookup.lookup('198.51.100.7')).toEqual({ country: 'DE' });
    expect(lookup.lookup('198.51.100.8')).toBeUndefined();
    expect(lookup.lookup('198.51.100.8')).toBeUndefined();
    const v6 = new Uint8Array(20);
    v6.set([0x20, 0x01, 0x0d, 0xb8], 2);
    v6[17] = 1;
    records.set('2001:db8::1', { country: { iso_code: 'BE' } });
    expect(lookup.lookupV6(v6, 2)).toEqual({ country: 'BE' });
    expect(calls.get).toEqual(['198.51.100.7', '198.51.100.8', '2001:db8::1']);
  });

  it('text that is not an address never reaches the reader; a reader error is a miss', async () => {
    const { lookup } = await geoIpFromMmdb(new Uint8Array(16));
    calls.get.length = 0;
    for (const bad of ['', 'example.com', '192.0.2', '1.2.3.4/24']) expect(lookup.lookup(bad)).toBeUndefined();
    expect(calls.get).toEqual([]);
    expect(lookup.lookup('192.0.2.99')).toBeUndefined();
    expect(calls.get).toEqual(['192.0.2.99']);
  });

  it('input that is not bytes, or that the reader refuses, is a diagnostic with a lookup that finds nothing', async () => {
    const notBytes = await geoIpFromMmdb('geo.mmdb' as unknown as Uint8Array);
    expect(notBytes.diagnostics.map((d) => [d.code, d.message])).toEqual([['capture-mmdb-invalid', 'The .mmdb input is not bytes (Uint8Array).']]);
    const refused = await geoIpFromMmdb(new Uint8Array(3));
    expect(refused.diagnostics.map((d) => d.code)).toEqual(['capture-mmdb-invalid']);
    expect(refused.diagnostics[0]!.message).toBe('The 3-byte input is not a readable MaxMind DB file: Cannot find metadata. Is it a GeoLite2/GeoIP2 .mmdb (not a .tar.gz or CSV)?');
    for (const r of [notBytes, refused]) {
      expect([r.lookup.lookup('192.0.2.1'), r.lookup.lookupV4(1), r.lookup.lookupV6(new Uint8Array(16), 0)]).toEqual([undefined, undefined, undefined]);
    }
  });

  it('reads the bytes of a view where they are (offset into a larger buffer)', async () => {
    calls.created.length = 0;
    const big = new Uint8Array(100);
    await geoIpFromMmdb(big.subarray(10, 30));
    expect(calls.created).toEqual([20]);
  });
});
