/**
 * The one table of every diagnostic code rulekit emits, assembled from each language's own table.
 * Each row: default severity and a one-line documented meaning. `docs/diagnostics.md` is generated from it.
 * @module
 */
import type { DiagnosticCodeInfo } from './types.js';
import { EXPRESSION_CODES } from '../expression/codes.js';
import { LOGPUSH_CODES } from '../logpush/codes.js';
import { RULESET_CODES } from '../ruleset/codes.js';
import { CAPTURE_CODES } from '../capture/codes.js';
import { EXPORT_CODES } from '../export/codes.js';

/** Every diagnostic code, keyed by its kebab-case id. */
export const DIAGNOSTIC_CODES: Readonly<Record<string, DiagnosticCodeInfo>> = Object.freeze({
  ...EXPRESSION_CODES,
  ...LOGPUSH_CODES,
  ...RULESET_CODES,
  ...CAPTURE_CODES,
  ...EXPORT_CODES,
});
