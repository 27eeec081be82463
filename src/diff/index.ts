/**
 * The semantic diff: what a change to a ruleset does, exactly. The regions of packets (or requests)
 * whose verdict or deciding rule changes, each a conjunction of field conditions with a witness the
 * simulator confirms; what the analysis cannot decide is reported as unknown, never as no change.
 * Runs in a browser.
 * @module
 */
export type { Decision, DiffRegion, DiffRuleRef, RegionCondition, RulesetDiff } from './types.js';
export type { DiffOptions } from './deciders.js';
export { diffRulesets, decisionText, changeText, regionText, regionContains } from './regions.js';
export {
  matchSetRuleset, asMatchSetReport, matchSetSummary, failsMatchSetGate, MATCH_SET_GATES, MATCHED, UNMATCHED,
  type MatchSetLine, type MatchSetGate, type MatchSetSummary,
} from './match-sets.js';
export { DIFF_CODES, diffDiagnostic, type DiffCode } from './codes.js';
export { countDiff, DiffCounter, type CountDiffOptions, type DiffExample, type PairCount, type TrafficDiff } from './counts.js';
export { diffSummary, failsGate, DIFF_GATES, type DiffGate, type DiffSummary } from './summary.js';
export { exampleText, formatDiffText, formatDiffMarkdown, type DiffReport, type UndecidedRule } from './format.js';
export { diffLogFilters, logRegionContains, logRegionCube, type LogFilterDiff, type LogFilterRegion } from './logfilter.js';
export { countLogFilterDiff, LogFilterDiffCounter, type LogFilterCounts, type LogFilterCountOptions } from './logfilter-counts.js';
export {
  logFilterDiffSummary, failsLogFilterGate, formatLogFilterDiffText, formatLogFilterDiffMarkdown, LOG_FILTER_GATES,
  type LogFilterDiffSummary, type LogFilterGate, type LogFilterDiffReport,
} from './logfilter-format.js';
export { diffCountsSql, type DiffCountsSql, type DiffCountsSqlOptions } from './counts-sql.js';
export { logFilterDiffCountsSql, type LogFilterDiffCountsSql, type LogFilterDiffCountsSqlOptions } from './logfilter-counts-sql.js';
