/**
 * HTTP request records: a request in the readers' common shape ({@link HttpRequest}, what NDJSON lines and
 * HAR entries become) → the record the expression interpreter and the compiled matcher read, field name →
 * value, for every field of `src/expression/http-fields.ts` that the request determines.
 *
 * Record shapes (the contract with the expression pipeline): `Array<T>` fields are JS arrays; `Map<T>`
 * fields are real `Map<string, T>` objects (never plain objects: a header named `__proto__` is safe);
 * header map keys are lower-cased; cookie names are URL-decoded and keep their case (the fields reference
 * says so of `http.request.cookies`; the shared contract's "lower-cased" is for headers only); argument
 * and form names are kept as sent; Integer and Number fields are JS numbers; Bytes fields are
 * strings. A field the request does not determine is absent (missing), never a made-up value.
 * {@link HTTP_RECORD_SOURCES} says where each field comes from; docs/http-requests.md shows it.
 * @module
 */
import { HTTP_DEPRECATED_ALIASES } from '../expression/index.js';
import { normalizePath, pathExtension, splitPairs, splitUrl, type UrlParts } from './url.js';

/** A header or cookie as sent: name and value. */
export type NameValue = readonly [name: string, value: string];

/** A request in the readers' common shape. */
export interface HttpRequest {
  /** The method as sent (records hold it upper-cased). */
  method: string;
  /** An absolute URL (`https://example.com/a?b=1`) or an origin-form target (`/a?b=1`, host from the Host header). */
  url: string;
  /** `HTTP/1.1`, `HTTP/2`, `h2`, `HTTP/3`… (records hold `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`). */
  httpVersion?: string;
  /** Headers in the order sent; HTTP/2 pseudo-headers (`:authority`) are read for the host only. */
  headers: readonly NameValue[];
  /** Cookies, used only when the request has no Cookie header (HAR files list them apart). */
  cookies?: readonly NameValue[];
  /** The body as text. */
  body?: string;
  /** The body's size in bytes when it is known to differ from the UTF-8 length of `body`. */
  bodySize?: number;
  /** The client's address (`ip.src`). */
  clientIp?: string;
  /** The address the request was sent to (`cf.edge.server_ip`). */
  serverIp?: string;
  /** ISO 3166-1 alpha-2 country of the client (`ip.src.country`). */
  country?: string;
  /** AS number of the client (`ip.src.asnum`). */
  asn?: number;
  /** When the request was received, in milliseconds since the Unix epoch. */
  timestamp?: number;
  /** The response, when known (response phases read it). */
  response?: { status?: number; headers: readonly NameValue[] };
  /** Values of any other fields, already in record shape (they override derived ones). */
  fields?: Readonly<Record<string, unknown>>;
}

