/**
 * Ruleset analysis (`analyzeRuleset`): 200-rule network rulesets built from the simulate bench's five
 * rule templates (port sets and ranges, UDP port with TTL, address ranges with TCP flags, ICMP types,
 * IPv6 prefixes or TCP source ports), with and without the 10k-CIDR list rule, timed in-process beside
 * `validateRuleset` of the same body — what every lint and PUT already pays. Target: under 50 ms per
 * 200-rule ruleset, so an editor can run it as the user types.
 */
import { analyzeRuleset, ListCatalog, validateRuleset } from '../dist/index.js';
import { measureInterleaved, printTable, ratio } from './harness.js';
import { blocklist, ruleSpecs, rulesetBody } from './ruleset-fixture.js';

/** 200 rules: the fixture's 50 templates repeated with fresh numbers, the list rule and the two catch-alls last. */
function twoHundred(withList: boolean): { rules: { action: string; expression: string }[] } {
  const specs = ruleSpecs();
  const templates = specs.slice(0, 47);
  const rules = [];
  for (let i = 0; rules.length < 197; i++) {
    const t = templates[i % templates.length]!;
    // Shift every number so that repeats are new rules, not copies (copies would all be redundant).
    rules.push({ ...t, expression: t.expression.replace(/\b(\d{2,4})\b/g, (m) => String(Number(m) + Math.floor(i / templates.length))) });
  }
  const tail = specs.slice(47).filter((s) => withList || !s.expression.includes('$'));
  return rulesetBody([...rules, ...tail]);
}

export async function run(): Promise<void> {
  const lists = ListCatalog.from({ blocklist: blocklist() });
  const rows: (string | number)[][] = [];
  for (const [name, body] of [['200 rules', twoHundred(false)], ['200 rules + 10k-CIDR list rule', twoHundred(true)]] as const) {
    const findings = analyzeRuleset(body, { lists }).diagnostics.length;
    const [analysis, validation] = measureInterleaved([() => analyzeRuleset(body, { lists }), () => validateRuleset(body, { expression: { lists } })], { rounds: 9, sampleMs: 200, warmupMs: 300 });
    rows.push([name, String(body.rules.length), String(findings), (analysis!.q1 / 1e6).toFixed(1), (validation!.q1 / 1e6).toFixed(2), ratio(analysis!.q1, validation!.q1), analysis!.q1 / 1e6 < 50 ? 'met' : 'missed']);
  }
  printTable('Ruleset analysis, ms per ruleset (lower quartile of 9 interleaved rounds)', ['ruleset', 'rules', 'findings', 'analyzeRuleset ms', 'validateRuleset ms', 'analysis ÷ validation', '< 50 ms'], rows);
}
