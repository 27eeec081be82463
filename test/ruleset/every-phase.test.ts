/**
 * Every phase of the catalog, one by one: a ruleset of the phase checks with the phase's field set (a field
 * of the other set is an error that names the phase), lint of a Terraform resource of the phase gives the
 * same verdict, and the simulation evaluates the rule over records of the phase's kind (packets or HTTP
 * requests). The phase list is read from the catalog, so a phase added to it is tested here at once.
 */
import { describe, expect, it } from 'vitest';
import { PHASE_CATALOG, validateRuleset, simulate } from '../../src/index.js';
import { simulateRequests, type HttpRequest } from '../../src/http/index.js';
import { checkExtracted, extractTerraform } from '../../src/lint/index.js';
import { hclOf, minimalParameters } from '../helpers/rulesets.js';

const NETWORK = 'tcp.dstport == 22';
const HTTP = 'http.request.uri.path eq "/admin"';
const request = (path: string): HttpRequest => ({ method: 'GET', url: `https://example.com${path}`, headers: [['Host', 'example.com']] });

const phases = Object.entries(PHASE_CATALOG).map(([phase, p]) => {
  const kind = (p.scopes as readonly string[]).includes('zone') ? 'zone' : 'root';
  const action = (p.actions as readonly string[])[0]!;
  // Logpush custom-field rules have the expression "true" by definition: their field set is checked
  // through lint's expression diagnostics only.
  const customFields = action === 'log_custom_field';
  // The smallest parameters the action takes (execute needs an id): the rule is valid but for its expression.
  const params = minimalParameters(action, phase);
  return { phase, kind, action, params, fields: p.fields as 'network' | 'http', customFields };
});

const rule = (t: (typeof phases)[number], expression: string) => ({ action: t.action, expression, ...(t.params ? { action_parameters: t.params } : {}) });
const body = (t: (typeof phases)[number], expression: string) => ({ name: 'r', kind: t.kind, phase: t.phase, rules: [rule(t, expression)] });
const expressionErrors = (t: (typeof phases)[number], expression: string) =>
  validateRuleset(body(t, expression))
    .filter((d) => d.pointer === '/rules/0/expression' && d.severity === 'error')
    .map((d) => d.code);
const terraform = (t: (typeof phases)[number], expression: string) => `resource "cloudflare_ruleset" "r" {
  ${t.kind === 'zone' ? 'zone_id' : 'account_id'} = "023e105f4ecef8ad9ca31a8372d0c353"
  name  = "r"
  kind  = "${t.kind}"
  phase = "${t.phase}"
  rules = [${hclOf(rule(t, expression))}]
}
`;
const lintErrors = (t: (typeof phases)[number], expression: string) =>
  checkExtracted(extractTerraform(terraform(t, expression)))
    .filter((d) => d.severity === 'error')
    .map((d) => d.code);

describe('every phase of the catalog', () => {
  it('has both field sets represented (the loop below reaches network and HTTP phases)', () => {
    expect(phases.filter((t) => t.fields === 'network').length).toBeGreaterThanOrEqual(5);
    expect(phases.filter((t) => t.fields === 'http').length).toBeGreaterThanOrEqual(15);
  });

  it.each(phases)('$phase checks its own field set and refuses the other, naming the phase', (t) => {
    const own = t.fields === 'network' ? NETWORK : HTTP;
    const other = t.fields === 'network' ? HTTP : NETWORK;
    if (!t.customFields) expect(expressionErrors(t, own)).toEqual([]);
    const refused = validateRuleset(body(t, other)).find((d) => d.pointer === '/rules/0/expression' && d.code === 'rule-field-phase');
    if (!t.customFields) expect(refused?.message).toContain(`the ${t.phase} phase`);
    // lint reads the phase from the Terraform resource and answers the same
    expect(lintErrors(t, own)).toEqual([]);
    expect(lintErrors(t, other)).toEqual(['rule-field-phase']);
  });

  it.each(phases.filter((t) => !t.customFields))('$phase evaluates its rule over its own records', (t) => {
    const ruleset = body(t, t.fields === 'network' ? NETWORK : HTTP) as never;
    const r =
      t.fields === 'network'
        ? simulate(ruleset, [{ 'tcp.dstport': 22 }, { 'tcp.dstport': 23 }])
        : simulateRequests(ruleset, [request('/admin'), request('/')]);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    if (t.fields === 'network' && t.action === 'execute') {
      // a packet simulation cannot run the executed ruleset: the rule is left out, and said so
      expect(r.diagnostics.map((d) => d.code)).toContain('simulation-execute-not-run');
      expect(r.results.map((x) => x.matched)).toEqual([[], []]);
    } else {
      expect(r.results.map((x) => x.matched)).toEqual([[0], []]);
    }
  });
});
