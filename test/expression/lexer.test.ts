/**
 * The hand-tuned lexer against a reference written from the lexical rules of the spec
 * (../shared/spec/expressions.md, "Lexical rules"): random runs of tokens, each piece made with the kind of
 * token it must be read as and, for strings and lists, the value it spells. The reference knows nothing of
 * the lexer's fast paths (the keyword lookup for plain lower-case words, the byte runs of string escapes),
 * so a fast path that takes a wrong turn shows as a piece read as another kind or another value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lex } from '../../src/expression/lexer.js';
import * as T from '../../src/expression/tokens.js';
import { parseExpression } from '../../src/expression/index.js';

/** Keywords and word operators, as the spec lists them (lower case only). */
const SPEC_KEYWORDS = ['and', 'or', 'xor', 'not', 'in', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'contains', 'matches', 'wildcard', 'strict', 'bitwise_and'];
/** Symbol operators and punctuation, as the spec lists them (plus `[`, `]`, `*` of the Rules language's `[*]`). */
const SPEC_SYMBOLS = ['==', '!=', '<', '<=', '>', '>=', '&&', '||', '^^', '!', '~', '&', '(', ')', '{', '}', '..', ',', '[', ']', '*'];

type Kind = 'keyword' | 'symbol' | 'ident' | 'int' | 'word' | 'string' | 'raw' | 'list';
/** One piece of text and what it must lex to. `value`: a string's or list's payload. */
interface Piece {
  text: string;
  kind: Kind;
  value?: string;
  /** An upper-case keyword: read as the keyword, with an `uppercase-keyword` warning. */
  upper?: boolean;
}

const TYPE_OF: Record<Exclude<Kind, 'keyword' | 'symbol'>, unknown> = {
  ident: T.Identifier, int: T.IntLiteral, word: T.WordLiteral, string: T.StringLiteral, raw: T.RawStringLiteral, list: T.ListRef,
};

/** Punctuation by spelling; operator symbols by the operator table. */
const SYMBOL_TYPE: Record<string, unknown> = {
  '(': T.LParen, ')': T.RParen, '{': T.LBrace, '}': T.RBrace, ',': T.Comma, '..': T.DotDot, '[': T.LBracket, ']': T.RBracket, '*': T.Star,
  ...Object.fromEntries(T.OPERATOR_SYMBOLS),
};

const lower = 'abcdefghijklmnopqrstuvwxyz';
const segment = fc.tuple(fc.constantFrom(...lower, '_'), fc.string({ unit: fc.constantFrom(...lower, ...'0123456789_'), maxLength: 6 })).map(([a, b]) => a + b);
/** Field-like names: dotted segments of [a-z0-9_], starting with a letter or `_`; never a keyword. */
const identifier = fc
  .array(segment, { minLength: 1, maxLength: 3 })
  .map((s) => s.join('.'))
  .filter((s) => !SPEC_KEYWORDS.includes(s));

