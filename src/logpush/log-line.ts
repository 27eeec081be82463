/**
 * The log line builder: what the service would send for one request to a job, with the zone's custom log
 * fields. Header names in lower case; the first instance of a repeated header; original values (headers
 * changed by transforms are not what is logged); each of RequestHeaders, ResponseHeaders and Cookies holds
 * at most 8192 bytes of values in configured order — the crossing value cut at a UTF-8 character boundary,
 * later ones dropped, and the truncation reported; the objects appear only when named in the job's
 * `fields`. Then the job's filter decides whether the line is sent, and `timestamps` formats the time fields.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { getDataset } from './datasets/index.js';
import { CUSTOM_FIELD_ARRAYS, CUSTOM_FIELD_LIMITS, customFieldNames, validateCustomFieldRule, type CustomFieldArray } from './custom-fields.js';
import { compileLogFilter } from './filter.js';
import { readLogpullSettings, TIMESTAMP_FORMATS, type TimestampFormat } from './logpull-options.js';
import { formatTimestamp, toUnixNanos } from './timestamps.js';
import { utf8Length, utf8Prefix } from './utf8.js';
import { describe, diag, isObject } from './diag.js';

/** A header or cookie as `[name, value]`. */
export type NameValue = readonly [name: string, value: string];

/** The request as the edge saw it. */
export interface LogRequest {
  /** Request headers as received, in order, repeated ones included. */
  requestHeaders?: readonly NameValue[];
  /** Request headers after transform rules; accepted to show they are not what is logged. */
  transformedRequestHeaders?: readonly NameValue[];
  /** Response headers as the origin sent them, in order. */
  responseHeaders?: readonly NameValue[];
  /** Response headers after transform rules (not logged). */
  transformedResponseHeaders?: readonly NameValue[];
  /** Cookies `[name, value]` in order; when absent, read from the original `cookie` request headers. */
  cookies?: readonly NameValue[];
  /** The dataset fields of the line (`EdgeResponseStatus`, `EdgeStartTimestamp` as unix nanoseconds…). */
  fields?: Record<string, unknown>;
}

/** The part of a job the builder reads (a job body works). */
export interface LogLineJob {
  dataset?: string;
  logpull_options?: string;
  /** The newer form of the options: `field_names`, `timestamp_format`, `CVE-2021-44228` (used when `logpull_options` is absent). */
  output_options?: { field_names?: string[]; timestamp_format?: string; 'CVE-2021-44228'?: boolean };
  filter?: string | null;
}

/** A truncation of one custom field object. */
export interface Truncation {
  object: 'RequestHeaders' | 'ResponseHeaders' | 'Cookies';
  /** The 8192-byte limit. */
  limit: number;
  /** Bytes the configured values would have taken. */
  bytes: number;
  /** The value cut at the limit, if any (and its kept bytes). */
  cut?: { name: string; keptBytes: number; originalBytes: number };
  /** Configured values dropped after the limit. */
  dropped: string[];
}

/** Result of {@link buildLogLine}. */
export interface BuiltLogLine {
  /** True when the line passes the job's filter (or the job has none) and there was no error. */
  sent: boolean;
  /** The line as the job would send it: `fields` in order, timestamps formatted (unixnano as a number here, exact in `text`). */
  line?: Record<string, unknown>;
  /** The line as NDJSON text, with unixnano timestamps exact. */
  text?: string;
  /** Custom field objects cut at 8 KB. */
  truncations: Truncation[];
  /** Configured headers whose transformed value differs from the original that was logged. */
  transformedNotLogged: string[];
  diagnostics: Diagnostic[];
}

/** Cookies of the original `cookie` request headers, in order. */
export function parseCookieHeaders(headers: readonly NameValue[]): NameValue[] {
  const out: NameValue[] = [];
  for (const pair of headers) {
    // Pairs that are not [string, string] are skipped, as firstValues skips them for the header objects.
    if (!Array.isArray(pair)) continue;
    const [n, v] = pair;
    if (typeof n !== 'string' || n.toLowerCase() !== 'cookie' || typeof v !== 'string') continue;
    for (const part of v.split(';')) {
      const eq = part.indexOf('=');
      if (eq <= 0) continue;
      out.push([part.slice(0, eq).trim(), part.slice(eq + 1).trim()]);
    }
  }
  return out;
}

/** First value per name: headers compared case-insensitively, cookies exactly. */
function firstValues(pairs: readonly NameValue[] | undefined, header: boolean): Map<string, string> {
  const m = new Map<string, string>();
  if (!Array.isArray(pairs)) return m;
  for (const p of pairs) {
    if (!Array.isArray(p) || typeof p[0] !== 'string') continue;
    const k = header ? p[0].toLowerCase() : p[0];
    if (!m.has(k)) m.set(k, typeof p[1] === 'string' ? p[1] : String(p[1] ?? ''));
  }
  return m;
}

