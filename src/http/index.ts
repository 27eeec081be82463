/**
 * HTTP requests as records for the expression evaluators (browser-safe): NDJSON request objects and
 * HAR 1.2 files read into one request shape, and each request into the record of HTTP fields the rules of
 * the HTTP phases read. What `rulekit simulate` runs through an HTTP-phase ruleset.
 *
 * ```ts
 * import { readRequests, requestRecord } from 'rulekit/http';
 * const { requests, diagnostics } = readRequests(harText);           // or NDJSON text
 * requestRecord(requests[0].request)['http.request.uri.path'];       // '/login'
 * ```
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { isHar, readHar } from './har.js';
import { readNdjsonRequests } from './ndjson.js';
import type { HttpRequest } from './record.js';

export { HTTP_CODES, type HttpCode } from './codes.js';
export { httpDiagnostic } from './diagnostic.js';
export { requestRecord, parseCookieHeader, HTTP_RECORD_SOURCES, type HttpRequest, type NameValue } from './record.js';
export { readHar, isHar } from './har.js';
export { readNdjsonRequests, readRequestObject } from './ndjson.js';
export { isLogpushLine, logpushRecord, LogpushMissing, LOGPUSH_REQUEST_FIELDS, LOGPUSH_CONSTANT_FIELDS, LOGPUSH_SIGNATURE, RULE_FIELD_NEEDS, type LogpushRecord, type LogpushRequestField, type LogpushSqlReading } from './logpush.js';
export { simulateRequests, executeNotSimulated } from './simulate.js';
export { readTrafficRecords, type TrafficRecord, type TrafficRecords } from './traffic.js';
export { splitUrl, normalizePath, removeDotSegments, pathExtension, type UrlParts } from './url.js';

/** One request read, with where it was: a HAR entry's pointer or an NDJSON line. */
export interface ReadRequest {
  request: HttpRequest;
  /** `/log/entries/N` for HAR. */
  pointer?: string;
  /** The NDJSON line, 1-based. */
  line?: number;
}

/** What {@link readRequests} returns. */
export interface RequestsRead {
  format: 'har' | 'ndjson';
  requests: ReadRequest[];
  /** Errors (a line or a document that is not a request) and warnings (members ignored, entries skipped). */
  diagnostics: Diagnostic[];
}

/**
 * Requests from HAR or NDJSON text. `format` defaults to what the text is: a JSON document with a `log`
 * object is HAR, anything else NDJSON (one request object per line). Never throws.
 */
export function readRequests(text: string, options: { format?: 'har' | 'ndjson' } = {}): RequestsRead {
  const diagnostics: Diagnostic[] = [];
  let format = options.format;
  let parsed: unknown;
  if (format === undefined) {
    const t = text.replace(/^\uFEFF/, '').trimStart();
    format = 'ndjson';
    if (t.startsWith('{')) {
      try {
        parsed = JSON.parse(t);
        if (isHar(parsed)) format = 'har';
      } catch {
        // several lines: NDJSON
      }
    }
  }
  if (format === 'har') {
    const requests = readHar(parsed ?? text, diagnostics);
    return { format, requests, diagnostics };
  }
  const requests = readNdjsonRequests(String(text), diagnostics);
  return { format, requests, diagnostics };
}