const utf8 = new TextEncoder();
/** A string body piece: [source text, the value it spells]. */
const stringPart: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abc xyz.09-_/*{}()$#'), minLength: 1, maxLength: 5 }).map((s): [string, string] => [s, s]),
  fc.constantFrom<[string, string]>(['\\"', '"'], ['\\\\', '\\']),
  // A character as its UTF-8 bytes, each `\xHH` (either case of hex digits) or `\OOO`.
  fc.tuple(fc.oneof(fc.constantFrom('A', 'é', '€', '😀', '"', '\\', '\u0000'), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })), fc.constantFrom('x', 'X', 'o')).map(([ch, how]): [string, string] => [
    [...utf8.encode(ch)].map((b) => (how === 'o' ? `\\${b.toString(8).padStart(3, '0')}` : `\\x${how === 'X' ? b.toString(16).padStart(2, '0').toUpperCase() : b.toString(16).padStart(2, '0')}`)).join(''),
    ch,
  ]),
);
const quoted = fc.array(stringPart, { maxLength: 5 }).map((parts): Piece => ({ text: `"${parts.map((p) => p[0]).join('')}"`, kind: 'string', value: parts.map((p) => p[1]).join('') }));
const raw = fc
  .tuple(fc.string({ unit: fc.constantFrom(...'ab "\\#x'), maxLength: 8 }), fc.integer({ min: 0, max: 3 }))
  .filter(([body, hashes]) => !body.includes('"' + '#'.repeat(hashes)))
  .map(([body, hashes]): Piece => ({ text: `r${'#'.repeat(hashes)}"${body}"${'#'.repeat(hashes)}`, kind: 'raw', value: body }));

const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc.constantFrom(...SPEC_KEYWORDS).map((k): Piece => ({ text: k, kind: 'keyword' })),
  // Upper-case and mixed-case keywords, except `strict`, which is only a keyword before `wildcard`.
  fc
    .tuple(fc.constantFrom(...SPEC_KEYWORDS.filter((k) => k !== 'strict')), fc.array(fc.boolean(), { minLength: 11, maxLength: 11 }))
    .map(([k, ups]) => [...k].map((c, i) => (ups[i] ? c.toUpperCase() : c)).join(''))
    .filter((k) => k !== k.toLowerCase())
    .map((k): Piece => ({ text: k, kind: 'keyword', upper: true })),
  fc.constantFrom(...SPEC_SYMBOLS).map((s): Piece => ({ text: s, kind: 'symbol' })),
  identifier.map((s): Piece => ({ text: s, kind: 'ident' })),
  // Identifiers that start like a keyword or end in digits: no keyword.
  fc.tuple(fc.constantFrom(...SPEC_KEYWORDS), fc.constantFrom('s', '_x', '1', '.a', '2.b')).map(([k, tail]): Piece => ({ text: k + tail, kind: 'ident' })),
  fc.constantFrom('Tcp.DstPort', 'IP.src', 'X', '_', 'a_B.c9').map((s): Piece => ({ text: s, kind: 'ident' })),
  // Integers: decimal, hex, octal-looking, negative (the checker reads their value).
  fc.oneof(fc.nat().map(String), fc.nat().map((n) => `0x${n.toString(16)}`), fc.nat().map((n) => `0X`.toLowerCase() + n.toString(16).toUpperCase()), fc.nat(999).map((n) => `0${n}`), fc.nat().map((n) => `-${n}`), fc.nat().map((n) => `-0x${n.toString(16)}`)).map((s): Piece => ({ text: s, kind: 'int' })),
  // Other words: addresses, CIDRs, byte strings, a word ending in a dot, hex without digits.
  fc.constantFrom('10.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32', '::ffff:1.2.3.4', 'aa:bb:cc', '41-4d-53', 'abc.', 'a.b.', 'a-b', 'a/b', '0x', '-0x', '1a', '08.5', 'A:B', '9abc', 'a..'.slice(0, 2)).map((s): Piece => ({ text: s, kind: 'word' })),
  quoted,
  raw,
  fc.array(segment, { minLength: 1, maxLength: 3 }).map((s): Piece => ({ text: `$${s.join('.')}`, kind: 'list', value: s.join('.') })),
);

/** Whitespace between pieces: space, CR, LF; a TAB is an error of its own. */
const gap = fc.constantFrom(' ', '  ', '\n', '\r\n', ' \r ', '\t', ' \t\t ');

