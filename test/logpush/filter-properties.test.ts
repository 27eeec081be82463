import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkLogFilter, compileLogFilter, evaluateLogFilter, generateMatcherSource, logFilterToJSON, printLogFilter,
  logFilterToExpression, validateLogpushJob, validateCustomFieldRule, buildLogLine, type LogFieldType as FieldType,
} from '../../src/logpush/index.js';
import { jsString } from '../../src/codegen/index.js';
import { reachCounter } from '../helpers/reach.js';
import { HOSTILE, FIELDS, OPS, strVal, intVal, intLike, clauseArb, nodeArb, anyFieldValue, lineArb } from '../helpers/logfilter-arbitraries.js';

const HTTP = { dataset: 'http_requests' };

describe('never throws', () => {
  it('on any string, lone surrogates included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
      const r = compileLogFilter(s, HTTP);
      expect(Array.isArray(r.diagnostics)).toBe(true);
    }), { numRuns: 500 });
  });
  it('on any JSON value serialized, with __proto__ and constructor keys', () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'where', 'and', 'or', 'key', 'operator', 'value'), fc.string({ maxLength: 5 }));
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
    })).v;
    fc.assert(fc.property(value, (v) => {
      const text = JSON.stringify(v) ?? 'null';
      expect(() => compileLogFilter(text, HTTP)).not.toThrow();
      expect(() => compileLogFilter(JSON.stringify({ where: v }), HTTP)).not.toThrow();
      expect(() => validateLogpushJob(v)).not.toThrow();
      expect(() => validateLogpushJob({ dataset: 'http_requests', filter: text, logpull_options: typeof v === 'string' ? v : 'fields=x' })).not.toThrow();
      expect(() => validateCustomFieldRule(v)).not.toThrow();
      expect(() => buildLogLine(v as never, v, v as never)).not.toThrow();
    }), { numRuns: 400 });
  });
  it('on non-string inputs, 1 MB strings and 10k-deep nesting', () => {
    for (const v of [undefined, null, 42, {}, [], Symbol('x'), () => 1]) {
      expect(compileLogFilter(v as never, HTTP).diagnostics[0]!.code).toBe('filter-invalid-json');
      expect(() => compileLogFilter('{}', v as never)).not.toThrow();
    }
    const big = JSON.stringify({ where: { key: 'ClientRequestPath', operator: 'eq', value: 'x'.repeat(1 << 20) } });
    const r = compileLogFilter(big, HTTP);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['filter-size-limit']);
    for (const deep of ['['.repeat(10000), '{"a":'.repeat(10000), `{"where":${'{"or":['.repeat(10000)}`]) {
      expect(() => checkLogFilter(deep, HTTP)).not.toThrow();
      expect(() => validateLogpushJob(deep)).not.toThrow();
    }
    let o: unknown = 1;
    for (let i = 0; i < 10000; i++) o = { and: [o] };
    expect(() => validateLogpushJob({ dataset: 'http_requests', destination_conf: o, logpull_options: o })).not.toThrow();
  });
});

describe('every filter diagnostic has a pointer and a range inside the filter', () => {
  it('on generated filters, broken ones included', () => {
    const mutate = fc.constantFrom((t: string) => t, (t: string) => t.slice(0, -3), (t: string) => t.replace('"operator":"', '"operator":"n'), (t: string) => t.replace('"key":"', '"key":"X'), (t: string) => t.replace(/\d/, 'x'), (t: string) => `${t} x`);
    fc.assert(fc.property(nodeArb, mutate, (where, m) => {
      const text = m(JSON.stringify({ where }));
      for (const d of compileLogFilter(text, HTTP).diagnostics) {
        expect(typeof d.pointer, d.code).toBe('string');
        expect(d.range, d.code).toBeDefined();
        expect(d.range!.start).toBeGreaterThanOrEqual(0);
        expect(d.range!.end).toBeLessThanOrEqual(text.length);
        expect(d.range!.end).toBeGreaterThanOrEqual(d.range!.start);
      }
    }), { numRuns: 400 });
  });
});

describe('compiled matcher ≡ interpreter', () => {
  it('on generated filters and lines (codegen and closures)', () => {
    const reach = reachCounter();
    fc.assert(fc.property(nodeArb, fc.array(lineArb, { minLength: 1, maxLength: 8 }), (where, lines) => {
      reach.tried();
      const text = JSON.stringify({ where });
      const a = compileLogFilter(text, { ...HTTP, mode: 'codegen' });
      const b = compileLogFilter(text, { ...HTTP, mode: 'closures' });
      if (!a.filter) return; // over a limit: nothing to compare
      reach.reached();
      for (const line of lines) {
        const want = evaluateLogFilter(a.filter, line);
        expect(a.matcher!(line)).toBe(want);
        expect(b.matcher!(line)).toBe(want);
      }
    }), { numRuns: 600 });
    // Most generated filters are within the limits, so the property is not vacuous.
    reach.expectAtLeast(0.5, 'generated filter within the limits');
  });
});

