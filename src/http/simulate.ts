/**
 * HTTP requests through a ruleset of an HTTP phase: each request's record ({@link requestRecord}) decided
 * by the compiled ruleset as packets are, with the verdict (`allow` or the deciding rule's terminating
 * action: block, challenge, redirect…), the deciding rule, every rule matched on the way (non-terminating
 * actions such as log, rewrite, route, set_config or execute included) and the per-rule summary.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { isHttpRuleset, rulesetDiagnostic, rulesetShapeProblems, type Rule, type Ruleset } from '../ruleset/index.js';
import { compileRuleset, readsGeoFields, withGeoIp, type SimulationOptions, type SimulationResult } from '../engine/index.js';
import { ListCatalog } from '../expression/index.js';
import { requestRecord, type HttpRequest } from './record.js';

/** Whether a ruleset's rules take an `execute` action (the executed rulesets are not simulated). */
function executes(ruleset: { rules?: readonly Rule[] }): number[] {
  return (Array.isArray(ruleset.rules) ? ruleset.rules : []).flatMap((r, i) => ((r as { action?: unknown })?.action === 'execute' && r.enabled !== false ? [i] : []));
}

/** The info that `execute` rules are matched but what they execute is not run. */
export function executeNotSimulated(ruleset: { rules?: readonly Rule[] }): Diagnostic[] {
  return executes(ruleset).map((i) =>
    rulesetDiagnostic('simulation-execute-not-run', `rule ${i} executes another ruleset: its matches are counted, but the rules it executes are not known here and are not simulated`, `/rules/${i}/action`),
  );
}

/**
 * Run requests through a ruleset of an HTTP phase (a network-phase ruleset is refused: give it packets).
 *
 * ```ts
 * const { results } = simulateRequests(ruleset, [{ method: 'GET', url: 'https://example.com/admin', headers: [] }]);
 * results[0].verdict; // 'block'
 * ```
 */
export function simulateRequests(ruleset: Ruleset | { phase?: string; rules: readonly Rule[] }, requests: Iterable<HttpRequest>, options: SimulationOptions = {}): SimulationResult {
  const empty: SimulationResult['summary'] = { packets: 0, verdicts: { allow: 0, block: 0 }, defaultAllowed: 0, rules: [] };
  const shape = rulesetShapeProblems(ruleset);
  if (shape.length) return { diagnostics: shape, results: [], summary: empty };
  if (!isHttpRuleset(ruleset)) {
    const phase = (ruleset as { phase?: unknown }).phase;
    const what = typeof phase === 'string' ? `the ${phase} phase` : 'a ruleset without a phase';
    return { diagnostics: [rulesetDiagnostic('simulation-http-phase', `${what} reads packets, not HTTP requests; give an HTTP-phase ruleset ("phase": "http_request_firewall_custom", …)`, '/phase')], results: [], summary: empty };
  }
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const compiled = compileRuleset(ruleset, { ...options, lists });
  const diagnostics: Diagnostic[] = [...executeNotSimulated(ruleset)];
  if (!options.geoip && readsGeoFields(compiled.fields)) {
    diagnostics.push(rulesetDiagnostic('simulation-no-geoip', 'the ruleset reads country/ASN fields but no geoip table was given: those fields are missing unless the requests carry them', ''));
  }
  const results: SimulationResult['results'] = [];
  let index = 0;
  for (const request of requests) {
    const record = requestRecord(request, compiled.fields);
    results.push({ index, ...compiled.run(options.geoip ? withGeoIp(record, options.geoip) : record, index) });
    index++;
  }
  return { diagnostics: [...compiled.diagnostics, ...diagnostics], results, summary: compiled.summary() };
}
