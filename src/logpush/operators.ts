/**
 * The Logpush filter operator table as data: each operator's meaning, the field types it supports (the
 * public Filters page's String, Int, Bool, Array, Object columns), whether its value is an array, and
 * the spellings seen in the wild that mean it. The checker, the evaluators, the printer and the docs all
 * read this table; a test checks it against the page as read by `npm run datasets:refresh`
 * (src/logpush/datasets/filters-page.ts).
 * @module
 */
import type { FieldType } from './datasets/types.js';

/** A filter operator name as the service spells it. */
export type FilterOperator =
  | 'eq' | '!eq' | 'lt' | 'leq' | 'gt' | 'geq'
  | 'startsWith' | 'endsWith' | '!startsWith' | '!endsWith'
  | 'contains' | '!contains' | 'in' | '!in';

/** The kinds of field type the operator table speaks of (the Filters page's columns). */
export type OperandKind = 'string' | 'int' | 'bool' | 'array' | 'object';

/** One row of the operator table. */
export interface OperatorInfo {
  name: FilterOperator;
  /** Meaning, as the Filters page names the operator. */
  meaning: string;
  /** Field kinds the operator supports. */
  kinds: readonly OperandKind[];
  /** True when `value` must be an array (`in`, `!in`). */
  arrayValue: boolean;
  /** The positive operator when this one is its negation (`!eq` → `eq`). */
  negates?: FilterOperator;
  /** Infix symbol used by the readable-expression converter. */
  symbol: string;
}

/**
 * The operator table, in the order and with the type columns of the public Filters page:
 * cloudflare/cloudflare-docs src/content/docs/logs/logpush/logpush-job/filters.mdx
 * @ 0c50ffa05a96c48067721cbe0c1d637885537479 (the newest revision read; the page has given `in`/`!in`
 * String and Int only, no Array, since at least 10ead741 of src/content/docs/logs/reference/filters.mdx;
 * an earlier service description gave them Array too). No operator takes Object. The
 * filtering-limitations note beside it (src/content/partials/logs/filtering-limitations.mdx
 * @ 2678ac4c8e0abda808477ea82dbdb67182020649) is data: UNFILTERABLE_TYPES and UNFILTERABLE_FIELDS in
 * src/logpush/datasets/filters-page.ts.
 */
export const OPERATORS: readonly OperatorInfo[] = [
  { name: 'eq', meaning: 'Equal', kinds: ['string', 'int', 'bool'], arrayValue: false, symbol: '==' },
  { name: '!eq', meaning: 'Not equal', kinds: ['string', 'int', 'bool'], arrayValue: false, negates: 'eq', symbol: '!=' },
  { name: 'lt', meaning: 'Less than', kinds: ['int'], arrayValue: false, symbol: '<' },
  { name: 'leq', meaning: 'Less than or equal', kinds: ['int'], arrayValue: false, symbol: '<=' },
  { name: 'gt', meaning: 'Greater than', kinds: ['int'], arrayValue: false, symbol: '>' },
  { name: 'geq', meaning: 'Greater than or equal', kinds: ['int'], arrayValue: false, symbol: '>=' },
  { name: 'startsWith', meaning: 'Starts with', kinds: ['string'], arrayValue: false, symbol: 'starts with' },
  { name: 'endsWith', meaning: 'Ends with', kinds: ['string'], arrayValue: false, symbol: 'ends with' },
  { name: '!startsWith', meaning: 'Does not start with', kinds: ['string'], arrayValue: false, negates: 'startsWith', symbol: 'does not start with' },
  { name: '!endsWith', meaning: 'Does not end with', kinds: ['string'], arrayValue: false, negates: 'endsWith', symbol: 'does not end with' },
  { name: 'contains', meaning: 'Contains', kinds: ['string', 'array'], arrayValue: false, symbol: 'contains' },
  { name: '!contains', meaning: 'Does not contain', kinds: ['string', 'array'], arrayValue: false, negates: 'contains', symbol: 'does not contain' },
  { name: 'in', meaning: 'Value is in a set of values', kinds: ['string', 'int'], arrayValue: true, symbol: 'in' },
  { name: '!in', meaning: 'Value is not in a set of values', kinds: ['string', 'int'], arrayValue: true, negates: 'in', symbol: 'not in' },
];

