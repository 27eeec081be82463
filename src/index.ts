/**
 * rulekit — a toolkit for the two small languages of an edge network's ruleset and log push
 * configuration API: network rule expressions and Logpush filters. Parse, check, evaluate, simulate.
 *
 * Everything exported here runs in Node 20 and in a browser, and never throws on bad input: problems
 * come back as {@link Diagnostic}s `{code, severity, message, range or pointer, fix?}`.
 *
 * The root holds expressions, rulesets and the headline Logpush and export calls. The rest lives in
 * subpaths: `rulekit/logpush` (datasets, filters, jobs, custom fields, log lines), `rulekit/capture`
 * (pcap/pcapng reading and decoding, country/ASN tables) and, for Node only, `rulekit/node` (simulation
 * of capture files and streams, worker threads).
 * @module rulekit
 */

// Diagnostics
export {
  hasErrors,
  sortDiagnostics,
  SourceText,
  renderDiagnostic,
  renderDiagnostics,
  type Diagnostic,
  type DiagnosticCodeInfo,
  type Severity,
  type Range,
  type Fix,
  type TextEdit,
  type LineColumn,
  type RenderOptions,
  type RenderDiagnosticOptions,
} from './diagnostics/index.js';
export { DIAGNOSTIC_CODES } from './codes.js';

// Network rule expressions
export {
  parseExpression,
  checkExpression,
  checkValueExpression,
  evaluateValueExpression,
  compileExpression,
  evaluateExpression,
  interpret,
  print,
  walk,
  referencedFields,
  referencedLists,
  ListCatalog,
  LIST_KINDS,
  LIST_KIND_NAMES,
  MANAGED_LISTS,
  MANAGED_LIST_CATALOG,
  MANAGED_LISTS_SOURCE,
  managedListsFor,
  Scheme,
  NETWORK_SCHEME,
  NETWORK_FIELDS,
  HTTP_SCHEME,
  HTTP_FIELDS,
  HTTP_FIELD_ROWS,
  HTTP_EXTRA_FIELD_ROWS,
  HTTP_FIELD_PHASES,
  HTTP_FIELDS_SOURCE,
  INT_FIELD_DOMAINS,
  domainText,
  type IntDomain,
  type IntDomainRow,
  STRING_FIELD_DOMAINS,
  type StringDomain,
  type SchemeOptions,
  COMPARE_OPERATORS,
  LOGICAL_OPERATORS,
  IN_SET_TYPES,
  IN_LIST_TYPES,
  FUNCTIONS,
  FUNCTIONS_SOURCE,
  NEWER_FUNCTIONS_SOURCE,
  COUNTRY_CODES,
  EXPRESSION_CODES,
  DEFAULT_LIMITS,
  MAX_SUPPORTED_DEPTH,
  type ExpressionOptions,
  type ValueCheckResult,
  type ExpressionLimits,
  type ParseResult,
  type CompileResult,
  type CheckedExpression,
  type Matcher,
  type Packet,
  type ListItems,
  type ListKind,
  type ManagedListInfo,
  type FieldDef,
  type FieldType,
  type SchemeLiteral,
  type FunctionInfo,
  type AnyNode,
  type ExprNode,
  type LhsNode,
  type FieldNode,
  type CallNode,
  type LiteralNode,
  type RangeNode,
  type SetNode,
  type ListNode,
  type CompareNode,
  type InNode,
  type BareNode,
  type NotNode,
  type LogicalNode,
  type GroupNode,
  type ErrorNode,
  type CompareOperator,
  type LogicalOperator,
} from './expression/index.js';

// Ruleset analysis: rules that can never decide, expressions never or always true
export { analyzeRuleset, ANALYSIS_CODES, type AnalysisOptions, type AnalysisRule, type RuleAnalysis, type RulesetAnalysis, type AnalysisCode } from './analysis/index.js';

