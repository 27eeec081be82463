/**
 * The diff's region laws on HTTP-phase rulesets, checked by the simulator as test/diff/regions.test.ts
 * checks them on network ones: for generated pairs of `http_request_firewall_custom` rulesets over the
 * request fields the analysis holds exactly (host, method, path, address, country, AS number, bot score,
 * ssl) and a few it does not (a regex, a function, `contains`), every request decided differently lies in a
 * region of its pair of deciders (exact or unknown), every request of an exact region changes as it says,
 * and every exact region's witness really differs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRuleset, type Rule } from '../../src/index.js';
import { diffRulesets, regionContains, type DiffRegion, type RulesetDiff } from '../../src/diff/index.js';
import { rulesetPairArb } from '../helpers/rulesets.js';

const phase = 'http_request_firewall_custom';
const HOSTS = ['a.example', 'b.example', 'c.example'];
const METHODS = ['GET', 'POST', 'PUT'];
const PATHS = ['/', '/admin', '/api/x'];

/** Atoms over the fields the analysis holds exactly, and (`opaque`) a few it does not. */
const atomArb = fc.oneof(
  fc.constantFrom(...HOSTS).map((h) => `http.host eq "${h}"`),
  fc.uniqueArray(fc.constantFrom(...HOSTS), { minLength: 1, maxLength: 2 }).map((hs) => `http.host in {${hs.map((h) => `"${h}"`).join(' ')}}`),
  fc.constantFrom(...HOSTS).map((h) => `http.host ne "${h}"`),
  fc.constantFrom(...METHODS).map((m) => `http.request.method eq "${m}"`),
  fc.uniqueArray(fc.constantFrom(...METHODS), { minLength: 1, maxLength: 2 }).map((ms) => `http.request.method in {${ms.map((m) => `"${m}"`).join(' ')}}`),
  fc.constantFrom(...PATHS).map((p) => `http.request.uri.path eq "${p}"`),
  fc.constantFrom('ip.src in {192.0.2.0/31}', 'ip.src in {192.0.2.2}', 'ip.src in {2001:db8::/32}'),
  fc.constantFrom('ip.src.country in {"DE" "US"}', 'ip.src.country eq "FR"'),
  fc.constantFrom('ip.src.asnum eq 13335', 'ip.src.asnum lt 100'),
  fc.constantFrom(1, 5, 30, 98).map((n) => `cf.bot_management.score lt ${n}`),
  fc.constantFrom(5, 30).map((n) => `cf.bot_management.score ge ${n}`),
  fc.constant('ssl'),
);
const opaqueArb = fc.constantFrom('http.request.uri.path matches "^/adm"', 'lower(http.host) eq "a.example"', 'http.request.uri.path contains "api"');

const expressionArb: fc.Arbitrary<string> = fc.letrec((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof({ weight: 6, arbitrary: atomArb }, { weight: 1, arbitrary: opaqueArb }),
    fc.tuple(tie('e'), fc.constantFrom('and', 'or'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('e').map((a) => `not ${a}`),
  ),
})).e as fc.Arbitrary<string>;

/** A rule of the phase: terminating actions, a skip of the rest of the ruleset, and `log` (which decides nothing). */
const ruleArb: fc.Arbitrary<Rule> = fc.record({
  action: fc.constantFrom('block', 'managed_challenge', 'js_challenge', 'skip', 'log'),
  expression: expressionArb,
  enabled: fc.boolean(),
}).map((r) => (r.action === 'skip' ? { ...r, action_parameters: { ruleset: 'current' } } : r) as Rule);

/** A request over the fields the rules read, hitting the values they name (each field sometimes missing). */
const requestArb: fc.Arbitrary<Record<string, unknown>> = fc.record({
  'http.host': fc.constantFrom(...HOSTS, 'd.example'),
  'http.request.method': fc.constantFrom(...METHODS, 'DELETE'),
  'http.request.uri.path': fc.constantFrom(...PATHS, '/admin/x'),
  'ip.src': fc.constantFrom('192.0.2.0', '192.0.2.1', '192.0.2.2', '192.0.2.3', '2001:db8::1', '198.51.100.7'),
  'ip.src.country': fc.constantFrom('DE', 'US', 'FR', 'CN'),
  'ip.src.asnum': fc.constantFrom(13335, 64512, 7),
  'cf.bot_management.score': fc.constantFrom(0, 1, 4, 5, 29, 30, 97, 98, 99),
  ssl: fc.boolean(),
}, { requiredKeys: ['http.host', 'http.request.method', 'http.request.uri.path', 'ip.src'] });

