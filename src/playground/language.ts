/**
 * The CodeMirror language of network rule expressions: a `StreamLanguage` whose tokens are the
 * expression lexer's own (`lex` of src/expression), so highlighting never disagrees with the parser.
 * A token's style comes from its token type or its category in the token table (`tokens.ts`): `CompareOp`,
 * `AndOp`, … — a table below, tested to cover every token type of the vocabulary.
 * @module
 */
import { HighlightStyle, StreamLanguage, syntaxHighlighting, type StreamParser } from '@codemirror/language';
import { tags, type Tag } from '@lezer/highlight';
import { FUNCTIONS, lex } from '../expression/index.js';

/** The style names this language gives tokens, and their highlight tags. */
export const TOKEN_STYLES = {
  field: tags.propertyName,
  function: tags.function(tags.variableName),
  list: tags.special(tags.variableName),
  compare: tags.compareOperator,
  logic: tags.logicOperator,
  keyword: tags.operatorKeyword,
  number: tags.number,
  word: tags.atom,
  string: tags.string,
  paren: tags.paren,
  brace: tags.brace,
  punctuation: tags.punctuation,
} as const satisfies Record<string, Tag>;

export type TokenStyle = keyof typeof TOKEN_STYLES;

/** Style of a token type, by its name in the token table (tokens.ts). */
export const STYLE_BY_TOKEN: Readonly<Record<string, TokenStyle>> = {
  Identifier: 'field',
  IntLiteral: 'number',
  WordLiteral: 'word',
  StringLiteral: 'string',
  RawStringLiteral: 'string',
  ListRef: 'list',
  LParen: 'paren',
  RParen: 'paren',
  LBrace: 'brace',
  RBrace: 'brace',
  Comma: 'punctuation',
  DotDot: 'punctuation',
  LBracket: 'brace',
  RBracket: 'brace',
  Star: 'punctuation',
  // Word operators that are no category's: `in`, `strict`, `wildcard`.
  In: 'keyword',
  Strict: 'keyword',
  Wildcard: 'keyword',
};

/** Style of a token type by its category in the token table: every operator spelling has one. */
export const STYLE_BY_CATEGORY: Readonly<Record<string, TokenStyle>> = {
  CompareOp: 'compare',
  AndOp: 'logic',
  OrOp: 'logic',
  XorOp: 'logic',
  NotOp: 'logic',
};

/** The minimal shape of a lexer token read here (Chevrotain's `IToken`). */
interface LexedToken {
  image: string;
  startOffset: number;
  endOffset: number;
  tokenType: { name: string; CATEGORIES?: { name: string }[] };
}

/** The style of one token of the lexer: by its type's name, else its category; undefined when none. */
export function styleOf(token: LexedToken, next: LexedToken | undefined): TokenStyle | undefined {
  const name = token.tokenType.name;
  if (name === 'Identifier' && next?.tokenType.name === 'LParen' && Object.hasOwn(FUNCTIONS, token.image.toLowerCase())) return 'function';
  const own = STYLE_BY_TOKEN[name];
  if (own) return own;
  for (const c of token.tokenType.CATEGORIES ?? []) {
    const s = STYLE_BY_CATEGORY[c.name];
    if (s) return s;
  }
  return undefined;
}

/** A styled span of a line. */
export interface StyledSpan {
  start: number;
  end: number;
  style: TokenStyle;
}

/** The styled spans of a text (one line of the editor), from the lexer. */
export function styleSpans(text: string): StyledSpan[] {
  const tokens = lex(text).tokens as unknown as LexedToken[];
  const out: StyledSpan[] = [];
  tokens.forEach((t, i) => {
    const style = styleOf(t, tokens[i + 1]);
    if (style) out.push({ start: t.startOffset, end: t.endOffset + 1, style });
  });
  return out;
}

/**
 * The stream parser. CodeMirror hands it a line at a time; the line is lexed once (the last line's spans
 * are kept) and the stream stepped from span to span. A string or raw string spanning lines is styled
 * line by line, as the lexer reads each line alone.
 */
function streamParser(): StreamParser<Record<string, never>> {
  let lastLine: string | undefined;
  let lastSpans: StyledSpan[] = [];
  return {
    name: 'rulekit-expression',
    startState: () => ({}),
    token(stream) {
      if (stream.string !== lastLine) {
        lastLine = stream.string;
        lastSpans = styleSpans(stream.string);
      }
      const span = lastSpans.find((s) => s.end > stream.pos);
      if (!span) {
        stream.skipToEnd();
        return null;
      }
      if (span.start > stream.pos) {
        stream.pos = span.start;
        return null;
      }
      stream.pos = span.end;
      return span.style;
    },
    tokenTable: TOKEN_STYLES,
    languageData: { closeBrackets: { brackets: ['(', '{', '"'] } },
  };
}

/** The expression language (a new instance: it keeps the last line's spans). */
export function expressionLanguage(): StreamLanguage<Record<string, never>> {
  return StreamLanguage.define(streamParser());
}

/** Colours of the token styles (light background). */
export const rulekitHighlightStyle = HighlightStyle.define([
  { tag: TOKEN_STYLES.field, color: '#1a5fb4' },
  { tag: TOKEN_STYLES.function, color: '#8b3fc9' },
  { tag: TOKEN_STYLES.list, color: '#c64600', fontWeight: 'bold' },
  { tag: TOKEN_STYLES.compare, color: '#a51d2d' },
  { tag: TOKEN_STYLES.logic, color: '#a51d2d', fontWeight: 'bold' },
  { tag: TOKEN_STYLES.keyword, color: '#a51d2d', fontWeight: 'bold' },
  { tag: TOKEN_STYLES.number, color: '#26803e' },
  { tag: TOKEN_STYLES.word, color: '#26803e' },
  { tag: TOKEN_STYLES.string, color: '#986801' },
  { tag: [TOKEN_STYLES.paren, TOKEN_STYLES.brace, TOKEN_STYLES.punctuation], color: '#555' },
]);

/** The highlighting extension for {@link rulekitHighlightStyle}. */
export const rulekitHighlighting = syntaxHighlighting(rulekitHighlightStyle);
