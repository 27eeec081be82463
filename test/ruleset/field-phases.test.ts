/**
 * The request fields the fields reference keeps to some phases (HTTP_FIELD_PHASES): read elsewhere, they
 * are rule-field-phase errors naming the phase, in validation and lint alike; in their phases they check.
 */
import { describe, expect, it } from 'vitest';
import { checkExpression, HTTP_FIELD_PHASES, HTTP_SCHEME } from '../../src/expression/index.js';
import { phaseExpressionOptions, phaseFieldDiagnostics, PHASE_CATALOG, validateRuleset } from '../../src/ruleset/index.js';

const errors = (expr: string, phase: string) => {
  const r = checkExpression(expr, phaseExpressionOptions(phase, {}));
  return phaseFieldDiagnostics(expr, r.diagnostics, phase, r.ast).filter((d) => d.severity === 'error');
};

describe('fields the reference keeps to some phases', () => {
  it('are fields of the HTTP scheme, and their phases are HTTP phases of the catalog', () => {
    for (const [name, only] of Object.entries(HTTP_FIELD_PHASES)) {
      expect(HTTP_SCHEME.get(name), name).toBeDefined();
      for (const p of only.phases) expect((PHASE_CATALOG as Record<string, { fields: string }>)[p]?.fields, p).toBe('http');
    }
  });

  it('are errors naming the phase elsewhere, and check in their phases', () => {
    const expr = 'http.request.accepted_languages[0] == "fr"';
    const d = errors(expr, 'http_request_firewall_custom');
    expect(d.map((x) => `${x.code} ${JSON.stringify(x.range)}`)).toEqual(['rule-field-phase {"start":0,"end":31}']);
    expect(d[0]!.message).toBe('http.request.accepted_languages is only available in Transform Rules (the http_request_transform, http_request_late_transform, http_response_headers_transform phases), not in http_request_firewall_custom');
    for (const phase of HTTP_FIELD_PHASES['http.request.accepted_languages']!.phases) expect(errors(expr, phase), phase).toEqual([]);
    expect(errors('ip.src.timezone.name == "Europe/Paris"', 'http_ratelimit').map((x) => x.code)).toEqual(['rule-field-phase']);
  });

  it('are errors at their pointer in a ruleset body', () => {
    const d = validateRuleset({ name: 'x', kind: 'zone', phase: 'http_request_dynamic_redirect', rules: [{ action: 'redirect', expression: 'ip.src.timezone.name eq "UTC"', action_parameters: { from_value: { target_url: { value: 'https://example.com/' } } } }] } as never);
    expect(d.filter((x) => x.severity === 'error').map((x) => `${x.code} ${x.pointer}`)).toEqual(['rule-field-phase /rules/0/expression']);
  });
});