/** Operator rows by name (a Map: `constructor` is not an operator). */
export const OPERATOR_BY_NAME: ReadonlyMap<string, OperatorInfo> = new Map(OPERATORS.map((o) => [o.name, o]));

/**
 * Spellings that are NOT operators of the service but clearly mean one (logpush.md: `neq`, `ne`, `lte`,
 * `gte`, `==`, `In`, plus the symbol and word forms people type). Case-insensitive matches of real
 * operators (`startswith`) are handled by the checker on top of this table.
 */
export const OPERATOR_MISSPELLINGS: ReadonlyMap<string, FilterOperator> = new Map<string, FilterOperator>([
  ['neq', '!eq'], ['ne', '!eq'], ['!=', '!eq'], ['<>', '!eq'], ['not_eq', '!eq'], ['noteq', '!eq'], ['!==', '!eq'],
  ['==', 'eq'], ['=', 'eq'], ['===', 'eq'], ['equals', 'eq'], ['equal', 'eq'], ['is', 'eq'],
  ['lte', 'leq'], ['le', 'leq'], ['<=', 'leq'],
  ['gte', 'geq'], ['ge', 'geq'], ['>=', 'geq'],
  ['<', 'lt'], ['>', 'gt'], ['less', 'lt'], ['greater', 'gt'],
  ['In', 'in'], ['IN', 'in'],
  ['nin', '!in'], ['notin', '!in'], ['not in', '!in'], ['not_in', '!in'], ['notIn', '!in'], ['NotIn', '!in'], ['!In', '!in'],
  ['starts_with', 'startsWith'], ['prefix', 'startsWith'], ['ends_with', 'endsWith'], ['suffix', 'endsWith'],
  ['includes', 'contains'], ['has', 'contains'], ['like', 'contains'],
  ['notcontains', '!contains'], ['not_contains', '!contains'], ['!includes', '!contains'],
  ['not_starts_with', '!startsWith'], ['not_ends_with', '!endsWith'],
]);

/** The operand kinds a field type offers to the operator table (`int_or_string` offers both). */
export const FIELD_TYPE_KINDS: Readonly<Record<FieldType, readonly OperandKind[]>> = {
  string: ['string'],
  int: ['int'],
  bool: ['bool'],
  float: [],
  int_or_string: ['int', 'string'],
  array_string: ['array'],
  array_int: ['array'],
  array_object: ['array'],
  object: ['object'],
};

/** Element type of an array field type, used to type `contains`/`in` values on arrays. */
export const ARRAY_ELEMENT: Readonly<Partial<Record<FieldType, 'string' | 'int'>>> = {
  array_string: 'string',
  array_int: 'int',
};

/** The display spelling of a field type (as in the docs). */
export const FIELD_TYPE_LABEL: Readonly<Record<FieldType, string>> = {
  string: 'string',
  int: 'int',
  bool: 'bool',
  float: 'float',
  int_or_string: 'int or string',
  array_string: 'array[string]',
  array_int: 'array[int]',
  array_object: 'array[object]',
  object: 'object',
};

/** True when the operator supports the field type (the operator/field-type table). */
export function operatorSupports(op: FilterOperator, type: FieldType): boolean {
  const info = OPERATOR_BY_NAME.get(op);
  if (!info) return false;
  return FIELD_TYPE_KINDS[type].some((k) => info.kinds.includes(k));
}

/** The filter limits (the Filters page: "approximately 30 operators and 1000 bytes"; a test checks them against it). */
export const FILTER_LIMITS = {
  /** Clauses plus `and`/`or` groups. */
  maxOperators: 30,
  /** UTF-8 length of the filter string. */
  maxBytes: 1000,
  /** `and`/`or` nesting depth (logpush.md: "cap the depth; 16 is plenty"). */
  maxDepth: 16,
  /** JSON nesting above which the text is not even parsed (guards the parser's recursion). */
  maxJsonDepth: 128,
} as const;
