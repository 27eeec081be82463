/**
 * The Network Firewall's complexity limit. Its docs ("Form expressions") give one expression over the limit
 * — nine `(a || b)` pairs joined by `&&` — answered 400 "ruleset exceeds complexity constraints", and say
 * to split such an expression into rules; they do not give the limit itself. What grows in that example
 * is the expression's disjunctive normal form (2^9 = 512 conjunctions), so rulekit counts those terms and
 * refuses an expression with at least as many as the documented example has. A lower limit would refuse
 * expressions the service may accept; this one refuses only what the docs show refused.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { ExprNode } from '../expression/index.js';
import { RULESET_CODES } from './codes.js';

/** The DNF terms of the docs' example: the fewest known to exceed the limit. */
export const COMPLEXITY_DNF_TERMS = 512;

/** The phases of the Network Firewall (Magic Transit), whose rules have the limit. */
export function hasComplexityLimit(phase: string | undefined): boolean {
  return phase !== undefined && phase.startsWith('magic_transit');
}

/** Terms of the expression's DNF and of its negation's, saturating far above the limit. */
export function dnfTerms(node: ExprNode): { pos: number; neg: number } {
  const cap = (n: number) => Math.min(n, 1e9);
  switch (node.kind) {
    case 'group':
      return dnfTerms(node.expr);
    case 'not': {
      const t = dnfTerms(node.operand);
      return { pos: t.neg, neg: t.pos };
    }
    case 'logical': {
      const parts = node.operands.map(dnfTerms);
      if (node.op === 'and') return { pos: cap(parts.reduce((a, p) => a * p.pos, 1)), neg: cap(parts.reduce((a, p) => a + p.neg, 0)) };
      if (node.op === 'or') return { pos: cap(parts.reduce((a, p) => a + p.pos, 0)), neg: cap(parts.reduce((a, p) => a * p.neg, 1)) };
      // xor: a ^ b = (a ∧ ¬b) ∨ (¬a ∧ b), folded left.
      return parts.reduce((a, b) => ({ pos: cap(a.pos * b.neg + a.neg * b.pos), neg: cap(a.pos * b.pos + a.neg * b.neg) }));
    }
    default:
      return { pos: 1, neg: 1 };
  }
}

/** `rule-complexity-limit` for an expression of a Network Firewall phase whose DNF reaches the documented example's. */
export function complexityDiagnostics(ast: ExprNode, phase: string | undefined): Diagnostic[] {
  if (!hasComplexityLimit(phase) || !ast) return [];
  const terms = dnfTerms(ast).pos;
  if (terms < COMPLEXITY_DNF_TERMS) return [];
  return [
    {
      code: 'rule-complexity-limit',
      severity: RULESET_CODES['rule-complexity-limit'].severity,
      message: `the expression expands to ${terms >= 1e9 ? 'over 10^9' : terms} alternatives (its and/or nesting multiplied out); the Network Firewall answers 400 "ruleset exceeds complexity constraints" from ${COMPLEXITY_DNF_TERMS} (its docs' example): split it into several rules, or use sets (tcp.dstport in {1000 1001})`,
      range: { ...ast.range },
      data: { terms, limit: COMPLEXITY_DNF_TERMS },
    },
  ];
}
