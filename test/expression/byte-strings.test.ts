/**
 * Byte-string literals of String fields (wirefilter's `aa:bb:cc`: each byte two hex digits, separated by
 * `:`, `-` or `.`), held to the bytes they spell, and what a word that only looks like one becomes.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/index.js';
import { HTTP_SCHEME } from '../../src/expression/index.js';

const codes = (text: string) => compileExpression(text).diagnostics.map((d) => d.code);

describe('byte strings on String fields', () => {
  it('spell their bytes with any of the three separators', () => {
    for (const lit of ['41:4d:53', '41-4d-53', '41.4d.53', '41:4D:53']) {
      const r = compileExpression(`cf.colo.name == ${lit}`);
      expect(r.diagnostics, lit).toEqual([]);
      expect(r.matcher!({ 'cf.colo.name': 'AMS' }), lit).toBe(true);
      expect(r.matcher!({ 'cf.colo.name': 'AMT' }), lit).toBe(false);
    }
  });

  it('a word that starts like one but breaks the pattern is an invalid byte string', () => {
    for (const lit of ['41:4d:5', '41:zz', '41:4d:', '41::4d']) expect(codes(`cf.colo.name == ${lit}`), lit).toEqual(['invalid-byte-string']);
  });

  it('a dotted quad of two-digit groups is bytes; another dotted quad is text that wants quotes', () => {
    expect(codes('cf.colo.name == 10.20.30.40')).toEqual([]);
    expect(compileExpression('cf.colo.name == 10.20.30.40').matcher!({ 'cf.colo.name': '\x10\x20\x30\x40' })).toBe(true);
    expect(codes('cf.colo.name == 192.168.1.1')).toEqual(['literal-type-mismatch']);
    expect(codes('cf.colo.name == 10.200.3')).toEqual(['invalid-byte-string']);
    expect(codes('cf.colo.name == AMS')).toEqual(['literal-type-mismatch']);
  });

  it('spell bytes as every function reads them: UTF-8 as its text, other bytes raw', () => {
    expect(compileExpression('cf.colo.name == c3:a9').matcher!({ 'cf.colo.name': 'é' })).toBe(true);
    expect(compileExpression('cf.colo.name == c3:a9').matcher!({ 'cf.colo.name': 'Ã©' })).toBe(false);
    expect(compileExpression('substring(http.host, 0, 1) == "\\xc3"', { scheme: HTTP_SCHEME }).matcher!({ 'http.host': 'é' })).toBe(true);
    expect(compileExpression('len(http.host) == 2 and http.host == "\\xc3\\xa9"', { scheme: HTTP_SCHEME }).matcher!({ 'http.host': 'é' })).toBe(true);
  });
});
