/**
 * NDJSON request objects, one per line, in the shape docs/http-requests.md documents:
 *
 * ```json
 * {"method":"POST","url":"https://example.com/login?next=%2F","httpVersion":"HTTP/2",
 *  "headers":[["User-Agent","curl/8.5.0"],["Content-Type","application/x-www-form-urlencoded"]],
 *  "body":"user=alice","clientIp":"198.51.100.7","country":"GB","asn":64496,
 *  "timestamp":"2026-11-24T22:00:00.123Z","response":{"status":403,"headers":{"server":"nginx"}},
 *  "fields":{"cf.bot_management.score":12}}
 * ```
 *
 * `headers` (and `response.headers`, `cookies`) may also be an object of name → value or values. Only
 * `method` and `url` are required. A line that is not such an object is an error and skipped; a member
 * of the wrong type is a warning and ignored.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { isIpAddressText } from '../net/index.js';
import { httpDiagnostic, pointerToken } from './diagnostic.js';
import type { HttpRequest, NameValue } from './record.js';
import { splitUrl } from './url.js';
import { fieldValues } from './values.js';

/** Where a request object is: a pointer prefix and, for NDJSON, its line. */
interface Where {
  pointer: string;
  line?: number;
}

/** Name/value pairs from `[[name, value], …]`, `[{name, value}, …]` or `{name: value | [values]}`. */
export function nameValues(v: unknown, what: string, where: Where, out: Diagnostic[]): NameValue[] | undefined {
  const bad = (pointer: string, why: string) => out.push(httpDiagnostic('http-invalid-value', `${what}: ${why}; it is ignored`, { pointer, line: where.line }));
  const list: NameValue[] = [];
  if (Array.isArray(v)) {
    v.forEach((item, i) => {
      const at = `${where.pointer}/${i}`;
      if (Array.isArray(item) && item.length === 2 && typeof item[0] === 'string' && typeof item[1] === 'string') list.push([item[0], item[1]]);
      else if (item !== null && typeof item === 'object' && typeof (item as { name?: unknown }).name === 'string' && typeof (item as { value?: unknown }).value === 'string') {
        list.push([(item as { name: string }).name, (item as { value: string }).value]);
      } else bad(at, 'each item is ["name", "value"] or {"name", "value"} with strings');
    });
    return list;
  }
  if (v !== null && typeof v === 'object') {
    for (const [name, value] of Object.entries(v)) {
      const at = `${where.pointer}/${pointerToken(name)}`;
      if (typeof value === 'string') list.push([name, value]);
      else if (Array.isArray(value) && value.every((x) => typeof x === 'string')) for (const x of value) list.push([name, x]);
      else bad(at, `the value of ${JSON.stringify(name)} is a string or an array of strings`);
    }
    return list;
  }
  bad(where.pointer, 'a list of [name, value] pairs or an object of name → value');
  return undefined;
}

