/**
 * Regions and witnesses stay inside the fields' domains (`INT_FIELD_DOMAINS`): an AS number is never
 * negative, a bot score never 100, and a change that touches only values no request can hold is no
 * change at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HTTP_SCHEME, NETWORK_SCHEME, type Rule, type Scheme } from '../../src/index.js';
import { diffRulesets } from '../../src/diff/index.js';

const phase = 'http_request_firewall_custom';

/** The Int fields the analysis reads directly (containers are read through functions or indexing). */
const intFields = (s: Scheme) => s.fields().filter((f) => f.type === 'Int' && !f.container && !f.rawHeader).map((f) => f.name);

/** Literals near the edges of every domain: negative, 0, 1, 99, 100, 65535, 2^32, 2^40. */
const literalArb = fc.oneof(fc.constantFrom(-5, 0, 1, 29, 30, 99, 100, 101, 255, 256, 999, 65535, 65536, 4294967295, 4294967296, 2 ** 40), fc.integer({ min: -1000, max: 70000 }));

function ruleArb(fields: string[]): fc.Arbitrary<Rule> {
  // managed_challenge is an HTTP action: the Rule type is the network one, the diff reads any body.
  const cmp = fc.tuple(fc.constantFrom(...fields), fc.constantFrom('lt', 'le', 'gt', 'ge', 'eq', 'ne'), literalArb).map(([f, op, v]) => `${f} ${op} ${v}`);
  const expr = fc.array(cmp, { minLength: 1, maxLength: 3 }).chain((xs) => fc.constantFrom(' and ', ' or ').map((j) => xs.join(j)));
  return fc.tuple(fc.constantFrom('block', 'managed_challenge', 'skip'), expr).map(([action, expression]) =>
    (action === 'skip' ? { action, action_parameters: { ruleset: 'current' }, expression } : { action, expression }) as unknown as Rule);
}

function inDomain(scheme: Scheme, witness: Record<string, unknown>): string[] {
  const bad: string[] = [];
  for (const [k, v] of Object.entries(witness)) {
    const def = scheme.get(k);
    if (def?.type !== 'Int' || typeof v !== 'number') continue;
    const lo = def.domain?.min ?? Number.MIN_SAFE_INTEGER;
    const hi = def.domain?.max ?? Number.MAX_SAFE_INTEGER;
    if (!(v >= lo && v <= hi)) bad.push(`${k}=${v} outside ${lo}..${hi}`);
  }
  return bad;
}

describe('witnesses lie inside the fields’ domains', () => {
  it('the reported case: ip.src.asnum and cf.bot_management.score', () => {
    const d = diffRulesets({ phase, rules: [{ action: 'block', expression: 'ip.src.asnum lt 100' }] }, { phase, rules: [{ action: 'block', expression: 'ip.src.asnum lt 200 and cf.bot_management.score lt 30' }] });
    expect(d.regions.map((r) => r.text)).toEqual([
      'ip.src.asnum 0..99, cf.bot_management.score 30..99 or missing: block by rule 0 → allow',
      'ip.src.asnum 100..199, cf.bot_management.score 0..29: allow → block by rule 0',
    ]);
    expect(d.regions.map((r) => r.witness)).toEqual([{ 'ip.src.asnum': 0, 'cf.bot_management.score': 30 }, { 'ip.src.asnum': 100, 'cf.bot_management.score': 0 }]);
  });

  it('a change only outside the domain is no region', () => {
    const d = diffRulesets({ phase, rules: [{ action: 'block', expression: 'cf.bot_management.score lt 30' }] }, { phase, rules: [{ action: 'block', expression: 'cf.bot_management.score lt 30 or cf.bot_management.score gt 99 or ip.src.asnum lt 0' }] });
    expect(d.regions).toEqual([]);
    const t = diffRulesets({ phase, rules: [] }, { phase, rules: [{ action: 'block', expression: 'cf.threat_score gt 100' }] });
    expect(t.regions).toEqual([]);
  });

  for (const [name, scheme, ph] of [['HTTP', HTTP_SCHEME, phase], ['network', NETWORK_SCHEME, 'network_transit']] as const) {
    it(`${name}: every region's witness holds only in-domain values (property)`, () => {
      const fields = intFields(scheme);
      const rules = fc.array(ruleArb(fields), { maxLength: 4 });
      fc.assert(
        fc.property(rules, rules, (a, b) => {
          const d = diffRulesets({ phase: ph, rules: a }, { phase: ph, rules: b });
          for (const r of d.regions) if (r.witness) expect(inDomain(scheme, r.witness), r.text).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });
  }
});
