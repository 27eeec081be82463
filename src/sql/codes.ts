/** Diagnostic codes of SQL generation. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

export const SQL_CODES = {
  'sql-no-exact-form': { severity: 'error', doc: 'A part of a filter, expression or ruleset that SQL cannot express with rulekit’s exact semantics (matches, a case-insensitive wildcard with letters, bit_slice, a value with an unpaired surrogate); no SQL is given rather than SQL that differs.' },
  'sql-empty-array-missing': { severity: 'warning', doc: 'ClickHouse column mode: array columns cannot be NULL, so an empty array reads as a missing field; a negated clause on it is false where a line holding [] would match.' },
  'sql-inexact-value': { severity: 'error', doc: 'Logpush lines hold values of a field that SQL does not read exactly as the in-process reader does (an array, a number past 2^53, non-ASCII text to change case, an RFC 3339 timestamp): the run on an engine stops, naming the field and the count; count those lines in process.' },
  'sql-not-logpush-lines': { severity: 'error', doc: 'An HTTP-phase run on an engine met rows that are not Logpush http_requests lines (request objects); the engines read Logpush lines only, so the run stops; count in process.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;