describe('the lexer against the lexical rules of the spec', () => {
  it('the keyword and symbol tables are the spec lists', () => {
    expect([...T.KEYWORDS.keys()].sort()).toEqual([...SPEC_KEYWORDS].sort());
    expect([...T.OPERATOR_SYMBOLS.keys()].sort()).toEqual(['==', '!=', '<', '<=', '>', '>=', '&&', '||', '^^', '!', '~', '&'].sort());
    for (const s of SPEC_SYMBOLS) expect(SYMBOL_TYPE[s], s).toBeDefined();
  });

  it('reads every piece of a random run as its kind, at its offsets, with its value', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, gap), { minLength: 1, maxLength: 12 }), (run) => {
        let text = '';
        const at: number[] = [];
        const tabs: { start: number; end: number }[] = [];
        run.forEach(([p, g], i) => {
          at.push(text.length);
          text += p.text;
          if (i < run.length - 1) {
            const t = g.indexOf('\t');
            if (t >= 0) tabs.push({ start: text.length + t, end: text.length + g.lastIndexOf('\t') + 1 });
            text += g;
          }
        });
        const r = lex(text);
        expect(r.tokens.map((t) => t.image), text).toEqual(run.map(([p]) => p.text));
        run.forEach(([p], i) => {
          const tok = r.tokens[i]!;
          const where = `${JSON.stringify(p.text)} in ${JSON.stringify(text)}`;
          expect(tok.startOffset, where).toBe(at[i]);
          expect(tok.endOffset, where).toBe(at[i]! + p.text.length - 1);
          if (p.kind === 'keyword') expect(tok.tokenType, where).toBe(T.KEYWORDS.get(p.text.toLowerCase()));
          else if (p.kind === 'symbol') expect(tok.tokenType, where).toBe(SYMBOL_TYPE[p.text]);
          else expect(tok.tokenType, where).toBe(TYPE_OF[p.kind]);
          if (p.kind === 'string' || p.kind === 'raw') expect((tok.payload as { value: string }).value, where).toBe(p.value);
          if (p.kind === 'list') expect(tok.payload, where).toBe(p.value);
        });
        const expected = [
          ...run.filter(([p]) => p.upper).map(([p]) => `uppercase-keyword ${p.text.toLowerCase()}`),
          ...tabs.map((t) => `tab-whitespace ${t.start}-${t.end}`),
        ].sort();
        const got = r.diagnostics
          .map((d) => (d.code === 'uppercase-keyword' ? `${d.code} ${d.fix!.edits[0]!.newText}` : `${d.code} ${d.range!.start}-${d.range!.end}`))
          .sort();
        expect(got, text).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('symbols stuck together are read two characters first', () => {
    const images = (text: string) => lex(text).tokens.map((t) => t.image);
    expect(images('a==b')).toEqual(['a', '==', 'b']);
    expect(images('a<=b>=c')).toEqual(['a', '<=', 'b', '>=', 'c']);
    expect(images('!!a')).toEqual(['!', '!', 'a']);
    expect(images('!=a')).toEqual(['!=', 'a']);
    expect(images('a&&b&c')).toEqual(['a', '&&', 'b', '&', 'c']);
    expect(images('{1..5}')).toEqual(['{', '1', '..', '5', '}']);
    expect(images('{a..b}')).toEqual(['{', 'a', '..', 'b', '}']);
    expect(images('x[*]')).toEqual(['x', '[', '*', ']']);
    expect(images('(a)')).toEqual(['(', 'a', ')']);
    // The last character of the text cannot start a two-character symbol.
    expect(images('a <')).toEqual(['a', '<']);
    expect(images('-5..-1')).toEqual(['-5', '..', '-1']);
  });
});

