/**
 * The operator catalog: one row per canonical operator with every spelling, the grammar token of each
 * spelling, the types it accepts and a line of docs. It is the only place an operator is spelled: the
 * token vocabulary, the lexer's symbol and keyword maps and both parsers' operator maps are derived from
 * it (tokens.ts), and the checker, the printer, completion and docs read it.
 * @module
 */
import type { CompareOperator, LogicalOperator } from './ast.js';
import type { FieldType } from './scheme.js';

/** A comparison operator's row. */
export interface CompareOperatorInfo {
  /** Canonical printed spelling. */
  print: string;
  /** Every accepted spelling. A spelling of two words is two keyword tokens (`strict wildcard`). */
  spellings: readonly string[];
  /**
   * Name of the grammar token of each spelling, in the order of `spellings` (the words of a two-word
   * spelling are named with a space between).
   */
  tokens: readonly string[];
  /** Left-hand types it applies to. */
  types: readonly FieldType[];
  doc: string;
}

/** Comparison operators. */
export const COMPARE_OPERATORS: Readonly<Record<CompareOperator, CompareOperatorInfo>> = {
  eq: { print: '==', spellings: ['==', 'eq'], tokens: ['Eq', 'EqWord'], types: ['Int', 'String', 'Ip'], doc: 'Equal (Ip: one address, not a CIDR).' },
  ne: { print: '!=', spellings: ['!=', 'ne'], tokens: ['Ne', 'NeWord'], types: ['Int', 'String', 'Ip'], doc: 'Not equal (false on a missing field).' },
  lt: { print: '<', spellings: ['<', 'lt'], tokens: ['Lt', 'LtWord'], types: ['Int', 'String', 'Ip'], doc: 'Less than (String: byte order; Ip: same family).' },
  le: { print: '<=', spellings: ['<=', 'le'], tokens: ['Le', 'LeWord'], types: ['Int', 'String', 'Ip'], doc: 'Less than or equal.' },
  gt: { print: '>', spellings: ['>', 'gt'], tokens: ['Gt', 'GtWord'], types: ['Int', 'String', 'Ip'], doc: 'Greater than.' },
  ge: { print: '>=', spellings: ['>=', 'ge'], tokens: ['Ge', 'GeWord'], types: ['Int', 'String', 'Ip'], doc: 'Greater than or equal.' },
  bitwise_and: { print: '&', spellings: ['&', 'bitwise_and'], tokens: ['Amp', 'BitwiseAnd'], types: ['Int'], doc: 'True when (value & rhs) != 0.' },
  contains: { print: 'contains', spellings: ['contains'], tokens: ['Contains'], types: ['String'], doc: 'Substring test.' },
  matches: { print: 'matches', spellings: ['matches', '~'], tokens: ['Matches', 'Tilde'], types: ['String'], doc: 'Regular expression (RE2 syntax, unanchored, linear time).' },
  wildcard: { print: 'wildcard', spellings: ['wildcard'], tokens: ['Wildcard'], types: ['String'], doc: 'Whole-value match where * is any run of characters; case-insensitive.' },
  strict_wildcard: { print: 'strict wildcard', spellings: ['strict wildcard'], tokens: ['Strict Wildcard'], types: ['String'], doc: 'Like wildcard, case-sensitive.' },
};

/** `in { ... }` applies to these types; `in $list` to Ip only. */
export const IN_SET_TYPES: readonly FieldType[] = ['Int', 'String', 'Ip'];
/** `in $list` applies to these types. */
export const IN_LIST_TYPES: readonly FieldType[] = ['Ip'];

/** A row of a logical operator or of `not`. */
export interface LogicalOperatorInfo {
  /** Canonical printed spelling. */
  print: string;
  /** Every accepted spelling. */
  spellings: readonly string[];
  /** Name of the grammar token of each spelling, in the order of `spellings`. */
  tokens: readonly string[];
  /** Binding strength: a higher number binds tighter. */
  precedence: number;
}

/** Logical operators, loosest first, with their spellings. */
export const LOGICAL_OPERATORS: Readonly<Record<LogicalOperator, LogicalOperatorInfo>> = {
  or: { print: 'or', spellings: ['or', '||'], tokens: ['Or', 'PipePipe'], precedence: 1 },
  xor: { print: 'xor', spellings: ['xor', '^^'], tokens: ['Xor', 'CaretCaret'], precedence: 2 },
  and: { print: 'and', spellings: ['and', '&&'], tokens: ['And', 'AmpAmp'], precedence: 3 },
};

/** `not`, which binds tighter than every logical operator and applies to the next simple expression. */
export const NOT_OPERATOR: LogicalOperatorInfo = { print: 'not', spellings: ['not', '!'], tokens: ['Not', 'Bang'], precedence: 4 };

/** `in`, followed by a set in braces (types {@link IN_SET_TYPES}) or a `$list` (types {@link IN_LIST_TYPES}). */
export const IN_OPERATOR: { print: string; spellings: readonly string[]; tokens: readonly string[] } = { print: 'in', spellings: ['in'], tokens: ['In'] };
