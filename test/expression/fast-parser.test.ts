/** The hand-written fast path builds exactly the Chevrotain parser's tree (ranges included) wherever it succeeds. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lex } from '../../src/expression/lexer.js';
import { parseTokens } from '../../src/expression/parser.js';
import { fastParse } from '../../src/expression/fast-parser.js';
import { parseExpression } from '../../src/expression/index.js';
import { expression } from './arbitraries.js';
import { reachCounter } from '../helpers/reach.js';

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
    // Random pieces alone parse about once in sixty runs; comparisons among them, and valid expressions
    // with one token dropped, doubled or swapped, sit at the border of the language where the two
    // parsers could disagree, and often parse.
    const comparison = fc.tuple(fc.constantFrom('tcp.dstport', 'ip.src', 'sip'), fc.constantFrom('==', 'in', '&', 'eq'), fc.constantFrom('80', '10.0.0.0/8', '"x"', 'r#"y"#', '{ 80 }', '{ 1..2 }', '$l'))
      .map((t) => t.join(' '));
    const nearValid = fc.tuple(expression, fc.nat(), fc.nat(), fc.constantFrom('drop', 'double', 'swap')).map(([e, i, j, how]) => {
      const t = e.split(' ');
      const a = i % t.length;
      const b = j % t.length;
      if (how === 'drop') t.splice(a, 1);
      else if (how === 'double') t.splice(a, 0, t[a]!);
      else [t[a], t[b]] = [t[b]!, t[a]!];
      return t;
    });
    const parts = fc.oneof(
      { weight: 1, arbitrary: fc.array(pieces, { maxLength: 12 }) },
      {
        weight: 2,
        arbitrary: fc.tuple(comparison, fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom('and', 'or', 'xor', 'and not', '||') }, { weight: 1, arbitrary: pieces }), comparison), { maxLength: 4 }))
          .map(([first, rest]) => [first, ...rest.flat()]),
      },
      { weight: 3, arbitrary: nearValid },
    );
    const reach = reachCounter();
    fc.assert(
      fc.property(parts, (parts) => {
        reach.tried();
        const text = parts.join(' ');
        const { fast, slow } = both(text);
        if (fast === undefined) return;
        reach.reached();
        expect(slow.diagnostics).toEqual([]);
        expect(withoutIds(fast)).toEqual(withoutIds(slow.ast));
      }),
      { numRuns: 20000 },
    );
    // About 18% reach it with these generators (random pieces alone: under 2%).
    reach.expectAtLeast(0.1, 'fast path succeeded');
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
