/**
 * Logpush `http_requests` lines as requests: the lines a zone pushes are the traffic its HTTP rules decide.
 * {@link LOGPUSH_REQUEST_FIELDS} is the one table from the dataset's fields to the rule fields each one
 * determines (a test holds both sides against the two catalogs); {@link logpushRecord} builds the record
 * the rules read from a line, without the rule fields whose Logpush fields the line lacks — a field the
 * line does not carry is missing, never guessed — and says which those are, so that a rule reading them
 * is reported as undecided over the lines.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkExpression, HTTP_SCHEME, referencedFields } from '../expression/index.js';
import { isIpAddressText } from '../net/index.js';
import { httpDiagnostic } from './diagnostic.js';
import { requestRecord, type HttpRequest, type NameValue } from './record.js';

/** One Logpush field of `http_requests` and the rule fields it determines. */
export interface LogpushRequestField {
  /** The dataset's field. */
  logpush: string;
  /** The rule fields it determines; a rule field named by several rows needs them all (see {@link RULE_FIELD_NEEDS}). */
  rule: readonly string[];
  /** How, in words (docs/http-requests.md). */
  how: string;
  /**
   * How SQL reads each rule field this row gives alone from the Logpush field's JSON value, the same way
   * {@link logpushRecord} does (src/sql/requests.ts writes each kind); a rule field without a reading here
   * has no exact SQL form.
   */
  sql?: Readonly<Record<string, LogpushSqlReading>>;
}

/**
 * One rule field read in SQL from a Logpush field's value `v` (each kind is what {@link logpushRecord}
 * makes of `v`; `String(v)` and `Number(v)` are JavaScript's):
 * - `text`: `String(v)`; `upper`: upper-cased; `version`: the HTTP version as the record holds it
 *   (trimmed, upper-cased, `H2` → `HTTP/2`); `client-tcp`: that version is not HTTP/3; `address`: the text
 *   when it is an address; `country`: two letters or digits, upper-cased; `tls`: `none` → empty;
 *   `media-type`: the part before `;`, trimmed and lower-cased;
 * - `integer`: `Number(v)` where a whole number; `finite`: where finite; `seconds` / `milliseconds`: of a
 *   timestamp (`millisOf`);
 * - `zero` / `empty`: 0 or `''` wherever the field is present.
 * `header`: a header map (`RequestHeaders`) whose member of that name (any case) would give the value
 * instead: a line that has one is not read in SQL.
 */
export interface LogpushSqlReading {
  kind: 'text' | 'upper' | 'version' | 'client-tcp' | 'address' | 'country' | 'tls' | 'media-type' | 'integer' | 'finite' | 'seconds' | 'milliseconds' | 'zero' | 'empty';
  header?: { logpush: string; name: string };
}

const URI_FIELDS = [
  'raw.http.request.uri.path', 'http.request.uri.path', 'raw.http.request.uri.path.extension', 'http.request.uri.path.extension',
  'raw.http.request.uri.query', 'http.request.uri.query', 'raw.http.request.uri', 'http.request.uri',
  'http.request.uri.args', 'http.request.uri.args.names', 'http.request.uri.args.values',
  'raw.http.request.uri.args', 'raw.http.request.uri.args.names', 'raw.http.request.uri.args.values',
];
const FULL_URI = ['http.request.full_uri', 'raw.http.request.full_uri'];
const HEADER_FIELDS = ['http.request.headers', 'http.request.headers.names', 'http.request.headers.values', 'http.x_forwarded_for', 'http.request.accepted_languages'];
const RESPONSE_HEADER_FIELDS = ['http.response.headers', 'http.response.headers.names', 'http.response.headers.values', 'raw.http.response.headers', 'raw.http.response.headers.names', 'raw.http.response.headers.values'];

