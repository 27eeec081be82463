/**
 * Input the checker refuses says so once: a set refused for one bad item gets no warnings about its
 * other items, and any()/all() of something that is not an array of booleans is one error, never a
 * crash and never a quantifier over the wrong items.
 */
import { describe, expect, it } from 'vitest';
import { checkValueExpression, compileExpression, evaluateExpression, HTTP_SCHEME, parseExpression, Scheme, walk, type AnyNode } from '../../src/expression/index.js';

const codes = (text: string, options = {}) => compileExpression(text, options).diagnostics.map((d) => d.code);

describe('a set refused for a bad item', () => {
  it('is reported for that item only: its other items are not judged for duplicates', () => {
    expect(codes('ip.src in {10.0.0.1 10.0.0.1}')).toEqual(['duplicate-set-item']);
    expect(codes('ip.src in {10.0.0.1 10.0.0.1 10.0.0.9..10.0.0.1}')).toEqual(['empty-range']);
    expect(codes('ip.src in {10.0.0.1 10.0.0.1 10.0.0.1..10.0.0.256}')).toEqual(['invalid-ip']);
    expect(codes('ip.src in {10.0.0.1 10.0.0.1 10.0.0.0/8..10.0.0.9}')).toEqual(['invalid-ip']);
    expect(codes('ip.src in {10.0.0.1 10.0.0.1 10.0.0.1..2001:db8::1}')).toEqual(['ip-family-mismatch']);
  });
});

describe('any() and all() of what is not an array of booleans', () => {
  const scheme = Scheme.of([{ name: 'x.flags', type: 'Bool', doc: '', container: 'Array<Boolean>' }], { rulesLanguage: true });
  it('an unknown field is one error', () => {
    expect(codes('any(http.nope)', { scheme: HTTP_SCHEME })).toEqual(['unknown-field']);
    expect(codes('all(x.nope)', { scheme })).toEqual(['unknown-field']);
  });

  it('an array of strings is not read as booleans', () => {
    for (const e of ['any(http.request.headers.names)', 'all(http.request.headers.names)']) {
      const r = compileExpression(e, { scheme: HTTP_SCHEME });
      expect(r.diagnostics.map((d) => d.code), e).toEqual(['container-field']);
      expect(r.matcher, e).toBeUndefined();
    }
  });
});

describe('evaluateExpression', () => {
  it('evaluates a checked expression as its matcher does', () => {
    const r = compileExpression('tcp.dstport in {80 443} and not ip.src in {10.0.0.0/8}');
    expect(evaluateExpression(r.checked!, { 'tcp.dstport': 443, 'ip.src': '192.0.2.1' })).toBe(true);
    expect(evaluateExpression(r.checked!, { 'tcp.dstport': 443, 'ip.src': '10.0.0.1' })).toBe(false);
    expect(evaluateExpression(r.checked!, {})).toBe(false);
  });
});

describe('messages', () => {
  it('a value expression of a map type takes "a", not "an"', () => {
    expect(checkValueExpression('http.request.headers', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.message)).toEqual([
      'this expression gives a Map<Array<String>>; a String is expected here',
    ]);
  });

  it('a set opened with ( and closed with ] is a syntax error, not a set in brackets', () => {
    const ds = compileExpression('tcp.dstport in (80 443]').diagnostics;
    expect(ds.length).toBeGreaterThan(0);
    for (const d of ds) expect(d.message).not.toContain('braces, not brackets');
  });

  it('nesting too deep names the limit and what counts', () => {
    expect(parseExpression('((sip))', { limits: { maxDepth: 1 } }).diagnostics.map((d) => d.message)).toEqual(["nesting is deeper than the limit of 1 (parentheses and 'not')"]);
  });
});

describe('recovered parses', () => {
  it('a token the parser inserted (a missing } or )) sits where the text ends: every range is inside the text', () => {
    for (const [text, where] of [
      ['tcp.dstport in {80 443 and sip', 'set:15-22'],
      ['bit_slice(tcp, 0, 8 == 1', 'call:0-19'],
      ['http.request.headers["a" == "b"', 'index:0-24'],
    ] as const) {
      const r = parseExpression(text);
      expect(r.diagnostics.length, text).toBeGreaterThan(0);
      const ranges: string[] = [];
      walk(r.ast! as AnyNode, (n) => {
        expect(Number.isInteger(n.range.start) && Number.isInteger(n.range.end), `${text}: ${n.kind}`).toBe(true);
        expect(n.range.start, text).toBeGreaterThanOrEqual(0);
        expect(n.range.end, text).toBeLessThanOrEqual(text.length);
        ranges.push(`${n.kind}:${n.range.start}-${n.range.end}`);
      });
      expect(ranges, text).toContain(where);
    }
  });
});

describe('a map key that is not a string', () => {
  it('gets a fix titled with the quoted key', () => {
    const d = compileExpression('any(http.request.headers[0][*] == "x")', { scheme: HTTP_SCHEME }).diagnostics;
    expect(d[0]!.fix!.title).toBe('write ["0"]');
  });
});

describe('every item of every value of a map', () => {
  it('[*][*] is exactly the items of every key, nothing more', () => {
    const headers = new Map([['a', ['b', 'b']], ['c', ['b']]]);
    for (const [e, want] of [
      ['all(http.request.headers[*][*] == "b")', true],
      ['any(http.request.headers[*][*] != "b")', false],
      ['any(len(http.request.headers[*][*])[*] != 1)', false],
    ] as const) {
      for (const codegen of [true, false]) {
        const r = compileExpression(e, { scheme: HTTP_SCHEME, codegen });
        expect(r.diagnostics, e).toEqual([]);
        expect(r.matcher!({ 'http.request.headers': headers }), e).toBe(want);
        expect(evaluateExpression(r.checked!, { 'http.request.headers': headers }), e).toBe(want);
      }
    }
    expect(compileExpression('all(http.request.headers[*][*] == "b")', { scheme: HTTP_SCHEME }).matcher!({ 'http.request.headers': new Map([['a', ['b', 'x']]]) })).toBe(false);
  });
});

describe('unknown functions', () => {
  it('the fix is titled with the name it writes', () => {
    expect(compileExpression('lowr(http.host) == "a"', { scheme: HTTP_SCHEME }).diagnostics[0]!.fix!.title).toBe('replace with lower');
  });
});
