/**
 * The syntax tree of a Logpush transformer: one SQL query in the subset the Transformers page documents
 * (developers.cloudflare.com/logs/logpush/transformers, "Supported SQL"): projection with `AS`, `WHERE`,
 * `WITH … AS (…)`, `UNNEST`, `->`/`->>`, `named_struct`, array literals and scalar functions. Every node
 * has a `range` (UTF-16 offsets into the query text).
 * @module
 */
import type { Range } from '../diagnostics/index.js';

/** An expression. */
export type SqlExpr =
  /** `float`: a number written with a point or exponent (`100.0`), a Float64 even when whole. */
  | { kind: 'literal'; value: string | number | boolean | null; float?: boolean; range: Range }
  | { kind: 'column'; name: string; range: Range }
  | { kind: 'unary'; op: 'NOT' | '-'; operand: SqlExpr; range: Range }
  | { kind: 'binary'; op: SqlBinaryOp; left: SqlExpr; right: SqlExpr; range: Range }
  | { kind: 'is'; operand: SqlExpr; test: 'NULL' | 'TRUE' | 'FALSE'; negated: boolean; range: Range }
  | { kind: 'in'; operand: SqlExpr; list: SqlExpr[]; negated: boolean; range: Range }
  | { kind: 'like'; operand: SqlExpr; pattern: SqlExpr; negated: boolean; caseless: boolean; range: Range }
  | { kind: 'between'; operand: SqlExpr; low: SqlExpr; high: SqlExpr; negated: boolean; range: Range }
  | { kind: 'case'; operand?: SqlExpr; branches: { when: SqlExpr; then: SqlExpr }[]; otherwise?: SqlExpr; range: Range }
  | { kind: 'cast'; operand: SqlExpr; type: SqlCastType; range: Range }
  | { kind: 'extract'; field: string; operand: SqlExpr; range: Range }
  | { kind: 'call'; name: string; args: SqlExpr[]; range: Range }
  | { kind: 'array'; items: SqlExpr[]; range: Range }
  | { kind: 'index'; operand: SqlExpr; index: SqlExpr; range: Range };

export type SqlBinaryOp = 'OR' | 'AND' | '=' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%' | '||' | '->' | '->>';

/** The types `CAST(x AS t)` and `x::t` take, by what they make. */
export type SqlCastType = 'string' | 'int' | 'float' | 'bool' | 'timestamp';

/** One member of the select list: `*`, or an expression and the name it is delivered under. */
export type SqlSelectItem = { kind: 'star'; range: Range } | { kind: 'expr'; expr: SqlExpr; alias?: string; range: Range };

/** `SELECT … FROM … [WHERE …]`. */
export interface SqlSelect {
  items: SqlSelectItem[];
  /** The table: a dataset, or a name of the query's `WITH`. */
  from: { name: string; range: Range };
  where?: SqlExpr;
  range: Range;
}

/** The whole query: its common table expressions in order, then the select that is delivered. */
export interface SqlQuery {
  ctes: { name: string; select: SqlSelect; range: Range }[];
  select: SqlSelect;
}
