/** Functions allowed only in some phases, checked with and without the phase. */
import { describe, expect, it } from 'vitest';
import { checkExpression, FUNCTIONS, HTTP_SCHEME, validateRuleset, PHASE_CATALOG } from '../../src/index.js';

const phased = Object.entries(FUNCTIONS).filter(([, f]) => f.restriction?.phases && !f.restriction.valueOnly);

describe('phase-only functions', () => {
  it('without a phase: an info that names the phases where the function is allowed, not an error', () => {
    const text = 'cidr(ip.src, 24, 24) == 113.10.0.0';
    const d = checkExpression(text, { scheme: HTTP_SCHEME }).diagnostics;
    expect(d.map((x) => [x.code, x.severity])).toEqual([['function-phase-unknown', 'info']]);
    expect(text.slice(d[0]!.range!.start, d[0]!.range!.end)).toBe('cidr');
    expect(d[0]!.data).toEqual({ function: 'cidr', phases: ['http_request_firewall_custom', 'http_ratelimit'] });
    expect(d[0]!.message).toContain('http_request_firewall_custom, http_ratelimit');
  });

  it('with a phase: nothing in a phase that allows it, function-context in one that does not', () => {
    expect(checkExpression('cidr(ip.src, 24, 24) == 113.10.0.0', { scheme: HTTP_SCHEME, phase: 'http_request_firewall_custom' }).diagnostics).toEqual([]);
    expect(checkExpression('cidr(ip.src, 24, 24) == 113.10.0.0', { scheme: HTTP_SCHEME, phase: 'http_request_origin' }).diagnostics.map((x) => x.code)).toEqual(['function-context']);
    const body = (phase: string) => ({ name: 'r', kind: 'zone', phase, rules: [{ action: PHASE_CATALOG[phase as keyof typeof PHASE_CATALOG].actions[0], expression: 'cidr(ip.src, 24, 24) == 113.10.0.0' }] });
    expect(validateRuleset(body('http_request_firewall_custom')).filter((x) => x.code.startsWith('function-'))).toEqual([]);
    expect(validateRuleset(body('http_request_origin')).map((x) => x.code)).toContain('function-context');
  });

  it('every function with a phase restriction names phases of the catalog', () => {
    expect(phased.length).toBeGreaterThan(0);
    for (const [name, f] of phased) for (const p of f.restriction!.phases!) expect(Object.keys(PHASE_CATALOG), `${name}: ${p}`).toContain(p);
  });
});
