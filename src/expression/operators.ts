/**
 * The operator catalog: one row per canonical operator with every spelling, the types it accepts and a
 * line of docs. The checker, the printer, completion and docs read this table.
 * @module
 */
import type { CompareOperator, LogicalOperator } from './ast.js';
import type { FieldType } from './scheme.js';

/** A comparison operator's row. */
export interface CompareOperatorInfo {
  /** Canonical printed spelling. */
  print: string;
  /** Every accepted spelling. */
  spellings: readonly string[];
  /** Left-hand types it applies to. */
  types: readonly FieldType[];
  doc: string;
}

/** Comparison operators. */
export const COMPARE_OPERATORS: Readonly<Record<CompareOperator, CompareOperatorInfo>> = {
  eq: { print: '==', spellings: ['==', 'eq'], types: ['Int', 'String', 'Ip'], doc: 'Equal (Ip: one address, not a CIDR).' },
  ne: { print: '!=', spellings: ['!=', 'ne'], types: ['Int', 'String', 'Ip'], doc: 'Not equal (false on a missing field).' },
  lt: { print: '<', spellings: ['<', 'lt'], types: ['Int', 'String', 'Ip'], doc: 'Less than (String: byte order; Ip: same family).' },
  le: { print: '<=', spellings: ['<=', 'le'], types: ['Int', 'String', 'Ip'], doc: 'Less than or equal.' },
  gt: { print: '>', spellings: ['>', 'gt'], types: ['Int', 'String', 'Ip'], doc: 'Greater than.' },
  ge: { print: '>=', spellings: ['>=', 'ge'], types: ['Int', 'String', 'Ip'], doc: 'Greater than or equal.' },
  bitwise_and: { print: '&', spellings: ['&', 'bitwise_and'], types: ['Int'], doc: 'True when (value & rhs) != 0.' },
  contains: { print: 'contains', spellings: ['contains'], types: ['String'], doc: 'Substring test.' },
  matches: { print: 'matches', spellings: ['matches', '~'], types: ['String'], doc: 'Regular expression (RE2 syntax, unanchored, linear time).' },
  wildcard: { print: 'wildcard', spellings: ['wildcard'], types: ['String'], doc: 'Whole-value match where * is any run of characters; case-insensitive.' },
  strict_wildcard: { print: 'strict wildcard', spellings: ['strict wildcard'], types: ['String'], doc: 'Like wildcard, case-sensitive.' },
};

/** `in { ... }` applies to these types; `in $list` to Ip only. */
export const IN_SET_TYPES: readonly FieldType[] = ['Int', 'String', 'Ip'];
/** `in $list` applies to these types. */
export const IN_LIST_TYPES: readonly FieldType[] = ['Ip'];

/** Logical operators, loosest first, with their spellings. */
export const LOGICAL_OPERATORS: Readonly<Record<LogicalOperator, { print: string; spellings: readonly string[]; precedence: number }>> = {
  or: { print: 'or', spellings: ['or', '||'], precedence: 1 },
  xor: { print: 'xor', spellings: ['xor', '^^'], precedence: 2 },
  and: { print: 'and', spellings: ['and', '&&'], precedence: 3 },
};
