/**
 * The service's response envelope for errors (`{success:false, errors:[{code, message, source?:{pointer}}],
 * messages:[]}`), built from diagnostics, so the reference server and the CLI answer alike.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';

/** One entry of `errors` or `messages`. */
export interface EnvelopeEntry {
  /** Numeric code, stable per diagnostic code (see {@link numericCode}). */
  code: number;
  message: string;
  source?: { pointer: string };
  /** The diagnostic behind the entry: string code, severity, range, fix. */
  meta: { code: string; severity: Diagnostic['severity']; range?: Diagnostic['range']; rangeIn?: Diagnostic['rangeIn']; fix?: Diagnostic['fix'] };
}

/** The response envelope. */
export interface Envelope<T = unknown> {
  result: T | null;
  success: boolean;
  errors: EnvelopeEntry[];
  messages: EnvelopeEntry[];
}

/**
 * A stable number for a diagnostic code, in 10000..99999: FNV-1a of the code string. A test pins that
 * no two codes of the catalog share a number.
 */
export function numericCode(code: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < code.length; i++) {
    h ^= code.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 10000 + (h % 90000);
}

function entry(d: Diagnostic): EnvelopeEntry {
  const e: EnvelopeEntry = { code: numericCode(d.code), message: d.message, meta: { code: d.code, severity: d.severity } };
  // The service's schema gives `source.pointer` at least one character (rulesets_Message): a diagnostic of
  // the whole body (pointer "") has no `source`.
  if (d.pointer) e.source = { pointer: d.pointer };
  if (d.range) e.meta.range = d.range;
  if (d.rangeIn) e.meta.rangeIn = d.rangeIn;
  if (d.fix) e.meta.fix = d.fix;
  return e;
}

/**
 * Wrap a result and its diagnostics: errors go to `errors` (and `success` is false, `result` null),
 * warnings and the rest to `messages`.
 */
export function toEnvelope<T>(result: T, diagnostics: readonly Diagnostic[]): Envelope<T> {
  const errors = diagnostics.filter((d) => d.severity === 'error').map(entry);
  const messages = diagnostics.filter((d) => d.severity !== 'error').map(entry);
  return { result: errors.length ? null : result, success: errors.length === 0, errors, messages };
}
