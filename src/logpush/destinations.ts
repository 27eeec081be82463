/**
 * Logpush destination schemes as data: what the part after `://` names, the query parameters each
 * scheme requires, and the `{DATE}` placeholder. Read by the job validator and by the docs.
 * @module
 */

/** One destination scheme of `destination_conf`. */
export interface DestinationScheme {
  scheme: string;
  /** What the first part after `://` names. */
  target: 'bucket' | 'container' | 'host';
  /** Query parameters the destination needs. */
  required: readonly string[];
  /** True when the service asks for an ownership challenge on create (the service's own rule, for s3). */
  ownershipChallenge: boolean;
  /** The documented shape. */
  form: string;
}

/** The recognised destination schemes (logpush.md "Log push jobs"). */
export const DESTINATION_SCHEMES: readonly DestinationScheme[] = [
  { scheme: 's3', target: 'bucket', required: ['region'], ownershipChallenge: true, form: 's3://<bucket>[/<path>]?region=<region>' },
  { scheme: 'r2', target: 'bucket', required: ['account-id', 'access-key-id', 'secret-access-key'], ownershipChallenge: false, form: 'r2://<bucket>[/<path>]?account-id=<id>&access-key-id=<key>&secret-access-key=<secret>' },
  { scheme: 'gs', target: 'bucket', required: [], ownershipChallenge: false, form: 'gs://<bucket>[/<path>]' },
  { scheme: 'azure', target: 'container', required: ['sig'], ownershipChallenge: false, form: 'azure://<container>[/<path>]?<SAS token with sig=…>' },
  { scheme: 'https', target: 'host', required: [], ownershipChallenge: false, form: 'https://<host>[/<path>][?header_<Name>=<value>…]' },
  { scheme: 'splunk', target: 'host', required: ['channel', 'header_Authorization'], ownershipChallenge: false, form: 'splunk://<host>[:<port>]/services/collector/raw?channel=<id>&header_Authorization=<token>' },
  { scheme: 'datadog', target: 'host', required: ['header_DD-API-KEY'], ownershipChallenge: false, form: 'datadog://<host>/v1/input?header_DD-API-KEY=<key>' },
  { scheme: 'sumo', target: 'host', required: [], ownershipChallenge: false, form: 'sumo://<host>/receiver/v1/http/<token>' },
];

/** Destination schemes by name. */
export const DESTINATION_BY_SCHEME: ReadonlyMap<string, DestinationScheme> = new Map(DESTINATION_SCHEMES.map((d) => [d.scheme, d]));

/** The date placeholder the service replaces in a destination path. */
export const DATE_PLACEHOLDER = '{DATE}';

/** A plausible AWS region name (`us-west-2`, `us-gov-west-1`, `eu-central-1`). */
export const S3_REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/;

/** A parsed `destination_conf`, with offsets into the string. */
export interface ParsedDestination {
  scheme: string;
  schemeRange: { start: number; end: number };
  /** Bucket / container / host. */
  target: string;
  targetRange: { start: number; end: number };
  path: string;
  pathRange: { start: number; end: number };
  params: { name: string; value: string; range: { start: number; end: number } }[];
}

/** Split a destination string; undefined when it is not `<scheme>://…`. */
export function parseDestination(s: string): ParsedDestination | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(s);
  if (!m) return undefined;
  const scheme = m[1]!;
  const restStart = m[0].length;
  const q = s.indexOf('?', restStart);
  const beforeQuery = q < 0 ? s.length : q;
  const slash = s.indexOf('/', restStart);
  const targetEnd = slash >= 0 && slash < beforeQuery ? slash : beforeQuery;
  const params: ParsedDestination['params'] = [];
  if (q >= 0) {
    let off = q + 1;
    for (const part of s.slice(q + 1).split('&')) {
      const eq = part.indexOf('=');
      const raw = eq < 0 ? part : part.slice(0, eq);
      let name = raw;
      try { name = decodeURIComponent(raw); } catch { /* keep raw */ }
      if (part.length > 0) params.push({ name, value: eq < 0 ? '' : part.slice(eq + 1), range: { start: off, end: off + part.length } });
      off += part.length + 1;
    }
  }
  return {
    scheme,
    schemeRange: { start: 0, end: scheme.length },
    target: s.slice(restStart, targetEnd),
    targetRange: { start: restStart, end: targetEnd },
    path: s.slice(targetEnd, beforeQuery),
    pathRange: { start: targetEnd, end: beforeQuery },
    params,
  };
}
