/** `geoIpFromCsv`: a country/ASN table from `cidr,country,asn` text. @module */
import { parseIpItem } from '../net/index.js';
import { captureDiagnostic, type CaptureDiagnostic } from './diagnostic.js';
import { GeoIpTable, type GeoIpEntry, type GeoIpInfo, type GeoIpLookup } from './geoip.js';

/** Limits of {@link geoIpFromCsv}. */
export interface GeoIpCsvOptions {
  /** Most characters read (default 256 MiB of text). */
  maxChars?: number;
  /** Most data lines read (default 5,000,000). */
  maxLines?: number;
}

/** A table and what was wrong with its text. */
export interface GeoIpLoad {
  lookup: GeoIpLookup;
  diagnostics: CaptureDiagnostic[];
}

const COUNTRY = /^[A-Za-z]{2}$/;
const ASN = /^(?:AS)?(\d{1,10})$/i;
const MAX_LINE_DIAGNOSTICS = 100;

function cell(raw: string | undefined): string {
  const t = (raw ?? '').trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).trim() : t;
}

/**
 * Read a `cidr,country,asn` table: one CIDR (or single address) per line, an ISO 3166-1 alpha-2 country
 * (may be empty) and an AS number (`13335` or `AS13335`, may be empty). A header line, blank lines and
 * `#` comments are skipped. Lookups pick the longest matching prefix. Bad lines are reported (with their
 * line number and character offset in `data.offset`) and skipped; never throws.
 *
 * @example geoIpFromCsv('cidr,country,asn\n192.0.2.0/24,BR,64500\n2001:db8::/32,DE,64501\n')
 */
export function geoIpFromCsv(text: string, options: GeoIpCsvOptions = {}): GeoIpLoad {
  const diagnostics: CaptureDiagnostic[] = [];
  const maxChars = options.maxChars ?? 256 * 1024 * 1024;
  const maxLines = options.maxLines ?? 5_000_000;
  const entries: GeoIpEntry[] = [];
  if (typeof text !== 'string') {
    diagnostics.push(captureDiagnostic('capture-geoip-bad-line', 0, 'The geo/ASN table is not text; nothing was read.'));
    return { lookup: new GeoIpTable([]), diagnostics };
  }
  if (text.length > maxChars) {
    diagnostics.push(
      captureDiagnostic('capture-geoip-too-large', maxChars, `The geo/ASN table has ${text.length} characters, above the limit of ${maxChars} (maxChars); only the first ${maxChars} were read.`, {
        limit: maxChars,
        measured: text.length,
      }),
    );
    text = text.slice(0, maxChars);
  }
  const seen = new Map<string, number>();
  const infos = new Map<string, GeoIpInfo>();
  let bad = 0;
  let lineNo = 0;
  let dataLines = 0;
  let start = 0;
  const report = (d: CaptureDiagnostic): void => {
    bad++;
    if (bad <= MAX_LINE_DIAGNOSTICS) diagnostics.push(d);
  };
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).replace(/\r$/, '');
    const at = start;
    lineNo++;
    start = end + 1;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      if (end === text.length) break;
      continue;
    }
    const cells = trimmed.split(',');
    const cidrText = cell(cells[0]);
    if (dataLines === 0 && entries.length === 0 && bad === 0 && /^[A-Za-z_ ]+$/.test(cidrText) && !cidrText.includes(':')) {
      // A header line such as `cidr,country,asn` or `network,country_iso_code,asn`.
      if (end === text.length) break;
      continue;
    }
    dataLines++;
    if (dataLines > maxLines) {
      diagnostics.push(
        captureDiagnostic('capture-geoip-too-large', at, `Line ${lineNo}: the geo/ASN table has more than ${maxLines} lines (maxLines); the rest was not read.`, { limit: maxLines, line: lineNo }),
      );
      break;
    }
    const item = parseIpItem(cidrText);
    if (!item.ok || item.kind === 'range') {
      const why = item.ok ? 'a range is not a CIDR block' : item.reason;
      report(captureDiagnostic('capture-geoip-bad-line', at, `Line ${lineNo}: ${why}; expected cidr,country,asn. The line was skipped.`, { line: lineNo }));
      continue;
    }
    const countryText = cell(cells[1]);
    const asnText = cell(cells[2]);
    if (countryText !== '' && !COUNTRY.test(countryText)) {
      report(
        captureDiagnostic('capture-geoip-bad-line', at, `Line ${lineNo}: country ${JSON.stringify(countryText.slice(0, 20))} is not a two-letter ISO 3166-1 code; the line was skipped.`, {
          line: lineNo,
        }),
      );
      continue;
    }
    const asnMatch = ASN.exec(asnText);
    const asn = asnMatch ? Number(asnMatch[1]) : undefined;
    if (asnText !== '' && (asn === undefined || asn > 4294967295)) {
      report(
        captureDiagnostic('capture-geoip-bad-line', at, `Line ${lineNo}: AS number ${JSON.stringify(asnText.slice(0, 20))} is not a number 0..4294967295 (optionally prefixed AS); the line was skipped.`, {
          line: lineNo,
        }),
      );
      continue;
    }
    const first = item.range.first.bytes;
    const last = item.range.last.bytes;
    const prefix = prefixLength(first, last);
    const key = `${Array.from(first).join('.')}/${prefix}`;
    const prev = seen.get(key);
    if (prev !== undefined) {
      report(captureDiagnostic('capture-geoip-duplicate', at, `Line ${lineNo}: ${cidrText} already appeared on line ${prev}; this later line wins.`, { line: lineNo, firstLine: prev }));
    }
    seen.set(key, lineNo);
    const country = countryText === '' ? undefined : countryText.toUpperCase();
    // Share one info object per distinct value so adjacent ranges merge and memory stays small.
    const infoKey = `${country ?? ''}|${asn ?? ''}`;
    let info = infos.get(infoKey);
    if (!info) {
      info = Object.freeze({ ...(country !== undefined ? { country } : {}), ...(asn !== undefined ? { asn } : {}) });
      infos.set(infoKey, info);
    }
    entries.push({ first, last, prefix, info });
    if (end === text.length) break;
  }
  if (bad > MAX_LINE_DIAGNOSTICS) {
    diagnostics.push(
      captureDiagnostic('capture-geoip-bad-line', text.length, `${bad - MAX_LINE_DIAGNOSTICS} more bad lines were skipped without a diagnostic each (limit ${MAX_LINE_DIAGNOSTICS}).`, {
        limit: MAX_LINE_DIAGNOSTICS,
        measured: bad,
      }),
    );
  }
  return { lookup: new GeoIpTable(entries), diagnostics };
}

/** Prefix length of the CIDR block [first, last] (the count of leading bits they share). */
function prefixLength(first: Uint8Array, last: Uint8Array): number {
  let bits = 0;
  for (let i = 0; i < first.length; i++) {
    const x = first[i]! ^ last[i]!;
    if (x === 0) {
      bits += 8;
      continue;
    }
    bits += Math.clz32(x) - 24;
    break;
  }
  return bits;
}
