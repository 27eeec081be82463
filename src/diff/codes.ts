/** Diagnostic codes of the semantic diff. @module */
import type { Diagnostic, DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the diff, each with its default severity and meaning. */
export const DIFF_CODES = {
  'diff-field-sets-differ': { severity: 'error', doc: 'The two rulesets of a diff read different field sets (one an HTTP phase, reading requests, the other a network phase, reading packets): no packet is decided by both, so nothing is compared.' },
  'diff-rule-left-out': { severity: 'warning', doc: 'A rule of one side of a diff that the simulator leaves out (its expression has errors, or its action is not run in the phase): it decides nothing on that side, in the regions as in the counts. `data.side` says which side.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A code of the diff. */
export type DiffCode = keyof typeof DIFF_CODES;

/** A diagnostic of the diff. */
export function diffDiagnostic(code: DiffCode, message: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return { code, severity: DIFF_CODES[code].severity, message, ...extra };
}
