/**
 * JSON text → value, with the source range of every value and key kept by JSON pointer, so that each
 * diagnostic can carry both a pointer and a range. Parsing is jsonc-parser's (strict: no comments, no
 * trailing commas); a nesting pre-scan keeps its recursion away from 10k-deep inputs.
 * @module
 */
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { Range } from '../diagnostics/index.js';

/** A parsed JSON document: the value and where each part of it sits in the text. */
export interface JsonDoc {
  value: unknown;
  /** Range of the value at a pointer (`''` is the whole document). */
  valueRange(pointer: string): Range | undefined;
  /** Range of the key of the member at a pointer (objects only). */
  keyRange(pointer: string): Range | undefined;
  /** Range from the key to the end of the value of the member at a pointer (objects), else the value. */
  memberRange(pointer: string): Range | undefined;
  /** Keys that occur twice in one object: pointer of the member and range of the later key. */
  duplicates: { pointer: string; key: string; range: Range }[];
}

/** A reason the text is not a JSON document. */
export interface JsonTextError {
  message: string;
  range: Range;
  /** True when the text nests deeper than allowed (it was not parsed at all). */
  tooDeep?: boolean;
  depth?: number;
}

/** Escape one JSON pointer segment (RFC 6901). */
export function pointerSegment(s: string | number): string {
  // Most segments are indexes and plain keys: no replace (a validated PUT of 50 rules builds ~400 pointers).
  if (typeof s === 'number') return String(s);
  return s.includes('~') || s.includes('/') ? s.replace(/~/g, '~0').replace(/\//g, '~1') : s;
}

/** Append a segment to a pointer. */
export function childPointer(pointer: string, seg: string | number): string {
  return `${pointer}/${pointerSegment(seg)}`;
}

/** The offset where nesting first exceeds `maxDepth`, with the depth reached, or undefined. */
export function scanDepth(text: string, maxDepth: number): { offset: number; depth: number } | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > maxDepth) {
        let max = depth;
        // Keep counting to report the measured figure.
        let d = depth;
        let s = false;
        for (let j = i + 1; j < text.length; j++) {
          const k = text.charCodeAt(j);
          if (s) {
            if (k === 92) j++;
            else if (k === 34) s = false;
          } else if (k === 34) s = true;
          else if (k === 123 || k === 91) max = Math.max(max, ++d);
          else if (k === 125 || k === 93) d--;
        }
        return { offset: i, depth: max };
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return undefined;
}

const PARSE_MESSAGES: Record<string, string> = {
  InvalidSymbol: 'invalid symbol',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'a property name in double quotes was expected (a trailing comma?)',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'the document should end here',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in a string (control characters must be escaped)',
};

/** Parse JSON text. Never throws; returns the document or the reasons it is not one. */
export function parseJsonText(text: string, maxDepth: number): { doc?: JsonDoc; errors: JsonTextError[] } {
  const deep = scanDepth(text, maxDepth);
  if (deep) {
    return {
      errors: [{ message: `nesting depth ${deep.depth} exceeds the parser's limit of ${maxDepth}`, range: { start: deep.offset, end: Math.min(text.length, deep.offset + 1) }, tooDeep: true, depth: deep.depth }],
    };
  }
  const parseErrors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(text, parseErrors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch (e) {
    return { errors: [{ message: `unparseable JSON (${String(e)})`, range: { start: 0, end: text.length } }] };
  }
  if (parseErrors.length > 0 || !root) {
    // Only the first error: the later ones are usually cascades of it.
    const errors = parseErrors.slice(0, 1).map((e) => {
      const name = printParseErrorCode(e.error);
      // Clamp: an error at the end of the text gets an empty range there.
      const start = Math.min(e.offset, text.length);
      return { message: PARSE_MESSAGES[name] ?? name, range: { start, end: Math.min(text.length, start + Math.max(1, e.length)) } };
    });
    if (errors.length === 0) errors.push({ message: 'a value was expected', range: { start: 0, end: text.length } });
    return { errors };
  }
  const values = new Map<string, Range>();
  const keys = new Map<string, Range>();
  const duplicates: JsonDoc['duplicates'] = [];
  const convert = (n: Node, pointer: string): unknown => {
    values.set(pointer, { start: n.offset, end: n.offset + n.length });
    switch (n.type) {
      case 'object': {
        const o: Record<string, unknown> = {};
        for (const p of n.children ?? []) {
          const [k, v] = p.children ?? [];
          if (!k || !v) continue;
          const key = String(k.value);
          const ptr = childPointer(pointer, key);
          const keyRange = { start: k.offset, end: k.offset + k.length };
          if (Object.prototype.hasOwnProperty.call(o, key)) duplicates.push({ pointer: ptr, key, range: keyRange });
          keys.set(ptr, keyRange);
          Object.defineProperty(o, key, { value: convert(v, ptr), writable: true, enumerable: true, configurable: true });
        }
        return o;
      }
      case 'array':
        return (n.children ?? []).map((c, i) => convert(c, childPointer(pointer, i)));
      default:
        return n.value;
    }
  };
  const value = convert(root, '');
  const doc: JsonDoc = {
    value,
    valueRange: (p) => values.get(p),
    keyRange: (p) => keys.get(p),
    memberRange: (p) => {
      const k = keys.get(p);
      const v = values.get(p);
      return k && v ? { start: k.start, end: v.end } : v;
    },
    duplicates,
  };
  return { doc, errors: [] };
}

/** UTF-8 length of a string (a lone surrogate counts 3 bytes, as its U+FFFD replacement is encoded). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
