/**
 * `logpull_options`: the `&`-joined `option=value` string of a job (`fields=…&timestamps=rfc3339`), its
 * options as data, a parser with offsets, and its checks against a dataset.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { CUSTOM_FIELD_OBJECTS, type Dataset } from './datasets/index.js';
import { describe, diag } from './diag.js';
import { suggest } from '../diagnostics/index.js';

/** Timestamp formats of `timestamps=`. */
export const TIMESTAMP_FORMATS = ['unixnano', 'unix', 'rfc3339'] as const;
/** A timestamp format. */
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];

/** The options `logpull_options` knows, with what each holds. */
export const LOGPULL_OPTIONS: Readonly<Record<string, string>> = {
  fields: 'comma-separated field names of the dataset',
  timestamps: `timestamp format: ${TIMESTAMP_FORMATS.join(', ')}`,
  sample: 'sampling rate, a number in (0, 1]',
  'CVE-2021-44228': 'true to redact the Log4j exploit pattern (CVE-2021-44228) from fields',
};

/** One parsed option with offsets into the string. */
export interface LogpullOption {
  name: string;
  value: string;
  range: Range;
  nameRange: Range;
  valueRange: Range;
  /** False when the part has no `=`. */
  wellFormed: boolean;
}

/** Split `logpull_options` into options (a leading `?` is allowed). */
export function parseLogpullOptions(s: string): LogpullOption[] {
  const out: LogpullOption[] = [];
  let off = s.startsWith('?') ? 1 : 0;
  const body = s.slice(off);
  if (body.length === 0) return out;
  for (const part of body.split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    out.push({
      name, value, wellFormed: eq >= 0,
      range: { start: off, end: off + part.length },
      nameRange: { start: off, end: off + name.length },
      valueRange: { start: off + (eq < 0 ? part.length : eq + 1), end: off + part.length },
    });
    off += part.length + 1;
  }
  return out;
}

/** What a job's `logpull_options` asks for. */
export interface LogpullSettings {
  /** Field names in order (undefined when `fields=` is absent). */
  fields?: string[];
  timestamps: TimestampFormat;
  sample?: number;
  cve202144228?: boolean;
}

/** Read the settings of `logpull_options` without checking (unknown values fall back to defaults). */
export function readLogpullSettings(s: string | undefined): LogpullSettings {
  const out: LogpullSettings = { timestamps: 'unixnano' };
  if (typeof s !== 'string') return out;
  for (const o of parseLogpullOptions(s)) {
    if (o.name === 'fields') out.fields = o.value.split(',').filter((f) => f.length > 0);
    else if (o.name === 'timestamps' && (TIMESTAMP_FORMATS as readonly string[]).includes(o.value)) out.timestamps = o.value as TimestampFormat;
    else if (o.name === 'sample') out.sample = Number(o.value);
    else if (o.name === 'CVE-2021-44228') out.cve202144228 = o.value === 'true';
  }
  return out;
}

/**
 * Check `logpull_options` (a string) against a dataset (undefined: field names are not checked).
 * Ranges are inside the string (`rangeIn: 'value'` at `pointer`).
 */
