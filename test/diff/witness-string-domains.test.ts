/**
 * Witnesses of String fields with a table of values (`STRING_FIELD_DOMAINS`: protocols, countries,
 * continents, methods, versions) are values of the table: a region `ip.proto outside {"icmp"}` is shown
 * with `"tcp"`, never with a string no packet carries. Free-text fields may get any string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HTTP_SCHEME, NETWORK_SCHEME, STRING_FIELD_DOMAINS, type Rule, type Scheme } from '../../src/index.js';
import { stringDomainOf } from '../../src/expression/index.js';
import { diffRulesets, regionContains } from '../../src/diff/index.js';
import { analyzeRuleset } from '../../src/analysis/index.js';

const HTTP = 'http_request_firewall_custom';

/** The String fields of a scheme that have a table (read directly, not through containers). */
const tabled = (s: Scheme) => s.fields().filter((f) => f.type === 'String' && !f.container && !f.rawHeader && stringDomainOf(f, f.name)).map((f) => f.name);

/** Values of a field's table near its head (where witnesses are picked) and anywhere in it. */
function valueArb(scheme: Scheme, field: string): fc.Arbitrary<string> {
  const values = stringDomainOf(scheme.get(field), field)!.values;
  return fc.oneof(fc.constantFrom(...values.slice(0, 4)), fc.constantFrom(...values));
}

function conditionArb(scheme: Scheme, fields: string[]): fc.Arbitrary<string> {
  return fc.constantFrom(...fields).chain((f) =>
    fc.oneof(
      fc.tuple(fc.constantFrom('eq', 'ne'), valueArb(scheme, f)).map(([op, v]) => `${f} ${op} ${JSON.stringify(v)}`),
      fc.tuple(fc.boolean(), fc.uniqueArray(valueArb(scheme, f), { minLength: 1, maxLength: 4 })).map(([not, vs]) => `${not ? 'not ' : ''}${f} in {${vs.map((v) => JSON.stringify(v)).join(' ')}}`),
    ),
  );
}

function rulesArb(scheme: Scheme, fields: string[]): fc.Arbitrary<Rule[]> {
  const expr = fc.array(conditionArb(scheme, fields), { minLength: 1, maxLength: 3 }).chain((xs) => fc.constantFrom(' and ', ' or ').map((j) => xs.join(j)));
  const rule = fc.tuple(fc.constantFrom('block', 'skip'), expr).map(([action, expression]) => (action === 'skip' ? { action, action_parameters: { ruleset: 'current' }, expression } : { action, expression }) as unknown as Rule);
  return fc.array(rule, { maxLength: 4 });
}

/**
 * The witness values of tabled fields that are not in their table although the region holds a value of
 * it (a region that excludes the whole table, such as `http.request.version outside {every version}`,
 * holds only other strings: its witness cannot be from the table).
 */
function outsideTables(scheme: Scheme, witness: Record<string, unknown>, inRegion: (p: Record<string, unknown>) => boolean): string[] {
  const bad: string[] = [];
  for (const [k, v] of Object.entries(witness)) {
    const table = stringDomainOf(scheme.get(k), k);
    if (!table || table.values.includes(v as string)) continue;
    const could = table.values.find((t) => inRegion({ ...witness, [k]: t }));
    if (could !== undefined) bad.push(`${k}=${JSON.stringify(v)} where ${JSON.stringify(could)} would do`);
  }
  return bad;
}

describe('witnesses of String fields with a table of values', () => {
  it('the reported case: ip.proto outside {"icmp"} is shown with "tcp"', () => {
    const d = diffRulesets({ rules: [{ action: 'block', expression: 'ip.proto ne "icmp"' }] }, { rules: [] });
    expect(d.regions.map((r) => [r.kind, r.text, r.witness])).toEqual([['exact', 'ip.proto outside {"icmp"}: block by rule 0 → allow', { 'ip.proto': 'tcp' }]]);
    // A packet given a transport gets its protocol's name.
    const u = diffRulesets({ rules: [{ action: 'block', expression: 'not ip.proto in {"tcp" "icmp"} and udp.dstport == 53' }] }, { rules: [] });
    expect(u.regions[0]!.witness).toEqual({ 'ip.proto': 'udp', 'udp.dstport': 53 });
  });

  it('HTTP: methods, countries (also through the deprecated alias), continents', () => {
    const d = diffRulesets({ phase: HTTP, rules: [{ action: 'block', expression: 'http.request.method ne "GET" and not ip.geoip.country in {"US" "DE"} and ip.src.continent ne "EU"' }] }, { phase: HTTP, rules: [] });
    expect(d.regions.map((r) => r.witness)).toEqual([{ 'http.request.method': 'POST', 'ip.src.continent': 'NA', 'ip.src.country': 'AD' }]);
    // Free text keeps an arbitrary value.
    const h = diffRulesets({ phase: HTTP, rules: [{ action: 'block', expression: 'http.host ne "example.com"' }] }, { phase: HTTP, rules: [] });
    expect(h.regions[0]!.witness).toEqual({ 'http.host': 'x' });
  });

  it('every tabled field of both schemes is a String field of one of them', () => {
    for (const name of Object.keys(STRING_FIELD_DOMAINS)) expect(NETWORK_SCHEME.get(name)?.type ?? HTTP_SCHEME.get(name)?.type, name).toBe('String');
    expect(tabled(NETWORK_SCHEME).sort()).toEqual(['ip.dst.country', 'ip.geoip.country', 'ip.proto', 'ip.src.country']);
    expect(tabled(HTTP_SCHEME).sort()).toEqual(['http.request.method', 'http.request.version', 'ip.geoip.continent', 'ip.geoip.country', 'ip.src.continent', 'ip.src.country']);
  });

  for (const [name, scheme, phase] of [['network', NETWORK_SCHEME, 'network_transit'], ['HTTP', HTTP_SCHEME, HTTP]] as const) {
    const fields = tabled(scheme);
    it(`${name}: every witness value of a tabled field is in its table, in the diff and the analysis (property)`, () => {
      const rules = rulesArb(scheme, fields);
      fc.assert(
        fc.property(rules, rules, (a, b) => {
          const d = diffRulesets({ phase, rules: a }, { phase, rules: b });
          for (const r of d.regions) if (r.witness) expect(outsideTables(scheme, r.witness, (p) => regionContains(r, p)), r.text).toEqual([]);
          for (const r of analyzeRuleset({ phase, rules: b }).rules) if (r.witness) expect(outsideTables(scheme, r.witness, () => false), JSON.stringify(b[r.index])).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });
  }
});
