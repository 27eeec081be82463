import { describe, expect, it } from 'vitest';
import { compileLogFilter, OPERATORS, type LogFieldType as FieldType } from '../../src/logpush/index.js';

/** One http_requests field of each catalogued type. */
const FIELD_OF: Record<FieldType, string> = {
  string: 'ClientCountry',
  int: 'EdgeResponseStatus',
  bool: 'WorkerSubrequest',
  float: 'EdgeResponseCompressionRatio',
  int_or_string: 'EdgeStartTimestamp',
  array_string: 'SecurityActions',
  array_int: 'BotDetectionIDs',
  object: 'RequestHeaders',
};
const SAMPLE: Record<FieldType, unknown> = {
  string: 'x', int: 5, bool: true, float: 1.5, int_or_string: 5, array_string: 'x', array_int: 5, object: 'x',
};

/**
 * The spec's table (service.md "Filters", logpush.md), written out rather than derived, so the test can
 * fail: which field types each operator accepts. `int or string` accepts what either accepts.
 */
const ACCEPTS: Record<string, FieldType[]> = {
  eq: ['string', 'int', 'bool', 'int_or_string'],
  '!eq': ['string', 'int', 'bool', 'int_or_string'],
  lt: ['int', 'int_or_string'],
  leq: ['int', 'int_or_string'],
  gt: ['int', 'int_or_string'],
  geq: ['int', 'int_or_string'],
  startsWith: ['string', 'int_or_string'],
  endsWith: ['string', 'int_or_string'],
  '!startsWith': ['string', 'int_or_string'],
  '!endsWith': ['string', 'int_or_string'],
  contains: ['string', 'int_or_string', 'array_string', 'array_int'],
  '!contains': ['string', 'int_or_string', 'array_string', 'array_int'],
  in: ['string', 'int', 'int_or_string', 'array_string', 'array_int'],
  '!in': ['string', 'int', 'int_or_string', 'array_string', 'array_int'],
};
const TYPES = Object.keys(FIELD_OF) as FieldType[];
const ARRAY_OPS = new Set(['in', '!in']);

describe('operator table × every field type', () => {
  it('covers all 14 operators of the spec', () => {
    expect(OPERATORS.map((o) => o.name).sort()).toEqual(Object.keys(ACCEPTS).sort());
  });
  for (const op of Object.keys(ACCEPTS)) {
    for (const type of TYPES) {
      const accepted = ACCEPTS[op]!.includes(type);
      it(`${op} on ${type} (${FIELD_OF[type]}) is ${accepted ? 'accepted' : 'rejected'}`, () => {
        let value = SAMPLE[type];
        // startsWith & co. on the timestamp field take a string.
        if (type === 'int_or_string' && ['startsWith', 'endsWith', '!startsWith', '!endsWith', 'contains', '!contains'].includes(op)) value = '2024-';
        if (ARRAY_OPS.has(op)) value = [value];
        const text = JSON.stringify({ where: { key: FIELD_OF[type], operator: op, value } });
        const r = compileLogFilter(text, { dataset: 'http_requests' });
        const errors = r.diagnostics.filter((d) => d.severity === 'error');
        if (accepted) {
          expect(errors).toEqual([]);
          expect(r.matcher).toBeTypeOf('function');
        } else {
          expect(r.matcher).toBeUndefined();
          const code = type === 'float' ? 'filter-float-field' : type === 'object' ? 'filter-object-field' : 'filter-operator-type';
          expect(errors.map((d) => d.code)).toEqual([code]);
          expect(errors[0]!.pointer).toBe(code === 'filter-operator-type' ? '/where/operator' : '/where/key');
          // The range covers the JSON token the pointer names.
          const tokenText = text.slice(errors[0]!.range!.start, errors[0]!.range!.end);
          expect(tokenText).toBe(JSON.stringify(code === 'filter-operator-type' ? op : FIELD_OF[type]));
        }
      });
    }
  }
  it('warns that array[int] fields are listed as not filterable, without rejecting', () => {
    const r = compileLogFilter('{"where":{"key":"BotDetectionIDs","operator":"contains","value":5}}', { dataset: 'http_requests' });
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([['filter-unfilterable-field', 'warning']]);
    expect(r.matcher!({ BotDetectionIDs: [1, 5] })).toBe(true);
  });
});
