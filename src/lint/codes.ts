/**
 * Diagnostic codes of `rulekit lint` itself (the inputs it reads), beside the codes of the languages it
 * checks: the table (src/lint-codes.ts, beside DIAGNOSTIC_CODES, which holds them too) and the diagnostic
 * builder.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { LINT_CODES } from '../lint-codes.js';

export { LINT_CODES };

/** A code of `rulekit lint`. */
export type LintCode = keyof typeof LINT_CODES;

/** A diagnostic of the lint code table. */
export function lintDiagnostic(code: LintCode, message: string, range: Range | undefined, extra: Partial<Diagnostic> = {}): Diagnostic {
  const d: Diagnostic = { code, severity: LINT_CODES[code].severity, message, ...extra };
  if (range) d.range = range;
  return d;
}
