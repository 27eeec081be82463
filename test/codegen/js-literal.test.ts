import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsLiteral, jsString } from '../../src/codegen/index.js';

/** Strings that break naive escaping: quotes, backslashes, line terminators, markup, lone surrogates. */
const HOSTILE = [
  '', '"', "'", '`', '\\', '\\"', '${x}', '\n', '\r', '\r\n', '\u2028', '\u2029', '\u0000', '\u007f', '\ud800', '\udc00', '\udc00\ud800',
  '</script>', '<!--', '-->', '<script>alert(1)</script>', '"]); globalThis.pwned = 1; (["', '\\u2028', '😀', '\ufeff',
];

const strings = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'binary' }),
  fc.array(fc.constantFrom(...HOSTILE, 'a', ' '), { maxLength: 8 }).map((parts) => parts.join('')),
);

const evaluate = (source: string): unknown => new Function(`return ${source};`)();

describe('jsString: the one escaping of strings into generated code', () => {
  it('reads back as the same string, for any string', () => {
    fc.assert(fc.property(strings, (s) => {
      expect(evaluate(jsString(s))).toBe(s);
    }), { numRuns: 2000 });
  });

  it('leaves no raw line terminator, U+2028/U+2029, < or > in the source text', () => {
    fc.assert(fc.property(strings, (s) => {
      const lit = jsString(s);
      expect(lit).not.toMatch(/[\n\r\u2028\u2029<>]/);
      // One string literal: it starts and ends with a quote, and no inner quote is unescaped.
      expect(lit).toMatch(/^"(?:[^"\\]|\\.)*"$/s);
    }), { numRuns: 2000 });
  });

  it('can sit inside an HTML script element and a template of generated code', () => {
    for (const s of HOSTILE) {
      const lit = jsString(s);
      expect(lit.toLowerCase()).not.toContain('</script');
      expect(lit).not.toContain('<!--');
      expect(evaluate(`[${lit}, ${lit}].join("")`)).toBe(s + s);
    }
  });
});

describe('jsLiteral', () => {
  it('reads back as the same string, finite number or boolean', () => {
    fc.assert(fc.property(fc.oneof(strings, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean()), (v) => {
      const lit = jsLiteral(v);
      expect(lit).not.toMatch(/[\n\r\u2028\u2029<>]/);
      expect(Object.is(evaluate(lit), v)).toBe(true);
      // Negative numbers are parenthesised, so `x -` + literal never becomes `x --1`.
      expect(evaluate(`1 -${lit}`)).toBe(typeof v === 'string' ? 1 - (v as never) : 1 - Number(v));
    }), { numRuns: 1000 });
  });

  it('rejects what has no literal here', () => {
    for (const v of [NaN, Infinity, -Infinity, null, undefined, {}, [], 1n]) expect(() => jsLiteral(v as never)).toThrow(TypeError);
  });
});
