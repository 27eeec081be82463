/**
 * The Logpush dataset catalogs as data: `http_requests`, `firewall_events`, `dns_logs`, `spectrum_events`.
 * The rows are generated from the reference field lists (see scripts/gen-datasets.ts).
 * @module
 */
import type { Dataset, DatasetField, FieldRow } from './types.js';
import { HTTP_REQUESTS_FIELDS } from './http-requests.js';
import { FIREWALL_EVENTS_FIELDS } from './firewall-events.js';
import { DNS_LOGS_FIELDS } from './dns-logs.js';
import { SPECTRUM_EVENTS_FIELDS } from './spectrum-events.js';

export type { Dataset, DatasetField, FieldRow, FieldType } from './types.js';

function build(name: string, rows: readonly FieldRow[]): Dataset {
  const fields: DatasetField[] = rows.map(([n, type, description, deprecated]) =>
    Object.freeze({ name: n, type, description, deprecated: deprecated === true }),
  );
  return Object.freeze({ name, fields: Object.freeze(fields), byName: new Map(fields.map((f) => [f.name, f])) });
}

/** Every catalogued dataset, keyed by its API name. */
export const DATASETS: ReadonlyMap<string, Dataset> = new Map([
  ['http_requests', build('http_requests', HTTP_REQUESTS_FIELDS)],
  ['firewall_events', build('firewall_events', FIREWALL_EVENTS_FIELDS)],
  ['dns_logs', build('dns_logs', DNS_LOGS_FIELDS)],
  ['spectrum_events', build('spectrum_events', SPECTRUM_EVENTS_FIELDS)],
]);

/** The names of the catalogued datasets. */
export const DATASET_NAMES: readonly string[] = [...DATASETS.keys()];

/** The catalog of a dataset, or undefined when it is not catalogued. */
export function getDataset(name: string): Dataset | undefined {
  return typeof name === 'string' ? DATASETS.get(name) : undefined;
}

/**
 * Fields the public docs say cannot be filtered on although their type would allow it
 * (firewall_events, cloudflare-docs PR #4864). A filter on them is a warning, not an error.
 */
export const UNFILTERABLE_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['firewall_events', new Set(['Action', 'Kind', 'MatchIndex', 'Metadata', 'OriginatorRayID', 'RuleID', 'Source'])],
]);

/** Names in `fields` of an `http_requests` job that add the zone's custom log fields. */
export const CUSTOM_FIELD_OBJECTS = ['RequestHeaders', 'ResponseHeaders', 'Cookies'] as const;