/** The table: each Logpush field the reader reads, and what it gives. */
export const LOGPUSH_REQUEST_FIELDS: readonly LogpushRequestField[] = [
  { logpush: 'ClientRequestMethod', rule: ['http.request.method'], how: 'the method', sql: { 'http.request.method': { kind: 'upper' } } },
  { logpush: 'ClientRequestProtocol', rule: ['http.request.version', 'cf.edge.client_tcp'], how: 'the HTTP version (HTTP/3: not TCP)', sql: { 'http.request.version': { kind: 'version' }, 'cf.edge.client_tcp': { kind: 'client-tcp' } } },
  { logpush: 'ClientRequestScheme', rule: ['ssl', ...FULL_URI], how: 'https or http' },
  { logpush: 'ClientRequestHost', rule: ['http.host', ...FULL_URI], how: 'the Host', sql: { 'http.host': { kind: 'text' } } },
  { logpush: 'ClientRequestURI', rule: [...URI_FIELDS, ...FULL_URI], how: 'the path and query as sent' },
  { logpush: 'ClientRequestUserAgent', rule: ['http.user_agent'], how: 'the User-Agent header', sql: { 'http.user_agent': { kind: 'text', header: { logpush: 'RequestHeaders', name: 'user-agent' } } } },
  { logpush: 'ClientRequestReferer', rule: ['http.referer'], how: 'the Referer header', sql: { 'http.referer': { kind: 'text', header: { logpush: 'RequestHeaders', name: 'referer' } } } },
  { logpush: 'RequestHeaders', rule: HEADER_FIELDS, how: 'the request headers the zone’s http_log_custom_fields rules log (only those)' },
  { logpush: 'Cookies', rule: ['http.request.cookies', 'http.cookie'], how: 'the cookies the zone’s custom fields rules log (only those)' },
  { logpush: 'ClientIP', rule: ['ip.src'], how: 'the client address', sql: { 'ip.src': { kind: 'address' } } },
  { logpush: 'ClientCountry', rule: ['ip.src.country'], how: 'the client’s country (upper-cased)', sql: { 'ip.src.country': { kind: 'country' } } },
  { logpush: 'ClientASN', rule: ['ip.src.asnum'], how: 'the client’s AS number', sql: { 'ip.src.asnum': { kind: 'integer' } } },
  { logpush: 'EdgeServerIP', rule: ['cf.edge.server_ip'], how: 'the edge address the request reached', sql: { 'cf.edge.server_ip': { kind: 'address' } } },
  { logpush: 'EdgeStartTimestamp', rule: ['http.request.timestamp.sec', 'http.request.timestamp.msec'], how: 'when the edge received the request (RFC 3339, or Unix seconds or nanoseconds)', sql: { 'http.request.timestamp.sec': { kind: 'seconds' }, 'http.request.timestamp.msec': { kind: 'milliseconds' } } },
  { logpush: 'EdgeResponseStatus', rule: ['http.response.code', 'cf.response.1xxx_code', 'cf.response.error_type'], how: 'the status the edge answered', sql: { 'http.response.code': { kind: 'integer' }, 'cf.response.1xxx_code': { kind: 'zero' }, 'cf.response.error_type': { kind: 'empty' } } },
  { logpush: 'ResponseHeaders', rule: RESPONSE_HEADER_FIELDS, how: 'the response headers the zone’s custom fields rules log (only those)' },
  { logpush: 'EdgeResponseContentType', rule: ['http.response.content_type.media_type'], how: 'the response’s Content-Type', sql: { 'http.response.content_type.media_type': { kind: 'media-type', header: { logpush: 'ResponseHeaders', name: 'content-type' } } } },
  { logpush: 'BotScore', rule: ['cf.bot_management.score'], how: 'the bot score (Bot Management)', sql: { 'cf.bot_management.score': { kind: 'finite' } } },
  { logpush: 'VerifiedBotCategory', rule: ['cf.verified_bot_category'], how: 'the verified bot’s category', sql: { 'cf.verified_bot_category': { kind: 'text' } } },
  { logpush: 'WAFAttackScore', rule: ['cf.waf.score'], how: 'the WAF attack score', sql: { 'cf.waf.score': { kind: 'finite' } } },
  { logpush: 'WAFSQLiAttackScore', rule: ['cf.waf.score.sqli'], how: 'the SQLi attack score', sql: { 'cf.waf.score.sqli': { kind: 'finite' } } },
  { logpush: 'WAFXSSAttackScore', rule: ['cf.waf.score.xss'], how: 'the XSS attack score', sql: { 'cf.waf.score.xss': { kind: 'finite' } } },
  { logpush: 'WAFRCEAttackScore', rule: ['cf.waf.score.rce'], how: 'the RCE attack score', sql: { 'cf.waf.score.rce': { kind: 'finite' } } },
  { logpush: 'ClientSSLProtocol', rule: ['cf.tls_version'], how: 'the TLS version (none: not TLS)', sql: { 'cf.tls_version': { kind: 'tls' } } },
  { logpush: 'RayID', rule: ['cf.ray_id'], how: 'the Ray ID', sql: { 'cf.ray_id': { kind: 'text' } } },
];

/** Rule field → every Logpush field it needs (a full URI needs the scheme, the host and the URI). */
export const RULE_FIELD_NEEDS: ReadonlyMap<string, readonly string[]> = (() => {
  const needs = new Map<string, string[]>();
  for (const row of LOGPUSH_REQUEST_FIELDS) for (const f of row.rule) (needs.get(f) ?? needs.set(f, []).get(f)!).push(row.logpush);
  return needs;
})();

/** Rule fields whose value is the same for every request (the reference documents them so): kept, with that value. */
export const LOGPUSH_CONSTANT_FIELDS: ReadonlyMap<string, number | string> = new Map<string, number | string>([
  ['cf.threat_score', 0],
  ['cf.worker.upstream_zone', ''],
]);
const CONSTANTS = LOGPUSH_CONSTANT_FIELDS;

