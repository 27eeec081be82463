/**
 * The code names a severity setting, an `ignore` entry or a suppression comment gives, checked against the
 * one table of codes (DIAGNOSTIC_CODES): a misspelt name is an error that names the nearest code.
 * @module
 */
import { suggest } from '../diagnostics/index.js';
import { DIAGNOSTIC_CODES } from '../codes.js';

/** Whether a code is in DIAGNOSTIC_CODES. */
export function isKnownCode(code: string): boolean {
  return Object.hasOwn(DIAGNOSTIC_CODES, code);
}

/** The known code nearest to a misspelt one, if one is near. */
export function nearestCode(code: string): string | undefined {
  return suggest(code, Object.keys(DIAGNOSTIC_CODES));
}

/** `unknown code "comma-in-sett"; did you mean comma-in-set?` (the nearest known code, when one is near). */
export function unknownCodeMessage(code: string): string {
  const near = nearestCode(code);
  return `unknown code ${JSON.stringify(code)}${near ? `; did you mean ${near}?` : ' (docs/diagnostics.md lists the codes)'}`;
}