const pairArb = fc.oneof({ weight: 3, arbitrary: rulesetPairArb(ruleArb) }, { weight: 1, arbitrary: rulesetPairArb(ruleArb, { rules: 10, edits: 4 }) });
const texts = (d: RulesetDiff) => d.regions.map((r) => r.text);

/** Who decides a request on each side, and whether that is a change for the diff (its rule matches). */
function outcomes(oldRules: Rule[], newRules: Rule[], d: RulesetDiff, requests: Record<string, unknown>[]) {
  const o = compileRuleset({ phase, rules: oldRules });
  const n = compileRuleset({ phase, rules: newRules });
  const same = new Map(d.matches.map((m) => [m.old, m.new]));
  return requests.map((p) => {
    const a = o.decide(p);
    const b = n.decide(p);
    const ruleChanged = a.decidedBy ? same.get(a.decidedBy.index) !== b.decidedBy?.index : b.decidedBy !== undefined;
    return { request: p, old: a.decidedBy?.index, new: b.decidedBy?.index, changed: a.verdict !== b.verdict || ruleChanged };
  });
}
const samePair = (r: DiffRegion, o: { old?: number; new?: number }) => r.old.rule?.index === o.old && r.new.rule?.index === o.new;

describe('laws on generated pairs of HTTP-phase rulesets (checked by the simulator)', () => {
  it('a hand-made pair: the requests and witnesses as the law reads them', () => {
    const oldRules = [{ action: 'block', expression: 'http.host eq "a.example" and cf.bot_management.score lt 30' }] as Rule[];
    const newRules = [{ action: 'block', expression: 'http.host eq "a.example" and cf.bot_management.score lt 5' }] as Rule[];
    const d = diffRulesets({ phase, rules: oldRules }, { phase, rules: newRules });
    expect(d.unit).toBe('request');
    expect(texts(d)).toEqual(['http.host "a.example", cf.bot_management.score 5..29: block by rule 0 → allow']);
    const [o] = outcomes(oldRules, newRules, d, [{ 'http.host': 'a.example', 'cf.bot_management.score': 12 }]);
    expect(o).toMatchObject({ old: 0, new: undefined, changed: true });
  });

  it('every request decided differently lies in a region of its pair; every request of an exact region changes as it says; witnesses differ', () => {
    // What the runs saw, so that a generator gone dull (nothing changing, nothing exact) fails the test.
    const seen = { runs: 0, changed: 0, exact: 0, unknown: 0 };
    fc.assert(fc.property(pairArb, fc.array(requestArb, { minLength: 50, maxLength: 50 }), ([oldRules, newRules], sample) => {
      const d = diffRulesets({ phase, rules: oldRules }, { phase, rules: newRules });
      expect(d.unit).toBe('request');
      expect(d.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
      seen.runs++;
      if (d.regions.some((r) => r.kind === 'exact')) seen.exact++;
      if (d.regions.some((r) => r.kind === 'unknown')) seen.unknown++;
      const witnesses = d.regions.flatMap((r) => (r.witness && r.kind === 'exact' ? [r.witness] : []));
      for (const o of outcomes(oldRules, newRules, d, [...sample, ...witnesses])) {
        const holding = d.regions.filter((r) => regionContains(r, o.request));
        if (o.changed) seen.changed++;
        if (o.changed) expect(holding.some((r) => samePair(r, o)), `${JSON.stringify(o)} in no region of ${JSON.stringify(texts(d))}`).toBe(true);
        for (const r of holding) if (r.kind === 'exact') expect({ request: o.request, region: r.text, changed: o.changed, pair: samePair(r, o) }).toMatchObject({ changed: true, pair: true });
      }
      for (const r of d.regions.filter((x) => x.kind === 'exact')) {
        const [o] = outcomes(oldRules, newRules, d, [r.witness!]);
        expect(o!.changed && samePair(r, o!), `witness of ${r.text}`).toBe(true);
      }
    }), { numRuns: process.env.CI ? 300 : 100 });
    expect(seen.exact, JSON.stringify(seen)).toBeGreaterThan(seen.runs / 3);
    expect(seen.unknown, JSON.stringify(seen)).toBeGreaterThan(seen.runs / 20);
    expect(seen.changed, JSON.stringify(seen)).toBeGreaterThan(seen.runs * 5);
  });
});