export function checkLogpullOptions(s: string, dataset: Dataset | undefined, pointer = '/logpull_options'): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (range: Range) => ({ pointer, range, rangeIn: 'value' as const });
  const seen = new Set<string>();
  for (const o of parseLogpullOptions(s)) {
    if (!o.wellFormed) {
      out.push(diag('logpull-invalid-option', `${describe(o.name)} in logpull_options is not option=value; options are ${Object.keys(LOGPULL_OPTIONS).join(', ')}`, at(o.range)));
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(LOGPULL_OPTIONS, o.name)) {
      const sug = suggest(o.name, Object.keys(LOGPULL_OPTIONS));
      out.push(diag('logpull-unknown-option', `Unknown logpull option ${describe(o.name)}${sug ? `; did you mean "${sug}"?` : ''} (known: ${Object.keys(LOGPULL_OPTIONS).join(', ')})`, {
        ...at(o.nameRange), data: { option: o.name, suggestion: sug },
        fix: sug ? { title: `replace with "${sug}"`, edits: [{ range: o.nameRange, newText: sug }] } : undefined,
      }));
      continue;
    }
    if (seen.has(o.name)) {
      out.push(diag('logpull-duplicate-option', `Option "${o.name}" is given twice in logpull_options; keep one`, at(o.range)));
      continue;
    }
    seen.add(o.name);
    switch (o.name) {
      case 'fields':
        out.push(...checkFields(o, dataset, pointer));
        break;
      case 'timestamps':
        if (!(TIMESTAMP_FORMATS as readonly string[]).includes(o.value)) {
          const sug = suggest(o.value, TIMESTAMP_FORMATS);
          out.push(diag('logpull-invalid-timestamps', `timestamps=${o.value} is not a format; use ${TIMESTAMP_FORMATS.join(', ')}`, {
            ...at(o.valueRange), fix: sug ? { title: `replace with "${sug}"`, edits: [{ range: o.valueRange, newText: sug }] } : undefined,
          }));
        }
        break;
      case 'sample': {
        const n = /^(0|[1-9][0-9]*)?(\.[0-9]+)?$/.test(o.value) && o.value !== '' && o.value !== '.' ? Number(o.value) : NaN;
        if (!(n > 0 && n <= 1)) out.push(diag('logpull-invalid-sample', `sample=${o.value} is not a number in (0, 1] (0.1 keeps 10% of lines)`, at(o.valueRange)));
        break;
      }
      case 'CVE-2021-44228':
        if (o.value !== 'true' && o.value !== 'false') {
          const lower = o.value.toLowerCase();
          out.push(diag('logpull-invalid-cve', `CVE-2021-44228=${o.value} must be true or false`, {
            ...at(o.valueRange), fix: lower === 'true' || lower === 'false' ? { title: `replace with ${lower}`, edits: [{ range: o.valueRange, newText: lower }] } : undefined,
          }));
        }
        break;
    }
  }
  return out;
}

function checkFields(o: LogpullOption, dataset: Dataset | undefined, pointer: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (range: Range) => ({ pointer, range, rangeIn: 'value' as const });
  if (o.value.length === 0) {
    out.push(diag('logpull-empty-fields', 'fields= lists no field; name at least one field of the dataset', at(o.range)));
    return out;
  }
  let off = o.valueRange.start;
  const seen = new Set<string>();
  let more = 0;
  for (const name of o.value.split(',')) {
    const range = { start: off, end: off + name.length };
    off += name.length + 1;
    if (out.length >= MAX_FIELD_DIAGNOSTICS) {
      if (name.length === 0 || seen.has(name) || (dataset && !dataset.byName.has(name))) more++;
      seen.add(name);
      continue;
    }
    if (name.length === 0) {
      out.push(diag('logpull-empty-fields', 'An empty field name between commas in fields=', at({ start: range.start - 1, end: range.start })));
      continue;
    }
    if (seen.has(name)) {
      out.push(diag('logpull-duplicate-field', `${name} is listed twice in fields=`, at(range)));
      continue;
    }
    seen.add(name);
    if (!dataset || dataset.byName.has(name)) continue;
    if ((CUSTOM_FIELD_OBJECTS as readonly string[]).includes(name)) {
      out.push(diag('logpull-custom-fields-dataset', `${name} adds custom log fields to http_requests jobs only; ${dataset.name} has no such field`, at(range)));
      continue;
    }
    const sug = suggest(name, dataset.byName.keys());
    out.push(diag('logpull-unknown-field', `${describe(name)} is not a field of ${dataset.name}${sug ? `; did you mean "${sug}"?` : ''}`, {
      ...at(range), data: { field: name, dataset: dataset.name, suggestion: sug },
      fix: sug ? { title: `replace with "${sug}"`, edits: [{ range, newText: sug }] } : undefined,
    }));
  }
  if (more) out.push(diag('logpull-unknown-field', `and ${more} more field name(s) in fields= that are empty, repeated or not fields of ${dataset?.name ?? 'the dataset'} (not listed one by one)`, { ...at(o.valueRange), data: { more } }));
  return out;
}

/**
 * The most field-name problems listed one by one in a field list; the rest are counted in one last
 * diagnostic. A list of 80,000 unknown names would otherwise cost a did-you-mean search each and an
 * answer of megabytes.
 */
export const MAX_FIELD_DIAGNOSTICS = 100;
