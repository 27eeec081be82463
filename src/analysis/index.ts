/**
 * Ruleset analysis: rules that can never decide (shadowed, redundant), expressions and parts of them that
 * are never or always true, each with a witness packet. Runs in a browser.
 * @module
 */
export { analyzeRuleset, witnessOf, SERVICE_LIMITS, type AnalysisRule, type AnalysisOptions, type RuleAnalysis, type RulesetAnalysis } from './analyze.js';
export { ANALYSIS_CODES, type AnalysisCode } from './codes.js';
// The cube algebra under the analysis, for other exact reasoning over packets (the semantic diff).
export { Normalizer, TooComplex, MAX_CUBES, meet, product, mayOverlap, difference, subtractAll, firstOutside, coalesce, satisfiable, transportOf, ipKey, keyToIp, IP_UNIVERSE, type Cube } from './formula.js';
export { complement, intersect, isEmpty, hasValue, normalize, type Domain, type Interval, type OrderedDomain, type StringDomain } from './domains.js';
