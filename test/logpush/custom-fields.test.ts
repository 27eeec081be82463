import { describe, expect, it } from 'vitest';
import { validateCustomFieldRule, validateCustomFieldRules } from '../../src/logpush/index.js';

const rule = (ap: unknown, extra: Record<string, unknown> = {}) => ({ action: 'log_custom_field', expression: 'true', action_parameters: ap, ...extra });
const names = (n: number, p = 'h') => Array.from({ length: n }, (_, i) => ({ name: `${p}${i}` }));
const codes = (r: unknown) => validateCustomFieldRule(r).map((d) => d.code);

describe('validateCustomFieldRule', () => {
  it('accepts the spec example shape', () => {
    expect(validateCustomFieldRule(rule({
      request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }, { name: 'host' }],
      response_fields: [{ name: 'server' }, { name: 'content-type' }, { name: 'allow' }],
      cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }, { name: '__cfruid' }],
    }))).toEqual([]);
  });
  it('action, expression and parameters', () => {
    expect(codes(rule({ request_fields: [] }, { action: 'log' }))).toEqual(['custom-field-action']);
    const e = validateCustomFieldRule(rule({ request_fields: [] }, { expression: 'http.host eq "a"' }));
    expect(e.map((d) => d.code)).toEqual(['custom-field-expression']);
    expect(e[0]!.fix!.edits[0]!.newText).toBe('true');
    expect(codes(rule({}))).toEqual(['custom-field-no-fields']);
    expect(codes(rule(undefined))).toEqual(['custom-field-no-fields']);
    expect(codes(rule({ request_field: [] }))).toEqual(['custom-field-unknown-parameter', 'custom-field-no-fields']);
    expect(codes(rule({ request_fields: 'host' }))).toEqual(['custom-field-not-array']);
    expect(codes(rule({ request_fields: ['host', { name: '' }, { name: 'a', x: 1 }] }))).toEqual(['custom-field-entry', 'custom-field-entry', 'custom-field-entry']);
    expect(codes(rule({ request_fields: [{ name: 'bad header' }] }))).toEqual(['custom-field-invalid-name']);
    expect(codes([])).toEqual(['custom-field-rule-not-object']);
  });
  it('header names are lower case (fix offered); cookie names keep their case', () => {
    const d = validateCustomFieldRule(rule({ request_fields: [{ name: 'X-Forwarded-For' }], cookie_fields: [{ name: 'accountNumber' }] }), { pointer: '/rules/0' });
    expect(d.map((x) => [x.code, x.pointer])).toEqual([['custom-field-uppercase-header', '/rules/0/action_parameters/request_fields/0/name']]);
    expect(d[0]!.fix!.edits[0]).toEqual({ range: { start: 0, end: 15 }, newText: 'x-forwarded-for' });
    expect(d[0]!.rangeIn).toBe('value');
  });
  it('duplicates: headers compared case-insensitively, cookies exactly', () => {
    expect(codes(rule({ request_fields: [{ name: 'host' }, { name: 'host' }] }))).toEqual(['custom-field-duplicate']);
    expect(codes(rule({ cookie_fields: [{ name: 'a' }, { name: 'A' }] }))).toEqual([]);
    expect(codes(rule({ request_fields: [{ name: 'host' }], response_fields: [{ name: 'host' }] }))).toEqual([]);
  });
  it('40 fields over the three arrays pass, 41 fail naming the limit and figure', () => {
    expect(codes(rule({ request_fields: names(20), response_fields: names(10), cookie_fields: names(10) }))).toEqual([]);
    const d = validateCustomFieldRule(rule({ request_fields: names(20), response_fields: names(11), cookie_fields: names(10) }));
    expect(d.map((x) => x.code)).toEqual(['custom-field-limit']);
    expect(d[0]!.data).toEqual({ limit: 40, measured: 41 });
    expect(d[0]!.message).toContain('41');
  });
  it('counts the zone total over several rules', () => {
    const a = rule({ request_fields: names(25) });
    const b = rule({ cookie_fields: names(15, 'c') });
    expect(validateCustomFieldRules([a, b])).toEqual([]);
    const d = validateCustomFieldRules([a, rule({ cookie_fields: names(16, 'c') })], { pointer: '/rules' });
    expect(d.map((x) => [x.code, x.pointer, x.data])).toEqual([['custom-field-limit', '/rules', { limit: 40, measured: 41 }]]);
    expect(validateCustomFieldRules([5], { pointer: '/rules' })[0]!.pointer).toBe('/rules/0');
  });
});
