/**
 * Lexer of network rule expressions. Hand-tuned for this small token set (a Chevrotain lexer took about half
 * the parse time of a 125-character rule; bench/expression.ts times the whole parse) but it emits Chevrotain `IToken`s of the
 * vocabulary in `tokens.ts`, so the Chevrotain grammar consumes them unchanged. It never throws: every
 * problem is a diagnostic and lexing goes on.
 * @module
 */
import type { IToken, TokenType } from '@chevrotain/types';
import type { Diagnostic } from '../diagnostics/index.js';
import * as T from './tokens.js';
import { expressionDiagnostic } from './diagnostics.js';
import { bytesValue } from './bytes.js';

/** What the lexer returns. */
export interface LexResult {
  tokens: IToken[];
  diagnostics: Diagnostic[];
  /** Deepest nesting of parentheses and `not` runs seen. */
  maxDepth: number;
}


/** Decoded string value carried on string tokens (`payload`). */
export interface StringPayload {
  value: string;
}

function token(tokenType: TokenType, image: string, start: number, endExclusive: number, payload?: unknown): IToken {
  // Offsets only (Chevrotain's positionTracking "onlyOffset" shape): lines/columns come from SourceText.
  return { image, startOffset: start, endOffset: endExclusive - 1, tokenType, tokenTypeIdx: tokenType.tokenTypeIdx!, payload };
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isWordStart = (c: number) => isLower(c) || isUpper(c) || isDigit(c) || c === 95 /* _ */ || c === 58 /* : */;
const isWordChar = (c: number) =>
  isLower(c) || isUpper(c) || isDigit(c) || c === 95 || c === 58 || c === 46 /* . */ || c === 47 /* / */ || c === 45; /* - */
const isOctal = (c: number) => c >= 48 && c <= 55;
const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

// Read once into module constants: the hot loop then loads no namespace bindings.
const { NOT_AT, KEYWORD_MAX_LENGTH } = T;

/** Single-character and two-character symbols: punctuation and the operator table's symbol spellings. */
const SYMBOLS: Record<string, TokenType> = {
  '(': T.LParen, ')': T.RParen, '{': T.LBrace, '}': T.RBrace, ',': T.Comma, '..': T.DotDot,
  '[': T.LBracket, ']': T.RBracket, '*': T.Star,
  ...Object.fromEntries(T.OPERATOR_SYMBOLS),
};
/** Second characters of the two-character symbols (a cheap pre-check before slicing). */
const TWO_CHAR_SECOND = new Set(Object.keys(SYMBOLS).filter((s) => s.length === 2).map((s) => s.charCodeAt(1)));
/**
 * Characters people type that are no symbol here, with the intended one: the first half of a
 * two-character operator (`=` for `==`, `|` for `||`).
 */
const NEAR_SYMBOLS: Record<string, string> = Object.fromEntries(
  [...T.OPERATOR_SYMBOLS.keys()].filter((s) => s.length === 2 && SYMBOLS[s[0]!] === undefined).map((s) => [s[0]!, s]),
);

/**
 * Split an expression into tokens. `maxDepth` limits nesting; beyond it a `nesting-too-deep` error is
 * reported (the caller then does not parse, so no input can overflow the stack).
 */
export function lex(text: string, maxDepth = 128): LexResult {
  const diagnostics: Diagnostic[] = [];
  const tokens: IToken[] = [];
  const n = text.length;
  // Leading and trailing whitespace (TABs included) is trimmed first, as the reference engine does.
  let i = 0;
  let end = n;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  while (end > i && isSpace(text.charCodeAt(end - 1))) end--;

  let parenDepth = 0;
  let notRun = 0;
  let deepest = 0;
  let reportedDeep = false;
  const push = (tok: IToken) => {
    const tt = tok.tokenType;
    if (tt === T.LParen) parenDepth++;
    else if (tt === T.RParen) parenDepth = Math.max(0, parenDepth - 1);
    if (NOT_AT[tok.tokenTypeIdx] === 1) notRun++;
    else if (tt !== T.LParen) notRun = 0;
    const depth = parenDepth + notRun;
    if (depth > deepest) {
      deepest = depth;
      if (depth > maxDepth && !reportedDeep) {
        reportedDeep = true;
        diagnostics.push(
          expressionDiagnostic('nesting-too-deep', `nesting is deeper than the limit of ${maxDepth} (parentheses and 'not')`, {
            start: tok.startOffset,
            end: tok.endOffset! + 1,
          }, { data: { limit: maxDepth } }),
        );
      }
    }
    tokens.push(tok);
  };

  while (i < end) {
    const c = text.charCodeAt(i);
    // whitespace
    if (c === 32 || c === 10 || c === 13) {
      i++;
      continue;
    }
    if (c === 9) {
      let j = i;
      while (j < end && text.charCodeAt(j) === 9) j++;
      diagnostics.push(
        expressionDiagnostic('tab-whitespace', 'a TAB between tokens is rejected by the rules engine; use a space', { start: i, end: j }, {
          fix: { title: 'replace with a space', edits: [{ range: { start: i, end: j }, newText: ' ' }] },
        }),
      );
      i = j;
      continue;
    }
    // strings
    if (c === 34 /* " */) {
      i = lexString(text, i, end, push, diagnostics);
      continue;
    }
    if (c === 114 /* r */ && i + 1 < end && (text.charCodeAt(i + 1) === 34 || text.charCodeAt(i + 1) === 35)) {
      const j = lexRawString(text, i, end, push, diagnostics);
      if (j > 0) {
        i = j;
        continue;
      }
    }
    // list reference
    if (c === 36 /* $ */) {
      let j = i + 1;
      while (j < end && (isWordChar(text.charCodeAt(j)) && text.charCodeAt(j) !== 58 && text.charCodeAt(j) !== 47 && text.charCodeAt(j) !== 45)) j++;
      const name = text.slice(i + 1, j);
      push(token(T.ListRef, text.slice(i, j), i, j, name));
      const bad = listNameProblem(name);
      if (bad) diagnostics.push(expressionDiagnostic('invalid-list-name', `invalid list name '$${name}': ${bad}`, { start: i, end: Math.max(j, i + 1) }));
      i = j;
      continue;
    }
    // words: identifiers, keywords, numbers (a leading - for negative ones), addresses, CIDRs, byte strings
    if (isWordStart(c) || (c === 45 && isDigit(text.charCodeAt(i + 1)))) {
      let j = i + 1;
      // Whether the word holds only [a-z0-9_.] (then lexWord needs no second look at its shape).
      let plain = true;
      while (j < end) {
        const d = text.charCodeAt(j);
        if (!isWordChar(d)) break;
        if (d === 46 && text.charCodeAt(j + 1) === 46) break; // '..' is the range operator
        if (plain && !(isLower(d) || isDigit(d) || d === 95 || d === 46)) plain = false;
        j++;
      }
      // a trailing '.' or ':' before '..' belongs to the word only for IPv6 ('::..'), keep as is
      lexWord(text, i, j, push, diagnostics, plain && isLower(c));
      i = j;
      continue;
    }
    // symbols: two characters first (== before =)
    const next = text.charCodeAt(i + 1);
    const two = i + 1 < end && TWO_CHAR_SECOND.has(next) ? SYMBOLS[text.slice(i, i + 2)] : undefined;
    if (two !== undefined) {
      push(token(two, text.slice(i, i + 2), i, i + 2));
      i += 2;
      continue;
    }
    const one = text[i]!;
    const oneType = SYMBOLS[one];
    if (oneType !== undefined) {
      push(token(oneType, one, i, i + 1));
      i += 1;
      continue;
    }
    // anything else: one diagnostic for a run of unknown characters
    let j = i + 1;
    const code = text.codePointAt(i)!;
    if (code > 0xffff) j = i + 2;
    const near = NEAR_SYMBOLS[one];
    const shown = printable(text.slice(i, j));
    diagnostics.push(
      expressionDiagnostic(
        'unexpected-character',
        near ? `unexpected ${shown}; did you mean '${near}'?` : `unexpected character ${shown}`,
        { start: i, end: j },
        near && near !== one ? { fix: { title: `replace with '${near}'`, edits: [{ range: { start: i, end: j }, newText: near }] } } : {},
      ),
    );
    // Recover as the symbol that was meant (`=` as `==`), so the parser reports nothing more about it.
    const meant = near && near !== one ? SYMBOLS[near] : undefined;
    if (meant !== undefined) push(token(meant, text.slice(i, j), i, j));
    i = j;
  }
  return { tokens, diagnostics, maxDepth: deepest };
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Show a character for a message: printable as is, others as U+XXXX. */
export function printable(s: string): string {
  const cp = s.codePointAt(0) ?? 0;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0) || cp === 0x2028 || cp === 0x2029 || (cp >= 0xd800 && cp <= 0xdfff) || cp === 0xa0 || cp === 0xfeff) {
    return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${s}'`;
}

/** Why a list name is invalid, or undefined. */
export function listNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'a name must follow $';
  if (/[^a-z0-9_.]/.test(name)) {
    return /[A-Z]/.test(name) && !/[^A-Za-z0-9_.]/.test(name)
      ? `list names are lower case (did you mean $${name.toLowerCase()}?)`
      : 'only a-z, 0-9, _ and . are allowed';
  }
  if (name.startsWith('.') || name.endsWith('.')) return 'a name cannot start or end with a dot';
  if (name.includes('..')) return 'a name cannot hold two dots in a row';
  return undefined;
}


