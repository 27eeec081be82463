/**
 * Ruleset analysis: rules that can never decide (shadowed, redundant), expressions and parts of them that
 * are never or always true, each with a witness packet. Runs in a browser.
 * @module
 */
export { analyzeRuleset, witnessOf, SERVICE_LIMITS, type AnalysisRule, type AnalysisOptions, type RuleAnalysis, type RulesetAnalysis } from './analyze.js';
export { ANALYSIS_CODES, type AnalysisCode } from './codes.js';
