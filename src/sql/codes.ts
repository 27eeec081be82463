/** Diagnostic codes of SQL generation. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

export const SQL_CODES = {
  'sql-no-exact-form': { severity: 'error', doc: 'A part of a filter, expression or ruleset that SQL cannot express with rulekit’s exact semantics (matches, a case-insensitive wildcard with letters, bit_slice, a value with an unpaired surrogate); no SQL is given rather than SQL that differs.' },
  'sql-empty-array-missing': { severity: 'warning', doc: 'ClickHouse column mode: array columns cannot be NULL, so an empty array reads as a missing field; a negated clause on it is false where a line holding [] would match.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;
