/**
 * Ruleset analysis for the `cloudflare_ruleset` resources of a Terraform file: each network or HTTP-phase
 * ruleset's literal rules analysed in order (with the fields of its phase), the findings placed inside the expression strings of the file. A rule
 * whose expression is not a literal, or interpolates a value, counts as unknown: it neither gets a claim
 * nor decides anything for the rules after it, so nothing is claimed that such a rule could undo.
 * @module
 */
import type { ExpressionOptions } from '../expression/index.js';
import { analyzeRuleset, type AnalysisRule } from '../analysis/index.js';
import { phaseInfo } from '../ruleset/index.js';
import { terraformResources, terraformRuleset } from './terraform.js';
import type { LintDiagnostic } from './check.js';

/** Phases whose rules decide on packets (the provider's name for network_transit included). */
const PACKET_PHASES = new Set(['network_transit', 'magic_transit']);

export function analyzeTerraform(text: string, expression: ExpressionOptions = {}): LintDiagnostic[] {
  const out: LintDiagnostic[] = [];
  for (const address of terraformResources(text, 'cloudflare_ruleset')) {
    const rs = terraformRuleset(text, address);
    if (!rs || !rs.phase || !(PACKET_PHASES.has(rs.phase) || phaseInfo(rs.phase)) || rs.unreadable.length) continue;
    const rules: AnalysisRule[] = rs.rules.map((r) => ({
      action: r.action,
      enabled: r.enabled,
      expression: r.expression && !r.expression.holes.length ? r.expression.map.text : undefined,
      ...(r.skipRuleset !== undefined ? { action_parameters: { ruleset: r.skipRuleset } } : {}),
    }));
    for (const d of analyzeRuleset({ rules, phase: rs.phase }, { lists: expression.lists, serviceToken: expression.serviceToken, scheme: expression.scheme }).diagnostics) {
      const index = Number(/^\/rules\/(\d+)/.exec(d.pointer ?? '')?.[1]);
      const rule = Number.isInteger(index) ? rs.rules[index] : undefined;
      const r: LintDiagnostic = { ...d, where: rule ? `${rule.label}.expression` : address };
      delete r.rangeIn;
      delete r.pointer;
      r.range = rule?.expression && d.range ? rule.expression.map.toSource(d.range) : rule?.range ?? rs.range;
      out.push(r);
    }
  }
  return out;
}