// Semantic diff: the packets, requests or log lines whose fate a change to a ruleset or a filter changes
export {
  diffRulesets, countDiff, DiffCounter, regionContains, decisionText, regionText, diffSummary, failsGate, DIFF_GATES, formatDiffText, formatDiffMarkdown,
  diffLogFilters, countLogFilterDiff, LogFilterDiffCounter, logRegionContains, logFilterDiffSummary, failsLogFilterGate, formatLogFilterDiffText, formatLogFilterDiffMarkdown, LOG_FILTER_GATES, DIFF_CODES,
  type RulesetDiff, type DiffRegion, type Decision, type DiffRuleRef, type RegionCondition, type DiffOptions, type CountDiffOptions, type TrafficDiff,
  type PairCount, type DiffExample, type DiffSummary, type DiffGate, type DiffReport, type UndecidedRule, type LogFilterDiff, type LogFilterRegion, type LogFilterCounts, type LogFilterCountOptions,
  type LogFilterDiffSummary, type LogFilterGate, type LogFilterDiffReport, type DiffCode,
  matchSetRuleset, asMatchSetReport, matchSetSummary, failsMatchSetGate, MATCH_SET_GATES, type MatchSetLine, type MatchSetGate, type MatchSetSummary,
} from './diff/index.js';

// Logpush filters as SQL (DuckDB), over a JSON column of log lines
export {
  toSql, logFilterToSql, expressionToSql, rulesetToSql, rulesetSummarySql, flowFields, flowColumnType, flowColumnFromJson, flowColumnChecked,
  sqlString, sqlIdentifier, SQL_DIALECTS, SQL_CODES,
  type ToSqlOptions, type ToSqlResult, type LogFilterSqlOptions, type ExpressionSqlOptions, type RulesetSqlOptions, type RulesetSqlResult,
  type RuleSql, type SummarySql, type SummarySqlOptions, type SqlResult, type SqlDialect,
} from './sql/index.js';

// IP addresses and sets
export { IpSet, parseIpAddress, formatIpAddress, parseIpCidr, type IpAddress, type IpCidr, type IpFamily } from './net/index.js';

// Rulesets: validation and the service's envelope
export {
  validateRuleset,
  toEnvelope,
  numericCode,
  RULESET_CODES,
  ACTIONS,
  PHASES,
  PHASE_CATALOG,
  CATALOG_ACTIONS,
  ACTION_CATALOG,
  KIND_CATALOG,
  CATALOG_KINDS,
  phaseInfo,
  isHttpRuleset,
  type PhaseInfo,
  type FieldSet,
  RULESET_LIMITS,
  type RulesetContext,
  RuleCache,
  type RuleScope,
  type Envelope,
  type EnvelopeEntry,
  type Rule,
  type Ruleset,
  type RuleAction,
  type RulesetPhase,
  type RulesetKind,
} from './ruleset/index.js';

// The packet engine: rulesets compiled once, packet objects simulated through them
export {
  simulate,
  compileRuleset,
  CompiledRuleset,
  type SimulationOptions,
  type SimulationResult,
  type SimulationSummary,
  type RuleSummary,
  type RuleRef,
  type PacketVerdict,
  type Verdict,
} from './engine/index.js';

// HTTP requests (NDJSON objects, HAR files) as records, through HTTP-phase rulesets (the rest in rulekit/http)
export { readRequests, requestRecord, simulateRequests, type HttpRequest } from './http/index.js';

// Logpush: the headline calls (the rest in rulekit/logpush)
export {
  compileLogFilter,
  checkLogFilter,
  validateLogpushJob,
  validateCustomFieldRules,
  buildLogLine,
  DATASET_NAMES,
  type CompileLogFilterOptions,
  type CompiledLogFilter,
  type DatasetScope,
  type LogpushJobContext,
} from './logpush/index.js';

// Export to other tools
export { toWireshark, type WiresharkExport } from './export/index.js';
