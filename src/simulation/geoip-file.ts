/**
 * A country/ASN table from a file: CSV (`cidr,country,asn`) or a MaxMind `.mmdb`, told apart by content.
 * @module
 */
import { readFileSync } from 'node:fs';
import { geoIpFromCsv, geoIpFromMmdb, GeoIpTable, type GeoIpLookup } from '../capture/index.js';
import type { Diagnostic } from '../diagnostics/index.js';

/** The end marker of a MaxMind DB's metadata section ("\xab\xcd\xefMaxMind.com"). */
const MMDB_METADATA = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com')]);

/**
 * Load a table. A file none of whose lines is an entry is an error (`simulation-bad-geoip`): the
 * line-by-line warnings would otherwise hide that the file is not a table at all.
 */
export async function loadGeoIpFile(path: string): Promise<{ lookup: GeoIpLookup | undefined; diagnostics: Diagnostic[] }> {
  const bytes = readFileSync(path);
  const mmdb = path.endsWith('.mmdb') || bytes.lastIndexOf(MMDB_METADATA) >= 0;
  const load = mmdb ? await geoIpFromMmdb(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)) : geoIpFromCsv(bytes.toString('utf8'));
  const diagnostics: Diagnostic[] = [...load.diagnostics];
  const empty = load.lookup instanceof GeoIpTable && load.lookup.size === 0;
  if (empty || diagnostics.some((d) => d.severity === 'error')) {
    return {
      lookup: undefined,
      diagnostics: [
        {
          code: 'simulation-bad-geoip',
          severity: 'error',
          message: `${path} is not a country/ASN table: ${empty ? 'no line of it is an entry' : 'it could not be read'}; give a CSV of cidr,country,asn lines or a MaxMind .mmdb file`,
          data: { path },
        },
        ...diagnostics.slice(0, 5),
      ],
    };
  }
  return { lookup: load.lookup, diagnostics };
}
