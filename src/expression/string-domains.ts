/**
 * The values some String fields hold, from a known table: `ip.proto` the IANA protocol keywords, the
 * country fields ISO 3166-1 codes, the continent fields the seven continent codes and `T1`, the method the
 * HTTP methods. Where the analysis needs a value of such a field (a witness of a region, a packet a rule
 * decides) it picks one of the table's, so that `ip.proto outside {"icmp"}` is shown with `"tcp"`, not
 * with a string no packet carries; other String fields are free text, any string does.
 *
 * `closed`: the field holds nothing else (a value outside the table never matches in the service, the
 * checker warns about it: `unknown-protocol`, `invalid-country-code`). An open table lists the common
 * values of a field that may carry others (a client may send any method token). The analysis still
 * reasons over every string; the tables only choose the values it shows.
 * `test/diff/witness-string-domains.test.ts` holds every witness of these fields inside its table.
 * @module
 */
import { IP_PROTOCOL_NAMES } from '../net/index.js';
import { COUNTRY_CODES } from './countries.js';
import type { FieldDef } from './scheme.js';

/** A field's known values, most usual first (a witness takes the first one the region allows). */
export interface StringDomain {
  /** The values, most usual first. */
  values: readonly string[];
  /** Whether the field can hold only these values. */
  closed: boolean;
  /** Where the table comes from. */
  why: string;
}

/** The protocol keywords, the common ones first (a witness reads best as `tcp`). */
const PROTOCOLS: StringDomain = {
  values: [...new Set(['tcp', 'udp', 'icmp', 'ipv6-icmp', 'gre', 'esp', ...IP_PROTOCOL_NAMES])],
  closed: true,
  why: 'IANA protocol keywords in lower case, or the decimal number of one without a keyword (src/net/ip-protocols.ts)',
};

const COUNTRIES: StringDomain = {
  values: [...COUNTRY_CODES],
  closed: true,
  why: 'ISO 3166-1 alpha-2 codes, and XX (unknown) and T1 (Tor) (src/expression/countries.ts)',
};

const CONTINENTS: StringDomain = {
  values: ['EU', 'NA', 'AS', 'SA', 'AF', 'OC', 'AN', 'T1'],
  closed: true,
  why: 'continent codes and T1 for Tor (ruleset-engine/rules-language/fields/reference/ip.src.continent)',
};

/** The String fields with a table of values, by name (aliases read their field's row). */
export const STRING_FIELD_DOMAINS: Readonly<Record<string, StringDomain>> = {
  'ip.proto': PROTOCOLS,
  'ip.src.country': COUNTRIES,
  'ip.dst.country': COUNTRIES,
  'ip.geoip.country': COUNTRIES,
  'ip.src.continent': CONTINENTS,
  'ip.geoip.continent': CONTINENTS,
  'http.request.method': {
    values: ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE'],
    closed: false,
    why: 'the methods of RFC 9110 and PATCH (RFC 5789), in upper case as the field holds them; a client may send other tokens',
  },
  'http.request.version': {
    values: ['HTTP/1.1', 'HTTP/2', 'HTTP/3', 'HTTP/1.0'],
    closed: false,
    why: 'the versions the edge speaks, as the field writes them (fields reference, http.request.version)',
  },
};

/** The table of a field's values, if it has one (a field with country codes has the countries'). */
export function stringDomainOf(field: FieldDef | undefined, name: string): StringDomain | undefined {
  return STRING_FIELD_DOMAINS[name] ?? (field?.aliasOf !== undefined ? STRING_FIELD_DOMAINS[field.aliasOf] : undefined) ?? (field?.country ? COUNTRIES : undefined);
}
