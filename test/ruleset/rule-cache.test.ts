/**
 * The cache of per-rule validation answers (src/ruleset/rule-cache.ts) must be invisible: a sequence of
 * bodies validated with one cache answers what each body answers without it, whatever the rules' order,
 * phase and options, including the checks across rules (duplicate refs, the once-per-ruleset note on
 * unchecked action parameters, the rule limit) and the answers of rules moved to another index.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListCatalog, RuleCache, validateRuleset, type RulesetContext, type RulesetPhase } from '../../src/index.js';

const POOL: Record<string, unknown>[] = [
  { action: 'block', expression: 'tcp.dstport in {22 3389}', description: 'admin' },
  { action: 'block', expression: 'ip.src in $svc.anonymizer', description: 'anon' },
  { action: 'block', expression: 'ip.geoip.country == "KP"' },
  { action: 'skip', expression: 'ip.src in {192.0.2.0/24}', action_parameters: { ruleset: 'current' } },
  { action: 'skip', expression: 'ip.src in {192.0.2.0/24}' },
  { action: 'skip', expression: 'true', action_parameters: { ruleset: 'other', extra: 1 } },
  { action: 'block', expression: 'tcp.dstport == ', ref: 'broken' },
  { action: 'block', expression: 'http.request.uri.path eq "/admin"', ref: 'r1' },
  { action: 'log', expression: 'http.request.uri.path eq "/admin"', ref: 'r1' },
  { action: 'block', expression: 'tcp.dstport == 80', ref: 'r1', action_parameters: { response: { status_code: 403 } } },
  { action: 'rewrite', expression: 'true', action_parameters: { uri: { path: { expression: 'concat("/x", http.request.uri.path)' } } } },
  { action: 'rewrite', expression: 'true', action_parameters: { uri: { path: { expression: 'concat(' } } } },
  { action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'cf-ray' }] } },
  { action: 'blocc', expression: 'true', enabeld: true },
  { action: 'execute', expression: 'true', action_parameters: { id: 'x' } },
  { action: 'block', expression: 42 as unknown as string, enabled: 'yes' },
  { expression: 'true' },
];
const PHASES: (RulesetPhase | undefined)[] = ['network_transit', 'magic_transit_managed', 'http_request_firewall_custom', 'http_request_transform', 'http_log_custom_fields', undefined];
const lists = ListCatalog.from({ 'svc.anonymizer': ['198.51.100.0/24'] });

const body = (rules: number[]) => ({ description: 'd', rules: rules.map((i) => structuredClone(POOL[i]!)) });
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('validateRuleset with a RuleCache', () => {
  it('answers what validation without it answers, body after body', () => {
    fc.assert(fc.property(
      fc.array(fc.record({
        rules: fc.array(fc.nat(POOL.length - 1), { maxLength: 12 }),
        phase: fc.constantFrom(...PHASES),
        withLists: fc.boolean(),
        maxRules: fc.constantFrom(undefined, 3),
      }), { minLength: 1, maxLength: 8 }),
      (bodies) => {
        const cache = new RuleCache(8);
        for (const b of bodies) {
          const context: RulesetContext = { operation: 'update', phase: b.phase, maxRules: b.maxRules, expression: b.withLists ? { lists } : {} };
          const without = validateRuleset(body(b.rules), context);
          const withCache = validateRuleset(body(b.rules), { ...context, ruleCache: cache });
          expect(plain(withCache)).toEqual(plain(without));
        }
      },
    ), { numRuns: 150 });
  });

  it('hands out the same frozen diagnostics for the same rule at the same index, new ones at another', () => {
    const cache = new RuleCache();
    const context: RulesetContext = { operation: 'update', phase: 'network_transit', ruleCache: cache };
    // Kept from the second sight on: the first answer is made and let go.
    const once = validateRuleset(body([1, 2]), context);
    expect(Object.isFrozen(once[0])).toBe(false);
    const first = validateRuleset(body([1, 2]), context);
    const again = validateRuleset(body([1, 2]), context);
    expect(first.length).toBe(2);
    expect(plain(first)).toEqual(plain(once));
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    expect(Object.isFrozen(first[0])).toBe(true);
    const moved = validateRuleset(body([2, 1]), context);
    expect(moved.map((d) => d.pointer)).toEqual(['/rules/0/expression', '/rules/1/expression']);
    expect(moved[0]).not.toBe(first[1]);
    expect(plain(moved[0])).toEqual({ ...plain(first[1]), pointer: '/rules/0/expression' });
  });

  it('gives the unchecked-parameters note once per ruleset, on the first rule that needs it', () => {
    const cache = new RuleCache();
    const context: RulesetContext = { operation: 'update', phase: 'http_request_firewall_custom', ruleCache: cache };
    const note = (ds: ReturnType<typeof validateRuleset>) => ds.filter((d) => d.code === 'rule-action-parameters-not-checked').map((d) => d.pointer);
    expect(note(validateRuleset(body([9, 9, 14]), context))).toEqual(['/rules/0/action_parameters']);
    expect(note(validateRuleset(body([0, 14, 9]), context))).toEqual(['/rules/1/action_parameters']);
    expect(note(validateRuleset(body([9, 14]), context))).toEqual(['/rules/0/action_parameters']);
  });

  it('is not used for a body given as text (its answers carry ranges in the text)', () => {
    const cache = new RuleCache();
    const text = JSON.stringify(body([6]));
    const context: RulesetContext = { operation: 'update', phase: 'network_transit' };
    expect(validateRuleset(text, { ...context, ruleCache: cache })).toEqual(validateRuleset(text, context));
    expect(validateRuleset(text, { ...context, ruleCache: cache })[0]?.data).toHaveProperty('documentRange');
  });
});
