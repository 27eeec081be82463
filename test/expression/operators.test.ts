import { describe, expect, it } from 'vitest';
import { COMPARE_OPERATORS, LOGICAL_OPERATORS, parseExpression, type CompareOperator, type ExprNode, type LogicalOperator } from '../../src/index.js';
import { NOT_OPERATOR } from '../../src/expression/operators.js';

const PARSERS = ['auto', 'chevrotain'] as const;

function parsed(text: string, parser: (typeof PARSERS)[number]): ExprNode {
  const r = parseExpression(text, { parser });
  expect(r.diagnostics, text).toEqual([]);
  return r.ast!;
}

describe('the operator table is the only spelling of an operator', () => {
  it('every comparison spelling lexes and parses, in both parsers, to its row', () => {
    for (const [op, row] of Object.entries(COMPARE_OPERATORS) as [CompareOperator, (typeof COMPARE_OPERATORS)[CompareOperator]][]) {
      for (const spelling of row.spellings) {
        for (const parser of PARSERS) {
          const ast = parsed(`cf.colo.name ${spelling} "x"`, parser);
          expect(ast.kind === 'compare' && ast.op, `${spelling} (${parser})`).toBe(op);
        }
      }
    }
  });

  it('every logical and not spelling parses, in both parsers, to its row', () => {
    for (const [op, row] of Object.entries(LOGICAL_OPERATORS) as [LogicalOperator, (typeof LOGICAL_OPERATORS)[LogicalOperator]][]) {
      for (const spelling of row.spellings) {
        for (const parser of PARSERS) {
          const ast = parsed(`sip ${spelling} sip`, parser);
          expect(ast.kind === 'logical' && ast.op, `${spelling} (${parser})`).toBe(op);
        }
      }
    }
    for (const spelling of NOT_OPERATOR.spellings) {
      for (const parser of PARSERS) expect(parsed(`${spelling} sip`, parser).kind, `${spelling} (${parser})`).toBe('not');
    }
  });

  it('precedence follows the table: a tighter operator groups first', () => {
    const ops = Object.values(LOGICAL_OPERATORS).sort((a, b) => a.precedence - b.precedence);
    for (let i = 0; i + 1 < ops.length; i++) {
      const [loose, tight] = [ops[i]!, ops[i + 1]!];
      for (const parser of PARSERS) {
        const ast = parsed(`sip ${tight.print} sip ${loose.print} sip`, parser);
        expect(ast.kind === 'logical' && ast.op, `${tight.print} binds tighter than ${loose.print}`).toBe(loose.print);
      }
    }
  });
});
