/**
 * The reference interpreter of checked Logpush filters, with the semantics of logpush.md: a clause on a
 * field the line lacks (or holds as null) is false — negated operators included; on a present value each
 * `!op` is exactly `not op`. `contains` is substring on strings and "some element equals" on array
 * fields; `in` on an array field is "some element is in the set". Comparisons are case-sensitive.
 * @module
 */
import type { FieldType } from './datasets/types.js';
import type { FilterClause, FilterNode, FilterScalar, LogFilter } from './filter-ast.js';
import { OPERATOR_BY_NAME, type FilterOperator } from './operators.js';

/** True for the array field types. */
export function isArrayType(t: FieldType): boolean {
  return t === 'array_string' || t === 'array_int';
}

/** Scalar equality of a line value and a normalized operand (an int of an `int or string` field also equals its decimal string). */
export function scalarEquals(v: unknown, o: FilterScalar, type: FieldType): boolean {
  return v === o || (type === 'int_or_string' && typeof o === 'number' && v === String(o));
}

function positive(op: FilterOperator, c: FilterClause, v: unknown): boolean {
  const o = c.operand;
  switch (op) {
    case 'eq':
      return scalarEquals(v, o as FilterScalar, c.fieldType);
    case 'lt':
      return typeof v === 'number' && v < (o as number);
    case 'leq':
      return typeof v === 'number' && v <= (o as number);
    case 'gt':
      return typeof v === 'number' && v > (o as number);
    case 'geq':
      return typeof v === 'number' && v >= (o as number);
    case 'startsWith':
      return typeof v === 'string' && v.startsWith(o as string);
    case 'endsWith':
      return typeof v === 'string' && v.endsWith(o as string);
    case 'contains':
      if (isArrayType(c.fieldType)) return Array.isArray(v) && v.some((e) => e === o);
      return typeof v === 'string' && v.includes(o as string);
    case 'in': {
      const set = o as FilterScalar[];
      if (isArrayType(c.fieldType)) return Array.isArray(v) && v.some((e) => set.some((s) => e === s));
      return set.some((s) => scalarEquals(v, s, c.fieldType));
    }
    default:
      return false;
  }
}

/** Evaluate one clause on a log line. */
export function evaluateClause(c: FilterClause, line: Record<string, unknown>): boolean {
  const v = line[c.key];
  if (v === undefined || v === null) return false;
  const info = OPERATOR_BY_NAME.get(c.operator);
  if (!info) return false;
  return info.negates ? !positive(info.negates, c, v) : positive(c.operator, c, v);
}

function evalNode(n: FilterNode, line: Record<string, unknown>): boolean {
  switch (n.kind) {
    case 'and':
      for (const c of n.children) if (!evalNode(c, line)) return false;
      return true;
    case 'or':
      for (const c of n.children) if (evalNode(c, line)) return true;
      return false;
    default:
      return evaluateClause(n, line);
  }
}

/**
 * Interpret a checked filter (or a node of one) on a log line, a parsed JSON object. Never throws:
 * a line that is not an object matches nothing.
 */
export function evaluateLogFilter(filter: LogFilter | FilterNode, line: unknown): boolean {
  if (typeof line !== 'object' || line === null) return false;
  const node = 'where' in filter ? filter.where : filter;
  return evalNode(node, line as Record<string, unknown>);
}
