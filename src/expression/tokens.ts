/**
 * Token vocabulary of network rule expressions, in Chevrotain's `TokenType` shape so the grammar, the
 * railroad diagrams and content assist all share it. Operator families are token categories (Chevrotain
 * style); the operator tokens and the maps the lexer and parsers read are derived from the operator table
 * in `operators.ts`, once, at module load. The tokens themselves are produced by the hand-tuned lexer in
 * `lexer.ts`.
 *
 * Made here, not with Chevrotain's `createToken`: the lexer and the fast parser need only the type
 * objects and their indexes, so Chevrotain is not loaded until the grammar parser is (`parser.ts`, which
 * gives Chevrotain its own copies of these types).
 * @module
 */
import type { TokenType } from '@chevrotain/types';
import type { CompareOperator, LogicalOperator } from './ast.js';
import { COMPARE_OPERATORS, IN_OPERATOR, LOGICAL_OPERATORS, NOT_OPERATOR } from './operators.js';

/** Chevrotain's marker for a token type its own lexer never matches (`Lexer.NA`). */
const NA = /NOT_APPLICABLE/;

let nextIndex = 1;

/** A token type: name, label, categories and a small integer index unique in this vocabulary. */
function createToken(config: { name: string; pattern: RegExp | string; categories?: TokenType[]; label?: string }): TokenType {
  const tt: TokenType = { name: config.name, PATTERN: config.pattern, CATEGORIES: config.categories ?? [], tokenTypeIdx: nextIndex++ };
  if (config.label !== undefined) tt.LABEL = config.label;
  return tt;
}

// Categories (never produced directly).
/** Any comparison operator (COMPARE_OPERATORS). */
export const CompareOp = createToken({ name: 'CompareOp', pattern: NA });
/** Every spelling of `and` (LOGICAL_OPERATORS). */
export const AndOp = createToken({ name: 'AndOp', pattern: NA });
/** Every spelling of `or` (LOGICAL_OPERATORS). */
export const OrOp = createToken({ name: 'OrOp', pattern: NA });
/** Every spelling of `xor` (LOGICAL_OPERATORS). */
export const XorOp = createToken({ name: 'XorOp', pattern: NA });
/** Every spelling of `not` (NOT_OPERATOR). */
export const NotOp = createToken({ name: 'NotOp', pattern: NA });
/** A literal value on the right-hand side (number, address, CIDR, byte string, bare word). */
export const Value = createToken({ name: 'Value', pattern: NA });
/** Anything that can stand as a value: a Value, a string, or a bare name (one token test instead of an OR). */
export const AnyValue = createToken({ name: 'AnyValue', pattern: NA, label: 'value (number, "string", address, CIDR, byte string)' });

const t = (name: string, pattern: string, categories: TokenType[] = [], label?: string): TokenType =>
  createToken({ name, pattern, categories, label: label ?? `'${pattern}'` });

// Operator tokens: one per spelling in the operator table (operators.ts), built once at module load.
/** Token of each operator spelling, by spelling (each word of a two-word spelling has its own). */
const bySpelling = new Map<string, TokenType>();
/** Token of each operator spelling, by its name in the operator table. */
const byName = new Map<string, TokenType>();
/** Operator tokens in table order. */
const operatorTokens: TokenType[] = [];

function operatorToken(spelling: string, name: string, categories: TokenType[]): TokenType {
  const known = bySpelling.get(spelling);
  if (known) {
    if (known.name !== name) throw new Error(`operator table: '${spelling}' is named both ${known.name} and ${name}`);
    return known;
  }
  const tok = t(name, spelling, categories);
  bySpelling.set(spelling, tok);
  byName.set(name, tok);
  operatorTokens.push(tok);
  return tok;
}

/** The (spelling, token name) pairs of a row, checked for equal lengths. */
function pairs(row: { print: string; spellings: readonly string[]; tokens: readonly string[] }): [string, string][] {
  if (row.spellings.length !== row.tokens.length) throw new Error(`operator table: ${row.print} has ${row.spellings.length} spellings and ${row.tokens.length} token names`);
  return row.spellings.map((s, i) => [s, row.tokens[i]!]);
}

/** Category token of each logical operator (the grammar's AndOp, OrOp, XorOp). */
const LOGICAL_CATEGORY: Readonly<Record<LogicalOperator, TokenType>> = { and: AndOp, or: OrOp, xor: XorOp };

/** Canonical operator of each comparison token (`strict wildcard`, two tokens, is the grammar's own rule). */
export const COMPARE_TOKENS: ReadonlyMap<TokenType, CompareOperator> = (() => {
  const out = new Map<TokenType, CompareOperator>();
  const rows = Object.entries(COMPARE_OPERATORS) as [CompareOperator, (typeof COMPARE_OPERATORS)[CompareOperator]][];
  for (const [op, row] of rows) {
    for (const [spelling, name] of pairs(row)) if (!spelling.includes(' ')) out.set(operatorToken(spelling, name, [CompareOp]), op);
  }
  // The words of a two-word spelling after the single-word ones: a word that is itself an operator
  // (`wildcard`) is that operator's token; another word (`strict`) is a plain keyword.
  for (const [, row] of rows) {
    for (const [spelling, name] of pairs(row)) {
      if (!spelling.includes(' ')) continue;
      const words = spelling.split(' ');
      const names = name.split(' ');
      if (words.length !== names.length) throw new Error(`operator table: '${spelling}' has ${words.length} words and ${names.length} token names`);
      words.forEach((w, i) => operatorToken(w, names[i]!, []));
    }
  }
  return out;
})();

