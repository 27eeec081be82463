/**
 * `rulekit test`: unit tests of rulesets and Logpush filters kept in YAML or JSON files (schema:
 * docs/schemas/rulekit-test.schema.json) — packets with the expected verdict and deciding rule, captures
 * with expected figures, diffs against a base ruleset with expected figures, log lines with whether the
 * filter keeps them — and the dry run of a filter over log lines behind `rulekit logfilter`. Node only (it reads the files a test names).
 * @module
 */
export { parseTestDocument, type Path, type TestDocument, type SyntaxProblem } from './document.js';
export { validateTestFile, DIFF_FIGURES, DIFF_SHORTHANDS, type TestFileSpec, type PacketCaseSpec, type CaptureCaseSpec, type DiffCaseSpec, type DiffFigure, type FilterTestSpec, type FilterLineSpec, type RuleSelector, type SpecProblem } from './spec.js';
export { loadSuite, type LoadedSuite, type LoadedFilter, type RuleInfo, type TestProblem } from './load.js';
export { runSuite, ruleLabel, type SuiteResult, type CaseResult, type CaseCheck, type TraceStep } from './run.js';
export { formatResults, formatProblems, totals, TEST_FORMATS, type TestFormat, type TestReportOptions } from './report.js';
export { findTestFiles, TEST_FILE_PATTERN } from './files.js';
export { decideLine, decidingClauses, clauseText, reasonText, type LineDecision } from './logfilter.js';