/** Where each field of a record comes from, in the order of docs/http-requests.md's table. */
export const HTTP_RECORD_SOURCES: readonly (readonly [field: string, source: string])[] = [
  ['http.request.method', 'method, upper-cased'],
  ['http.request.version', 'httpVersion: HTTP/1.0, HTTP/1.1, HTTP/2 (h2, HTTP/2.0), HTTP/3 (h3)'],
  ['http.host', 'the Host header (HTTP/2 :authority), else the URL\'s host and port'],
  ['ssl', 'the URL\'s scheme is https (wss)'],
  ['cf.edge.server_port', 'the URL\'s port, else 443 for https and 80 for http'],
  ['cf.edge.server_ip', 'serverIp (HAR: serverIPAddress)'],
  ['cf.edge.client_tcp', 'false for HTTP/3 (QUIC), else true'],
  ['raw.http.request.uri.path', 'the URL\'s path as sent'],
  ['http.request.uri.path', 'the path after URL normalization (\\ → /, // → /, RFC 3986)'],
  ['raw.http.request.uri.path.extension', 'the raw path\'s last segment after its last dot'],
  ['http.request.uri.path.extension', 'the same of the normalized path, lower-cased'],
  ['raw.http.request.uri.query', 'the URL\'s query string as sent, without ?'],
  ['http.request.uri.query', 'the same (the query is not normalized)'],
  ['raw.http.request.uri', 'raw path and ?query'],
  ['http.request.uri', 'normalized path and ?query'],
  ['raw.http.request.full_uri', 'scheme://host, raw path and ?query'],
  ['http.request.full_uri', 'scheme://host, normalized path and ?query'],
  ['http.request.uri.args', 'the query\'s name=value pairs, not decoded: name → values'],
  ['http.request.uri.args.names', 'their names in order'],
  ['http.request.uri.args.values', 'their values in order'],
  ['raw.http.request.uri.args', 'as http.request.uri.args'],
  ['raw.http.request.uri.args.names', 'as http.request.uri.args.names'],
  ['raw.http.request.uri.args.values', 'as http.request.uri.args.values'],
  ['http.request.headers', 'headers: lower-cased name → values in order'],
  ['http.request.headers.names', 'header names as sent'],
  ['http.request.headers.values', 'header values as sent'],
  ['http.request.headers.truncated', 'false (every header given is read)'],
  ['http.user_agent', 'the first User-Agent header'],
  ['http.referer', 'the first Referer header'],
  ['http.x_forwarded_for', 'the X-Forwarded-For headers joined with ", "'],
  ['http.cookie', 'the Cookie headers joined with "; " (else the cookies list written so)'],
  ['http.request.cookies', 'the cookies: URL-decoded name → values'],
  ['http.request.accepted_languages', 'the Accept-Language tags by weight, * left out'],
  ['http.request.body.raw', 'body'],
  ['http.request.body.size', 'bodySize, else the UTF-8 length of body'],
  ['http.request.body.truncated', 'false when the body is given'],
  ['http.request.body.form', 'an application/x-www-form-urlencoded body\'s pairs, not decoded'],
  ['http.request.body.form.names', 'their names in order'],
  ['http.request.body.form.values', 'their values in order'],
  ['http.request.body.multipart', 'a multipart/form-data body: part name → values'],
  ['http.request.body.multipart.names', 'each part\'s names'],
  ['http.request.body.multipart.values', 'each part\'s value'],
  ['http.request.body.multipart.content_types', 'each part\'s Content-Type headers'],
  ['http.request.body.multipart.content_dispositions', 'each part\'s Content-Disposition headers'],
  ['http.request.body.multipart.content_transfer_encodings', 'each part\'s Content-Transfer-Encoding headers'],
  ['http.request.body.multipart.filenames', 'each part\'s filename parameters'],
  ['http.request.timestamp.sec', 'timestamp (HAR: startedDateTime), whole seconds'],
  ['http.request.timestamp.msec', 'its milliseconds, 0–999'],
  ['ip.src', 'clientIp'],
  ['ip.src.country', 'country, else the --geoip table'],
  ['ip.src.asnum', 'asn, else the --geoip table'],
  ['cf.threat_score', '0 (the reference: "now always 0")'],
  ['cf.worker.upstream_zone', '"" (the reference: empty when not from a worker)'],
  ['http.response.code', 'response.status (HAR: 0 means no response: missing)'],
  ['http.response.headers', 'response headers: lower-cased name → values'],
  ['http.response.headers.names', 'response header names as sent'],
  ['http.response.headers.values', 'response header values as sent'],
  ['raw.http.response.headers', 'as http.response.headers'],
  ['raw.http.response.headers.names', 'as http.response.headers.names'],
  ['raw.http.response.headers.values', 'as http.response.headers.values'],
  ['http.response.content_type.media_type', 'the response\'s Content-Type without parameters, lower-cased'],
  ['cf.response.1xxx_code', '0 when a response is given (the reference\'s default)'],
  ['cf.response.error_type', '"" when a response is given (the reference\'s default)'],
];

/** Values of a header list by lower-cased name, in order. */
function headerMap(headers: readonly NameValue[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  }
  return map;
}

/** name → values of pairs, in order. */
function pairMap(pairs: readonly NameValue[], key: (name: string) => string = (n) => n): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const k = key(name);
    const list = map.get(k);
    if (list) list.push(value);
    else map.set(k, [value]);
  }
  return map;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name; // a bad escape is kept as sent
  }
}

