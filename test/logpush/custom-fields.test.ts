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

describe('custom field names against node:http (RFC 9110 tokens)', () => {
  it('a name is refused exactly when node:http refuses it as a header name, the range on the first bad character', async () => {
    const { validateHeaderName } = await import('node:http');
    const nodeAccepts = (n: string) => {
      try {
        validateHeaderName(n);
        return true;
      } catch {
        return false;
      }
    };
    let refused = 0;
    for (let c = 0; c < 0x180; c++) {
      const ch = String.fromCharCode(c);
      for (const [k, n] of [['request_fields', `a${ch}b`], ['cookie_fields', `${ch}z`]] as const) {
        const d = validateCustomFieldRule(rule({ [k]: [{ name: n }] })).filter((x) => x.code === 'custom-field-invalid-name');
        expect(d.length === 0, `${k} ${JSON.stringify(n)}`).toBe(nodeAccepts(n));
        if (d.length > 0) {
          refused++;
          const at = k === 'request_fields' ? 1 : 0;
          expect(d[0]!.range, JSON.stringify(n)).toEqual({ start: at, end: at + 1 });
          expect(d[0]!.message).toBe(`${k === 'request_fields' ? 'Header' : 'Cookie'} name ${JSON.stringify(n)} has ${JSON.stringify(ch)}, which a ${k === 'request_fields' ? 'header' : 'cookie'} name cannot hold`);
        }
      }
    }
    expect(refused).toBeGreaterThan(300);
  });
});

describe('custom field diagnostics in full (words, pointers, ranges, fixes)', () => {
  const all = (r: unknown, pointer?: string) => validateCustomFieldRule(r, pointer === undefined ? undefined : { pointer }).map((d) => ({ code: d.code, message: d.message, pointer: d.pointer, range: d.range, fix: d.fix, data: d.data }));
  it('action and expression', () => {
    expect(all(rule({ request_fields: [] }, { action: 'log', expression: ' true ' }), '/r')).toEqual([
      { code: 'custom-field-action', message: 'Rules of the http_log_custom_fields phase have action "log_custom_field", not "log"', pointer: '/r/action', range: { start: 0, end: 3 }, fix: { title: 'replace with "log_custom_field"', edits: [{ range: { start: 0, end: 3 }, newText: 'log_custom_field' }] }, data: undefined },
    ]);
    const e = all(rule({ request_fields: [] }, { action: 5, expression: 7 }));
    expect(e.map((x) => [x.code, x.pointer, x.range, x.fix])).toEqual([
      ['custom-field-action', '/action', undefined, undefined],
      ['custom-field-expression', '/expression', undefined, undefined],
    ]);
    expect(all(rule({ request_fields: [] }, { expression: 'false' }))).toEqual([
      { code: 'custom-field-expression', message: 'A log_custom_field rule has the expression "true", not "false"', pointer: '/expression', range: { start: 0, end: 5 }, fix: { title: 'replace with true', edits: [{ range: { start: 0, end: 5 }, newText: 'true' }] }, data: undefined },
    ]);
  });

  it('parameters, arrays and entries', () => {
    expect(all(rule(undefined), '/r').map((x) => [x.code, x.pointer, x.message])).toEqual([
      ['custom-field-no-fields', '/r', 'The rule has no action_parameters; give it request_fields, response_fields or cookie_fields'],
    ]);
    expect(all(rule([]), '/r').map((x) => [x.code, x.pointer])).toEqual([['custom-field-rule-not-object', '/r/action_parameters']]);
    expect(all(rule({ request_field: [], cookies: [] })).map((x) => [x.code, x.pointer, x.message, x.data])).toEqual([
      ['custom-field-unknown-parameter', '/action_parameters/request_field', 'action_parameters has no "request_field"; it holds request_fields, response_fields, cookie_fields. Did you mean "request_fields"?', { key: 'request_field', suggestion: 'request_fields' }],
      ['custom-field-unknown-parameter', '/action_parameters/cookies', 'action_parameters has no "cookies"; it holds request_fields, response_fields, cookie_fields', { key: 'cookies', suggestion: undefined }],
      ['custom-field-no-fields', '/action_parameters', 'action_parameters needs at least one of request_fields, response_fields, cookie_fields', undefined],
    ]);
    expect(all(rule({ response_fields: {} })).map((x) => [x.pointer, x.message])).toEqual([['/action_parameters/response_fields', 'response_fields is an array of {"name": …} objects, not an object']]);
    expect(all(rule({ cookie_fields: ['x', { name: 3 }, { name: 'a', other: 1, more: 2 }] })).map((x) => [x.pointer, x.message])).toEqual([
      ['/action_parameters/cookie_fields/0', 'cookie_fields[0] must be {"name": "<cookie name>"}, not "x"'],
      ['/action_parameters/cookie_fields/1', 'cookie_fields[1] must be {"name": "<cookie name>"}, not an object with name 3'],
      ['/action_parameters/cookie_fields/2/other', 'cookie_fields[2] has "other", "more" besides "name"'],
    ]);
    expect(all(rule({ request_fields: [{ name: '' }] }))[0]!.message).toBe('request_fields[0] must be {"name": "<header name>"}, not an object with name ""');
  });

  it('upper-case headers and duplicates', () => {
    expect(all(rule({ response_fields: [{ name: 'Server' }, { name: 'server' }] }), '/r')).toEqual([
      { code: 'custom-field-uppercase-header', message: 'Header names in response_fields are lower case: write "server", not "Server"', pointer: '/r/action_parameters/response_fields/0/name', range: { start: 0, end: 6 }, fix: { title: 'replace with "server"', edits: [{ range: { start: 0, end: 6 }, newText: 'server' }] }, data: undefined },
      { code: 'custom-field-duplicate', message: '"server" is already in response_fields at index 0 (header names ignore case); remove one', pointer: '/r/action_parameters/response_fields/1/name', range: undefined, fix: undefined, data: { first: 0 } },
    ]);
    expect(all(rule({ cookie_fields: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] })).map((x) => x.message)).toEqual(['"a" is already in cookie_fields at index 0; remove one']);
    expect(all(rule({ cookie_fields: [{ name: 'Ab' }] }))).toEqual([]);
  });

  it('the limit: one rule over it is reported by the rule, not again for the zone', () => {
    const big = rule({ request_fields: names(41) });
    const d = validateCustomFieldRules([big, rule({ request_fields: names(1) })], { pointer: '/z' });
    expect(d.map((x) => [x.code, x.pointer, x.message])).toEqual([
      ['custom-field-limit', '/z/0/action_parameters', 'The rule configures 41 custom fields; the limit is 40 per zone over request, response and cookie fields'],
    ]);
    const z = validateCustomFieldRules([rule({ request_fields: names(40) }), rule({ request_fields: names(1) })], { pointer: '/z' });
    expect(z.map((x) => [x.code, x.pointer, x.message, x.data])).toEqual([
      ['custom-field-limit', '/z', "The zone's rules configure 41 custom fields together; the limit is 40 per zone", { limit: 40, measured: 41 }],
    ]);
    expect(validateCustomFieldRules('x' as unknown as unknown[], { pointer: '/z' }).map((x) => [x.code, x.pointer, x.message])).toEqual([
      ['custom-field-rule-not-object', '/z', "The zone's custom field rules are an array, not \"x\""],
    ]);
    expect(validateCustomFieldRules([])).toEqual([]);
  });
});
