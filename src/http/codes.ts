/** Diagnostic codes of HTTP request records (src/http/). @module */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the HTTP request readers, each with its default severity and meaning. */
export const HTTP_CODES = {
  'http-invalid-request': { severity: 'error', doc: 'An NDJSON request line that is not JSON, not an object, or lacks a method or URL string: the line is skipped.' },
  'http-invalid-har': { severity: 'error', doc: 'A HAR input that is not JSON or has no log.entries array: no request is read from it.' },
  'http-har-entry-skipped': { severity: 'warning', doc: 'A HAR entry without a usable request (method and URL strings) is skipped; the other entries are read.' },
  'http-invalid-value': { severity: 'warning', doc: 'A member of a request (a header, the client address, a field value) has the wrong type or form: it is ignored and the fields it would give stay missing.' },
  'http-logpush-missing-field': { severity: 'warning', doc: 'A rule reads a field that Logpush `http_requests` lines do not carry (their job does not push the Logpush field that gives it, or no Logpush field does: the body, headers no custom field rule logs): over those lines the field is missing and the rule is not decided by the logs. The message names the rule field, the Logpush field and how many lines lack it.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A code of the HTTP request readers. */
export type HttpCode = keyof typeof HTTP_CODES;
