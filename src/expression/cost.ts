/**
 * The planner's cost model: a static estimate of what each checked node costs to evaluate, used by the
 * compiled matcher (and the compiled ruleset) to test the operands of `and`/`or` cheapest first.
 *
 * Every node is pure and total (no side effects, no exceptions; a missing field is just false), so the
 * operands of `and`/`or` commute and their order changes only the time, never the verdict. The interpreter
 * keeps the written order and serves as the reference: the property tests hold the compiled matcher equal
 * to it. Costs are rough units of one field load and compare; bench/expression.ts measures the effect
 * (an `ip.src in $list` parses address text, so it runs after the integer and string tests beside it).
 * @module
 */
import type * as A from './ast.js';
import type { CheckedExpression } from './checker.js';
import type { LhsPlan, Predicate, VectorPlan } from './predicates.js';
import type { ValuePlan } from './values.js';

/** Sets up to this size are tested inline, one compare per item. */
export const INLINE_SET_MAX = 12;

/** A value plan: a field load per field, more per step, much more per function call. */
function planCost(plan: ValuePlan): number {
  switch (plan.kind) {
    case 'field':
    case 'literal':
      return 1;
    case 'key':
    case 'at':
      return 1 + planCost(plan.target);
    case 'star':
      return 4 + planCost(plan.target);
    case 'call':
      return 10 + plan.args.reduce((sum, a) => sum + planCost(a), 0);
  }
}

function vectorCost(v: VectorPlan): number {
  switch (v.kind) {
    case 'test':
      return v.predicate.lhs.kind === 'value' ? planCost(v.predicate.lhs.plan) + testCost(v.predicate) * 4 : 4;
    case 'scalar':
      return predicateCost(v.predicate);
    case 'not':
      return 1 + vectorCost(v.item);
    case 'logical':
      return v.items.reduce((sum, i) => sum + vectorCost(i), 2);
  }
}

function lhsCost(lhs: LhsPlan): number {
  if (lhs.kind === 'value') return planCost(lhs.plan);
  if (lhs.kind === 'quantifier') return 4 + vectorCost(lhs.arg);
  if (lhs.kind === 'bit_slice') return 2 + (lhs.end - lhs.start) / 8;
  const f = lhs.field;
  if (f.aliasOf !== undefined) return 2;
  if (f.anyOf && f.anyOf.length) return 1 + f.anyOf.length;
  return 1;
}

function testCost(p: Predicate): number {
  switch (p.kind) {
    case 'bare':
      return 0.5;
    case 'int':
      return p.op === 'bitwise_and' ? 1.5 : 0.5;
    case 'string':
      return p.op === 'contains' ? 4 : p.op === 'eq' || p.op === 'ne' ? 1 : 2;
    case 'regex':
      return 40;
    case 'ip':
      // eq/ne go through the IpSet scanner; ordering parses the text into an address object.
      return p.op === 'eq' || p.op === 'ne' ? 8 : 25;
    case 'int-set': {
      const n = p.values.length + p.ranges.length;
      return n <= INLINE_SET_MAX ? 0.5 + n * 0.25 : 3;
    }
    case 'string-set':
      return p.values.size <= INLINE_SET_MAX ? 0.5 + p.values.size * 0.5 : 3;
    case 'ip-set':
    case 'string-list':
      return 8;
  }
}

/** Estimated cost of one predicate: reading its left-hand side, then testing it. */
export function predicateCost(p: Predicate): number {
  return lhsCost(p.lhs) + testCost(p);
}

/** Estimated cost of evaluating a node (the sum over its operands: an upper bound for `and`/`or`). */
export function nodeCost(c: CheckedExpression, node: A.ExprNode): number {
  switch (node.kind) {
    case 'logical': {
      let sum = 0;
      for (const o of node.operands) sum += nodeCost(c, o);
      return sum;
    }
    case 'not':
      return nodeCost(c, node.operand);
    case 'group':
      return nodeCost(c, node.expr);
    case 'error':
      return 0;
    default: {
      const pred = c.predicates.get(node.id);
      return pred ? predicateCost(pred) : 0;
    }
  }
}

/**
 * The operands of a logical node in evaluation order: cheapest first for `and`/`or` (a stable sort, so
 * equal costs keep the written order), as written for `xor` (which evaluates every operand anyway).
 */
export function evaluationOrder(c: CheckedExpression, node: A.LogicalNode): readonly A.ExprNode[] {
  if (node.op === 'xor' || node.operands.length < 2) return node.operands;
  return node.operands
    .map((o, i) => ({ o, i, cost: nodeCost(c, o) }))
    .sort((a, b) => a.cost - b.cost || a.i - b.i)
    .map((x) => x.o);
}