/** Fill one custom field object within the byte budget, in configured order. */
export function fillCustomObject(
  object: Truncation['object'],
  names: readonly string[],
  values: ReadonlyMap<string, string>,
  header: boolean,
  limit: number = CUSTOM_FIELD_LIMITS.maxObjectBytes,
): { value: Record<string, string>; truncation?: Truncation } {
  const value: Record<string, string> = {};
  let used = 0;
  let total = 0;
  let cut: Truncation['cut'];
  const dropped: string[] = [];
  let full = false;
  const done = new Set<string>();
  for (const configured of names) {
    const key = header ? configured.toLowerCase() : configured;
    if (done.has(key)) continue;
    done.add(key);
    const v = values.get(key);
    if (v === undefined) continue;
    const bytes = utf8Length(v);
    total += bytes;
    if (full) {
      dropped.push(key);
      continue;
    }
    if (used + bytes <= limit) {
      Object.defineProperty(value, key, { value: v, enumerable: true, writable: true, configurable: true });
      used += bytes;
      continue;
    }
    const kept = utf8Prefix(v, limit - used);
    const keptBytes = utf8Length(kept);
    cut = { name: key, keptBytes, originalBytes: bytes };
    if (kept.length > 0) Object.defineProperty(value, key, { value: kept, enumerable: true, writable: true, configurable: true });
    used += keptBytes;
    full = true;
  }
  if (!cut && dropped.length === 0) return { value };
  const truncation: Truncation = { object, limit, bytes: total, dropped };
  if (cut) truncation.cut = cut;
  return { value, truncation };
}

/**
 * NDJSON text of a line, writing top-level bigint values (unix nanoseconds) as exact JSON integers;
 * a bigint deeper inside a value is written as a number.
 */
function lineText(line: Record<string, unknown>): string {
  const nested = (_k: string, v: unknown) => (typeof v === 'bigint' ? Number(v) : v);
  const parts = Object.keys(line).map((k) => {
    const v = line[k];
    return `${JSON.stringify(k)}:${typeof v === 'bigint' ? v.toString() : (JSON.stringify(v, nested) ?? 'null')}`;
  });
  return `{${parts.join(',')}}`;
}

/**
 * `CVE-2021-44228=true`: every `${` in the line's strings becomes `x{`, so a Log4j lookup pattern cannot
 * reach a downstream Log4j consumer (keys of the custom field objects included).
 */
export function redactLog4Shell(o: Record<string, unknown>): void {
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (typeof v === 'string') o[k] = v.split('${').join('x{');
    else if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const inner = v as Record<string, unknown>;
      for (const ik of Object.keys(inner)) {
        const iv = inner[ik];
        const nk = ik.split('${').join('x{');
        const nv = typeof iv === 'string' ? iv.split('${').join('x{') : iv;
        if (nk !== ik) delete inner[ik];
        Object.defineProperty(inner, nk, { value: nv, enumerable: true, writable: true, configurable: true });
      }
    } else if (Array.isArray(v)) o[k] = v.map((e) => (typeof e === 'string' ? e.split('${').join('x{') : e));
  }
}

/** Options of {@link buildLogLine}. */
export interface BuildLogLineOptions {
  /** Byte budget per custom field object (default 8192). */
  objectLimit?: number;
}

/**
 * Build the log line the service would send for `request` to `job`, with the zone's custom field `rule`
 * (a `log_custom_field` rule, or undefined). Never throws; problems are diagnostics. A rule with errors
 * other than upper-case header names (which are lower-cased, as the service logs them) yields no line.
 */
export function buildLogLine(request: LogRequest, rule: unknown, job: LogLineJob, options: BuildLogLineOptions = {}): BuiltLogLine {
  const result: BuiltLogLine = { sent: false, truncations: [], transformedNotLogged: [], diagnostics: [] };
  try {
    return build(request, rule, job, options, result);
  } catch (e) {
    result.diagnostics.push(diag('log-line-invalid-input', `The log line could not be built: ${String(e)}`));
    return result;
  }
}

