/**
 * Explanations of a filter's decision on one log line — which clause held, which did not and why (a
 * missing field is false even for `!op`) — and the fields a filter reads.
 * @module
 */
import type { FilterNode, LogFilter } from './filter-ast.js';
import { evaluateClause } from './filter-eval.js';
import { logFilterToExpression } from './filter-print.js';

/** One node of an explanation. */
export interface FilterExplanation {
  /** `and`, `or` or the readable clause (`EdgeResponseStatus >= 500`). */
  expression: string;
  result: boolean;
  /** Pointer of the node in the filter document. */
  pointer: string;
  /** For a clause: the line's value of the field (undefined when absent). */
  value?: unknown;
  /** For a clause on an absent or null field: why it is false. */
  note?: string;
  /** For a group: its children, each evaluated (no short-circuit, so every clause is explained). */
  children?: FilterExplanation[];
}

function explain(n: FilterNode, line: Record<string, unknown>): FilterExplanation {
  if (n.kind === 'clause') {
    const value = line[n.key];
    const e: FilterExplanation = { expression: logFilterToExpression(n), result: evaluateClause(n, line), pointer: n.pointer, value };
    if (value === undefined || value === null) e.note = `${n.key} is ${value === null ? 'null' : 'absent'} in the line, so the clause is false`;
    return e;
  }
  const children = n.children.map((c) => explain(c, line));
  const result = n.kind === 'and' ? children.every((c) => c.result) : children.some((c) => c.result);
  return { expression: n.kind, result, pointer: n.pointer, children };
}

/** Explain the filter's decision on a line (a parsed JSON object). Never throws. */
export function explainLogFilter(filter: LogFilter | FilterNode, line: unknown): FilterExplanation {
  const obj = typeof line === 'object' && line !== null ? (line as Record<string, unknown>) : {};
  return explain('where' in filter ? filter.where : filter, obj);
}

function shown(v: unknown): string {
  if (v === undefined) return 'absent';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/** An explanation as indented text, one node a line: `✓ EdgeResponseStatus >= 500  (line: 503)`. */
export function renderFilterExplanation(e: FilterExplanation, indent = ''): string {
  const mark = e.result ? '✓' : '✗';
  if (!e.children) return `${indent}${mark} ${e.expression}  (line: ${shown(e.value)})${e.note ? ` — ${e.note}` : ''}`;
  return [`${indent}${mark} ${e.expression}`, ...e.children.map((c) => renderFilterExplanation(c, `${indent}  `))].join('\n');
}

/** The distinct fields a filter reads, in first-use order (to fetch or decode only those). */
export function logFilterFields(filter: LogFilter | FilterNode): string[] {
  const out = new Set<string>();
  const walk = (n: FilterNode): void => {
    if (n.kind === 'clause') out.add(n.key);
    else n.children.forEach(walk);
  };
  walk('where' in filter ? filter.where : filter);
  return [...out];
}
