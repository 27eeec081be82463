/**
 * The entry points of src/expression (parseExpression, compileExpression, checkValueExpression,
 * evaluateValueExpression): what they make of sets in brackets, limits given in odd shapes, a byte order
 * mark, lone surrogates and very long input, judged by the spec's rules and by the parse of the text as it
 * should have been written.
 */
import { describe, expect, it } from 'vitest';
import { checkValueExpression, compileExpression, evaluateValueExpression, HTTP_SCHEME, parseExpression, print } from '../../src/expression/index.js';

describe('sets written in brackets after in', () => {
  it('one error per set, whose fix writes the set in braces, and the set is read as if it had been', () => {
    for (const [text, fixed] of [
      ['tcp.dstport in [80 443]', 'tcp.dstport in {80 443}'],
      ['tcp.dstport in [80, 443]', 'tcp.dstport in {80 443}'],
      ['tcp.dstport in [ 80 ,443 ]', 'tcp.dstport in {80 443}'],
      ['ip.src in [10.0.0.0/8]', 'ip.src in {10.0.0.0/8}'],
      ['cf.colo.name in ["a" r"b"]', 'cf.colo.name in {"a" r"b"}'],
      ['tcp.dstport in [1..5, 7] and tcp.srcport in [9]', 'tcp.dstport in {1..5 7} and tcp.srcport in {9}'],
    ] as const) {
      const r = compileExpression(text);
      expect(r.diagnostics.every((d) => d.code === 'syntax-error'), text).toBe(true);
      expect(r.matcher, text).toBeUndefined();
      let out = text as string;
      for (const d of [...r.diagnostics].reverse()) {
        expect(d.message, text).toContain('braces, not brackets');
        const e = d.fix!.edits[0]!;
        out = out.slice(0, e.range.start) + e.newText + out.slice(e.range.end);
      }
      expect(out, text).toBe(fixed);
      // What was read is the fixed text's AST.
      expect(print(parseExpression(text).ast!), text).toBe(print(parseExpression(fixed).ast!));
    }
  });

  it('brackets elsewhere are indexing or errors of their own, never a set', () => {
    expect(compileExpression('http.request.headers["a"][0] == "b"', { scheme: HTTP_SCHEME }).diagnostics).toEqual([]);
    for (const text of ['tcp.dstport in [80 443', 'http.request.headers["a"][0] in', 'tcp.dstport in [80 == 1]', 'tcp.dstport in [']) {
      const ds = compileExpression(text, { scheme: HTTP_SCHEME }).diagnostics;
      expect(ds.length, text).toBeGreaterThan(0);
      for (const d of ds) expect(d.message, text).not.toContain('braces, not brackets');
    }
    // `[` as the very last token after in.
    expect(parseExpression('tcp.dstport in [').diagnostics.length).toBeGreaterThan(0);
  });
});

describe('limits', () => {
  it('limits that are not non-negative numbers are the defaults', () => {
    const long = `tcp.dstport in {${Array.from({ length: 1100 }, (_, i) => i).join(' ')}}`;
    expect(long.length).toBeGreaterThan(4096);
    for (const limits of [undefined, null, {}, { maxLength: -1 }, { maxLength: '10' }, { maxLength: Number.NaN }, []] as const) {
      const codes = parseExpression(long, { limits: limits as never }).diagnostics.map((d) => d.code);
      expect(codes, JSON.stringify(limits)).toEqual(['expression-too-long']);
    }
    expect(parseExpression(long, { limits: { maxLength: 10_000 } }).diagnostics).toEqual([]);
    expect(parseExpression('((sip))', { limits: { maxDepth: -1 } }).diagnostics).toEqual([]);
    expect(parseExpression('((sip))', { limits: { maxDepth: Number.NaN } }).diagnostics).toEqual([]);
    expect(parseExpression('((sip))', { limits: { maxDepth: 1 } }).diagnostics.map((d) => d.code)).toEqual(['nesting-too-deep']);
  });

  it('a fractional length limit counts whole characters', () => {
    expect(parseExpression('sip', { limits: { maxLength: 3.5 } }).diagnostics).toEqual([]);
    expect(parseExpression('sip', { limits: { maxLength: 2.9 } }).diagnostics.map((d) => [d.code, d.range, d.data])).toEqual([
      ['expression-too-long', { start: 2, end: 3 }, { limit: 2, length: 3 }],
    ]);
  });

  it('up to 16 times the limit the rest is still parsed; beyond it only the length is reported', () => {
    const at = (n: number) => 'sip or '.repeat(n) + 'x ==';
    const near = parseExpression(at(5), { limits: { maxLength: 10 } });
    expect(near.diagnostics.map((d) => d.code)).toContain('unexpected-end');
    const text = at(30);
    expect(text.length).toBeGreaterThan(160);
    expect(parseExpression(text, { limits: { maxLength: 10 } }).diagnostics.map((d) => d.code)).toEqual(['expression-too-long']);
    const edge = 'sip or sip' + ' '.repeat(150);
    expect(edge.length).toBe(160);
    expect(parseExpression(edge + 'x', { limits: { maxLength: 10 } }).ast).toBeUndefined();
    expect(parseExpression(edge, { limits: { maxLength: 10 } }).ast).toBeDefined();
  });
});