describe('strings', () => {
  const value = (text: string) => (lex(text).tokens[0]!.payload as { value: string }).value;
  const codes = (text: string) => lex(text).diagnostics.map((d) => d.code);

  it('bytes of one escape run are one UTF-8 sequence; anything else between them ends the run', () => {
    expect(value('"\\xc3\\xa9"')).toBe('é');
    expect(value('"\\303\\251"')).toBe('é');
    expect(value('"\\xc3\\251"')).toBe('é');
    // A plain character between the bytes cuts the sequence: each half is a raw byte (U+DC00 + byte).
    expect(value('"\\xc3x\\xa9"')).toBe('\udcc3x\udca9');
    // So does a quote or backslash escape.
    expect(value('"\\xc3\\"\\xa9"')).toBe('\udcc3"\udca9');
    expect(value('"\\xc3\\\\\\xa9"')).toBe('\udcc3\\\udca9');
    // A run at the very end, before the closing quote, and at the end of an unterminated string.
    expect(value('"ab\\x41"')).toBe('abA');
    expect(value('"ab\\x41')).toBe('abA');
    expect(value('"\\x41b')).toBe('Ab');
    expect(value('"\\xe2\\x82\\xac\\xe2\\x82\\xac"')).toBe('€€');
  });

  it('\\OOO is exactly three octal digits up to 377', () => {
    expect(value('"\\101"')).toBe('A');
    expect(value('"\\377"')).toBe('\udcff');
    expect(value('"\\0411"')).toBe('!1');
    for (const bad of ['"\\400"', '"\\18"', '"\\1"', '"\\01"', '"\\8"', '"\\x4g"', '"\\xg4"', '"\\n"', '"\\t"', '"\\u0041"']) expect(codes(bad), bad).toEqual(['invalid-escape']);
  });

  it('an invalid escape is reported over the backslash and its character, which are dropped', () => {
    const r = lex('"a\\qb"');
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.range).toEqual({ start: 2, end: 4 });
    expect(r.diagnostics[0]!.message).toContain("'\\q'");
    expect((r.tokens[0]!.payload as { value: string }).value).toBe('ab');
    expect(r.tokens).toHaveLength(1);
    // The messages name the byte escape that was probably meant.
    expect(lex('"\\n"').diagnostics[0]!.message).toContain('a newline is \\x0a');
    expect(lex('"\\t"').diagnostics[0]!.message).toContain('a tab is \\x09');
    expect(lex('"\\q"').diagnostics[0]!.message).not.toContain('newline');
    expect(lex('"\\q"').diagnostics[0]!.message).not.toContain('tab is');
  });

  it('a backslash at the very end is an invalid escape of one character and an unterminated string', () => {
    const r = lex('"ab\\');
    expect(r.diagnostics.map((d) => [d.code, d.range])).toEqual([
      ['invalid-escape', { start: 3, end: 4 }],
      ['unterminated-string', { start: 0, end: 4 }],
    ]);
    expect(r.diagnostics[0]!.message).toContain("'\\'");
  });

  it('an unterminated string runs to the end of the text, trailing whitespace left out, and the fix closes it there', () => {
    const r = lex('x == "abc  ');
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.range).toEqual({ start: 5, end: 9 });
    expect(r.diagnostics[0]!.fix!.edits).toEqual([{ range: { start: 9, end: 9 }, newText: '"' }]);
    expect(r.tokens[2]!.image).toBe('"abc');
    expect((r.tokens[2]!.payload as { value: string }).value).toBe('abc');
  });

  it('raw strings: up to 255 #, closed by the quote and as many #', () => {
    expect(value('r"a\\nb"')).toBe('a\\nb');
    expect(value('r#"say "hi""#')).toBe('say "hi"');
    expect(value('r##"a"#b"##')).toBe('a"#b');
    expect(codes(`r${'#'.repeat(255)}"x"${'#'.repeat(255)}`)).toEqual([]);
    const over = lex(`r${'#'.repeat(256)}"x"${'#'.repeat(256)}`);
    expect(over.diagnostics.map((d) => d.code)).toEqual(['invalid-raw-string']);
    expect(over.diagnostics[0]!.range).toEqual({ start: 0, end: 258 });
    expect(over.diagnostics[0]!.message).toContain('found 256');
    expect((over.tokens[0]!.payload as { value: string }).value).toBe('x');
  });

  it('an unterminated raw string is one token to the end, and the fix adds its closing', () => {
    for (const [text, closing, body] of [['r#"abc"', '"#', 'abc"'], ['r"abc', '"', 'abc'], ['r##"a"#', '"##', 'a"#']] as const) {
      const r = lex(text);
      expect(r.tokens.map((t) => t.tokenType), text).toEqual([T.RawStringLiteral]);
      expect((r.tokens[0]!.payload as { value: string }).value, text).toBe(body);
      expect(r.diagnostics.map((d) => d.code), text).toEqual(['unterminated-string']);
      expect(r.diagnostics[0]!.range, text).toEqual({ start: 0, end: text.length });
      expect(r.diagnostics[0]!.message, text).toContain(closing);
      expect(r.diagnostics[0]!.fix!.edits, text).toEqual([{ range: { start: text.length, end: text.length }, newText: closing }]);
    }
  });

  it('r followed by # but no quote is the word r and a stray #', () => {
    const r = lex('r#x');
    expect(r.tokens.map((t) => t.image)).toEqual(['r', 'x']);
    expect(r.diagnostics.map((d) => [d.code, d.range])).toEqual([['unexpected-character', { start: 1, end: 2 }]]);
    expect(lex('r').tokens.map((t) => t.tokenType)).toEqual([T.Identifier]);
    expect(lex('r #').tokens.map((t) => t.tokenType)).toEqual([T.Identifier]);
  });
});

