/**
 * `rulekit lint`: rule expressions and Logpush filters where they really live — Terraform files,
 * request bodies in JSON or YAML, `.rules` files — checked with positions in those files, reported in
 * the formats CI reads, and fixed in place where the fix is safe. The extractors and the checks are pure
 * functions of text (they could run in a browser); finding files, the config and the run are Node only.
 * @module
 */
export { LINT_CODES, lintDiagnostic, type LintCode } from './codes.js';
export { isKnownCode, unknownCodeMessage } from './code-names.js';
export type { BodyItem, Extracted, InputKind, TextItem } from './types.js';
export { OffsetMap } from './offset-map.js';
export { parseHcl, type HclBody, type HclValue, type HclTemplate, type Interpolation } from './hcl.js';
export { extractTerraform, CHECKED_PHASES, hclLiteral, terraformRuleset, terraformResources, type TerraformRule, type TerraformRuleset } from './terraform.js';
export { extractJson, extractYaml, extractRules, shapeOf, decodeJsonString, decodeYamlScalar } from './bodies.js';
export { checkExtracted, SAFE_FIX_CODES, type LintDiagnostic, type LintCheckOptions } from './check.js';
export { LINT_FORMATS, formatReports, atLeast, summarize, type LintFormat, type FormatOptions } from './formats.js';
export { CONFIG_FILE, CONFIG_MEMBERS, ConfigError, configIgnores, findConfig, loadConfig, severitySetting, type IgnoreEntry, type LintConfig, type SeveritySetting } from './config.js';
export { applySuppressions, findDirectives, DISABLE_NEXT_LINE, type Directive, type PointerIgnore, type SuppressOptions } from './suppress.js';
export { Excludes, resolveTargets, kindOfPath, globToRegExp, type LintTarget } from './files.js';
export { lintFiles, lintText, hclAttributeValues, detectKind, extract, applyEdits, selectFixes, regrade, type FileReport, type LintFilesOptions, type LintInput } from './run.js';
export { rulesetSides, pairRulesetSides, RulesetSideError, type RulesetSide, type RulesetSideOptions } from './ruleset-sides.js';
