/**
 * `geoIpFromMmdb`: lookups from a MaxMind-format database (GeoLite2-Country, GeoLite2-ASN, GeoIP2 and
 * compatible files) through the `mmdb-lib` reader. `mmdb-lib` works on a Node `Buffer` and creates one
 * when its module loads, so it is imported lazily here: the rest of the capture module loads in a browser
 * without it, and in a browser the reader works where the bundler provides a `Buffer` polyfill.
 * @module
 */
import { captureDiagnostic } from './diagnostic.js';
import type { GeoIpInfo, GeoIpLookup } from './geoip.js';
import type { GeoIpLoad } from './geoip-csv.js';
import { ipv6Text } from './address-text.js';
import { addressBytes } from './geoip.js';

interface MmdbReader {
  get(ip: string): unknown;
}
type ReaderClass = new (db: Uint8Array) => MmdbReader;
type BufferLike = { from(b: ArrayBufferLike, offset: number, length: number): Uint8Array };

const CACHE_LIMIT = 65536;

/** Country and ASN out of one database record, whichever of the known layouts it has. */
function infoOf(rec: unknown): GeoIpInfo | undefined {
  if (!rec || typeof rec !== 'object') return undefined;
  const r = rec as Record<string, unknown>;
  const iso = (o: unknown): string | undefined => {
    const v = o && typeof o === 'object' ? (o as Record<string, unknown>).iso_code : undefined;
    return typeof v === 'string' ? v.toUpperCase() : undefined;
  };
  let country = iso(r.country) ?? iso(r.registered_country);
  if (country === undefined && typeof r.country_code === 'string') country = r.country_code.toUpperCase();
  let asn: number | undefined;
  const a = r.autonomous_system_number ?? r.asn;
  if (typeof a === 'number' && Number.isInteger(a)) asn = a;
  else if (typeof a === 'string' && /^(?:AS)?\d{1,10}$/i.test(a)) asn = Number(a.replace(/^AS/i, ''));
  if (country === undefined && asn === undefined) return undefined;
  return { ...(country !== undefined ? { country } : {}), ...(asn !== undefined ? { asn } : {}) };
}

class MmdbLookup implements GeoIpLookup {
  private readonly cache = new Map<string, GeoIpInfo | null>();
  constructor(private readonly reader: MmdbReader) {}

  lookup(address: string): GeoIpInfo | undefined {
    let hit = this.cache.get(address);
    if (hit === undefined) {
      let info: GeoIpInfo | undefined;
      if (addressBytes(address)) {
        try {
          info = infoOf(this.reader.get(address));
        } catch {
          info = undefined;
        }
      }
      hit = info ?? null;
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(address, hit);
    }
    return hit ?? undefined;
  }

  lookupV4(address: number): GeoIpInfo | undefined {
    return this.lookup(`${address >>> 24}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}`);
  }

  lookupV6(bytes: Uint8Array, offset: number): GeoIpInfo | undefined {
    return this.lookup(ipv6Text(bytes, offset));
  }
}

/**
 * Open a MaxMind DB (`.mmdb`) held in memory. Country comes from `country.iso_code` (else
 * `registered_country.iso_code`, else a flat `country_code`), the AS number from
 * `autonomous_system_number` (or `asn`). Combine a country and an ASN database with `combineGeoIp`.
 * Asynchronous because the reader library is loaded on first use; never throws.
 */
export async function geoIpFromMmdb(bytes: Uint8Array): Promise<GeoIpLoad> {
  const empty: GeoIpLookup = { lookup: () => undefined, lookupV4: () => undefined, lookupV6: () => undefined };
  const B = (globalThis as { Buffer?: BufferLike }).Buffer;
  if (!B) {
    return {
      lookup: empty,
      diagnostics: [
        captureDiagnostic('capture-mmdb-unavailable', 0, 'Reading .mmdb files needs a Buffer implementation (Node.js, or a bundler\'s "buffer" polyfill in a browser); use a cidr,country,asn CSV table instead.'),
      ],
    };
  }
  let Reader: ReaderClass;
  try {
    const mod = (await import('mmdb-lib')) as unknown as { Reader?: ReaderClass; default?: { Reader?: ReaderClass } };
    Reader = (mod.Reader ?? mod.default?.Reader)!;
    if (typeof Reader !== 'function') throw new Error('mmdb-lib has no Reader export');
  } catch (err) {
    return {
      lookup: empty,
      diagnostics: [captureDiagnostic('capture-mmdb-unavailable', 0, `The .mmdb reader library (mmdb-lib) could not be loaded: ${err instanceof Error ? err.message : String(err)}.`)],
    };
  }
  if (!(bytes instanceof Uint8Array)) {
    return { lookup: empty, diagnostics: [captureDiagnostic('capture-mmdb-invalid', 0, 'The .mmdb input is not bytes (Uint8Array).')] };
  }
  try {
    const reader = new Reader(B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return { lookup: new MmdbLookup(reader), diagnostics: [] };
  } catch (err) {
    return {
      lookup: empty,
      diagnostics: [
        captureDiagnostic('capture-mmdb-invalid', 0, `The ${bytes.length}-byte input is not a readable MaxMind DB file: ${err instanceof Error ? err.message : String(err)}. Is it a GeoLite2/GeoIP2 .mmdb (not a .tar.gz or CSV)?`),
      ],
    };
  }
}