/** The Logpush fields whose presence tells a line of `http_requests` from rulekit's own request objects. */
export const LOGPUSH_SIGNATURE: readonly string[] = ['ClientRequestHost', 'ClientRequestMethod', 'ClientRequestURI', 'EdgeStartTimestamp', 'RayID'];

/** Whether a parsed NDJSON value is a Logpush `http_requests` line (not a request object `{method, url}`). */
export function isLogpushLine(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const o = value as Record<string, unknown>;
  return !('method' in o) && !('url' in o) && LOGPUSH_SIGNATURE.some((k) => k in o);
}

const present = (o: Record<string, unknown>, key: string) => o[key] !== undefined && o[key] !== null && o[key] !== '';

function pairsOf(v: unknown): NameValue[] {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
  const out: NameValue[] = [];
  for (const [name, value] of Object.entries(v as Record<string, unknown>)) {
    if (Array.isArray(value)) for (const x of value) out.push([name, String(x)]);
    else if (value !== null && value !== undefined) out.push([name, String(value)]);
  }
  return out;
}

/** EdgeStartTimestamp as milliseconds: RFC 3339 text (a zone-less time is UTC), Unix seconds, or Unix nanoseconds (the job's `timestamps=`). */
function millisOf(v: unknown): number | undefined {
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return millisOf(Number(v));
    // A time without a zone is UTC, as Logpush times are: a Parquet TIMESTAMP column comes as such text
    // ("2026-11-28 09:00:05"), which Date.parse would read in the machine's zone.
    const ms = Date.parse(/^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(v) ? `${v.replace(' ', 'T')}Z` : v);
    return Number.isNaN(ms) ? undefined : ms;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  return v > 1e15 ? Math.floor(v / 1e6) : v * 1000;
}

/** What a line gives: its record, and the rule fields it leaves missing (their Logpush fields absent). */
export interface LogpushRecord {
  record: Record<string, unknown>;
  /** Rule fields the line cannot determine, each with the Logpush fields it lacks. */
  missing: Map<string, readonly string[]>;
}

/**
 * The record the rules read of one Logpush `http_requests` line (`fields`: the fields the ruleset reads,
 * as {@link requestRecord} takes them). Rule fields whose Logpush fields the line lacks are left out and
 * listed in `missing`; so are the rule fields the table does not give (the body, headers the zone does
 * not log): no value is made up.
 */
