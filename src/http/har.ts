/**
 * HAR 1.2 files (what browsers' developer tools, Playwright and proxies export): `log.entries[]`, each with
 * `request` (method, url, httpVersion, headers, cookies, postData, bodySize), `response` (status,
 * headers), `startedDateTime` and `serverIPAddress`, read into requests. HAR has no client address: an
 * entry may carry `_rulekit: {clientIp, country, asn, fields}` (custom members start with `_` in HAR) for
 * what only the edge would know. A malformed entry is skipped with a warning; a document without
 * `log.entries` is one error.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { isIpAddressText } from '../net/index.js';
import { httpDiagnostic } from './diagnostic.js';
import { nameValues, readRequestObject, timestampOf } from './ndjson.js';
import type { HttpRequest, NameValue } from './record.js';
import { splitUrl } from './url.js';

const utf8 = new TextEncoder();
const utf8Length = (text: string) => utf8.encode(text).length;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether parsed JSON is a HAR document (an object with a `log` object). */
export function isHar(value: unknown): boolean {
  return isObject(value) && isObject(value['log']);
}

/** The requests of a HAR document (text or parsed), each with the pointer of its entry. */
export function readHar(input: string | unknown, out: Diagnostic[]): { request: HttpRequest; pointer: string }[] {
  let doc: unknown = input;
  if (typeof input === 'string') {
    try {
      doc = JSON.parse(input.replace(/^\uFEFF/, ''));
    } catch (e) {
      out.push(httpDiagnostic('http-invalid-har', `the HAR file is not JSON (${(e as Error).message})`, { pointer: '' }));
      return [];
    }
  }
  if (!isObject(doc) || !isObject(doc['log'])) {
    out.push(httpDiagnostic('http-invalid-har', 'a HAR file is an object with "log": {"entries": [...]}', { pointer: isObject(doc) ? '/log' : '' }));
    return [];
  }
  const entries = doc['log']['entries'];
  if (!Array.isArray(entries)) {
    out.push(httpDiagnostic('http-invalid-har', 'the HAR log has no "entries" array', { pointer: '/log/entries' }));
    return [];
  }
  const requests: { request: HttpRequest; pointer: string }[] = [];
  entries.forEach((entry, i) => {
    const pointer = `/log/entries/${i}`;
    const request = harEntry(entry, pointer, out);
    if (request) requests.push({ request, pointer });
  });
  return requests;
}

function harEntry(entry: unknown, pointer: string, out: Diagnostic[]): HttpRequest | undefined {
  const skip = (at: string, why: string) => {
    out.push(httpDiagnostic('http-har-entry-skipped', `entry skipped: ${why}`, { pointer: at }));
    return undefined;
  };
  if (!isObject(entry)) return skip(pointer, 'an entry is an object with "request"');
  const req = entry['request'];
  if (!isObject(req)) return skip(`${pointer}/request`, 'the entry has no "request" object');
  if (typeof req['method'] !== 'string' || !req['method']) return skip(`${pointer}/request/method`, 'the request has no "method" string');
  if (typeof req['url'] !== 'string' || !splitUrl(req['url'])) return skip(`${pointer}/request/url`, 'the request has no absolute "url"');
  const warn = (at: string, why: string) => out.push(httpDiagnostic('http-invalid-value', `${why}; it is ignored`, { pointer: at }));
  const request: HttpRequest = { method: req['method'], url: req['url'], headers: [] };
  if (typeof req['httpVersion'] === 'string' && req['httpVersion']) request.httpVersion = req['httpVersion'];
  if (req['headers'] !== undefined) request.headers = nameValues(req['headers'], 'request headers', { pointer: `${pointer}/request/headers` }, out) ?? [];
  if (Array.isArray(req['cookies']) && req['cookies'].length) {
    const cookies = nameValues(req['cookies'], 'request cookies', { pointer: `${pointer}/request/cookies` }, out);
    if (cookies) request.cookies = cookies;
  }
  const post = req['postData'];
  if (isObject(post)) {
    if (typeof post['text'] === 'string') request.body = post['text'];
    else if (Array.isArray(post['params'])) {
      const params = nameValues(post['params'], 'postData params', { pointer: `${pointer}/request/postData/params` }, out) ?? [];
      request.body = params.map(([n, v]) => `${n}=${v}`).join('&');
    }
  }
  if (typeof req['bodySize'] === 'number' && Number.isInteger(req['bodySize']) && req['bodySize'] > 0 && request.body !== undefined) {
    if (req['bodySize'] !== utf8Length(request.body)) request.bodySize = req['bodySize'];
  }
  if (entry['startedDateTime'] !== undefined) {
    const ms = timestampOf(entry['startedDateTime']);
    if (ms !== undefined) request.timestamp = ms;
    else warn(`${pointer}/startedDateTime`, 'startedDateTime is an ISO 8601 date-time');
  }
  const server = entry['serverIPAddress'];
  if (typeof server === 'string' && server) {
    // Browsers write IPv6 addresses in brackets.
    const ip = server.replace(/^\[(.*)\]$/, '$1');
    if (isIpAddressText(ip)) request.serverIp = ip;
    else warn(`${pointer}/serverIPAddress`, 'serverIPAddress is not an IP address');
  }
  const res = entry['response'];
  if (isObject(res)) {
    const response: { status?: number; headers: NameValue[] } = { headers: [] };
    // HAR writes status 0 for a request that got no response.
    if (typeof res['status'] === 'number' && Number.isInteger(res['status']) && res['status'] >= 100 && res['status'] <= 999) response.status = res['status'];
    if (res['headers'] !== undefined) response.headers = nameValues(res['headers'], 'response headers', { pointer: `${pointer}/response/headers` }, out) ?? [];
    if (response.status !== undefined || response.headers.length) request.response = response;
  }
  const extra = entry['_rulekit'];
  if (extra !== undefined) {
    // The NDJSON reader checks these members; method and url are the entry's.
    const more = readRequestObject(isObject(extra) ? { ...extra, method: request.method, url: request.url } : extra, { pointer: `${pointer}/_rulekit` }, out);
    if (more) {
      for (const k of ['clientIp', 'country', 'asn', 'fields'] as const) if (more[k] !== undefined) (request as unknown as Record<string, unknown>)[k] = more[k];
    }
  }
  return request;
}