/** Shape of a word, found in one pass over its characters (no regular expressions on the hot path). */
function wordShape(text: string, start: number, end: number): { upper: boolean; int: boolean; ident: boolean } {
  let upper = false;
  let ident = !isDigit(text.charCodeAt(start)) && text.charCodeAt(start) !== 45;
  let prevDot = true; // a segment may not be empty
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isUpper(c)) upper = true;
    if (c === 46) {
      if (prevDot) ident = false;
      prevDot = true;
    } else {
      if (!(isLower(c) || isUpper(c) || isDigit(c) || c === 95)) ident = false;
      prevDot = false;
    }
  }
  if (prevDot) ident = false;
  // integers: -?(0x[0-9a-fA-F]+|[0-9]+)
  let i = start;
  if (text.charCodeAt(i) === 45) i++;
  let int = i < end;
  if (int && text.charCodeAt(i) === 48 && text.charCodeAt(i + 1) === 120) {
    int = i + 2 < end;
    for (let k = i + 2; k < end && int; k++) int = isHex(text.charCodeAt(k));
  } else {
    for (let k = i; k < end && int; k++) int = isDigit(text.charCodeAt(k));
  }
  return { upper, int, ident };
}

function hasDotOrDigit(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 || isDigit(c)) return true;
  }
  return false;
}