describe('printer', () => {
  it('printed filters re-parse to the same filter', () => {
    const reach = reachCounter();
    fc.assert(fc.property(nodeArb, (where) => {
      reach.tried();
      const r = compileLogFilter(JSON.stringify({ where }), HTTP);
      if (!r.filter) return; // over a limit: nothing to print
      reach.reached();
      const printed = printLogFilter(r.filter);
      const again = compileLogFilter(printed, HTTP);
      expect(again.filter).toBeDefined();
      expect(logFilterToJSON(again.filter!)).toEqual(logFilterToJSON(r.filter));
      expect(printLogFilter(again.filter!)).toBe(printed);
      expect(typeof logFilterToExpression(r.filter)).toBe('string');
    }), { numRuns: 300 });
    reach.expectAtLeast(0.5, 'generated filter within the limits');
  });
  it('writes a readable expression', () => {
    const f = compileLogFilter('{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":"500"},{"or":[{"key":"ClientCountry","operator":"in","value":["us","ca"]},{"key":"ClientRequestPath","operator":"!startsWith","value":"/api"}]}]}}', HTTP).filter!;
    expect(logFilterToExpression(f)).toBe('EdgeResponseStatus >= 500 and (ClientCountry in ["us", "ca"] or ClientRequestPath does not start with "/api")');
    expect(printLogFilter(f)).toBe('{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"or":[{"key":"ClientCountry","operator":"in","value":["us","ca"]},{"key":"ClientRequestPath","operator":"!startsWith","value":"/api"}]}]}}');
    expect(JSON.parse(printLogFilter(f, { normalize: false })).where.and[0].value).toBe('500');
    // A group of one child needs no parentheses, wherever it stands.
    const one = compileLogFilter('{"where":{"and":[{"or":[{"key":"ClientCountry","operator":"eq","value":"us"}]},{"and":[{"key":"EdgeResponseStatus","operator":"eq","value":200}]}]}}', HTTP).filter!;
    expect(logFilterToExpression(one)).toBe('ClientCountry == "us" and EdgeResponseStatus == 200');
  });
});

describe('hostile strings in values stay data', () => {
  it('every operator matches hostile values literally and runs no injected code', () => {
    const g = globalThis as { pwned?: number };
    fc.assert(fc.property(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'binary', maxLength: 20 })), fc.constantFrom('eq', '!eq', 'startsWith', 'endsWith', 'contains', 'in', '!in'), (s, op) => {
      const value = op === 'in' || op === '!in' ? [s, `${s}x`, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] : s;
      const text = JSON.stringify({ where: { key: 'ClientRequestPath', operator: op, value } });
      const r = compileLogFilter(text, { ...HTTP, mode: 'codegen' });
      expect(r.matcher).toBeDefined();
      const { source } = generateMatcherSource(r.filter!);
      expect(source).not.toMatch(/[\u2028\u2029<>]/);
      // The source as it is: every string literal is written the JSON way (escapes only from JSON's set,
      // no raw control character, quote or backslash) and parses back to the key or a value of the filter;
      // outside the literals there is no template, comment or user text.
      const literals = source.match(/"(?:[^"\\\n]|\\.)*"/g) ?? [];
      for (const lit of literals) expect(lit).toMatch(/^"(?:[^"\\\u0000-\u001f\u2028\u2029]|\\["\\/bfnrt]|\\u[0-9a-f]{4})*"$/);
      const parsed = literals.map((lit) => JSON.parse(lit) as string);
      expect(parsed).toContain('ClientRequestPath');
      expect(parsed, 'the value is in the source as a literal').toContain(s);
      expect(source.replace(/"(?:[^"\\\n]|\\.)*"/g, '""')).not.toMatch(/[`$]|\*\/|\/\*/);
      const positive = !op.startsWith('!');
      expect(r.matcher!({ ClientRequestPath: s })).toBe(positive);
      expect(r.matcher!({ ClientRequestPath: `${s}` })).toBe(evaluateLogFilter(r.filter!, { ClientRequestPath: s }));
      expect(g.pwned).toBeUndefined();
    }), { numRuns: 400 });
  });
  it('keys are embedded escaped too', () => {
    // Field names come from the catalog, but the generator escapes them anyway.
    const f = compileLogFilter('{"where":{"key":"ClientIP","operator":"eq","value":"1"}}', HTTP).filter!;
    const clause = { ...(f.where as object), key: '"]); globalThis.pwned = 2; (["' } as typeof f.where;
    const { source } = generateMatcherSource({ ...f, where: clause });
    expect(source).toContain(jsString('"]); globalThis.pwned = 2; (["'));
    expect((globalThis as { pwned?: number }).pwned).toBeUndefined();
  });
});

