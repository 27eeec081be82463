/** Builds the capture module's diagnostics so their shape and wording stay uniform. @module */
import type { Diagnostic } from '../diagnostics/index.js';
import { CAPTURE_CODES, type CaptureCode } from './codes.js';

/** A capture diagnostic: `data.offset` is the byte offset in the capture file it is about. */
export interface CaptureDiagnostic extends Diagnostic {
  data: { offset: number } & Record<string, unknown>;
}

/** Build a diagnostic of `code` with its default severity; `offset` is a byte offset in the file. */
export function captureDiagnostic(
  code: CaptureCode,
  offset: number,
  message: string,
  extra?: Record<string, unknown>,
): CaptureDiagnostic {
  return { code, severity: CAPTURE_CODES[code].severity, message, data: { offset, ...extra } };
}