/**
 * Classify a word. `lowerPlain`: it starts with a-z and holds only [a-z0-9_.] — field names, keywords and
 * list-free identifiers, most words of a rule — so it is no integer, has no upper case, and is an
 * identifier unless it ends with a dot (the scanner never lets `..` into a word).
 */
function lexWord(text: string, start: number, end: number, push: (t: IToken) => void, diagnostics: Diagnostic[], lowerPlain = false): void {
  const image = text.slice(start, end);
  if (lowerPlain) {
    const kw = end - start <= KEYWORD_MAX_LENGTH && !hasDotOrDigit(text, start, end) ? T.KEYWORDS.get(image) : undefined;
    if (kw) push(token(kw, image, start, end));
    else push(token(text.charCodeAt(end - 1) === 46 ? T.WordLiteral : T.Identifier, image, start, end));
    return;
  }
  // Keywords are short runs of lower-case letters and _: look them up only for such words.
  const c0 = text.charCodeAt(start);
  const kw = end - start <= KEYWORD_MAX_LENGTH && isLower(c0) && !hasDotOrDigit(text, start, end) ? T.KEYWORDS.get(image) : undefined;
  if (kw) {
    push(token(kw, image, start, end));
    return;
  }
  const shape = wordShape(text, start, end);
  const lower = shape.upper ? image.toLowerCase() : image;
  const kwLower = shape.upper ? T.KEYWORDS.get(lower) : undefined;
  if (kwLower && kwLower !== T.Strict) {
    diagnostics.push(
      expressionDiagnostic('uppercase-keyword', `keywords are lower case: use '${lower}' instead of '${image}'`, { start, end }, {
        fix: { title: `replace with '${lower}'`, edits: [{ range: { start, end }, newText: lower }] },
      }),
    );
    push(token(kwLower, image, start, end));
    return;
  }
  if (shape.int) {
    push(token(T.IntLiteral, image, start, end));
    return;
  }
  if (shape.ident) {
    push(token(T.Identifier, image, start, end));
    return;
  }
  push(token(T.WordLiteral, image, start, end));
}

