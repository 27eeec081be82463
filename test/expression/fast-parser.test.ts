/** The hand-written fast path builds exactly the Chevrotain parser's tree (ranges included) wherever it succeeds. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lex } from '../../src/expression/lexer.js';
import { parseTokens } from '../../src/expression/parser.js';
import { fastParse } from '../../src/expression/fast-parser.js';
import { parseExpression } from '../../src/expression/index.js';
import { expression } from './arbitraries.js';

function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'id').map(([k, v]) => [k, withoutIds(v)]));
}

function both(text: string) {
  const { tokens, diagnostics } = lex(text);
  return { fast: diagnostics.length ? undefined : fastParse(tokens), slow: parseTokens(tokens, text.length) };
}

describe('fast parser ≡ Chevrotain parser', () => {
  it('on generated valid expressions (with odd spacing)', () => {
    fc.assert(
      fc.property(expression, fc.constantFrom(' ', '  ', '\n', ' \r\n '), (e, ws) => {
        const text = e.replace(/ /g, ws);
        const { fast, slow } = both(text);
        expect(slow.diagnostics).toEqual([]);
        expect(fast).toBeDefined();
        expect(withoutIds(fast)).toEqual(withoutIds(slow.ast));
      }),
      { numRuns: 3000 },
    );
  });

  it('on arbitrary strings: where the fast path succeeds, Chevrotain finds no error and the same tree', () => {
    const pieces = fc.constantFrom('tcp.dstport', 'ip.src', '==', 'in', '{', '}', '(', ')', 'not', '!', 'and', 'or', 'xor', '80', '10.0.0.0/8', '"x"', 'r#"y"#', '..', ',', '$l', 'strict', 'wildcard', 'bit_slice', '&', 'sip');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const text = parts.join(' ');
        const { fast, slow } = both(text);
        if (fast === undefined) return;
        expect(slow.diagnostics).toEqual([]);
        expect(withoutIds(fast)).toEqual(withoutIds(slow.ast));
      }),
      { numRuns: 20000 },
    );
  });

  it('ids are unique, so checker side tables stay sound', () => {
    const ast = parseExpression('a in {1 2..3} and f(x, 1) == 2 or not (b)').ast!;
    const ids: number[] = [];
    const visit = (n: unknown) => {
      if (Array.isArray(n)) n.forEach(visit);
      else if (n && typeof n === 'object') {
        if ('id' in n) ids.push((n as { id: number }).id);
        Object.values(n).forEach(visit);
      }
    };
    visit(ast);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('ill-formed input goes to Chevrotain, whose diagnostics are kept', () => {
    expect(parseExpression('tcp.dstport in {80, 443}').diagnostics.map((d) => d.code)).toEqual(['comma-in-set']);
    expect(parseExpression('tcp.dstport == 1..2').diagnostics.map((d) => d.code)).toEqual(['range-outside-set']);
    expect(parseExpression('(a', { parser: 'chevrotain' }).diagnostics.map((d) => d.code)).toEqual(['unexpected-end']);
  });
});