/** Canonical operator of each logical-operator token. */
export const LOGICAL_TOKENS: ReadonlyMap<TokenType, LogicalOperator> = (() => {
  const out = new Map<TokenType, LogicalOperator>();
  for (const [op, row] of Object.entries(LOGICAL_OPERATORS) as [LogicalOperator, (typeof LOGICAL_OPERATORS)[LogicalOperator]][]) {
    for (const [spelling, name] of pairs(row)) out.set(operatorToken(spelling, name, [LOGICAL_CATEGORY[op]]), op);
  }
  return out;
})();

/** The tokens of `not`. */
export const NOT_TOKENS: ReadonlySet<TokenType> = new Set(pairs(NOT_OPERATOR).map(([spelling, name]) => operatorToken(spelling, name, [NotOp])));

for (const [spelling, name] of pairs(IN_OPERATOR)) operatorToken(spelling, name, []);

/** The operator token of that name in the operator table (for the grammar's own rules). */
function named(name: string): TokenType {
  const tok = byName.get(name);
  if (!tok) throw new Error(`operator table: no token named ${name}`);
  return tok;
}

/** `in` (one spelling; a second would need a category token, as `not` has). */
export const In = named('In');
/** `strict` — only valid before `wildcard`. */
export const Strict = named('Strict');
/** `wildcard` (also the second word of `strict wildcard`). */
export const Wildcard = named('Wildcard');

export const LParen = t('LParen', '(');
export const RParen = t('RParen', ')');
export const LBrace = t('LBrace', '{');
export const RBrace = t('RBrace', '}');
export const Comma = t('Comma', ',');
export const DotDot = t('DotDot', '..');
export const LBracket = t('LBracket', '[');
export const RBracket = t('RBracket', ']');
/** `*` inside `[*]`. */
export const Star = t('Star', '*');

/** A field or function name: `[a-z_][a-z0-9_]*(\.[a-z0-9_]+)*`. */
export const Identifier = createToken({ name: 'Identifier', pattern: NA, categories: [AnyValue], label: 'field name' });
/** Decimal, hex (`0x1f`) or octal (`017`) integer. */
export const IntLiteral = createToken({ name: 'IntLiteral', pattern: NA, categories: [Value, AnyValue], label: 'integer' });
/** IP address, CIDR, byte string, or another bare value word (classified by the checker). */
export const WordLiteral = createToken({ name: 'WordLiteral', pattern: NA, categories: [Value, AnyValue], label: 'word' });
/** `"..."` with escapes. */
export const StringLiteral = createToken({ name: 'StringLiteral', pattern: NA, categories: [AnyValue], label: 'string' });
/** `r"..."` / `r#"..."#`. */
export const RawStringLiteral = createToken({ name: 'RawStringLiteral', pattern: NA, categories: [AnyValue], label: 'raw string' });
/** `$name` list reference. */
export const ListRef = createToken({ name: 'ListRef', pattern: NA, label: '$list' });

/** Every token type, categories first (the order Chevrotain wants for its vocabulary). */
export const allTokens: TokenType[] = [
  CompareOp, AndOp, OrOp, XorOp, NotOp, Value, AnyValue,
  ...operatorTokens,
  LParen, RParen, LBrace, RBrace, Comma, DotDot, LBracket, RBracket, Star,
  Identifier, IntLiteral, WordLiteral, StringLiteral, RawStringLiteral, ListRef,
];

/** Keywords and word operators by their (lower-case) spelling: the operator spellings that are words. */
export const KEYWORDS: ReadonlyMap<string, TokenType> = new Map([...bySpelling].filter(([s]) => /^[a-z_]+$/.test(s)));

/** Longest keyword (the lexer looks up only words this short). */
export const KEYWORD_MAX_LENGTH: number = Math.max(...[...KEYWORDS.keys()].map((k) => k.length));

/**
 * Operator spellings made of symbols, by spelling. The lexer reads symbols of one or two characters and
 * keywords of [a-z_]; a spelling of another shape could never be lexed, so it is refused here.
 */
export const OPERATOR_SYMBOLS: ReadonlyMap<string, TokenType> = (() => {
  const out = new Map<string, TokenType>();
  for (const [s, tok] of bySpelling) {
    if (KEYWORDS.has(s)) continue;
    if (s.length > 2 || /[\w\s.:/"$#(){}[\]*,-]/.test(s)) throw new Error(`operator table: the lexer cannot read the spelling '${s}'`);
    out.set(s, tok);
  }
  return out;
})();

/** A table over every token type's `tokenTypeIdx` (a typed-array load where a hot loop tests each token). */
function byIndex(value: (tt: TokenType) => number): Uint8Array {
  const out = new Uint8Array(Math.max(...allTokens.map((tt) => tt.tokenTypeIdx!)) + 1);
  for (const tt of allTokens) out[tt.tokenTypeIdx!] = value(tt);
  return out;
}

/** 1 at the index of each `not` token. */
export const NOT_AT: Uint8Array = byIndex((tt) => (NOT_TOKENS.has(tt) ? 1 : 0));

/** At the index of each logical-operator token, its operator's precedence (operators.ts); 0 elsewhere. */
export const LOGICAL_PRECEDENCE_AT: Uint8Array = byIndex((tt) => {
  const op = LOGICAL_TOKENS.get(tt);
  return op === undefined ? 0 : LOGICAL_OPERATORS[op].precedence;
});