function build(input: LogRequest, rule: unknown, job: LogLineJob, options: BuildLogLineOptions, result: BuiltLogLine): BuiltLogLine {
  if (!isObject(input)) {
    result.diagnostics.push(diag('log-line-invalid-input', `The request is an object with headers and fields, not ${describe(input)}`));
    return result;
  }
  const request: LogRequest = input;
  if (!isObject(job)) {
    result.diagnostics.push(diag('log-line-invalid-input', `The job is an object with dataset, logpull_options and filter, not ${describe(job)}`));
    return result;
  }
  const datasetName = typeof job.dataset === 'string' ? job.dataset : 'http_requests';
  const dataset = getDataset(datasetName);
  if (!dataset) {
    result.diagnostics.push(diag('log-line-invalid-input', `Unknown dataset ${describe(datasetName)}`, { pointer: '/dataset' }));
    return result;
  }
  const settings = readLogpullSettings(typeof job.logpull_options === 'string' ? job.logpull_options : undefined);
  const oo = job.output_options;
  if (typeof job.logpull_options !== 'string' && isObject(oo)) {
    if (Array.isArray(oo['field_names'])) settings.fields = oo['field_names'].filter((f): f is string => typeof f === 'string');
    if ((TIMESTAMP_FORMATS as readonly unknown[]).includes(oo['timestamp_format'])) settings.timestamps = oo['timestamp_format'] as TimestampFormat;
    if (oo['CVE-2021-44228'] === true) settings.cve202144228 = true;
  }
  const wanted = new Set(settings.fields ?? []);
  const record: Record<string, unknown> = {};
  if (isObject(request.fields)) {
    for (const k of Object.keys(request.fields)) Object.defineProperty(record, k, { value: request.fields[k], enumerable: true, writable: true, configurable: true });
  }
  // Custom fields.
  if (rule !== undefined && rule !== null) {
    const ruleDiags = validateCustomFieldRule(rule);
    result.diagnostics.push(...ruleDiags);
    if (ruleDiags.some((d) => d.severity === 'error' && d.code !== 'custom-field-uppercase-header')) return result;
    const names = customFieldNames(rule);
    const reqOriginal = firstValues(request.requestHeaders, true);
    const sources: Record<CustomFieldArray, Map<string, string>> = {
      request_fields: reqOriginal,
      response_fields: firstValues(request.responseHeaders, true),
      cookie_fields: firstValues(Array.isArray(request.cookies) ? request.cookies : parseCookieHeaders(Array.isArray(request.requestHeaders) ? request.requestHeaders : []), false),
    };
    const transformed: [Map<string, string>, Map<string, string>] = [firstValues(request.transformedRequestHeaders, true), firstValues(request.transformedResponseHeaders, true)];
    for (const k of Object.keys(CUSTOM_FIELD_ARRAYS) as CustomFieldArray[]) {
      const { object, kind } = CUSTOM_FIELD_ARRAYS[k];
      if (datasetName !== 'http_requests' || !wanted.has(object)) continue;
      const header = kind === 'header';
      const filled = fillCustomObject(object, names[k], sources[k], header, options.objectLimit);
      record[object] = filled.value;
      if (filled.truncation) {
        result.truncations.push(filled.truncation);
        const t = filled.truncation;
        result.diagnostics.push(diag('log-line-truncated', `${object} passed ${t.limit} bytes of values (${t.bytes} configured)${t.cut ? `: ${t.cut.name} cut to ${t.cut.keptBytes} of ${t.cut.originalBytes} bytes` : ''}${t.dropped.length ? `; dropped ${t.dropped.join(', ')}` : ''}`, { data: { ...t } }));
      }
      if (header) {
        const tr = transformed[k === 'request_fields' ? 0 : 1];
        for (const n of names[k]) {
          const key = n.toLowerCase();
          if (tr.has(key) && tr.get(key) !== sources[k].get(key)) result.transformedNotLogged.push(key);
        }
      }
    }
  }
  // The filter decides on the full record, before timestamps are formatted.
  let pass = true;
  if (typeof job.filter === 'string' && job.filter.trim() !== '') {
    const compiled = compileLogFilter(job.filter, { dataset: dataset.name });
    result.diagnostics.push(...compiled.diagnostics.map((d) => ({ ...d, pointer: '/filter', rangeIn: d.range ? ('value' as const) : undefined, data: { ...(d.data ?? {}), filterPointer: d.pointer ?? '' } })));
    if (!compiled.matcher) return result;
    const filterView: Record<string, unknown> = { ...record };
    for (const f of dataset.fields) {
      if (f.type !== 'int_or_string' || filterView[f.name] === undefined) continue;
      const ns = toUnixNanos(filterView[f.name]);
      if (ns !== undefined) filterView[f.name] = Number(ns);
    }
    pass = compiled.matcher(filterView);
  }
  // Select fields in order and format timestamps.
  const order = settings.fields ?? Object.keys(record).filter((k) => !['RequestHeaders', 'ResponseHeaders', 'Cookies'].includes(k));
  const line: Record<string, unknown> = {};
  const exact: Record<string, unknown> = {};
  for (const name of order) {
    if (!Object.prototype.hasOwnProperty.call(record, name)) continue;
    let v = record[name];
    let x = v;
    if (dataset.byName.get(name)?.type === 'int_or_string') {
      const ns = toUnixNanos(v);
      if (ns !== undefined) {
        x = formatTimestamp(ns, settings.timestamps as TimestampFormat);
        v = typeof x === 'bigint' ? Number(x) : x;
      }
    }
    Object.defineProperty(line, name, { value: v, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(exact, name, { value: x, enumerable: true, writable: true, configurable: true });
  }
  if (settings.cve202144228) {
    redactLog4Shell(line);
    redactLog4Shell(exact);
  }
  result.line = line;
  result.text = lineText(exact);
  result.sent = pass;
  return result;
}