/** Milliseconds since the epoch from a number (ms) or an ISO 8601 text, or undefined. */
export function timestampOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A request object (one NDJSON line's value) → a request, or undefined with an error. */
export function readRequestObject(value: unknown, where: Where, out: Diagnostic[]): HttpRequest | undefined {
  const line = where.line;
  const at = (member: string) => `${where.pointer}/${member}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    out.push(httpDiagnostic('http-invalid-request', 'a request is a JSON object with "method" and "url"', { pointer: where.pointer, line }));
    return undefined;
  }
  const o = value as Record<string, unknown>;
  if (typeof o['method'] !== 'string' || !o['method']) {
    out.push(httpDiagnostic('http-invalid-request', 'the request has no "method" string', { pointer: at('method'), line }));
    return undefined;
  }
  if (typeof o['url'] !== 'string' || !splitUrl(o['url'])) {
    const why = typeof o['url'] === 'string' ? `${JSON.stringify(o['url'].slice(0, 80))} is neither an absolute URL nor a path starting with /` : 'the request has no "url" string';
    out.push(httpDiagnostic('http-invalid-request', why, { pointer: at('url'), line }));
    return undefined;
  }
  const warn = (member: string, why: string) => out.push(httpDiagnostic('http-invalid-value', `${member} ${why}; it is ignored`, { pointer: at(member), line }));
  const req: HttpRequest = { method: o['method'], url: o['url'], headers: [] };
  if (o['httpVersion'] !== undefined) {
    if (typeof o['httpVersion'] === 'string') req.httpVersion = o['httpVersion'];
    else warn('httpVersion', 'is a string such as "HTTP/1.1"');
  }
  if (o['headers'] !== undefined) req.headers = nameValues(o['headers'], 'headers', { pointer: at('headers'), line }, out) ?? [];
  if (o['cookies'] !== undefined) {
    const cookies = nameValues(o['cookies'], 'cookies', { pointer: at('cookies'), line }, out);
    if (cookies) req.cookies = cookies;
  }
  if (o['body'] !== undefined) {
    if (typeof o['body'] === 'string') req.body = o['body'];
    else warn('body', 'is the body as a string');
  }
  if (o['bodySize'] !== undefined) {
    if (typeof o['bodySize'] === 'number' && Number.isInteger(o['bodySize']) && o['bodySize'] >= 0) req.bodySize = o['bodySize'];
    else warn('bodySize', 'is a whole number of bytes');
  }
  for (const member of ['clientIp', 'serverIp'] as const) {
    const v = o[member];
    if (v === undefined) continue;
    if (typeof v === 'string' && isIpAddressText(v)) req[member] = v;
    else warn(member, 'is an IPv4 or IPv6 address string');
  }
  if (o['country'] !== undefined) {
    if (typeof o['country'] === 'string' && /^[A-Z0-9]{2}$/.test(o['country'])) req.country = o['country'];
    else warn('country', 'is a two-letter ISO 3166-1 code in capitals');
  }
  if (o['asn'] !== undefined) {
    if (typeof o['asn'] === 'number' && Number.isInteger(o['asn']) && o['asn'] >= 0 && o['asn'] <= 4294967295) req.asn = o['asn'];
    else warn('asn', 'is an AS number (0–4294967295)');
  }
  if (o['timestamp'] !== undefined) {
    const ms = timestampOf(o['timestamp']);
    if (ms !== undefined) req.timestamp = ms;
    else warn('timestamp', 'is milliseconds since the epoch or an ISO 8601 date-time');
  }
  if (o['response'] !== undefined) {
    const r = o['response'];
    if (r === null || typeof r !== 'object' || Array.isArray(r)) warn('response', 'is an object with "status" and "headers"');
    else {
      const res: { status?: number; headers: NameValue[] } = { headers: [] };
      const status = (r as { status?: unknown }).status;
      if (status !== undefined) {
        if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 999) res.status = status;
        else warn('response/status', 'is a status code (100–999)');
      }
      const rh = (r as { headers?: unknown }).headers;
      if (rh !== undefined) res.headers = nameValues(rh, 'response headers', { pointer: at('response/headers'), line }, out) ?? [];
      req.response = res;
    }
  }
  const fields = fieldValues(o['fields'], at('fields'), line, out);
  if (fields) req.fields = fields;
  return req;
}

/** Requests of NDJSON text, one object per line (blank lines skipped); errors and warnings into `out`. */
export function readNdjsonRequests(text: string, out: Diagnostic[]): { request: HttpRequest; line: number }[] {
  const requests: { request: HttpRequest; line: number }[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    const t = raw.replace(/^\uFEFF/, '').trim();
    if (!t) return;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch (e) {
      out.push(httpDiagnostic('http-invalid-request', `line ${line}: not JSON (${(e as Error).message})`, { line }));
      return;
    }
    const request = readRequestObject(value, { pointer: '', line }, out);
    if (request) requests.push({ request, line });
  });
  return requests;
}
