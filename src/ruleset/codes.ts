/** Diagnostic codes of ruleset bodies and simulation input. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/types.js';

/** Codes of the ruleset module, each with its default severity and meaning. */
export const RULESET_CODES = {
} as const satisfies Record<string, DiagnosticCodeInfo>;
