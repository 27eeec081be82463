/**
 * Sets of every size in the generated matcher: small ones become inline compares, large ones a Set and a
 * range search. The generated source must compile as it is (a broken one would silently fall back to
 * closures, which hides the bug), and decide membership as the set literal says: a value or range of the
 * literal holds the port (both ends included), written here directly from the literal.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExpression, EMPTY_PACKET, generate, HELPERS, type Packet } from '../../src/expression/index.js';

/** The generated matcher, built from its source with no fallback. */
function generated(text: string): (p: Packet) => boolean {
  const r = checkExpression(text, {});
  expect(r.diagnostics.filter((d) => d.severity === 'error'), text).toEqual([]);
  const g = generate(r.checked!);
  const factory = new Function('k', 'h', 'E', g.source) as (k: unknown[], h: unknown, e: Packet) => (p: Packet) => boolean;
  return factory(g.constants, HELPERS, EMPTY_PACKET);
}

const port = fc.integer({ min: 0, max: 65535 });
const item = fc.oneof(port.map((v) => ({ lo: v, hi: v })), fc.tuple(port, port).map(([a, b]) => ({ lo: Math.min(a, b), hi: Math.max(a, b) })));

describe('int sets of every size in generated code', () => {
  it('hold exactly the literal\'s values and ranges', () => {
    let large = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 40, size: 'max' }), fc.array(port, { maxLength: 10 }), (items, probes) => {
        runs++;
        if (items.length > 12) large++;
        const text = `tcp.dstport in {${items.map((i) => (i.lo === i.hi ? `${i.lo}` : `${i.lo}..${i.hi}`)).join(' ')}}`;
        const m = generated(text);
        const all = [...probes, ...items.flatMap((i) => [i.lo, i.hi, i.lo - 1, i.hi + 1]).filter((x) => x >= 0 && x <= 65535)];
        for (const x of all) {
          const want = items.some((i) => i.lo <= x && x <= i.hi);
          expect(m({ 'tcp.dstport': x }), `${text} on ${x}`).toBe(want);
        }
        expect(m({}), 'missing').toBe(false);
        expect(m({ 'tcp.dstport': String(items[0]!.lo) } as unknown as Packet), 'a string').toBe(false);
      }),
      { numRuns: 400 },
    );
    expect(large, `runs of ${runs} with more than 12 items`).toBeGreaterThan(runs / 4);
  });

  it('values only, ranges only, and both, above the inline size', () => {
    const values = Array.from({ length: 20 }, (_, i) => 1000 + 2 * i);
    const ranges = Array.from({ length: 20 }, (_, i) => [3000 + 10 * i, 3003 + 10 * i] as const);
    const cases: [string, number[], number[]][] = [
      [`{${values.join(' ')}}`, [1000, 1038, 1002], [999, 1001, 1040, 3000]],
      [`{${ranges.map(([a, b]) => `${a}..${b}`).join(' ')}}`, [3000, 3003, 3193], [2999, 3004, 3194, 1000]],
      [`{${values.join(' ')} ${ranges.map(([a, b]) => `${a}..${b}`).join(' ')}}`, [1000, 1038, 3000, 3193], [999, 1001, 3004, 65535]],
    ];
    for (const [set, yes, no] of cases) {
      const m = generated(`tcp.dstport in ${set}`);
      for (const x of yes) expect(m({ 'tcp.dstport': x }), `${x} in ${set.slice(0, 30)}`).toBe(true);
      for (const x of no) expect(m({ 'tcp.dstport': x }), `${x} not in ${set.slice(0, 30)}`).toBe(false);
    }
  });
});

describe('string sets of every size in generated code', () => {
  it('hold exactly the literal\'s strings', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 30 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 8 }), (names, probes) => {
        const text = `cf.colo.name in {${names.map((n) => JSON.stringify(n)).join(' ')}}`;
        const m = generated(text);
        for (const x of [...names, ...probes]) expect(m({ 'cf.colo.name': x }), `${text} on ${JSON.stringify(x)}`).toBe(names.includes(x));
        expect(m({ 'cf.colo.name': 5 } as unknown as Packet)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
