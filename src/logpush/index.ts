/**
 * Logpush: dataset catalogs, filters (check, evaluate, compile, print), job validation, custom log
 * fields and the log line builder. Browser-safe.
 * @module
 */
export {
  DATASETS, DATASET_NAMES, getDataset, UNFILTERABLE_FIELDS, CUSTOM_FIELD_OBJECTS,
  ZONE_DATASETS, ACCOUNT_DATASETS, DATASETS_BY_SCOPE, DATASET_SCOPES, DOCS_SNAPSHOT, UNFILTERABLE_TYPES,
  FILTERS_PAGE_SOURCE, FILTER_LIMITATIONS_SOURCE, FILTERS_PAGE_TABLE, FILTERS_PAGE_LIMITS,
  type Dataset, type DatasetField, type DatasetScope, type DocsSource, type FiltersPageRow, type FieldRow, type FieldType as LogFieldType,
} from './datasets/index.js';
export * from './operators.js';
export { LOGPUSH_CODES, type LogpushCode } from './codes.js';
export type { FilterClause, FilterGroup, FilterNode, FilterScalar, LogFilter } from './filter-ast.js';
export { checkLogFilter, resolveOperator, type CheckedFilter, type CheckFilterOptions } from './filter-check.js';
export { evaluateLogFilter, evaluateClause } from './filter-eval.js';
export { compileMatcher, generateMatcherSource, type CompileMode, type LogLineMatcher } from './filter-compile.js';
export { printLogFilter, logFilterToJSON, logFilterToExpression, type PrintFilterOptions } from './filter-print.js';
export { compileLogFilter, type CompileLogFilterOptions, type CompiledLogFilter } from './filter.js';
export { DESTINATION_SCHEMES, DESTINATION_BY_SCHEME, DATE_PLACEHOLDER, parseDestination, type DestinationScheme, type ParsedDestination } from './destinations.js';
export { LOGPULL_OPTIONS, TIMESTAMP_FORMATS, parseLogpullOptions, readLogpullSettings, checkLogpullOptions, type TimestampFormat, type LogpullOption, type LogpullSettings } from './logpull-options.js';
export { validateLogpushJob, JOB_MEMBERS, JOB_NAME_MAX, JOB_NAME_PATTERN, JOB_OTHER_MEMBERS, JOB_SETTINGS, OUTPUT_OPTIONS_MEMBERS, OUTPUT_TIMESTAMP_FORMATS, type JobSetting, type LogpushJobContext } from './job.js';
export {
  validateCustomFieldRule, validateCustomFieldRules, zoneCustomFieldLimit, customFieldNames, CUSTOM_FIELD_ARRAYS, CUSTOM_FIELD_LIMITS, CUSTOM_FIELD_ACTION,
  type CustomFieldArray, type CustomFieldRuleOptions,
} from './custom-fields.js';
export {
  buildLogLine, fillCustomObject, parseCookieHeaders, redactLog4Shell,
  type LogRequest, type LogLineJob, type BuiltLogLine, type Truncation, type NameValue, type BuildLogLineOptions,
} from './log-line.js';
export { toUnixNanos, formatTimestamp } from './timestamps.js';
export { utf8Length, utf8Prefix } from './utf8.js';
export { explainLogFilter, renderFilterExplanation, logFilterFields, type FilterExplanation } from './filter-explain.js';
export { checkTransformer, previewTransformer, MAX_TRANSFORMER_SQL, type CheckedTransformer, type TransformerPreview } from './transformer.js';
export type { TransformerColumns } from './transformer-check.js';
export type { TransformerValueKind } from './transformer-functions.js';
export type { SqlQuery as TransformerQuery, SqlSelect as TransformerSelect, SqlSelectItem as TransformerSelectItem, SqlExpr as TransformerExpr, SqlBinaryOp as TransformerBinaryOp, SqlCastType as TransformerCastType } from './transformer-ast.js';
