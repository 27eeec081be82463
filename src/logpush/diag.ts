/** The one helper that builds Logpush diagnostics, so wording and severities stay uniform. @module */
import type { Diagnostic, Fix, Range } from '../diagnostics/index.js';
import { LOGPUSH_CODES, type LogpushCode } from './codes.js';

/** Optional parts of a diagnostic. */
export interface DiagExtra {
  range?: Range | undefined;
  pointer?: string | undefined;
  rangeIn?: 'document' | 'value';
  fix?: Fix | undefined;
  data?: Record<string, unknown>;
  severity?: Diagnostic['severity'];
}

/** Build a diagnostic of the Logpush code table with its default severity. */
export function diag(code: LogpushCode, message: string, extra: DiagExtra = {}): Diagnostic {
  const d: Diagnostic = { code, severity: extra.severity ?? LOGPUSH_CODES[code].severity, message };
  if (extra.range) d.range = extra.range;
  if (extra.pointer !== undefined) d.pointer = extra.pointer;
  if (extra.rangeIn && extra.range) d.rangeIn = extra.rangeIn;
  if (extra.fix) d.fix = extra.fix;
  if (extra.data) d.data = extra.data;
  return d;
}

/** A short, safe rendering of any value for a message (never walks deep structures). */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  switch (typeof v) {
    case 'string': return v.length > 40 ? `${JSON.stringify(v.slice(0, 40))}… (${v.length} characters)` : JSON.stringify(v);
    case 'number': case 'boolean': return String(v);
    case 'object': return 'an object';
    default: return typeof v;
  }
}

/** `Object.prototype.hasOwnProperty.call`, shorter. */
export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** A plain (non-array, non-null) object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
