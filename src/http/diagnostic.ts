/** Builds the HTTP readers' diagnostics so their shape and wording stay uniform. @module */
import type { Diagnostic } from '../diagnostics/index.js';
import { HTTP_CODES, type HttpCode } from './codes.js';

/**
 * A diagnostic of `code` with its default severity. `pointer` is an RFC 6901 pointer into the JSON value
 * the diagnostic is about (a HAR document, or one NDJSON line's object); `line` the NDJSON line (1-based).
 */
export function httpDiagnostic(code: HttpCode, message: string, where: { pointer?: string; line?: number } = {}): Diagnostic {
  // NDJSON messages name their line, as the packet readers' do.
  const text = where.line !== undefined && !message.startsWith('line ') ? `line ${where.line}: ${message}` : message;
  const d: Diagnostic = { code, severity: HTTP_CODES[code].severity, message: text };
  if (where.pointer !== undefined) d.pointer = where.pointer;
  if (where.line !== undefined) d.data = { line: where.line };
  return d;
}

/** A JSON pointer token (RFC 6901). */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}