describe('list names', () => {
  const one = (text: string) => {
    const r = lex(text);
    return { tokens: r.tokens.map((t) => [t.image, t.payload]), problems: r.diagnostics.map((d) => [d.code, d.range, d.message]) };
  };

  it('a list name is $ then [a-z0-9_.]; an upper-case name gets the lower-case spelling', () => {
    expect(one('$svc.anonymizer')).toEqual({ tokens: [['$svc.anonymizer', 'svc.anonymizer']], problems: [] });
    const upper = one('$My_List');
    expect(upper.tokens).toEqual([['$My_List', 'My_List']]);
    expect(upper.problems).toEqual([['invalid-list-name', { start: 0, end: 8 }, "invalid list name '$My_List': list names are lower case (did you mean $my_list?)"]]);
  });

  it('the name stops before -, : and /', () => {
    expect(one('$a-b').tokens.map((t) => t[0])).toEqual(['$a', 'b']);
    expect(one('$a-b').problems.map((p) => [p[0], p[1]])).toEqual([['unexpected-character', { start: 2, end: 3 }]]);
    expect(one('$a:b').tokens.map((t) => t[0])).toEqual(['$a', ':b']);
    expect(one('$a/b').tokens.map((t) => t[0])).toEqual(['$a', 'b']);
  });

  it('an empty name, a name with dots at its ends or two dots in a row', () => {
    expect(one('$').problems).toEqual([['invalid-list-name', { start: 0, end: 1 }, "invalid list name '$': a name must follow $"]]);
    expect(one('$ x').problems[0]![1]).toEqual({ start: 0, end: 1 });
    expect(one('$.a').problems.map((p) => p[2])).toEqual(["invalid list name '$.a': a name cannot start or end with a dot"]);
    expect(one('$a.').problems.map((p) => p[2])).toEqual(["invalid list name '$a.': a name cannot start or end with a dot"]);
  });
});

