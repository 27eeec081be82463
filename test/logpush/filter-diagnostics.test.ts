/**
 * Every diagnostic the filter checker can give, once each, pinned whole (code, severity, words, pointer,
 * the text its range covers, fix, data) in a reviewed golden file: the messages are what users read, and
 * a changed word shows up here as a diff to review. Regenerate with `npx vitest run
 * test/logpush/filter-diagnostics.test.ts -u` and read the diff.
 */
import { describe, expect, it } from 'vitest';
import { checkLogFilter } from '../../src/logpush/index.js';

const clause = (key: unknown, operator: unknown, value: unknown) => ({ key, operator, value });
const w = (where: unknown) => JSON.stringify({ where });
const nest = (n: number): unknown => (n === 0 ? clause('ClientCountry', 'eq', 'us') : { and: [nest(n - 1)] });

/** [label, filter text, dataset]. */
const CASES: [string, unknown, string][] = [
  ['not a string', 5, 'http_requests'],
  ['unknown dataset with a near name', w(clause('ClientCountry', 'eq', 'us')), 'http_request'],
  ['unknown dataset', w(clause('ClientCountry', 'eq', 'us')), 'zzz'],
  ['invalid JSON', '{"where": ', 'http_requests'],
  ['JSON nested past the cap', `${'['.repeat(200)}${']'.repeat(200)}`, 'http_requests'],
  ['over 4x the byte limit: unread', `{"where":${' '.repeat(4000)}}`, 'http_requests'],
  ['over the byte limit (UTF-8)', w(clause('ClientRequestPath', 'eq', 'é'.repeat(480))), 'http_requests'],
  ['at the byte limit', w(clause('ClientRequestPath', 'eq', 'x'.repeat(1000 - w(clause('ClientRequestPath', 'eq', '')).length))), 'http_requests'],
  ['not an object', '[]', 'http_requests'],
  ['duplicate key', '{"where":{"key":"ClientCountry","key":"ClientCountry","operator":"eq","value":"us"}}', 'http_requests'],
  ['no where, unknown key with a near name', '{"wher":{}}', 'http_requests'],
  ['node not an object', w(7), 'http_requests'],
  ['and with or', w({ and: [], or: [] }), 'http_requests'],
  ['and with clause keys', w({ and: [], key: 'x' }), 'http_requests'],
  ['AND spelt in capitals', w({ AND: [clause('ClientCountry', 'eq', 'us')] }), 'http_requests'],
  ['group not an array', w({ or: {} }), 'http_requests'],
  ['empty group', w({ and: [] }), 'http_requests'],
  ['unknown key in a group', w({ and: [clause('ClientCountry', 'eq', 'us')], extra: 1 }), 'http_requests'],
  ['depth 16 passes', w(nest(16)), 'http_requests'],
  ['depth 17', w(nest(17)), 'http_requests'],
  ['depth 19 reported once', w({ or: [nest(18), nest(18)] }), 'http_requests'],
  ['30 operators: no operator limit (the byte limit still)', w({ and: Array.from({ length: 29 }, () => clause('ClientCountry', 'eq', 'us')) }), 'http_requests'],
  ['31 operators: the operator limit', w({ and: Array.from({ length: 30 }, () => clause('ClientCountry', 'eq', 'us')) }), 'http_requests'],
  ['missing members', w({ key: 'ClientCountry' }), 'http_requests'],
  ['unknown clause key', w({ ...clause('ClientCountry', 'eq', 'us'), vaule: 1 }), 'http_requests'],
  ['key not a string', w(clause(5, 'eq', 'us')), 'http_requests'],
  ['unknown field with a near name', w(clause('ClientCountyr', 'eq', 'us')), 'http_requests'],
  ['unknown field', w(clause('Qqqqqqqqqq', 'eq', 'us')), 'http_requests'],
  ['operator not a string', w(clause('ClientCountry', 5, 'us')), 'http_requests'],
  ['misspelt operator', w(clause('ClientCountry', 'neq', 'us')), 'http_requests'],
  ['operator in the wrong case', w(clause('ClientCountry', 'StartsWith', 'u')), 'http_requests'],
  ['operator near a real one', w(clause('ClientCountry', 'startWith', 'u')), 'http_requests'],
  ['unknown operator', w(clause('ClientCountry', 'zzzzzz', 'us')), 'http_requests'],
  ['object field', w(clause('Cookies', 'eq', 'x')), 'http_requests'],
  ['float field', w(clause('EdgeResponseCompressionRatio', 'eq', 1)), 'http_requests'],
  ['operator for another type (int field)', w(clause('EdgeResponseStatus', 'startsWith', '5')), 'http_requests'],
  ['operator for another type (string field)', w(clause('ClientCountry', 'lt', 5)), 'http_requests'],
  ['contains on a timestamp field takes a string', w(clause('EdgeStartTimestamp', 'contains', 5)), 'http_requests'],
  ['deprecated field', w(clause('CacheResponseStatus', 'eq', 200)), 'http_requests'],
  ['unfilterable field', w(clause('Action', 'eq', 'block')), 'firewall_events'],
  ['in without an array (fixable)', w(clause('ClientCountry', 'in', 'us')), 'http_requests'],
  ['in without an array (not fixable)', w(clause('ClientCountry', 'in', { a: 1 })), 'http_requests'],
  ['in []', w(clause('ClientCountry', 'in', [])), 'http_requests'],
  ['!in []', w(clause('ClientCountry', '!in', [])), 'http_requests'],
  ['int as a string', w(clause('EdgeResponseStatus', 'eq', '500')), 'http_requests'],
  ['int elements as strings', w(clause('EdgeResponseStatus', 'in', ['500', 501])), 'http_requests'],
  ['int given a fraction', w(clause('EdgeResponseStatus', 'eq', 500.5)), 'http_requests'],
  ['int given text', w(clause('EdgeResponseStatus', 'geq', 'abc')), 'http_requests'],
  ['string given a number', w(clause('ClientCountry', 'eq', 5)), 'http_requests'],
  ['string given a bool', w(clause('ClientCountry', 'eq', true)), 'http_requests'],
  ['string given null', w(clause('ClientCountry', 'eq', null)), 'http_requests'],
  ['string element given an array', w(clause('ClientCountry', 'in', [['us']])), 'http_requests'],
  ['bool given "true"', w(clause('WorkerSubrequest', 'eq', 'true')), 'http_requests'],
  ['bool given 1', w(clause('WorkerSubrequest', 'eq', 1)), 'http_requests'],
  ['timestamp ordering given text', w(clause('EdgeStartTimestamp', 'lt', '2024-01-01')), 'http_requests'],
  ['timestamp ordering given 19 digits', w(clause('EdgeStartTimestamp', 'lt', '1700000000000000000')), 'http_requests'],
  ['timestamp startsWith given a number', w(clause('EdgeStartTimestamp', 'startsWith', 2024)), 'http_requests'],
  ['timestamp eq given an object', w(clause('EdgeStartTimestamp', 'eq', {})), 'http_requests'],
  ['array field contains the wrong element type', w(clause('SecurityActions', 'contains', 5)), 'http_requests'],
  ['array int field in with strings', w(clause('BotDetectionIDs', 'in', ['x'])), 'http_requests'],
];

describe('every filter diagnostic, pinned whole', () => {
  it('matches the reviewed golden file', async () => {
    const out = CASES.map(([label, text, dataset]) => {
      const r = checkLogFilter(text as string, { dataset });
      return {
        label,
        accepted: r.filter !== undefined,
        diagnostics: r.diagnostics.map((d) => ({
          code: d.code,
          severity: d.severity,
          message: d.message.length > 300 ? `${d.message.slice(0, 300)}…` : d.message,
          pointer: d.pointer,
          ...(d.range && typeof text === 'string' ? { at: [d.range.start, d.range.end], text: text.slice(d.range.start, d.range.end).slice(0, 80) } : {}),
          ...(d.fix ? { fix: d.fix.edits.map((e) => [e.range.start, e.range.end, e.newText]) } : {}),
          ...(d.data ? { data: d.data } : {}),
        })),
      };
    });
    // Each case gives what its label says (one diagnostic code at least, or acceptance).
    for (const o of out) expect(o.accepted || o.diagnostics.length > 0, o.label).toBe(true);
    await expect(`${JSON.stringify(out, null, 1)}\n`).toMatchFileSnapshot('fixtures/filter-diagnostics.golden.json');
  });
});
