/**
 * The interpreter: walks a checked AST for each packet. It is the reference semantics that the compiled
 * matcher is property-tested against.
 *
 * Record shapes (the contract with `src/http/`): a field's value is a number (Int: JS numbers; a literal
 * beyond 2^53 is compared with them exactly), a string (String, and Bytes as `bytes.ts` `bytesValue` makes
 * them: UTF-8 text, other bytes as U+DC80–U+DCFF; byte-wise functions such as `len` count those bytes),
 * an address string (Ip) or a boolean (Bool); an
 * `Array<T>` field is a JS array of T; a `Map<T>` field is a real `Map<string, T>` (header and cookie names
 * lower-cased, argument names as sent). Absent, or of another JS type, is missing.
 * @module
 */
import type * as A from './ast.js';
import type { CheckedExpression } from './checker.js';
import { bitSlice, quantify, testValue, valueType, type LhsPlan, type Predicate } from './predicates.js';
import { evaluateValue } from './values.js';

/** A packet or request record: field name → value (see the module comment for the shapes). Absent = missing. */
export type Packet = Readonly<Record<string, unknown>>;

const EMPTY: Packet = Object.freeze({});

/** The present values the left-hand side reads from a packet (0, 1, or several for `anyOf` fields). */
export function lhsValues(lhs: LhsPlan, packet: Packet): unknown[] {
  if (lhs.kind === 'quantifier') return [quantify(lhs.op, lhs.arg, packet, evaluatePredicate)];
  if (lhs.kind === 'value') {
    const v = evaluateValue(lhs.plan, packet);
    return v === undefined ? [] : [v];
  }
  const f = lhs.field;
  if (lhs.kind === 'bit_slice') {
    const v = bitSlice(packet[f.name], lhs.start, lhs.end);
    return v === undefined ? [] : [v];
  }
  const own = packet[f.name];
  if (own !== undefined) return [own];
  if (f.aliasOf !== undefined) {
    const v = packet[f.aliasOf];
    return v === undefined ? [] : [v];
  }
  if (f.anyOf) {
    const out: unknown[] = [];
    for (const n of f.anyOf) if (packet[n] !== undefined) out.push(packet[n]);
    return out;
  }
  return [];
}

/** Evaluate one predicate on a packet: true when some present value of the right type satisfies it. */
export function evaluatePredicate(p: Predicate, packet: Packet): boolean {
  const type = valueType(p);
  for (const v of lhsValues(p.lhs, packet)) if (typeof v === type && testValue(p, v)) return true;
  return false;
}

/** Evaluate a checked expression on a packet. Non-object packets are treated as having no fields. */
export function interpret(checked: CheckedExpression, packet: Packet): boolean {
  const p = packet !== null && typeof packet === 'object' ? packet : EMPTY;
  return evalNode(checked, checked.ast, p);
}

function evalNode(c: CheckedExpression, node: A.ExprNode, p: Packet): boolean {
  switch (node.kind) {
    case 'logical':
      if (node.op === 'and') {
        for (const o of node.operands) if (!evalNode(c, o, p)) return false;
        return true;
      }
      if (node.op === 'or') {
        for (const o of node.operands) if (evalNode(c, o, p)) return true;
        return false;
      } else {
        let parity = false;
        for (const o of node.operands) if (evalNode(c, o, p)) parity = !parity;
        return parity;
      }
    case 'not':
      return !evalNode(c, node.operand, p);
    case 'group':
      return evalNode(c, node.expr, p);
    case 'error':
      return false;
    default: {
      const pred = c.predicates.get(node.id);
      return pred !== undefined && evaluatePredicate(pred, p);
    }
  }
}