/** `a=1; b=2` → pairs (a piece without `=` is a name with an empty value). */
export function parseCookieHeader(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const piece of text.split(';')) {
    const p = piece.trim();
    if (!p) continue;
    const eq = p.indexOf('=');
    out.push(eq < 0 ? [p, ''] : [p.slice(0, eq).trim(), p.slice(eq + 1).trim()]);
  }
  return out;
}

/** The version as the field holds it. */
function httpVersion(v: string | undefined): string | undefined {
  if (v === undefined || v === '') return undefined;
  const s = v.trim().toUpperCase();
  if (s === 'H2' || s === 'HTTP/2' || s === 'HTTP/2.0') return 'HTTP/2';
  if (s === 'H3' || s === 'HTTP/3' || s === 'HTTP/3.0' || s.startsWith('H3-')) return 'HTTP/3';
  return s;
}

/** Accept-Language tags by weight (stable), `*` and `q=0` left out. */
function acceptedLanguages(values: readonly string[]): string[] {
  const tags: { tag: string; q: number; i: number }[] = [];
  for (const v of values) {
    for (const part of v.split(',')) {
      const [tag, ...params] = part.split(';').map((s) => s.trim());
      if (!tag || tag === '*') continue;
      const qp = params.find((p) => /^q=/i.test(p));
      const q = qp ? Number(qp.slice(2)) : 1;
      if (!Number.isFinite(q) || q <= 0) continue;
      tags.push({ tag, q, i: tags.length });
    }
  }
  return tags.sort((a, b) => b.q - a.q || a.i - b.i).map((t) => t.tag);
}

/** A header parameter (`boundary`, `name`, `filename`) of a header value, unquoted. */
function headerParam(value: string, name: string): string | undefined {
  const re = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i');
  const m = re.exec(value);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!.trim();
}

/** The multipart fields of a multipart/form-data body, given to `put`. */
function multipartFields(body: string, boundary: string, put: (field: string, value: unknown) => void): void {
  const delimiter = `--${boundary}`;
  const pieces = body.split(delimiter).slice(1);
  const names: string[][] = [];
  const values: string[] = [];
  const types: string[][] = [];
  const dispositions: string[][] = [];
  const encodings: string[][] = [];
  const filenames: string[][] = [];
  const map = new Map<string, string[]>();
  for (const piece of pieces) {
    if (piece.startsWith('--')) break; // the close delimiter
    const part = piece.replace(/^\r?\n/, '');
    const split = /\r?\n\r?\n/.exec(part);
    const head = split ? part.slice(0, split.index) : part;
    let value = split ? part.slice(split.index + split[0].length) : '';
    value = value.replace(/\r?\n$/, '');
    const headers = headerMap(
      head
        .split(/\r?\n/)
        .filter((l) => l.includes(':'))
        .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()] as const),
    );
    const disp = headers.get('content-disposition') ?? [];
    const partNames = disp.map((d) => headerParam(d, 'name')).filter((n): n is string => n !== undefined);
    names.push(partNames);
    values.push(value);
    types.push(headers.get('content-type') ?? []);
    dispositions.push(disp);
    encodings.push(headers.get('content-transfer-encoding') ?? []);
    filenames.push(disp.map((d) => headerParam(d, 'filename')).filter((n): n is string => n !== undefined));
    for (const n of partNames) {
      const list = map.get(n);
      if (list) list.push(value);
      else map.set(n, [value]);
    }
  }
  put('http.request.body.multipart', map);
  put('http.request.body.multipart.names', names);
  put('http.request.body.multipart.values', values);
  put('http.request.body.multipart.content_types', types);
  put('http.request.body.multipart.content_dispositions', dispositions);
  put('http.request.body.multipart.content_transfer_encodings', encodings);
  put('http.request.body.multipart.filenames', filenames);
}

const utf8 = new TextEncoder();

