/** The one-function ruleset decider equals the rule-by-rule evaluation, on generated rulesets and packets. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileRuleset, interpret, compileExpression, ListCatalog } from '../../src/index.js';
import { generateRuleset } from '../../src/engine/index.js';
import { expression, packet, LISTS } from '../expression/arbitraries.js';

const lists = ListCatalog.from(LISTS);
const rule = fc.record({
  action: fc.constantFrom('block' as const, 'skip' as const),
  expression,
  enabled: fc.boolean(),
  target: fc.constantFrom('current', 'other'),
});

describe('ruleset decider', () => {
  it('generated decider ≡ closure fallback ≡ interpreting each rule in order', () => {
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 8 }), fc.array(packet, { minLength: 1, maxLength: 6 }), (rs, packets) => {
        const ruleset = {
          rules: rs.map((r) => ({ action: r.action, expression: r.expression, enabled: r.enabled, ...(r.action === 'skip' ? { action_parameters: { ruleset: r.target } } : {}) })),
        };
        const fast = compileRuleset(ruleset, { lists });
        const slow = compileRuleset(ruleset, { lists, codegen: false });
        const checked = ruleset.rules.map((r) => compileExpression(r.expression, { lists }).checked!);
        for (const p of packets) {
          // reference: walk the rules with the interpreter
          const matched: number[] = [];
          let decided: number | undefined;
          for (let i = 0; i < ruleset.rules.length; i++) {
            const r = ruleset.rules[i]!;
            if (r.enabled === false || !interpret(checked[i]!, p)) continue;
            matched.push(i);
            if (r.action === 'block' || r.action_parameters?.ruleset === 'current') {
              decided = i;
              break;
            }
          }
          for (const c of [fast, slow]) {
            const v = c.decide(p);
            expect(v.matched).toEqual(matched);
            expect(v.decidedBy?.index).toBe(decided);
          }
        }
        const a = fast.summary();
        for (const p of packets) fast.count(p);
        for (const p of packets) slow.run(p);
        expect(fast.summary().verdicts).toEqual(slow.summary().verdicts);
        expect(fast.summary().rules.map((r) => [r.matched, r.decided])).toEqual(slow.summary().rules.map((r) => [r.matched, r.decided]));
        expect(a.packets).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('loads each field once and embeds no user text outside string literals', () => {
    const c = compileRuleset({ rules: [{ action: 'block', expression: 'tcp.dstport == 1 or tcp.dstport == 2' }, { action: 'block', expression: 'tcp.dstport == 3 and cf.colo.name == "x\\"y"' }] });
    expect(c.hasErrors).toBe(false);
    const entries = [0, 1].map((i) => ({ index: i, checked: compileExpression(['tcp.dstport == 1 or tcp.dstport == 2', 'tcp.dstport == 3 and cf.colo.name == "x\\"y"'][i]!).checked!, matcher: () => false, terminating: true }));
    const { source } = generateRuleset(entries);
    expect(source.match(/p\["tcp\.dstport"\]/g)).toHaveLength(1);
    // Strict mode: an assignment to an undeclared name in generated code throws instead of making a global.
    expect(source.startsWith('"use strict";\n')).toBe(true);
    expect(source).toContain('"x\\"y"');
  });

  it('reads every field, derived ones\' sources included, once in the loads line and never inside a rule', () => {
    // Derived fields read other fields when their own is missing (scheme: aliasOf, anyOf).
    const derived = ['ip.geoip.asnum == 64500', 'ip.geoip.country == "DE"', 'ip.geoip.asnum in {1 2} or ip.src.asnum == 3'];
    fc.assert(
      fc.property(fc.array(fc.oneof(expression, fc.constantFrom(...derived)), { minLength: 1, maxLength: 5 }), (texts) => {
        const entries = texts.map((t, index) => ({ index, checked: compileExpression(t, { lists }).checked!, matcher: () => false, terminating: index % 2 === 0 }));
        const { source } = generateRuleset(entries);
        const lines = source.split('\n');
        const loads = lines.filter((l) => l.startsWith('  const '));
        expect(loads.length).toBeLessThanOrEqual(1);
        const loaded = [...(loads[0] ?? '').matchAll(/p\[("(?:[^"\\]|\\.)*")\]/g)].map((m) => JSON.parse(m[1]!) as string);
        expect(new Set(loaded).size).toBe(loaded.length);
        // A rule's string literals are not reads (an octal escape can spell `p[`: "\\160\\133").
        for (const l of lines.filter((l) => /^  if \(/.test(l))) expect(l.replace(/"(?:[^"\\]|\\.)*"/g, '""'), l).not.toMatch(/p\[/);
        for (const t of texts.filter((x) => derived.includes(x))) {
          for (const f of t.includes('asnum') ? ['ip.geoip.asnum', 'ip.src.asnum'] : ['ip.geoip.country', 'ip.src.country', 'ip.dst.country']) expect(loaded).toContain(f);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('decides a value that is not a packet object as a packet with every field missing', () => {
    const ruleset = { rules: [{ action: 'block' as const, expression: 'tcp.dstport == 22' }, { action: 'block' as const, expression: 'not tcp.dstport == 22' }] };
    for (const codegen of [true, false]) {
      const c = compileRuleset(ruleset, { codegen });
      for (const v of [null, undefined, 5, 'tcp', true]) {
        expect(c.decide(v as never).decidedBy?.index, `${String(v)} codegen ${codegen}`).toBe(1);
        expect(c.count(v as never), `${String(v)} codegen ${codegen}`).toBe(1);
      }
    }
  });
});
