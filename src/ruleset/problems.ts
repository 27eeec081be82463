/**
 * The checks a simulation makes of the ruleset it is given before anything runs: the whole validation
 * (for bodies) or only the shape it needs (for stored rulesets), and the refusal of HTTP phases where
 * only network rules can run.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors } from '../diagnostics/index.js';
import type { ExpressionOptions } from '../expression/index.js';
import { rulesetDiagnostic, validateRuleset } from './validate.js';
import { phaseInfo } from './phases.js';

/** Validation of the ruleset a simulation is given: its errors mean nothing is simulated. */
export function rulesetProblems(ruleset: unknown, options: ExpressionOptions): Diagnostic[] {
  let body = ruleset as { name?: unknown } | null;
  if (typeof ruleset === 'string') {
    try {
      body = JSON.parse(ruleset);
    } catch {
      body = null; // validateRuleset reports the JSON error with its position
    }
  }
  const operation = Array.isArray(body) || (body !== null && typeof body === 'object' && 'name' in body) ? 'create' : 'update';
  const problems = validateRuleset(ruleset, { operation, expression: { ...options, lists: options.lists } });
  if (hasErrors(problems)) {
    problems.push(rulesetDiagnostic('simulation-invalid-ruleset', `the ruleset has ${problems.filter((d) => d.severity === 'error').length} error(s); fix them to simulate`, ''));
  }
  return problems;
}

/**
 * The shape a simulation needs, for rulesets given as values (stored ones with ids and versions as well
 * as request bodies): an object whose `rules` is an array of objects with a string `action` and
 * `expression`. Anything else is an error; expression errors are not (those rules are left out).
 */
export function rulesetShapeProblems(ruleset: unknown): Diagnostic[] {
  const what = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? 'a string' : `a ${typeof v}`);
  if (ruleset === null || typeof ruleset !== 'object' || Array.isArray(ruleset)) {
    return [rulesetDiagnostic('simulation-invalid-ruleset', `the ruleset is ${what(ruleset)}; give an object with "rules": [...]`, '')];
  }
  const rules = (ruleset as { rules?: unknown }).rules;
  if (!Array.isArray(rules)) {
    return [rulesetDiagnostic('simulation-invalid-ruleset', rules === undefined ? 'the ruleset has no "rules" array' : `"rules" is ${what(rules)}, not an array of rules`, '/rules')];
  }
  const out: Diagnostic[] = [];
  rules.forEach((rule: unknown, i) => {
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) {
      out.push(rulesetDiagnostic('simulation-invalid-ruleset', `rule ${i} is ${what(rule)}, not an object`, `/rules/${i}`));
      return;
    }
    const r = rule as { action?: unknown; expression?: unknown };
    if (typeof r.action !== 'string') out.push(rulesetDiagnostic('simulation-invalid-ruleset', `rule ${i} has no "action" string`, `/rules/${i}/action`));
    if (typeof r.expression !== 'string') out.push(rulesetDiagnostic('simulation-invalid-ruleset', `rule ${i} has no "expression" string`, `/rules/${i}/expression`));
  });
  return out;
}

/**
 * One `simulation-http-phase` error when `body` is a ruleset of an HTTP phase, for the evaluations that
 * run network rules only (`what`: "the SQL engines run network-phase rulesets over flows").
 */
export function httpPhaseRefusal(body: unknown, what: string): Diagnostic[] {
  const phase = body !== null && typeof body === 'object' ? (body as { phase?: unknown }).phase : undefined;
  if (typeof phase !== 'string' || phaseInfo(phase)?.fields !== 'http') return [];
  return [rulesetDiagnostic('simulation-http-phase', `the ${phase} phase reads HTTP requests; ${what}`, '/phase')];
}

/** Whether a ruleset body is of an HTTP phase (its rules read HTTP requests, not packets). */
export function isHttpRuleset(body: unknown): boolean {
  const phase = body !== null && typeof body === 'object' ? (body as { phase?: unknown }).phase : undefined;
  return typeof phase === 'string' && phaseInfo(phase)?.fields === 'http';
}