export function logpushRecord(line: Record<string, unknown>, fields?: ReadonlySet<string>): LogpushRecord {
  const has = (k: string) => present(line, k);
  const scheme = has('ClientRequestScheme') ? String(line['ClientRequestScheme']).toLowerCase() : 'https';
  const host = has('ClientRequestHost') ? String(line['ClientRequestHost']) : 'host.invalid';
  const uri = has('ClientRequestURI') ? String(line['ClientRequestURI']) : '/';
  const headers: NameValue[] = has('RequestHeaders') ? pairsOf(line['RequestHeaders']) : [];
  if (has('ClientRequestUserAgent')) headers.push(['User-Agent', String(line['ClientRequestUserAgent'])]);
  if (has('ClientRequestReferer')) headers.push(['Referer', String(line['ClientRequestReferer'])]);
  if (has('ClientRequestHost')) headers.unshift(['Host', host]);
  const request: HttpRequest = {
    method: has('ClientRequestMethod') ? String(line['ClientRequestMethod']) : 'GET',
    url: `${scheme}://${host}${uri.startsWith('/') ? uri : `/${uri}`}`,
    headers,
  };
  if (has('ClientRequestProtocol')) request.httpVersion = String(line['ClientRequestProtocol']);
  if (has('Cookies')) request.cookies = pairsOf(line['Cookies']);
  if (has('ClientIP') && isIpAddressText(String(line['ClientIP']))) request.clientIp = String(line['ClientIP']);
  if (has('EdgeServerIP') && isIpAddressText(String(line['EdgeServerIP']))) request.serverIp = String(line['EdgeServerIP']);
  if (has('ClientCountry') && /^[a-z0-9]{2}$/i.test(String(line['ClientCountry']))) request.country = String(line['ClientCountry']).toUpperCase();
  if (has('ClientASN') && Number.isInteger(Number(line['ClientASN']))) request.asn = Number(line['ClientASN']);
  const ms = has('EdgeStartTimestamp') ? millisOf(line['EdgeStartTimestamp']) : undefined;
  if (ms !== undefined) request.timestamp = ms;
  if (has('EdgeResponseStatus') || has('ResponseHeaders') || has('EdgeResponseContentType')) {
    const responseHeaders = has('ResponseHeaders') ? pairsOf(line['ResponseHeaders']) : [];
    if (has('EdgeResponseContentType')) responseHeaders.push(['Content-Type', String(line['EdgeResponseContentType'])]);
    request.response = { headers: responseHeaders };
    if (has('EdgeResponseStatus') && Number.isInteger(Number(line['EdgeResponseStatus']))) request.response.status = Number(line['EdgeResponseStatus']);
  }
  const direct: Record<string, unknown> = {};
  const number = (k: string, f: string) => {
    if (has(k) && Number.isFinite(Number(line[k]))) direct[f] = Number(line[k]);
  };
  number('BotScore', 'cf.bot_management.score');
  number('WAFAttackScore', 'cf.waf.score');
  number('WAFSQLiAttackScore', 'cf.waf.score.sqli');
  number('WAFXSSAttackScore', 'cf.waf.score.xss');
  number('WAFRCEAttackScore', 'cf.waf.score.rce');
  if (has('VerifiedBotCategory')) direct['cf.verified_bot_category'] = String(line['VerifiedBotCategory']);
  if (has('RayID')) direct['cf.ray_id'] = String(line['RayID']);
  if (has('ClientSSLProtocol')) direct['cf.tls_version'] = String(line['ClientSSLProtocol']) === 'none' ? '' : String(line['ClientSSLProtocol']);
  if (Object.keys(direct).length) request.fields = direct;

  const record = requestRecord(request, fields);
  const missing = new Map<string, readonly string[]>();
  for (const field of fields ?? new Set([...RULE_FIELD_NEEDS.keys(), ...Object.keys(record)])) {
    if (CONSTANTS.has(field)) continue;
    // An alias (a deprecated name, ip.geoip.asnum) is read from its target when absent: it needs what the target needs.
    const needs = RULE_FIELD_NEEDS.get(field) ?? RULE_FIELD_NEEDS.get(HTTP_SCHEME.get(field)?.aliasOf ?? field);
    const lacking = needs ? needs.filter((k) => !has(k)) : undefined;
    // A field the table does not give (the body, the edge's port) or whose Logpush fields the line lacks
    // is out of the record, whatever the placeholders above made of it.
    if (lacking === undefined || lacking.length > 0) {
      missing.set(field, lacking ?? []);
      delete record[field];
    }
  }
  return { record, missing };
}

/**
 * The fields Logpush lines left missing, counted over a file: at the end, one warning per rule and field
 * it reads that some lines lack ({@link missingFieldDiagnostics}).
 */
export class LogpushMissing {
  /** Lines read. */
  lines = 0;
  private readonly byField = new Map<string, { lines: number; logpush: Set<string> }>();

  /** Count `lines` lines at once, with the lines lacking each rule field and the Logpush fields they lack (counted elsewhere: an engine). */
  addCounted(lines: number, byField: ReadonlyMap<string, { lines: number; logpush: readonly string[] }>): void {
    this.lines += lines;
    for (const [field, { lines: n, logpush }] of byField) {
      if (!n) continue;
      let m = this.byField.get(field);
      if (!m) this.byField.set(field, (m = { lines: 0, logpush: new Set() }));
      m.lines += n;
      for (const k of logpush) m.logpush.add(k);
    }
  }

  /** Count one line's missing fields. */
  add(missing: ReadonlyMap<string, readonly string[]>): void {
    this.lines++;
    for (const [field, logpush] of missing) {
      let m = this.byField.get(field);
      if (!m) this.byField.set(field, (m = { lines: 0, logpush: new Set() }));
      m.lines++;
      for (const k of logpush) m.logpush.add(k);
    }
  }

  /** A warning for each enabled rule and each field it reads that lines lacked (rules as the ruleset body has them). */
  diagnostics(rules: unknown): Diagnostic[] {
    if (!Array.isArray(rules) || !this.byField.size) return [];
    const out: Diagnostic[] = [];
    rules.forEach((rule, index) => {
      const r = rule as { expression?: unknown; enabled?: unknown } | null;
      if (!r || r.enabled === false || typeof r.expression !== 'string') return;
      const { ast } = checkExpression(r.expression, { scheme: HTTP_SCHEME });
      if (!ast) return;
      for (const field of [...referencedFields(ast)].sort()) {
        const m = this.byField.get(field);
        if (!m) continue;
        const from = m.logpush.size ? `Logpush field ${[...m.logpush].join(' and ')}` : 'no Logpush field of http_requests gives it';
        const d = httpDiagnostic('http-logpush-missing-field', `rule ${index} reads ${field}, which ${m.lines} of ${this.lines} Logpush lines lack (${from}): over those lines the rule is not decided by the logs`, { pointer: `/rules/${index}/expression` });
        d.data = { rule: index, field, lines: m.lines, of: this.lines };
        out.push(d);
      }
    });
    return out;
  }
}
