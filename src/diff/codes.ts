/** Diagnostic codes of the semantic diff. @module */
import type { Diagnostic, DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the diff, each with its default severity and meaning. */
export const DIFF_CODES = {
  'diff-field-sets-differ': { severity: 'error', doc: 'The two rulesets of a diff read different field sets (one an HTTP phase, reading requests, the other a network phase, reading packets): no packet is decided by both, so nothing is compared.' },
  'diff-rule-left-out': { severity: 'warning', doc: 'A rule of one side of a diff that the simulator leaves out (its expression has errors, or its action is not run in the phase): it decides nothing on that side, in the regions as in the counts. `data.side` says which side.' },
  'diff-var-file': { severity: 'error', doc: 'A `--var-file` of `rulekit diff` that is not valid HCL (a `.tfvars`) or JSON (a `.tfvars.json`), or not an object of variable values: named at its line and column; nothing is compared (exit 1).' },
  'diff-region': { severity: 'info', doc: 'A dry run of a ruleset write (`?dry_run=true`): a region of packets or requests whose verdict or deciding rule the write changes against the stored version, in one line (`tcp.dstport 443: allow → block by rule 1 "web"`), with a witness for an exact region. At most 20 are listed; the last entry counts the rest.' },
  'diff-no-change': { severity: 'info', doc: 'A dry run of a ruleset write: the write changes no verdict and no deciding rule of any packet or request (the rules may differ in text).' },
  'diff-not-computed': { severity: 'info', doc: 'A dry run of a ruleset write: the diff against the stored version was not computed (a side over the rule count the server diffs on its thread, or rules the diff cannot read); `rulekit diff` computes it.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A code of the diff. */
export type DiffCode = keyof typeof DIFF_CODES;

/** A diagnostic of the diff. */
export function diffDiagnostic(code: DiffCode, message: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return { code, severity: DIFF_CODES[code].severity, message, ...extra };
}
