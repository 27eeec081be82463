/**
 * Token vocabulary of network rule expressions, declared with Chevrotain so the grammar, the railroad
 * diagrams and content assist all share it. Operator families are token categories (Chevrotain style).
 * The tokens themselves are produced by the hand-tuned lexer in `lexer.ts`.
 * @module
 */
import { createToken, Lexer, type TokenType } from 'chevrotain';

// Categories (never produced directly).
/** Any comparison operator. */
export const CompareOp = createToken({ name: 'CompareOp', pattern: Lexer.NA });
/** `and` / `&&`. */
export const AndOp = createToken({ name: 'AndOp', pattern: Lexer.NA });
/** `or` / `||`. */
export const OrOp = createToken({ name: 'OrOp', pattern: Lexer.NA });
/** `xor` / `^^`. */
export const XorOp = createToken({ name: 'XorOp', pattern: Lexer.NA });
/** `not` / `!`. */
export const NotOp = createToken({ name: 'NotOp', pattern: Lexer.NA });
/** A literal value on the right-hand side (number, address, CIDR, byte string, bare word). */
export const Value = createToken({ name: 'Value', pattern: Lexer.NA });
/** Anything that can stand as a value: a Value, a string, or a bare name (one token test instead of an OR). */
export const AnyValue = createToken({ name: 'AnyValue', pattern: Lexer.NA, label: 'value (number, "string", address, CIDR, byte string)' });

const t = (name: string, pattern: string, categories: TokenType[] = [], label?: string): TokenType =>
  createToken({ name, pattern, categories, label: label ?? `'${pattern}'` });

export const And = t('And', 'and', [AndOp], "'and'");
export const AmpAmp = t('AmpAmp', '&&', [AndOp]);
export const Or = t('Or', 'or', [OrOp]);
export const PipePipe = t('PipePipe', '||', [OrOp]);
export const Xor = t('Xor', 'xor', [XorOp]);
export const CaretCaret = t('CaretCaret', '^^', [XorOp]);
export const Not = t('Not', 'not', [NotOp]);
export const Bang = t('Bang', '!', [NotOp]);
export const In = t('In', 'in');
export const Eq = t('Eq', '==', [CompareOp]);
export const Ne = t('Ne', '!=', [CompareOp]);
export const Le = t('Le', '<=', [CompareOp]);
export const Lt = t('Lt', '<', [CompareOp]);
export const Ge = t('Ge', '>=', [CompareOp]);
export const Gt = t('Gt', '>', [CompareOp]);
export const EqWord = t('EqWord', 'eq', [CompareOp]);
export const NeWord = t('NeWord', 'ne', [CompareOp]);
export const LtWord = t('LtWord', 'lt', [CompareOp]);
export const LeWord = t('LeWord', 'le', [CompareOp]);
export const GtWord = t('GtWord', 'gt', [CompareOp]);
export const GeWord = t('GeWord', 'ge', [CompareOp]);
export const Amp = t('Amp', '&', [CompareOp]);
export const BitwiseAnd = t('BitwiseAnd', 'bitwise_and', [CompareOp]);
export const Contains = t('Contains', 'contains', [CompareOp]);
export const Matches = t('Matches', 'matches', [CompareOp]);
export const Tilde = t('Tilde', '~', [CompareOp]);
export const Wildcard = t('Wildcard', 'wildcard', [CompareOp]);
/** `strict` — only valid before `wildcard`. */
export const Strict = t('Strict', 'strict');
export const LParen = t('LParen', '(');
export const RParen = t('RParen', ')');
export const LBrace = t('LBrace', '{');
export const RBrace = t('RBrace', '}');
export const Comma = t('Comma', ',');
export const DotDot = t('DotDot', '..');

/** A field or function name: `[a-z_][a-z0-9_]*(\.[a-z0-9_]+)*`. */
export const Identifier = createToken({ name: 'Identifier', pattern: Lexer.NA, categories: [AnyValue], label: 'field name' });
/** Decimal, hex (`0x1f`) or octal (`017`) integer. */
export const IntLiteral = createToken({ name: 'IntLiteral', pattern: Lexer.NA, categories: [Value, AnyValue], label: 'integer' });
/** IP address, CIDR, byte string, or another bare value word (classified by the checker). */
export const WordLiteral = createToken({ name: 'WordLiteral', pattern: Lexer.NA, categories: [Value, AnyValue], label: 'word' });
/** `"..."` with escapes. */
export const StringLiteral = createToken({ name: 'StringLiteral', pattern: Lexer.NA, categories: [AnyValue], label: 'string' });
/** `r"..."` / `r#"..."#`. */
export const RawStringLiteral = createToken({ name: 'RawStringLiteral', pattern: Lexer.NA, categories: [AnyValue], label: 'raw string' });
/** `$name` list reference. */
export const ListRef = createToken({ name: 'ListRef', pattern: Lexer.NA, label: '$list' });

/** Every token type, categories first (the order Chevrotain wants for its vocabulary). */
export const allTokens: TokenType[] = [
  CompareOp, AndOp, OrOp, XorOp, NotOp, Value, AnyValue,
  And, AmpAmp, Or, PipePipe, Xor, CaretCaret, Not, Bang, In,
  Eq, Ne, Le, Lt, Ge, Gt, EqWord, NeWord, LtWord, LeWord, GtWord, GeWord, Amp, BitwiseAnd,
  Contains, Matches, Tilde, Wildcard, Strict,
  LParen, RParen, LBrace, RBrace, Comma, DotDot,
  Identifier, IntLiteral, WordLiteral, StringLiteral, RawStringLiteral, ListRef,
];

/** Keywords and word operators by their (lower-case) spelling. */
export const KEYWORDS: ReadonlyMap<string, TokenType> = new Map([
  ['and', And], ['or', Or], ['xor', Xor], ['not', Not], ['in', In],
  ['eq', EqWord], ['ne', NeWord], ['lt', LtWord], ['le', LeWord], ['gt', GtWord], ['ge', GeWord],
  ['bitwise_and', BitwiseAnd], ['contains', Contains], ['matches', Matches], ['wildcard', Wildcard],
  ['strict', Strict],
]);
