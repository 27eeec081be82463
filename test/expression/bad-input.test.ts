import { describe, expect, it } from 'vitest';
import { compileExpression, parseExpression, print, MAX_SUPPORTED_DEPTH } from '../../src/expression/index.js';

describe('bad input: diagnostics, never a throw or a stack overflow', () => {
  const cases: [string, string][] = [
    ['empty', ''],
    ['spaces', '   \t  '],
    ['1 MB of a', 'a'.repeat(1 << 20)],
    ['1 MB rule', 'tcp.dstport == 80 and '.repeat(50_000) + 'sip'],
    ['10k-deep parentheses', '('.repeat(10_000) + 'sip' + ')'.repeat(10_000)],
    ['10k nots', 'not '.repeat(10_000) + 'sip'],
    ['10k unclosed parens', '('.repeat(10_000)],
    ['NUL bytes', 'tcp.dstport == 80\u0000 and sip'],
    ['lone surrogates', 'cf.colo.name == "\ud800" or \udc00'],
    ['emoji field', 'tcp.dstport😀 == 80'],
    ['non-breaking space', 'tcp.dstport\u00a0== 80'],
    ['only operators', '== != && || ^^ ! ~ & { } ( ) .. ,'],
    ['huge number', 'tcp.dstport == 999999999999999999999999999'],
    ['huge hex', 'tcp.dstport == 0xffffffffffffffffffff'],
    ['raw string with 300 hashes', `cf.colo.name == r${'#'.repeat(300)}"x"${'#'.repeat(300)}`],
    ['4097 chars', 'sip or ' + 'x'.repeat(4090)],
  ];
  it.each(cases)('%s', (_name, text) => {
    const r = compileExpression(text);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.length).toBeLessThanOrEqual(100);
    expect(r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(r.matcher).toBeUndefined();
    for (const d of r.diagnostics) {
      expect(typeof d.code).toBe('string');
      expect(d.range!.start).toBeGreaterThanOrEqual(0);
      expect(d.range!.end).toBeLessThanOrEqual(text.length);
      expect(d.range!.start).toBeLessThanOrEqual(d.range!.end);
    }
    // the AST and diagnostics are plain JSON data
    const p = parseExpression(text);
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });

  it('nesting at the limit is accepted; one more level is not', () => {
    const ok = '('.repeat(128) + 'sip' + ')'.repeat(128);
    expect(compileExpression(ok).matcher).toBeDefined();
    const deep = '('.repeat(129) + 'sip' + ')'.repeat(129);
    expect(compileExpression(deep).diagnostics[0]!.code).toBe('nesting-too-deep');
  });

  it('length limit names the limit and the figure', () => {
    const d = compileExpression('sip or ' + 'sip or '.repeat(600) + 'sip').diagnostics.find((x) => x.code === 'expression-too-long')!;
    expect(d.message).toContain('4096');
    expect(d.message).toContain(String(7 + 7 * 600 + 3));
    expect(compileExpression('sip', { limits: { maxLength: 2 } }).diagnostics[0]!.code).toBe('expression-too-long');
  });

  it('a NUL inside a string literal is data, matched exactly', () => {
    const r = compileExpression('cf.colo.name == "a\u0000b"');
    expect(r.matcher!({ 'cf.colo.name': 'a\u0000b' })).toBe(true);
    expect(r.matcher!({ 'cf.colo.name': 'ab' })).toBe(false);
  });

  it('raised limits: 1 MB inputs are lexed, parsed and checked; deep nesting is clamped, never a stack overflow', () => {
    const big = { limits: { maxLength: 1 << 21, maxDepth: 1_000_000 } };
    // a 1 MB rule of 50k comparisons: one n-ary node, compiled and evaluated
    const rule = compileExpression('tcp.dstport == 80 and '.repeat(50_000) + 'sip', big);
    expect(rule.diagnostics).toEqual([]);
    expect(rule.matcher!({ 'tcp.dstport': 80, sip: true })).toBe(true);
    expect(rule.matcher!({ 'tcp.dstport': 81, sip: true })).toBe(false);
    // a 1 MB string literal, hostile characters included, kept exactly
    const value = 'x"\\${}`*/\u2028'.repeat(1 << 16);
    const literal = compileExpression(`cf.colo.name == ${JSON.stringify(value)}`, big);
    expect(literal.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(literal.matcher!({ 'cf.colo.name': value })).toBe(true);
    expect(literal.matcher!({ 'cf.colo.name': value.slice(1) })).toBe(false);
    // 1 MB of garbage: capped diagnostics with ranges inside the text
    const junk = compileExpression('(a == '.repeat(1 << 17), big);
    expect(junk.matcher).toBeUndefined();
    expect(junk.diagnostics.length).toBeLessThanOrEqual(100);
    for (const shape of ['(', 'not ', '!(']) {
      for (const parser of ['auto', 'chevrotain'] as const) {
        for (const n of [MAX_SUPPORTED_DEPTH, 10_000]) {
          const reps = shape === '!(' ? n / 2 : n; // each `!(` is two levels
          const text = shape.repeat(reps) + 'sip' + (shape.includes('(') ? ')'.repeat(reps) : '');
          const r = compileExpression(text, { ...big, parser });
          if (n <= MAX_SUPPORTED_DEPTH) {
            expect(r.diagnostics).toEqual([]);
            expect(parseExpression(print(r.ast!), big).diagnostics).toEqual([]);
          } else expect(r.diagnostics.map((d) => d.code)).toEqual(['nesting-too-deep']);
        }
      }
    }
  });

  it('non-string input', () => {
    expect(compileExpression(undefined as never).diagnostics[0]!.code).toBe('empty-expression');
    expect(compileExpression({} as never).diagnostics[0]!.code).toBe('empty-expression');
  });
});