describe('characters that are no token', () => {
  const problems = (text: string) => lex(text).diagnostics.map((d) => ({ code: d.code, range: d.range, message: d.message, fix: d.fix?.edits }));

  // Recovered as the operator meant, so the parser has nothing more to say.
  it('the first half of a two-character operator says which was meant and is read as it', () => {
    expect(parseExpression('tcp.dstport = 80').diagnostics.map((d) => d.code)).toEqual(['unexpected-character']);
    for (const [half, meant] of [['=', '=='], ['|', '||'], ['^', '^^']] as const) {
      const text = `a ${half} b`;
      expect(problems(text), text).toEqual([
        { code: 'unexpected-character', range: { start: 2, end: 3 }, message: `unexpected '${half}'; did you mean '${meant}'?`, fix: [{ range: { start: 2, end: 3 }, newText: meant }] },
      ]);
      const tokens = lex(text).tokens;
      expect(tokens.map((t) => t.tokenType.name), text).toEqual([T.Identifier.name, T.OPERATOR_SYMBOLS.get(meant)!.name, T.Identifier.name]);
      expect(tokens[1]!.image).toBe(half);
      expect(lex(text).diagnostics[0]!.fix!.title, text).toBe(`replace with '${meant}'`);
    }
  });

  it('other characters are named, shown as U+XXXX when unprintable, one diagnostic each, and dropped', () => {
    expect(problems('a @ b')).toEqual([{ code: 'unexpected-character', range: { start: 2, end: 3 }, message: "unexpected character '@'", fix: undefined }]);
    expect(lex('a @ b').tokens.map((t) => t.image)).toEqual(['a', 'b']);
    expect(problems('a\u0001b').map((p) => p.message)).toEqual(['unexpected character U+0001']);
    expect(problems('a\u007fb').map((p) => p.message)).toEqual(['unexpected character U+007F']);
    expect(problems('a\u0085b').map((p) => p.message)).toEqual(['unexpected character U+0085']);
    expect(problems('a\u00a0b').map((p) => p.message)).toEqual(['unexpected character U+00A0']);
    expect(problems('a\u2028b').map((p) => p.message)).toEqual(['unexpected character U+2028']);
    expect(problems('a\ufeffb').map((p) => p.message)).toEqual(['unexpected character U+FEFF']);
    expect(problems('a\u00e9b').map((p) => p.message)).toEqual(["unexpected character 'é'"]);
    // A character outside the BMP is two UTF-16 units: one diagnostic over both.
    expect(problems('a 😀 b')).toEqual([{ code: 'unexpected-character', range: { start: 2, end: 4 }, message: "unexpected character '😀'", fix: undefined }]);
    expect(problems('a @# b').map((p) => p.range)).toEqual([{ start: 2, end: 3 }, { start: 3, end: 4 }]);
  });
});

describe('whitespace and nesting', () => {
  it('leading and trailing whitespace, TABs included, is trimmed first; a TAB between tokens is one error per run', () => {
    expect(lex('\t \ttcp.flags.syn \t\n').diagnostics).toEqual([]);
    const r = lex('a\t\t\tb \t c');
    expect(r.diagnostics.map((d) => [d.code, d.range, d.fix!.edits])).toEqual([
      ['tab-whitespace', { start: 1, end: 4 }, [{ range: { start: 1, end: 4 }, newText: ' ' }]],
      ['tab-whitespace', { start: 6, end: 7 }, [{ range: { start: 6, end: 7 }, newText: ' ' }]],
    ]);
    expect(r.tokens.map((t) => t.image)).toEqual(['a', 'b', 'c']);
  });

  it('nesting counts parentheses and runs of not; the first token beyond the limit is reported once', () => {
    const deep = (text: string, limit: number) => {
      const r = lex(text, limit);
      return { depth: r.maxDepth, problems: r.diagnostics.map((d) => [d.code, d.range, d.data]) };
    };
    expect(deep('((a))', 2)).toEqual({ depth: 2, problems: [] });
    expect(deep('(((a)))', 2)).toEqual({ depth: 3, problems: [['nesting-too-deep', { start: 2, end: 3 }, { limit: 2 }]] });
    expect(deep('((((a))))', 2).problems).toHaveLength(1);
    expect(deep('not not not a', 2)).toEqual({ depth: 3, problems: [['nesting-too-deep', { start: 8, end: 11 }, { limit: 2 }]] });
    expect(deep('! ! a', 2)).toEqual({ depth: 2, problems: [] });
    // `not (` keeps the run of not; another token ends it.
    expect(deep('not (not a)', 3)).toEqual({ depth: 3, problems: [] });
    expect(deep('not a and not b and not c', 1)).toEqual({ depth: 1, problems: [] });
    // Parentheses closed are no longer counted.
    expect(deep('(a) and (b) and (c)', 1)).toEqual({ depth: 1, problems: [] });
    // A stray ')' does not buy depth for what follows.
    expect(deep(')))(((a)))', 2).depth).toBe(3);
    expect(deep(')))(((a)))', 2).problems).toHaveLength(1);
  });
});
