/**
 * A file of HTTP traffic as the records the rules read, whatever its kind: NDJSON request objects,
 * Logpush `http_requests` lines (told line by line, so both may share a file), or a HAR document. What
 * `rulekit diff --against` and the playground's diff tab count; browser-safe (text in, records out).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { httpDiagnostic } from './diagnostic.js';
import { isHar, readHar } from './har.js';
import { isLogpushLine, logpushRecord, LogpushMissing } from './logpush.js';
import { readRequestObject } from './ndjson.js';
import { requestRecord } from './record.js';

/** One request's record and where it is in the input. */
export interface TrafficRecord {
  /** The fields the rules read (`requestRecord`, or `logpushRecord` for a Logpush line). */
  record: Record<string, unknown>;
  /** 0-based: the NDJSON line less one, or the HAR entry's index. */
  index: number;
}

/** What {@link readTrafficRecords} returns. */
export interface TrafficRecords {
  /** `ndjson` (request objects), `logpush` (the first line is a Logpush line) or `har`. */
  format: 'ndjson' | 'logpush' | 'har';
  /** The requests read, in order. */
  records: TrafficRecord[];
  /** What an index counts: NDJSON lines or HAR entries (people number both from 1). */
  indexOf: 'line' | 'entry';
  /** Lines or entries that are no request (errors, skipped), members ignored (warnings); each with its line. */
  diagnostics: Diagnostic[];
  /** Logpush lines: the rule fields they left missing (a rule reading one is not decided by those lines). */
  logpush?: LogpushMissing;
}

/**
 * The records of HTTP traffic text. Never throws: a line that is not a request is an error diagnostic
 * (with `line`) and is skipped, the others are read.
 *
 * ```ts
 * readTrafficRecords('{"ClientRequestHost":"example.com","ClientRequestMethod":"GET","ClientRequestURI":"/"}').records[0].record['http.host']; // 'example.com'
 * ```
 */
export function readTrafficRecords(text: string): TrafficRecords {
  const diagnostics: Diagnostic[] = [];
  const t = text.replace(/^\uFEFF/, '').trimStart();
  if (t.startsWith('{')) {
    let whole: unknown;
    try {
      whole = JSON.parse(t);
    } catch {
      // several lines: NDJSON
    }
    if (isHar(whole)) {
      const entries = readHar(whole, diagnostics);
      const records = entries.map((e, i) => ({ record: requestRecord(e.request), index: Number(/\/(\d+)$/.exec(e.pointer)?.[1] ?? i) }));
      return { format: 'har', records, indexOf: 'entry', diagnostics };
    }
  }
  const records: TrafficRecord[] = [];
  let format: TrafficRecords['format'] | undefined;
  let logpush: LogpushMissing | undefined;
  for (const [n, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      diagnostics.push(httpDiagnostic('http-invalid-request', `not JSON (${(e as Error).message}): a line is a request object or a Logpush http_requests line`, { pointer: '', line: n + 1 }));
      continue;
    }
    format ??= isLogpushLine(value) ? 'logpush' : 'ndjson';
    if (isLogpushLine(value)) {
      const read = logpushRecord(value);
      (logpush ??= new LogpushMissing()).add(read.missing);
      records.push({ record: read.record, index: n });
      continue;
    }
    const request = readRequestObject(value, { pointer: '', line: n + 1 }, diagnostics);
    if (request) records.push({ record: requestRecord(request), index: n });
  }
  return { format: format ?? 'ndjson', records, indexOf: 'line', diagnostics, ...(logpush ? { logpush } : {}) };
}
