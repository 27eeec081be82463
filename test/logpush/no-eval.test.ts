/**
 * Logpush filters where a Content-Security-Policy forbids `new Function` (a page without 'unsafe-eval':
 * the Function constructor throws an EvalError): `compileLogFilter` must still give a matcher, with the
 * answers of the interpreter, in every mode. The CSP is played by replacing the global Function
 * constructor for the length of one test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileLogFilter, evaluateLogFilter, generateMatcherSource, type CompileMode } from '../../src/logpush/index.js';
import { describe as describeValue, diag } from '../../src/logpush/diag.js';

const RealFunction = globalThis.Function;
function forbidEval(): void {
  globalThis.Function = function () {
    throw new EvalError("Refused to evaluate a string as JavaScript because 'unsafe-eval' is not an allowed source of script");
  } as unknown as FunctionConstructor;
}
afterEach(() => {
  globalThis.Function = RealFunction;
});

const FILTER = JSON.stringify({
  where: {
    or: [
      { and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientRequestHost', operator: '!endsWith', value: '.internal' }] },
      { key: 'ClientCountry', operator: 'in', value: ['kp', 'ir'] },
    ],
  },
});
const LINES: Record<string, unknown>[] = [
  { EdgeResponseStatus: 503, ClientRequestHost: 'a.example' },
  { EdgeResponseStatus: 503, ClientRequestHost: 'db.internal' },
  { EdgeResponseStatus: 200, ClientCountry: 'kp' },
  { EdgeResponseStatus: 200, ClientCountry: 'us' },
  { EdgeResponseStatus: 503 },
  {},
];

describe('without eval', () => {
  it('the test can forbid it', () => {
    forbidEval();
    expect(() => new Function('return 1')).toThrow(EvalError);
  });

  it.each<CompileMode | undefined>([undefined, 'auto', 'codegen', 'closures'])('mode %s gives a matcher with the interpreter\'s answers', (mode) => {
    const reference = compileLogFilter(FILTER, { dataset: 'http_requests' });
    const want = LINES.map((l) => evaluateLogFilter(reference.filter!, l));
    // A negated operator on an absent field is false (logpush.md), so the fifth line fails the `and`.
    expect(want).toEqual([true, false, true, false, false, false]);
    forbidEval();
    const r = compileLogFilter(FILTER, { dataset: 'http_requests', ...(mode ? { mode } : {}) });
    expect(r.diagnostics).toEqual([]);
    expect(LINES.map((l) => r.matcher!(l))).toEqual(want);
    expect([null, undefined].map((l) => r.matcher!(l as never))).toEqual([false, false]);
  });

  it('the generated source is still there to read', () => {
    forbidEval();
    const r = compileLogFilter(FILTER, { dataset: 'http_requests' });
    expect(generateMatcherSource(r.filter!).source).toContain('"use strict"');
  });
});

describe('messages and diagnostics', () => {
  it('describe renders any value short and safe', () => {
    expect(['x'.repeat(40), 'y'.repeat(41), '', 5, true, null, [1, 2], {}, undefined, 5n, () => 1].map(describeValue)).toEqual([
      JSON.stringify('x'.repeat(40)),
      `${JSON.stringify('y'.repeat(40))}… (41 characters)`,
      '""',
      '5',
      'true',
      'null',
      'an array of 2',
      'an object',
      'undefined',
      'bigint',
      'function',
    ]);
  });

  it('diag takes the table severity unless told, and a rangeIn only with a range', () => {
    expect(diag('filter-unknown-field', 'm')).toEqual({ code: 'filter-unknown-field', severity: 'error', message: 'm' });
    expect(diag('filter-unknown-field', 'm', { severity: 'warning', pointer: '' })).toEqual({ code: 'filter-unknown-field', severity: 'warning', message: 'm', pointer: '' });
    expect(diag('filter-unknown-field', 'm', { rangeIn: 'value' })).toEqual({ code: 'filter-unknown-field', severity: 'error', message: 'm' });
    const range = { start: 1, end: 2 };
    const fix = { title: 't', edits: [] };
    expect(diag('filter-unknown-field', 'm', { range, rangeIn: 'value', fix, data: { a: 1 } })).toEqual({ code: 'filter-unknown-field', severity: 'error', message: 'm', range, rangeIn: 'value', fix, data: { a: 1 } });
  });

  it('compileLogFilter without options or a dataset reports the dataset and never throws', () => {
    for (const options of [undefined, null, {}, { dataset: 5 }]) {
      const r = compileLogFilter('{"where":{"key":"EdgeResponseStatus","operator":"eq","value":1}}', options as never);
      expect(r.diagnostics.map((d) => d.code), String(options)).toEqual(['filter-unknown-dataset']);
      expect(r.matcher).toBeUndefined();
      expect(r.filter).toBeUndefined();
    }
  });
});
