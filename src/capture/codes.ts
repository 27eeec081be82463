/** Diagnostic codes of packet capture reading and decoding. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/types.js';

/** Codes of the capture module, each with its default severity and meaning. */
export const CAPTURE_CODES = {
} as const satisfies Record<string, DiagnosticCodeInfo>;
