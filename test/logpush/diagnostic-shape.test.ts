/**
 * The shape every Logpush diagnostic has, whichever entry point made it: `{code, severity, message,
 * range?, pointer?, rangeIn?, fix?, data?}` with no member present and undefined (a consumer that
 * tests `'range' in d`, or spreads one diagnostic into another, would otherwise see a range that is
 * not there), `rangeIn` only beside a `range`, and the code table's severity.
 */
import { describe, expect, it } from 'vitest';
import {
  compileLogFilter, customFieldNames, LOGPUSH_CODES, validateCustomFieldRule, validateCustomFieldRules, validateLogpushJob,
} from '../../src/logpush/index.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';

const RULE = (ap: unknown) => ({ action: 'log_custom_field', expression: 'true', action_parameters: ap });

/** Bad input through every public checker: as text (ranges) and as values (pointers only). */
function samples(): [string, Diagnostic[]][] {
  const filter = (text: string) => [text, compileLogFilter(text, { dataset: 'http_requests' }).diagnostics] as [string, Diagnostic[]];
  return [
    filter('{"where":{"key":"ClientCountry","operator":"neq","value":"us"}}'),
    filter('{"where":{"key":"EdgeResponseStatus","operator":"eq","value":"500"}}'),
    filter('{"where":{"key":"Nope","operator":"eq","value":1}}'),
    filter('{"where":{"and":[]}}'),
    filter('{"where":{"key":"SecurityActions","operator":"in","value":["block"]}}'),
    filter('not json'),
    ['job text', validateLogpushJob('{"dataset":"http_requests","destination_conf":"s3://b?region=x","logpull_options":"fields=Nope&timestamps=rfc","filter":"{}"}')],
    ['job value', validateLogpushJob({ dataset: 'http_requests', destination_conf: 'ftp://x', logpull_options: 'fields=ClientIP&bad=1', filter: '{"where":{}}' })],
    ['job not an object', validateLogpushJob([1])],
    ['custom fields: upper-case header, bad cookie name, duplicate', validateCustomFieldRule(RULE({
      request_fields: [{ name: 'X-Upper' }, { name: 'x-upper' }], cookie_fields: [{ name: 'bad name' }], response_fields: [{ name: 5 }],
    }))],
    ['custom fields: not an object', validateCustomFieldRule(7, { pointer: '/rules/0' })],
    ['custom field rules: not an array', validateCustomFieldRules(7 as never)],
  ];
}

describe('Logpush diagnostics have one shape', () => {
  const all = samples();
  it('every sample produced diagnostics (the loop below is not empty)', () => {
    for (const [what, ds] of all) expect(ds.length, what).toBeGreaterThan(0);
  });
  it('no member is present and undefined; rangeIn only beside a range; the table\'s severity', () => {
    let withRange = 0;
    let withPointer = 0;
    for (const [what, ds] of all) {
      for (const d of ds) {
        const where = `${what}: ${JSON.stringify(d)}`;
        expect(Object.entries(d).filter(([, v]) => v === undefined).map(([k]) => k), where).toEqual([]);
        if ('rangeIn' in d) expect(d.range, where).toBeDefined();
        expect(d.severity, where).toBe(LOGPUSH_CODES[d.code as keyof typeof LOGPUSH_CODES]?.severity ?? d.severity);
        expect(typeof d.message, where).toBe('string');
        if (d.range) withRange++;
        if (d.pointer !== undefined) withPointer++;
      }
    }
    expect(withRange).toBeGreaterThan(3);
    expect(withPointer).toBeGreaterThan(3);
  });
});

describe('customFieldNames', () => {
  it('takes the names that are strings, from entries that are objects, per array', () => {
    const rule = RULE({
      request_fields: [{ name: 'a' }, 'b', { name: 5 }, null, ['c'], { name: 'd' }],
      response_fields: [{ nom: 'x' }, { name: 'e' }],
      cookie_fields: 'f',
    });
    expect(customFieldNames(rule)).toEqual({ request_fields: ['a', 'd'], response_fields: ['e'], cookie_fields: [] });
    expect(customFieldNames({ action_parameters: 5 })).toEqual({ request_fields: [], response_fields: [], cookie_fields: [] });
  });
});
