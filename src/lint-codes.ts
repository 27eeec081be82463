/**
 * The codes of `rulekit lint` itself (the inputs it reads), as data outside the lint folder: the one table
 * of every code (src/codes.ts) reads it without reaching into lint, and lint reads that table (to check the
 * code names a config or a suppression gives) without an import back up. src/lint/codes.ts re-exports it.
 * @module
 */
import type { DiagnosticCodeInfo } from './diagnostics/index.js';

/** Codes of the lint inputs. */
export const LINT_CODES = {
  'lint-parse-error': { severity: 'error', doc: 'The file is not valid HCL, JSON or YAML; the parser’s message and position are given.' },
  'lint-interpolation': { severity: 'info', doc: 'A Terraform interpolation (${var.x}) inside an expression or filter was checked with a stand-in value of a fitting type in its place.' },
  'lint-not-literal': { severity: 'info', doc: 'An expression or filter that is not a literal string (a variable, a function call) and so was not checked.' },
  'lint-unrecognized': { severity: 'warning', doc: 'A file named on the command line that holds none of the shapes lint reads (ruleset body, rule array, Logpush job or filter, expressions).' },
  'lint-unread-value': { severity: 'error', doc: 'HashiCorp’s HCL parser finds a rule expression or Logpush filter in a Terraform file that rulekit’s reader did not read; it was not checked (a layout rulekit does not read yet: please report it).' },
  'lint-nothing-checked': { severity: 'warning', doc: 'A file (named on the command line, or every file of a run) in which rulekit found no expression, filter or body it checks: no clean pass over a file it did not read.' },
  'lint-unknown-action': { severity: 'error', doc: 'A Terraform rule action that the API does not have, or that the ruleset’s phase does not take (`ACTION_CATALOG`, `PHASE_CATALOG`); the closest action is suggested.' },
  'lint-unknown-code': { severity: 'error', doc: 'A rulekit-disable-next-line comment names a code that no code table has; the closest code is suggested.' },
  'lint-unused-suppression': { severity: 'warning', doc: 'A rulekit-disable-next-line comment (or a code it names) that suppressed nothing on the next line; the fix removes it.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;
