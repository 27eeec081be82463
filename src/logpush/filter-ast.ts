/**
 * The checked Logpush filter: a tree of `and`/`or` groups and clauses, each clause bound to its field's
 * type and carrying its value normalized for evaluation (numeric strings of int fields become numbers).
 * Plain data: it can be printed, evaluated, compiled or shipped as JSON.
 * @module
 */
import type { Range } from '../diagnostics/index.js';
import type { FieldType } from './datasets/types.js';
import type { FilterOperator } from './operators.js';

/** A scalar a clause compares with: a string, an integer or a boolean. */
export type FilterScalar = string | number | boolean;

/** A clause `{key, operator, value}`. */
export interface FilterClause {
  kind: 'clause';
  /** The log field name. */
  key: string;
  operator: FilterOperator;
  /** The value as written in the filter (a numeric string stays a string here). */
  value: FilterScalar | FilterScalar[];
  /** The field's catalogued type. */
  fieldType: FieldType;
  /**
   * The value normalized to the field type: numbers for int fields and int elements of arrays; for
   * `int or string` fields a numeric value is a number (it also matches its decimal string form).
   */
  operand: FilterScalar | FilterScalar[];
  /** JSON pointer of the clause inside the filter document. */
  pointer: string;
  /** Range of the clause object inside the filter string (absent for filters built in code). */
  range?: Range;
}

/** An `and` or `or` over one or more nodes. */
export interface FilterGroup {
  kind: 'and' | 'or';
  children: FilterNode[];
  pointer: string;
  range?: Range;
}

/** A node of the filter tree. */
export type FilterNode = FilterClause | FilterGroup;

/** A checked filter: the `where` tree and the dataset it was checked against. */
export interface LogFilter {
  dataset: string;
  where: FilterNode;
  /** Clauses plus groups (the figure the 30-operator limit counts). */
  operatorCount: number;
  /** UTF-8 length of the filter text (0 when built in code). */
  bytes: number;
}