// Groups of fields built together: a record for a ruleset builds only the groups its rules read.
const HEADER_FIELDS = ['http.request.headers', 'http.request.headers.names', 'http.request.headers.values', 'http.request.headers.truncated'];
const URI_FIELDS = HTTP_RECORD_SOURCES.map(([f]) => f).filter((f) => /^(raw\.)?http\.request\.(uri|full_uri)/.test(f) && !f.includes('.args'));
const ARG_FIELDS = HTTP_RECORD_SOURCES.map(([f]) => f).filter((f) => f.includes('.uri.args'));
const FORM_FIELDS = ['http.request.body.form', 'http.request.body.form.names', 'http.request.body.form.values'];
const MULTIPART_FIELDS = HTTP_RECORD_SOURCES.map(([f]) => f).filter((f) => f.startsWith('http.request.body.multipart'));
const RESPONSE_HEADER_FIELDS = HTTP_RECORD_SOURCES.map(([f]) => f).filter((f) => /^(raw\.)?http\.response\.headers/.test(f));

/** The fields a record for `fields` holds: those, and the fields deprecated names among them read. */
const wantedCache = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();
function wantedFields(fields: ReadonlySet<string>): ReadonlySet<string> {
  let out = wantedCache.get(fields);
  if (!out) {
    const all = new Set(fields);
    for (const f of fields) {
      const of = HTTP_DEPRECATED_ALIASES[f];
      if (of !== undefined) all.add(of);
    }
    wantedCache.set(fields, (out = all));
  }
  return out;
}

/**
 * The record of a request (see the module comment). A target that is neither an absolute URL nor an
 * origin-form path gives no URI fields (the readers report it). With `fields` (the fields a ruleset
 * reads), the record holds only those: the maps and arrays of the others are not built. Measured
 * in-process on 100k requests through a 4-rule ruleset reading 5 fields: 0.31–0.40× the time of
 * building every field (machine load 13 on 2 cores).
 */
