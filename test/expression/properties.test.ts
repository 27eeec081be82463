import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileExpression, parseExpression, checkExpression, interpret, print, shape, generate, ListCatalog } from '../../src/expression/index.js';
import { expression, hostileLiteral, literalOf, packet, LISTS } from './arbitraries.js';

const RUNS_NEVER_THROW = process.env.CI ? 100_000 : 10_000;
const lists = ListCatalog.from(LISTS);

describe('laws of the expression pipeline', () => {
  it('parse, check and compile never throw on any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }), expression.map((e) => e.slice(0, Math.max(1, e.length - 3)))), (s) => {
        const r = compileExpression(s, { lists });
        expect(Array.isArray(r.diagnostics)).toBe(true);
        // errors and matchers exclude each other
        expect(r.matcher === undefined).toBe(r.diagnostics.some((d) => d.severity === 'error'));
      }),
      { numRuns: RUNS_NEVER_THROW },
    );
  });

  it('generated expressions are valid', () => {
    fc.assert(
      fc.property(expression, (s) => {
        const r = compileExpression(s, { lists });
        expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('print then parse gives back an equal AST', () => {
    fc.assert(
      fc.property(expression, (s) => {
        const first = parseExpression(s);
        expect(first.ast).toBeDefined();
        const printed = print(first.ast!);
        const second = parseExpression(printed);
        expect(second.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(shape(second.ast)).toEqual(shape(first.ast));
        // printing is canonical: a second print is the same text
        expect(print(second.ast!)).toBe(printed);
      }),
      { numRuns: 3000 },
    );
  });

  it('the compiled matcher equals the interpreter (generated code and closures)', () => {
    fc.assert(
      fc.property(expression, fc.array(packet, { minLength: 1, maxLength: 8 }), (s, packets) => {
        const r = compileExpression(s, { lists });
        const closures = compileExpression(s, { lists, codegen: false });
        expect(r.matcher).toBeDefined();
        for (const p of packets) {
          const want = interpret(r.checked!, p);
          expect(r.matcher!(p)).toBe(want);
          expect(closures.matcher!(p)).toBe(want);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('hostile strings in literals never change generated code behaviour', () => {
    fc.assert(
      fc.property(hostileLiteral.chain((v) => literalOf(v).map((lit) => [v, lit] as const)), hostileLiteral.chain((v) => literalOf(v).map((lit) => [v, lit] as const)), ([value, valueLit], [other, otherLit]) => {
        // Each value written raw, quoted, or with \xHH / \OOO byte escapes (see literalOf).
        const expr = `cf.colo.name == ${valueLit} or cf.colo.name contains ${otherLit}`;
        const r = compileExpression(expr);
        expect(r.matcher).toBeDefined();
        // the literal round-trips to the exact value and matches exactly that value
        expect(r.matcher!({ 'cf.colo.name': value })).toBe(true);
        // (a longer value is never equal, so only `contains` can match it)
        expect(r.matcher!({ 'cf.colo.name': value + '\u0001' + 'x' })).toBe((value + '\u0001x').includes(other));
        expect(r.matcher!({})).toBe(false);
        const src = generate(r.checked!).source;
        // The source as it is: U+2028/U+2029 never appear raw, not even inside a string literal (they end
        // a line in pre-ES2019 engines and in <script> text; the compiler promises \u2028 / \u2029).
        expect(src).not.toMatch(/[\u2028\u2029]/);
        // Every string literal is written the JSON way: escapes only from JSON's set, no raw control
        // character or lone quote; it parses as JSON to the value the expression holds.
        const literals = src.match(/"(?:[^"\\\n]|\\.)*"/g) ?? [];
        for (const lit of literals) {
          expect(lit).toMatch(/^"(?:[^"\\\u0000-\u001f\u2028\u2029]|\\["\\/bfnrt]|\\u[0-9a-f]{4})*"$/);
        }
        const values = literals.map((lit) => JSON.parse(lit) as string);
        expect(values).toContain(value);
        expect(values).toContain(other);
        // Outside the literals: no template, no comment, no user text.
        const stripped = src.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
        expect(stripped).not.toMatch(/[`$]|\*\/|\/\*/);
        expect(() => new Function('k', 'h', 'E', src)).not.toThrow();
      }),
      { numRuns: 5000 },
    );
  });

  it('custom scheme field names with odd characters are escaped', () => {
    const r = compileExpression('a.b_c == "x"', { scheme: { 'a.b_c': 'String' } });
    expect(r.matcher!({ 'a.b_c': 'x' })).toBe(true);
    const bad = checkExpression('x == 1', { scheme: { 'x"]+process.exit()+p["': 'Int' } as never });
    expect(bad.diagnostics.some((d) => d.code === 'invalid-scheme')).toBe(true);
  });
});
