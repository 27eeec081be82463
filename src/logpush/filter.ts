/**
 * The public face of Logpush filters: check a filter string against a dataset and compile it.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { LogFilter } from './filter-ast.js';
import { checkLogFilter } from './filter-check.js';
import { compileMatcher, type CompileMode, type LogLineMatcher } from './filter-compile.js';

/** Options of {@link compileLogFilter}. */
export interface CompileLogFilterOptions {
  /** The job's dataset, e.g. `http_requests`. */
  dataset: string;
  /** Matcher back end: `auto` (default: generated code, closures when `new Function` is forbidden), `codegen` or `closures`. */
  mode?: CompileMode;
}

/** Result of {@link compileLogFilter}. */
export interface CompiledLogFilter {
  /** Every problem found; the filter and matcher are absent when one is an error. */
  diagnostics: Diagnostic[];
  /** The checked filter. */
  filter?: LogFilter;
  /** True when a log line passes the filter (would be sent). */
  matcher?: LogLineMatcher;
}

/**
 * Parse, check and compile a Logpush `filter` string for a dataset. Diagnostics carry a JSON pointer
 * into the filter document (`/where/and/2/operator`) and a range into `filter`. Never throws.
 */
export function compileLogFilter(filter: string, options: CompileLogFilterOptions): CompiledLogFilter {
  const checked = checkLogFilter(filter, { dataset: options?.dataset });
  if (!checked.filter) return { diagnostics: checked.diagnostics };
  let matcher: LogLineMatcher;
  try {
    matcher = compileMatcher(checked.filter, options.mode ?? 'auto');
  } catch {
    matcher = compileMatcher(checked.filter, 'closures');
  }
  return { diagnostics: checked.diagnostics, filter: checked.filter, matcher };
}
