/**
 * The one table of every diagnostic code rulekit emits, assembled at the top from each folder's own table
 * (each folder owns its codes; none of them imports the others' to build this): the languages', and those
 * of `rulekit lint` and of the reference server.
 * Each row: default severity and a one-line documented meaning. `docs/diagnostics.md` is generated from it.
 * @module
 */
import type { DiagnosticCodeInfo } from './diagnostics/index.js';
import { EXPRESSION_CODES } from './expression/index.js';
import { LOGPUSH_CODES } from './logpush/index.js';
import { RULESET_CODES } from './ruleset/index.js';
import { CAPTURE_CODES } from './capture/index.js';
import { EXPORT_CODES } from './export/index.js';
import { ANALYSIS_CODES } from './analysis/index.js';
import { SQL_CODES } from './sql/index.js';
import { HTTP_CODES } from './http/index.js';
// The server is a Node-only folder, outside the browser bundle this table is part of: its codes.ts is read
// directly, as data (a folder's codes.ts imports nothing but types; a dependency rule holds it). Lint's
// table lives beside this one (lint-codes.ts): lint reads this table back.
import { LINT_CODES } from './lint-codes.js';
import { SERVER_CODES } from './server/codes.js';
import { DIFF_CODES } from './diff/index.js';

/** Every diagnostic code, keyed by its kebab-case id. */
export const DIAGNOSTIC_CODES: Readonly<Record<string, DiagnosticCodeInfo>> = Object.freeze({
  ...EXPRESSION_CODES,
  ...LOGPUSH_CODES,
  ...RULESET_CODES,
  ...CAPTURE_CODES,
  ...EXPORT_CODES,
  ...ANALYSIS_CODES,
  ...SQL_CODES,
  ...HTTP_CODES,
  ...LINT_CODES,
  ...SERVER_CODES,
  ...DIFF_CODES,
});
