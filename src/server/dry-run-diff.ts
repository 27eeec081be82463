/**
 * What a dry run of a ruleset write does to traffic: the semantic diff (src/diff) of the stored version
 * and the one the write would store, answered as `messages` beside the would-be ruleset — one entry per
 * region of packets or requests whose verdict or deciding rule changes, with a witness for exact regions
 * (`rulekit diff` is the same diff with counts over traffic).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { diffDiagnostic, diffRulesets } from '../diff/index.js';
import type { ListItems } from '../expression/index.js';
import { phaseInfo } from '../ruleset/index.js';
import type { StoredRuleset } from './store/index.js';

/** Rulesets of more rules than this are not diffed on the server's thread (`rulekit diff` does). */
export const DRY_RUN_DIFF_MAX_RULES = 50;

/** Most regions a dry run lists. */
export const DRY_RUN_DIFF_REGIONS = 20;

/**
 * The diff of a write's dry run, as messages: the regions that change, or that nothing does. With
 * `rulePointers` (a body of all the rules), a region points at the rule of the body that decides it now.
 */
export function dryRunDiff(before: StoredRuleset, after: StoredRuleset, lists?: ListItems, rulePointers = true): Diagnostic[] {
  if (!phaseInfo(after.phase)) return [];
  const most = Math.max(before.rules.length, after.rules.length);
  if (most > DRY_RUN_DIFF_MAX_RULES) {
    return [diffDiagnostic('diff-not-computed', `the traffic this write changes is not computed on the server for rulesets over ${DRY_RUN_DIFF_MAX_RULES} rules (this one has ${most}): \`rulekit diff\` of the stored and the new ruleset computes it`)];
  }
  const diff = diffRulesets(before, after, { lists });
  const errors = diff.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) return [diffDiagnostic('diff-not-computed', `the traffic this write changes is not computed: ${errors[0]!.message}`)];
  if (!diff.regions.length) return [diffDiagnostic('diff-no-change', `this write changes no ${diff.unit}'s verdict or deciding rule against version ${before.version}`)];
  const out = diff.regions.slice(0, DRY_RUN_DIFF_REGIONS).map((r) => {
    const witness = r.kind === 'exact' && r.witness ? `; for example ${JSON.stringify(r.witness)}` : '';
    const rule = r.new.rule?.index;
    return diffDiagnostic('diff-region', `against version ${before.version}: ${r.text}${witness}`, rulePointers && rule !== undefined ? { pointer: `/rules/${rule}` } : {});
  });
  const left = diff.regions.length - out.length;
  if (left > 0) out.push(diffDiagnostic('diff-region', `and ${left} more region${left === 1 ? '' : 's'} (\`rulekit diff\` lists them all)`));
  return out;
}