export function requestRecord(req: HttpRequest, fields?: ReadonlySet<string>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  const wanted = fields && wantedFields(fields);
  const put = wanted ? (k: string, v: unknown) => void (wanted.has(k) && (r[k] = v)) : (k: string, v: unknown) => void (r[k] = v);
  const wants = (group: readonly string[]) => !wanted || group.some((f) => wanted.has(f));
  put('http.request.method', req.method.toUpperCase());
  const version = httpVersion(req.httpVersion);
  if (version !== undefined) {
    put('http.request.version', version);
    put('cf.edge.client_tcp', version !== 'HTTP/3');
  }
  const pseudo = req.headers.filter(([n]) => n.startsWith(':'));
  const sent = req.headers.filter(([n]) => !n.startsWith(':'));
  const headers = headerMap(sent);
  if (wants(HEADER_FIELDS)) {
    put('http.request.headers', headers);
    put('http.request.headers.names', sent.map(([n]) => n));
    put('http.request.headers.values', sent.map(([, v]) => v));
    put('http.request.headers.truncated', false);
  }

  const url: UrlParts | undefined = splitUrl(req.url);
  const authority = pseudo.find(([n]) => n.toLowerCase() === ':authority')?.[1];
  const host = headers.get('host')?.[0] ?? authority ?? url?.authority;
  if (host !== undefined) put('http.host', host);
  const scheme = url?.scheme ?? pseudo.find(([n]) => n.toLowerCase() === ':scheme')?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    put('ssl', scheme === 'https' || scheme === 'wss');
    const port = url?.port ?? (scheme === 'https' || scheme === 'wss' ? 443 : scheme === 'http' || scheme === 'ws' ? 80 : undefined);
    if (port !== undefined) put('cf.edge.server_port', port);
  }
  if (url && wants(URI_FIELDS)) {
    const normalized = normalizePath(url.path);
    const q = url.query !== undefined ? `?${url.query}` : '';
    put('raw.http.request.uri.path', url.path);
    put('http.request.uri.path', normalized);
    put('raw.http.request.uri.path.extension', pathExtension(url.path));
    put('http.request.uri.path.extension', pathExtension(normalized).toLowerCase());
    put('raw.http.request.uri.query', url.query ?? '');
    put('http.request.uri.query', url.query ?? '');
    put('raw.http.request.uri', url.path + q);
    put('http.request.uri', normalized + q);
    const origin = scheme !== undefined && host !== undefined ? `${scheme}://${host}` : undefined;
    if (origin !== undefined) {
      put('raw.http.request.full_uri', origin + url.path + q);
      put('http.request.full_uri', origin + normalized + q);
    }
  }
  if (url && wants(ARG_FIELDS)) {
    const args = splitPairs(url.query ?? '');
    for (const prefix of ['', 'raw.']) {
      put(`${prefix}http.request.uri.args`, pairMap(args));
      put(`${prefix}http.request.uri.args.names`, args.map(([n]) => n));
      put(`${prefix}http.request.uri.args.values`, args.map(([, v]) => v));
    }
  }

  const first = (name: string) => headers.get(name)?.[0];
  if (first('user-agent') !== undefined) put('http.user_agent', first('user-agent'));
  if (first('referer') !== undefined) put('http.referer', first('referer'));
  if (headers.has('x-forwarded-for')) put('http.x_forwarded_for', headers.get('x-forwarded-for')!.join(', '));
  const cookieHeaders = headers.get('cookie');
  if (cookieHeaders) put('http.cookie', cookieHeaders.join('; '));
  else if (req.cookies?.length) put('http.cookie', req.cookies.map(([n, v]) => `${n}=${v}`).join('; '));
  if (wants(['http.request.cookies'])) put('http.request.cookies', pairMap((cookieHeaders ? cookieHeaders.flatMap(parseCookieHeader) : req.cookies) ?? [], decodeName));
  if (headers.has('accept-language') && wants(['http.request.accepted_languages'])) put('http.request.accepted_languages', acceptedLanguages(headers.get('accept-language')!));

  if (req.body !== undefined) {
    put('http.request.body.raw', req.body);
    put('http.request.body.size', req.bodySize ?? utf8.encode(req.body).length);
    put('http.request.body.truncated', false);
    const type = first('content-type') ?? '';
    const media = type.split(';')[0]!.trim().toLowerCase();
    if (media === 'application/x-www-form-urlencoded' && wants(FORM_FIELDS)) {
      const pairs = splitPairs(req.body);
      put('http.request.body.form', pairMap(pairs));
      put('http.request.body.form.names', pairs.map(([n]) => n));
      put('http.request.body.form.values', pairs.map(([, v]) => v));
    } else if (media === 'multipart/form-data' && wants(MULTIPART_FIELDS)) {
      const boundary = headerParam(type, 'boundary');
      if (boundary) multipartFields(req.body, boundary, put);
    }
  } else if (req.bodySize !== undefined) put('http.request.body.size', req.bodySize);

  if (req.timestamp !== undefined) {
    put('http.request.timestamp.sec', Math.floor(req.timestamp / 1000));
    put('http.request.timestamp.msec', ((Math.floor(req.timestamp) % 1000) + 1000) % 1000);
  }
  if (req.clientIp !== undefined) put('ip.src', req.clientIp);
  if (req.serverIp !== undefined) put('cf.edge.server_ip', req.serverIp);
  if (req.country !== undefined) put('ip.src.country', req.country);
  if (req.asn !== undefined) put('ip.src.asnum', req.asn);
  put('cf.threat_score', 0);
  put('cf.worker.upstream_zone', '');

  const res = req.response;
  if (res) {
    if (res.status !== undefined) put('http.response.code', res.status);
    const rh = headerMap(res.headers);
    if (wants(RESPONSE_HEADER_FIELDS)) {
      for (const prefix of ['', 'raw.']) {
        put(`${prefix}http.response.headers`, prefix ? headerMap(res.headers) : rh);
        put(`${prefix}http.response.headers.names`, res.headers.map(([n]) => n));
        put(`${prefix}http.response.headers.values`, res.headers.map(([, v]) => v));
      }
    }
    const ct = rh.get('content-type')?.[0];
    if (ct !== undefined) put('http.response.content_type.media_type', ct.split(';')[0]!.trim().toLowerCase());
    put('cf.response.1xxx_code', 0);
    put('cf.response.error_type', '');
  }
  if (req.fields) for (const [k, v] of Object.entries(req.fields)) r[k] = v;
  return r;
}
