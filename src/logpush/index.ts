/**
 * Logpush: dataset catalogs, filters (check, evaluate, compile, print), job validation, custom log
 * fields and the log line builder. Browser-safe.
 * @module
 */
export * from './datasets/index.js';
export * from './operators.js';
export { LOGPUSH_CODES, type LogpushCode } from './codes.js';
export type { FilterClause, FilterGroup, FilterNode, FilterScalar, LogFilter } from './filter-ast.js';
export { checkLogFilter, resolveOperator, type CheckedFilter, type CheckFilterOptions } from './filter-check.js';
export { evaluateLogFilter, evaluateClause } from './filter-eval.js';
export { compileMatcher, generateMatcherSource, type CompileMode, type LogLineMatcher } from './filter-compile.js';
export { printLogFilter, logFilterToJSON, logFilterToExpression, type PrintFilterOptions } from './filter-print.js';
export { compileLogFilter, type CompileLogFilterOptions, type CompiledLogFilter } from './filter.js';
