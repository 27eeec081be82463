/**
 * The one helper that builds expression diagnostics, so wording and shape stay uniform
 * (cel-go's `checker/errors.go` idea). Severity defaults to the code table's.
 * @module
 */
import type { Diagnostic, Fix, Range, Severity } from '../diagnostics/index.js';
import { EXPRESSION_CODES, type ExpressionCode } from './codes.js';

/** Build a diagnostic of the expression pipeline. */
export function expressionDiagnostic(
  code: ExpressionCode,
  message: string,
  range: Range,
  extra: { fix?: Fix; data?: Record<string, unknown>; severity?: Severity } = {},
): Diagnostic {
  const d: Diagnostic = { code, severity: extra.severity ?? EXPRESSION_CODES[code].severity, message, range: { start: range.start, end: range.end } };
  if (extra.fix) d.fix = extra.fix;
  if (extra.data) d.data = extra.data;
  return d;
}