function lexString(text: string, start: number, end: number, push: (t: IToken) => void, diagnostics: Diagnostic[]): number {
  let i = start + 1;
  let out = '';
  let segment = i;
  let bytes: number[] | undefined;
  const flushBytes = () => {
    if (bytes) {
      out += bytesValue(new Uint8Array(bytes));
      bytes = undefined;
    }
  };
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      flushBytes();
      out += text.slice(segment, i);
      push(token(T.StringLiteral, text.slice(start, i + 1), start, i + 1, { value: out } satisfies StringPayload));
      return i + 1;
    }
    if (c === 92 /* \ */) {
      if (i > segment) {
        flushBytes();
        out += text.slice(segment, i);
      }
      const e = text.charCodeAt(i + 1);
      if (e === 34 || e === 92) {
        flushBytes();
        out += text[i + 1];
        i += 2;
      } else if (e === 120 /* x */ && isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3))) {
        (bytes ??= []).push(parseInt(text.slice(i + 2, i + 4), 16));
        i += 4;
      } else if (isOctal(e) && isOctal(text.charCodeAt(i + 2)) && isOctal(text.charCodeAt(i + 3)) && parseInt(text.slice(i + 1, i + 4), 8) <= 255) {
        (bytes ??= []).push(parseInt(text.slice(i + 1, i + 4), 8));
        i += 4;
      } else {
        const escEnd = Math.min(i + 2, end);
        const shown = text.slice(i, escEnd);
        diagnostics.push(
          expressionDiagnostic(
            'invalid-escape',
            `invalid escape '${shown}' in a string: only \\", \\\\, \\xHH and \\OOO (three octal digits) are allowed${e === 110 ? '; a newline is \\x0a' : e === 116 ? '; a tab is \\x09' : ''}`,
            { start: i, end: escEnd },
          ),
        );
        i = escEnd;
      }
      segment = i;
      continue;
    }
    if (bytes) {
      flushBytes();
    }
    i++;
  }
  diagnostics.push(expressionDiagnostic('unterminated-string', 'this string has no closing quote (")', { start, end }, {
    fix: { title: 'add the closing quote', edits: [{ range: { start: end, end }, newText: '"' }] },
  }));
  flushBytes();
  out += text.slice(segment, end);
  push(token(T.StringLiteral, text.slice(start, end), start, end, { value: out } satisfies StringPayload));
  return end;
}

/** Lex `r"..."` or `r#"..."#`; returns the end offset, or 0 when this is not a raw string after all. */
function lexRawString(text: string, start: number, end: number, push: (t: IToken) => void, diagnostics: Diagnostic[]): number {
  let i = start + 1;
  let hashes = 0;
  while (i < end && text.charCodeAt(i) === 35) {
    hashes++;
    i++;
  }
  if (text.charCodeAt(i) !== 34) return 0; // r### not followed by a quote: not a raw string
  if (hashes > 255) {
    diagnostics.push(expressionDiagnostic('invalid-raw-string', `a raw string takes at most 255 '#' (found ${hashes})`, { start, end: i + 1 }));
  }
  const bodyStart = i + 1;
  const closing = '"' + '#'.repeat(hashes);
  const close = text.indexOf(closing, bodyStart);
  if (close < 0 || close + closing.length > end) {
    diagnostics.push(expressionDiagnostic('unterminated-string', `this raw string has no closing ${closing}`, { start, end }, {
      fix: { title: `add the closing ${closing}`, edits: [{ range: { start: end, end }, newText: closing }] },
    }));
    push(token(T.RawStringLiteral, text.slice(start, end), start, end, { value: text.slice(bodyStart, end) } satisfies StringPayload));
    return end;
  }
  const stop = close + closing.length;
  push(token(T.RawStringLiteral, text.slice(start, stop), start, stop, { value: text.slice(bodyStart, close) } satisfies StringPayload));
  return stop;
}
