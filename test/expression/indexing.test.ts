/**
 * Reading items of the HTTP containers (the public fields reference: `http.request.headers` is a
 * Map<Array<String>> keyed by lower-case header names) and passing containers to functions: each wrong use
 * is one diagnostic at the key or argument, with a fix where there is one obvious spelling.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, HTTP_SCHEME } from '../../src/expression/index.js';

const one = (text: string) => {
  const r = compileExpression(text, { scheme: HTTP_SCHEME });
  // Checked without a phase: the info that names a phase-only function's phases is not what these tests look at.
  return r.diagnostics.filter((d) => d.code !== 'function-phase-unknown').map((d) => ({ code: d.code, range: d.range, message: d.message, fix: d.fix?.edits }));
};

describe('map keys', () => {
  it('are strings in quotes: a number or word key gets the quoted spelling as its fix', () => {
    const d = one('any(http.request.headers[0][*] == "x")');
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ code: 'index-type-mismatch', range: { start: 25, end: 26 }, fix: [{ range: { start: 25, end: 26 }, newText: '"0"' }] });
    expect(d[0]!.message).toContain('its keys are strings in quotes, e.g. http.request.headers["0"]');
  });

  it('raw strings are keys too', () => {
    expect(one('any(http.request.headers[r"x-a"][*] == "x")')).toEqual([]);
    expect(compileExpression('any(http.request.headers[r"x-a"][*] == "x")', { scheme: HTTP_SCHEME }).matcher!({ 'http.request.headers': new Map([['x-a', ['x']]]) })).toBe(true);
  });

  it('header names are lower case: an upper-case key never matches, and the warning writes it lower case', () => {
    for (const key of ['"X-A"', 'r"X-A"']) {
      const d = one(`any(http.request.headers[${key}][*] == "x")`);
      expect(d.map((x) => x.code), key).toEqual(['uppercase-map-key']);
      expect(d[0]!.range, key).toEqual({ start: 25, end: 25 + key.length });
      expect(d[0]!.fix, key).toEqual([{ range: { start: 25, end: 25 + key.length }, newText: '"x-a"' }]);
      expect(d[0]!.message, key).toBe(`the keys of http.request.headers are lower case, so ${key} never matches; write "x-a"`);
    }
    expect(one('any(http.request.headers["x-a"][*] == "x")')).toEqual([]);
  });
});

describe('containers passed to functions', () => {
  it('an array where one value is wanted: the message says how to read its items', () => {
    const d = one('lower(http.request.headers.names) == "a"');
    expect(d.map((x) => x.code)).toEqual(['function-arguments']);
    expect(d[0]!.message).toContain('read its items with [0] or every item with [*], as in lower(http.request.headers.names[*])');
  });

  it('a map where an array is wanted: no such hint (its items are not what the parameter takes)', () => {
    for (const text of ['join(http.request.headers, ",") == "x"', 'join(http.host, ",") == "x"']) {
      const d = one(text);
      expect(d.map((x) => x.code), text).toEqual(['function-arguments']);
      expect(d[0]!.message, text).not.toContain('read its items');
    }
  });
});

describe('unknown functions', () => {
  it('get the nearest name of the catalog, with a fix, or none when nothing is near', () => {
    expect(one('lowr(http.host) == "a"')).toEqual([
      { code: 'unknown-function', range: { start: 0, end: 4 }, message: 'unknown function lowr(); did you mean lower?', fix: [{ range: { start: 0, end: 4 }, newText: 'lower' }] },
    ]);
    expect(one('zzzzqq(http.host) == "a"')).toEqual([{ code: 'unknown-function', range: { start: 0, end: 6 }, message: 'unknown function zzzzqq()', fix: undefined }]);
  });
});
