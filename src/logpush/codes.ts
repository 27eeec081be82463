/** Diagnostic codes of Logpush filters, jobs and custom log fields. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/types.js';

/** Codes of the Logpush module, each with its default severity and meaning. */
export const LOGPUSH_CODES = {
} as const satisfies Record<string, DiagnosticCodeInfo>;
