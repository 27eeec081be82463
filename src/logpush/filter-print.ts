/**
 * Writing a filter back: the canonical JSON form (members in `key, operator, value` order, no
 * whitespace, values normalized to the field type) and a readable expression
 * (`EdgeResponseStatus >= 500 and ClientRequestHost ends with ".example.com"`) for messages and docs.
 * @module
 */
import type { FilterNode, FilterScalar, LogFilter } from './filter-ast.js';
import { OPERATOR_BY_NAME } from './operators.js';

/** Options of {@link printLogFilter}. */
export interface PrintFilterOptions {
  /** Write normalized values (numeric strings of int fields as numbers). Default true. */
  normalize?: boolean;
  /** Indentation for a pretty form (as `JSON.stringify`'s third argument). Default none. */
  indent?: number | string;
}

function toJson(n: FilterNode, normalize: boolean): unknown {
  if (n.kind === 'clause') return { key: n.key, operator: n.operator, value: normalize ? n.operand : n.value };
  return { [n.kind]: n.children.map((c) => toJson(c, normalize)) };
}

/** The canonical filter document as a JSON value (`{"where": …}`). */
export function logFilterToJSON(filter: LogFilter | FilterNode, options: PrintFilterOptions = {}): { where: unknown } {
  const node = 'where' in filter ? filter.where : filter;
  return { where: toJson(node, options.normalize !== false) };
}

/** The canonical filter string; it parses back to the same filter. */
export function printLogFilter(filter: LogFilter | FilterNode, options: PrintFilterOptions = {}): string {
  return JSON.stringify(logFilterToJSON(filter, options), null, options.indent);
}

function scalar(v: FilterScalar): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function expr(n: FilterNode, parent: 'and' | 'or' | undefined): string {
  if (n.kind === 'clause') {
    const sym = OPERATOR_BY_NAME.get(n.operator)?.symbol ?? n.operator;
    const v = Array.isArray(n.operand) ? `[${n.operand.map(scalar).join(', ')}]` : scalar(n.operand);
    return `${n.key} ${sym} ${v}`;
  }
  const inner = n.children.map((c) => expr(c, n.kind)).join(` ${n.kind} `);
  return parent !== undefined && n.children.length > 1 ? `(${inner})` : inner;
}

/** The filter as a readable infix expression, e.g. `EdgeResponseStatus >= 500 and (A == "x" or B in [1, 2])`. */
export function logFilterToExpression(filter: LogFilter | FilterNode): string {
  return expr('where' in filter ? filter.where : filter, undefined);
}