describe('text the service could not read as written', () => {
  it('a byte order mark at the start is whitespace, and every range stays where it was', () => {
    const r = compileExpression('\ufefftcp.dstport == 65536');
    expect(r.diagnostics.map((d) => [d.code, d.range])).toEqual([['value-out-of-range', { start: 16, end: 21 }]]);
    expect(compileExpression('\ufefftcp.flags.syn').diagnostics).toEqual([]);
  });

  it('each lone surrogate is reported where it is, at most ten; a pair is no problem', () => {
    expect(compileExpression('cf.colo.name == "\ud83d\ude00"').diagnostics).toEqual([]);
    const one = compileExpression('cf.colo.name == "a\ud800b"').diagnostics;
    expect(one.map((d) => [d.code, d.range])).toEqual([['lone-surrogate', { start: 18, end: 19 }]]);
    expect(one[0]!.message).toMatch(/^U\+D800 /);
    const many = compileExpression(`cf.colo.name == "${'\udc00'.repeat(12)}"`).diagnostics.filter((d) => d.code === 'lone-surrogate');
    expect(many.map((d) => d.range!.start)).toEqual([17, 18, 19, 20, 21, 22, 23, 24, 25, 26]);
  });

  it('a blank expression is empty, over its whole length', () => {
    for (const text of ['', ' ', '\t\r\n ']) {
      expect(parseExpression(text).diagnostics.map((d) => [d.code, d.range]), JSON.stringify(text)).toEqual([['empty-expression', { start: 0, end: text.length }]]);
    }
    expect(parseExpression(' x').diagnostics.map((d) => d.code)).not.toContain('empty-expression');
  });
});

describe('value expressions', () => {
  it('evaluate on a record, and on a non-object as on an empty record', () => {
    const r = checkValueExpression('lower(http.host)', { scheme: HTTP_SCHEME });
    expect(r.diagnostics).toEqual([]);
    expect(evaluateValueExpression(r.plan!, { 'http.host': 'A.Example' })).toBe('a.example');
    for (const rec of [null, undefined, 5, 'x']) expect(evaluateValueExpression(r.plan!, rec as never)).toBeUndefined();
  });

  it('say which type they give when another is wanted, with the right article', () => {
    const int = checkValueExpression('len(http.host)', { scheme: HTTP_SCHEME });
    expect(int.diagnostics.map((d) => d.code)).toEqual(['value-expression-type']);
    expect(int.diagnostics[0]!.message).toBe('this expression gives an Int; a String is expected here');
    expect(int.type).toBe('Int');
    const str = checkValueExpression('lower(http.host)', { scheme: HTTP_SCHEME, type: 'Int' });
    expect(str.diagnostics[0]!.message).toBe('this expression gives a String; an Int is expected here');
    expect(checkValueExpression('http.host == "a"', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['value-expression-type']);
    const bool = checkValueExpression('http.host == "a"', { scheme: HTTP_SCHEME, type: 'Bool' });
    expect(bool.diagnostics).toEqual([]);
    expect(bool.type).toBe('Bool');
  });
});
