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
  array_object: 'RData',
  object: 'RequestHeaders',
};
/** The dataset each field is taken from (`array[object]` fields live in account datasets). */
const DATASET_OF: Partial<Record<FieldType, string>> = { array_object: 'gateway_dns' };
const SAMPLE: Record<FieldType, unknown> = {
  string: 'x', int: 5, bool: true, float: 1.5, int_or_string: 5, array_string: 'x', array_int: 5, array_object: 'x', object: 'x',
};

/**
 * The public Filters page's table (cloudflare-docs src/content/docs/logs/logpush/logpush-job/filters.mdx
 * @0c50ffa0) with its filtering-limitations note, written out rather than derived, so the test can fail:
 * which field types each operator accepts. `int or string` accepts what either accepts; `in`/`!in` take
 * no Array; `object` and `array[object]` take nothing (the note).
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
  in: ['string', 'int', 'int_or_string'],
  '!in': ['string', 'int', 'int_or_string'],
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
        const r = compileLogFilter(text, { dataset: DATASET_OF[type] ?? 'http_requests' });
        const errors = r.diagnostics.filter((d) => d.severity === 'error');
        if (accepted) {
          expect(errors).toEqual([]);
          expect(r.matcher).toBeTypeOf('function');
        } else {
          expect(r.matcher).toBeUndefined();
          const code = type === 'float' ? 'filter-float-field' : type === 'object' || type === 'array_object' ? 'filter-object-field' : 'filter-operator-type';
          if (type === 'array_object') expect(r.diagnostics.map((d) => d.code)).toContain('filter-deprecated-field');
          expect(errors.map((d) => d.code)).toEqual([code]);
          expect(errors[0]!.pointer).toBe(code === 'filter-operator-type' ? '/where/operator' : '/where/key');
          // The range covers the JSON token the pointer names.
          const tokenText = text.slice(errors[0]!.range!.start, errors[0]!.range!.end);
          expect(tokenText).toBe(JSON.stringify(code === 'filter-operator-type' ? op : FIELD_OF[type]));
        }
      });
    }
  }
  it('array[int] fields are filterable: the current limitations note no longer lists them', () => {
    const r = compileLogFilter('{"where":{"key":"BotDetectionIDs","operator":"contains","value":5}}', { dataset: 'http_requests' });
    expect(r.diagnostics).toEqual([]);
    expect(r.matcher!({ BotDetectionIDs: [1, 5] })).toBe(true);
  });
  it('the note\'s two findings have one severity: an object field and a listed firewall_events field are both errors', () => {
    const obj = compileLogFilter('{"where":{"key":"Metadata","operator":"eq","value":"x"}}', { dataset: 'audit_logs' });
    const fw = compileLogFilter('{"where":{"key":"Description","operator":"eq","value":"x"}}', { dataset: 'firewall_events' });
    expect(obj.diagnostics.map((d) => [d.code, d.severity])).toEqual([['filter-object-field', 'error']]);
    expect(fw.diagnostics.map((d) => [d.code, d.severity])).toEqual([['filter-unfilterable-field', 'error']]);
    expect(fw.matcher).toBeUndefined();
  });
});