describe('evaluation semantics (logpush.md)', () => {
  const m = (w: unknown) => {
    const r = compileLogFilter(JSON.stringify({ where: w }), HTTP);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return (line: Record<string, unknown>) => {
      const v = evaluateLogFilter(r.filter!, line);
      expect(r.matcher!(line)).toBe(v);
      return v;
    };
  };
  it('a missing or null field makes every clause false, negated ones included', () => {
    for (const op of ['eq', '!eq', 'startsWith', '!startsWith', 'contains', '!contains']) {
      const t = m({ key: 'ClientRequestPath', operator: op, value: 'x' });
      expect(t({})).toBe(false);
      expect(t({ ClientRequestPath: null })).toBe(false);
    }
    expect(m({ key: 'ClientRequestPath', operator: '!in', value: ['x'] })({})).toBe(false);
  });
  it('on a present value !op is exactly not op', () => {
    expect(m({ key: 'ClientRequestPath', operator: '!eq', value: 'x' })({ ClientRequestPath: 'y' })).toBe(true);
    expect(m({ key: 'ClientRequestPath', operator: '!startsWith', value: '/a' })({ ClientRequestPath: '/b' })).toBe(true);
    expect(m({ key: 'ClientRequestPath', operator: '!startsWith', value: '/a' })({ ClientRequestPath: 5 })).toBe(true);
  });
  it('contains is substring on strings and element equality on arrays; in/!in take no array field (the Filters page)', () => {
    expect(m({ key: 'ClientRequestPath', operator: 'contains', value: 'ta' })({ ClientRequestPath: '/static' })).toBe(true);
    expect(m({ key: 'SecurityActions', operator: 'contains', value: 'bl' })({ SecurityActions: ['block'] })).toBe(false);
    expect(m({ key: 'SecurityActions', operator: 'contains', value: 'block' })({ SecurityActions: ['log', 'block'] })).toBe(true);
    for (const operator of ['in', '!in']) {
      const r = compileLogFilter(JSON.stringify({ where: { key: 'SecurityActions', operator, value: ['block'] } }), HTTP);
      expect(r.diagnostics.map((d) => d.code)).toEqual(['filter-operator-type']);
    }
    expect(m({ key: 'BotDetectionIDs', operator: 'contains', value: '7' })({ BotDetectionIDs: [7] })).toBe(true);
  });
  it('comparisons are case-sensitive and typed', () => {
    expect(m({ key: 'ClientCountry', operator: 'eq', value: 'us' })({ ClientCountry: 'US' })).toBe(false);
    expect(m({ key: 'EdgeResponseStatus', operator: 'eq', value: '500' })({ EdgeResponseStatus: 500 })).toBe(true);
    expect(m({ key: 'EdgeResponseStatus', operator: 'geq', value: 500 })({ EdgeResponseStatus: '503' })).toBe(false);
    expect(m({ key: 'EdgeStartTimestamp', operator: 'eq', value: 5 })({ EdgeStartTimestamp: '5' })).toBe(true);
    expect(m({ key: 'WorkerSubrequest', operator: '!eq', value: true })({ WorkerSubrequest: false })).toBe(true);
  });
  it('the interpreter matches nothing on a non-object line', () => {
    const f = compileLogFilter('{"where":{"key":"ClientIP","operator":"!eq","value":"x"}}', HTTP);
    for (const line of [null, undefined, 5, 'x']) {
      expect(evaluateLogFilter(f.filter!, line)).toBe(false);
      expect(f.matcher!(line as never)).toBe(false);
    }
  });
});

describe('Content-Security-Policy fallback', () => {
  it('compiles to closures when new Function is forbidden, with the same answers', () => {
    const text = '{"where":{"or":[{"key":"ClientCountry","operator":"in","value":["a","b","c","d","e","f","g","h","i","j"]},{"key":"EdgeResponseStatus","operator":"geq","value":500}]}}';
    const g = globalThis as { Function: FunctionConstructor };
    const real = g.Function;
    let r: ReturnType<typeof compileLogFilter>;
    let codegen: ReturnType<typeof compileLogFilter>;
    g.Function = function blocked() {
      throw new EvalError('Refused to evaluate a string as JavaScript (CSP)');
    } as unknown as FunctionConstructor;
    try {
      r = compileLogFilter(text, HTTP);
      codegen = compileLogFilter(text, { ...HTTP, mode: 'codegen' });
    } finally {
      g.Function = real;
    }
    expect(r.matcher).toBeTypeOf('function');
    expect(codegen.matcher).toBeTypeOf('function');
    // Generated matchers are named; the closure tree's root is not: the blocked path really fell back.
    expect(compileLogFilter(text, HTTP).matcher!.name).toBe('logFilterMatcher');
    expect(r.matcher!.name).not.toBe('logFilterMatcher');
    expect(r.matcher!({ ClientCountry: 'c' })).toBe(true);
    expect(r.matcher!({ ClientCountry: 'z', EdgeResponseStatus: 502 })).toBe(true);
    expect(r.matcher!({ ClientCountry: 'z', EdgeResponseStatus: 200 })).toBe(false);
  });
});
