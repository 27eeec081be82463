/**
 * The printer: AST → canonical text (lower-case word operators for logic, symbol operators for
 * comparisons, one space between tokens, groups kept, literals as written). Parsing the printed text
 * gives back an equal AST (ranges aside) — a law pinned by a property test.
 * @module
 */
import type * as A from './ast.js';
import { COMPARE_OPERATORS, LOGICAL_OPERATORS } from './operators.js';

/** Print an expression node canonically. */
export function print(node: A.AnyNode): string {
  switch (node.kind) {
    case 'logical':
      return node.operands.map(print).join(` ${LOGICAL_OPERATORS[node.op].print} `);
    case 'not':
      return `not ${print(node.operand)}`;
    case 'group':
      return `(${print(node.expr)})`;
    case 'error':
      return '<error>';
    case 'bare':
      return print(node.lhs);
    case 'compare':
      return `${print(node.lhs)} ${COMPARE_OPERATORS[node.op].print} ${print(node.rhs)}`;
    case 'in':
      return `${print(node.lhs)} in ${print(node.rhs)}`;
    case 'field':
      return node.name;
    case 'call':
      return `${node.name}(${node.args.map(print).join(', ')})`;
    case 'index':
      return `${print(node.target)}[${node.key ? node.key.text : '*'}]`;
    case 'literal':
      return node.text;
    case 'range':
      return `${print(node.low)}..${print(node.high)}`;
    case 'set':
      return node.items.length ? `{${node.items.map(print).join(' ')}}` : '{}';
    case 'list':
      return `$${node.name}`;
  }
}

/** Strip ids and ranges: the shape that the print-then-parse law compares. */
export function shape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shape);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(node)) {
    if (key === 'id' || key === 'range' || key === 'opRange' || key === 'nameRange') continue;
    out[key] = shape(v);
  }
  return out;
}
