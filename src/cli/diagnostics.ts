/** Diagnostics the CLI adds about its inputs, and the exit code a command's diagnostics give. @module */
import { EXPRESSION_CODES, type Diagnostic } from '../index.js';
import type { TextInput } from './io.js';

/** Diagnostics of bytes that are not UTF-8, at their place in the decoded text. */
export function utf8Diagnostics(input: TextInput): Diagnostic[] {
  return input.invalidUtf8.map((at) => ({
    code: 'invalid-utf8',
    severity: EXPRESSION_CODES['invalid-utf8'].severity,
    message: 'bytes that are not UTF-8; they are read as U+FFFD (\uFFFD). Save the file as UTF-8',
    range: { start: at, end: at + 1 },
  }));
}

/** Exit code of a lint command: 1 on errors, or on more warnings than `--max-warnings` allows. */
export function lintExit(diagnostics: readonly Diagnostic[], maxWarnings: number | undefined, note: (s: string) => void): number {
  let errors = 0;
  let warnings = 0;
  for (const d of diagnostics) {
    if (d.severity === 'error') errors++;
    else if (d.severity === 'warning') warnings++;
  }
  if (errors > 0) return 1;
  if (maxWarnings !== undefined && maxWarnings >= 0 && warnings > maxWarnings) {
    note(`rulekit: ${warnings} warning(s), more than --max-warnings ${maxWarnings}\n`);
    return 1;
  }
  return 0;
}
