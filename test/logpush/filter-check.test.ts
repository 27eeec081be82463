import { describe, expect, it } from 'vitest';
import { applyEdits } from 'jsonc-parser';
import { compileLogFilter, checkLogFilter } from '../../src/logpush/index.js';
import type { Diagnostic } from '../../src/diagnostics/types.js';

const HTTP = { dataset: 'http_requests' };
const codes = (f: string, ds = HTTP) => compileLogFilter(f, ds).diagnostics.map((d) => d.code);
const one = (f: string, ds = HTTP): Diagnostic => {
  const ds2 = compileLogFilter(f, ds).diagnostics.filter((d) => d.severity === 'error');
  expect(ds2).toHaveLength(1);
  return ds2[0]!;
};
const slice = (f: string, d: Diagnostic) => f.slice(d.range!.start, d.range!.end);
const applyFix = (f: string, d: Diagnostic) => applyEdits(f, d.fix!.edits.map((e) => ({ offset: e.range.start, length: e.range.end - e.range.start, content: e.newText })));
const clause = (key: string, operator: string, value: unknown) => ({ key, operator, value });
const where = (w: unknown) => JSON.stringify({ where: w });

describe('published filter examples (cloudflare-docs)', () => {
  // Source: cloudflare/cloudflare-docs, src/content/docs/logs/logpush/logpush-job/filters.mdx
  // @0c50ffa05a96c48067721cbe0c1d637885537479 — the operator table's "Example" column, the logical-operator
  // shapes and the API example request; all are http_requests fields.
  const table = [
    '{"key":"ClientRequestHost","operator":"eq","value":"example.com"}',
    '{"key":"ClientCountry","operator":"!eq","value":"ca"}',
    '{"key":"BotScore","operator":"lt","value":"30"}',
    '{"key":"BotScore","operator":"leq","value":"30"}',
    '{"key":"BotScore","operator":"gt","value":"30"}',
    '{"key":"BotScore","operator":"geq","value":"30"}',
    '{"key":"ClientRequestPath","operator":"startsWith","value":"/foo"}',
    '{"key":"ClientRequestPath","operator":"endsWith","value":"/foo"}',
    '{"key":"ClientRequestPath","operator":"!startsWith","value":"/foo"}',
    '{"key":"ClientRequestPath","operator":"!endsWith","value":"/foo"}',
    '{"key":"ClientRequestPath","operator":"contains","value":"/static"}',
    '{"key":"ClientRequestPath","operator":"!contains","value":"/static"}',
    '{"key":"EdgeResponseStatus","operator":"in","value":[200,201]}',
    '{"key":"EdgeResponseStatus","operator":"!in","value":[200,201]}',
  ];
  it.each(table)('accepts the operator-table example %s', (c) => {
    const f = `{"where":${c}}`;
    // The examples that quote a number for the int field BotScore are accepted with a warning that says so.
    expect(compileLogFilter(f, HTTP).diagnostics.map((d) => `${d.severity}:${d.code}`)).toEqual(c.includes('BotScore') ? ['warning:filter-value-string'] : []);
    expect(compileLogFilter(f, HTTP).matcher).toBeDefined();
  });
  it('evaluates the numeric-string examples numerically (BotScore lt "30")', () => {
    const m = compileLogFilter(`{"where":${table[2]}}`, HTTP).matcher!;
    expect(m({ BotScore: 29 })).toBe(true);
    expect(m({ BotScore: 30 })).toBe(false);
    expect(m({ BotScore: 100 })).toBe(false); // not a string comparison ("100" < "30")
  });
  it('accepts the four logical shapes and the API example', () => {
    const [X, Y, Z] = [table[0], table[1], table[11]];
    for (const f of [
      `{"where":{"and":[${X},${Y},${Z}]}}`,
      `{"where":{"or":[${X},${Y},${Z}]}}`,
      `{"where":{"and":[${X}, {"or":[${Y},${Z}]}]}}`,
      `{"where":{"or":[{"and": [${X},${Y}]},${Z}]}}`,
      '{"where":{"and":[{"key":"ClientRequestPath","operator":"contains","value":"/static"},{"key":"ClientRequestHost","operator":"eq","value":"example.com"}]}}',
    ]) expect(compileLogFilter(f, HTTP).diagnostics).toEqual([]);
    const api = compileLogFilter('{"where":{"and":[{"key":"ClientRequestPath","operator":"contains","value":"/static"},{"key":"ClientRequestHost","operator":"eq","value":"example.com"}]}}', HTTP).matcher!;
    expect(api({ ClientRequestPath: '/static/a.js', ClientRequestHost: 'example.com' })).toBe(true);
    expect(api({ ClientRequestPath: '/static/a.js', ClientRequestHost: 'www.example.com' })).toBe(false);
  });
});

describe('JSON and structure', () => {
  it('reports malformed JSON with a range', () => {
    const f = '{"where": {"key": "ClientCountry", "operator": "eq", "value": "us",}}';
    const d = compileLogFilter(f, HTTP).diagnostics;
    expect(d[0]!.code).toBe('filter-invalid-json');
    expect(d[0]!.range!.start).toBeGreaterThan(60);
  });
  it.each([
    ['', 'filter-invalid-json'],
    ['{"where": 1 // c\n}', 'filter-invalid-json'],
    ['[]', 'filter-not-object'],
    ['"where"', 'filter-not-object'],
    ['{}', 'filter-missing-where'],
    ['{"where":{"and":[]}}', 'filter-empty-group'],
    ['{"where":{"or":{}}}', 'filter-group-not-array'],
    ['{"where":{"and":[1]}}', 'filter-not-object'],
    ['{"where":{"and":[{"key":"ClientCountry","operator":"eq","value":"x"}],"or":[]}}', 'filter-ambiguous-node'],
    ['{"where":{"key":"ClientCountry","operator":"eq"}}', 'filter-missing-member'],
    ['{"where":{"key":5,"operator":"eq","value":"x"}}', 'filter-member-type'],
    ['{"where":{"key":"ClientCountry","operator":"eq","value":"x","extra":1}}', 'filter-unknown-key'],
    ['{"where":{"and":[{"key":"ClientCountry","operator":"eq","value":"x"}],"not":1}}', 'filter-unknown-key'],
    ['{"where":{"key":"ClientCountry","key":"ClientIP","operator":"eq","value":"x"}}', 'filter-duplicate-key'],
  ])('%s → %s', (f, code) => {
    expect(codes(f)).toContain(code);
    expect(compileLogFilter(f, HTTP).matcher).toBeUndefined();
  });
  it('suggests "where" for a misspelt top-level key and "and" for "AND"', () => {
    const f = '{"Where":{"key":"ClientCountry","operator":"eq","value":"x"}}';
    const d = compileLogFilter(f, HTTP).diagnostics.find((x) => x.code === 'filter-unknown-key')!;
    expect(d.message).toContain('Did you mean "where"');
    expect(slice(f, d)).toBe('"Where"');
    expect(applyFix(f, d)).toBe('{"where":{"key":"ClientCountry","operator":"eq","value":"x"}}');
    const g = '{"where":{"AND":[{"key":"ClientCountry","operator":"eq","value":"x"}]}}';
    expect(compileLogFilter(g, HTTP).diagnostics[0]!.data!['suggestion']).toBe('and');
  });
  it('points at the exact element: /where/and/2/operator', () => {
    const f = where({ and: [clause('ClientCountry', 'eq', 'us'), clause('EdgeResponseStatus', 'geq', 500), clause('ClientRequestHost', 'gte', 'x')] });
    const d = compileLogFilter(f, HTTP).diagnostics.find((x) => x.code === 'filter-misspelt-operator')!;
    expect(d.pointer).toBe('/where/and/2/operator');
    expect(slice(f, d)).toBe('"gte"');
  });
});

describe('names, operators, values', () => {
  it('unknown key with did-you-mean and a fix', () => {
    const f = where(clause('EdgeResponseStatu', 'geq', 500));
    const d = one(f);
    expect(d.code).toBe('filter-unknown-field');
    expect(d.message).toContain('did you mean "EdgeResponseStatus"');
    expect(compileLogFilter(applyFix(f, d), HTTP).diagnostics).toEqual([]);
  });
  it('does not find prototype keys as fields', () => {
    for (const k of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(codes(where(clause(k, 'eq', 'x')))).toEqual(['filter-unknown-field']);
    }
  });
  it.each([
    ['neq', '!eq'], ['ne', '!eq'], ['gte', 'geq'], ['lte', 'leq'], ['==', 'eq'], ['In', 'in'],
    ['!=', '!eq'], ['startswith', 'startsWith'], ['NotIn', '!in'], ['>=', 'geq'],
  ])('misspelt operator %s names %s and fixes it', (bad, meant) => {
    const value = meant === 'in' || meant === '!in' ? [500] : meant === 'startsWith' ? undefined : 500;
    const f = where(meant === 'startsWith' ? clause('ClientRequestPath', bad, '/a') : clause('EdgeResponseStatus', bad, value));
    const d = one(f);
    expect(d.code).toBe('filter-misspelt-operator');
    expect(d.message).toContain(`"${meant}"`);
    expect(d.data!['meant']).toBe(meant);
    expect(compileLogFilter(applyFix(f, d), HTTP).diagnostics).toEqual([]);
  });
  it('an operator resembling nothing is unknown', () => {
    expect(one(where(clause('ClientCountry', 'matches', 'x'))).code).toBe('filter-unknown-operator');
  });
  it('numeric strings are accepted for int fields, other strings are not', () => {
    // Accepted as the service does (its own examples quote numbers), with a warning and a fix to the number.
    expect(codes(where(clause('EdgeResponseStatus', 'geq', '500')))).toEqual(['filter-value-string']);
    const w = compileLogFilter(where(clause('EdgeResponseStatus', 'geq', '500')), HTTP).diagnostics[0]!;
    expect([w.severity, w.fix?.edits[0]?.newText]).toEqual(['warning', '500']);
    expect(compileLogFilter(where(clause('EdgeResponseStatus', 'geq', '500')), HTTP).matcher?.({ EdgeResponseStatus: 503 })).toBe(true);
    expect(codes(where(clause('EdgeResponseStatus', 'in', ['500', 501])))).toEqual(['filter-value-string']);
    for (const v of ['5x', '5.0', '', ' 5', '1e3', '99999999999999999999', 1.5, true, null, {}]) {
      const d = one(where(clause('EdgeResponseStatus', 'geq', v)));
      expect(d.code).toBe('filter-value-type');
      expect(d.pointer).toBe('/where/value');
    }
  });
  it('string fields need strings (fix: quote the number); bool fields need booleans (fix: unquote)', () => {
    const f = where(clause('ClientCountry', 'eq', 5));
    const d = one(f);
    expect(d.code).toBe('filter-value-type');
    expect(JSON.parse(applyFix(f, d)).where.value).toBe('5');
    const g = where(clause('WorkerSubrequest', 'eq', 'true'));
    const e = one(g);
    expect(JSON.parse(applyFix(g, e)).where.value).toBe(true);
  });
  it('in/!in need an array (fix wraps it); elements are typed', () => {
    const f = where(clause('ClientCountry', 'in', 'us'));
    const d = one(f);
    expect(d.code).toBe('filter-value-not-array');
    expect(compileLogFilter(applyFix(f, d), HTTP).diagnostics).toEqual([]);
    const g = where(clause('EdgeResponseStatus', 'in', [200, 'x', 201]));
    const e = one(g);
    expect([e.code, e.pointer, slice(g, e)]).toEqual(['filter-array-element-type', '/where/value/1', '"x"']);
    expect(codes(where(clause('ClientCountry', 'in', [])))).toEqual(['filter-empty-array']);
    expect(one(where(clause('ClientCountry', 'eq', ['us']))).code).toBe('filter-value-type');
  });
  it('timestamp (int or string) fields: integers for ordering, strings for startsWith & co.', () => {
    expect(codes(where(clause('EdgeStartTimestamp', 'geq', '1700000000000000000')))).toEqual([]);
    expect(one(where(clause('EdgeStartTimestamp', 'lt', '2024-01-01T00:00:00Z'))).code).toBe('filter-value-type');
    expect(codes(where(clause('EdgeStartTimestamp', 'startsWith', '2024-')))).toEqual([]);
    expect(one(where(clause('EdgeStartTimestamp', 'startsWith', 2024))).code).toBe('filter-value-type');
    expect(codes(where(clause('EdgeStartTimestamp', 'eq', '2024-01-01T00:00:00Z')))).toEqual([]);
    expect(codes(where(clause('EdgeStartTimestamp', 'in', [1, '2024-01-01T00:00:00Z'])))).toEqual([]);
  });
  it('float and object fields', () => {
    expect(one(where(clause('EdgeResponseCompressionRatio', 'eq', 1))).code).toBe('filter-float-field');
    expect(one(where(clause('Cookies', 'contains', 'x'))).code).toBe('filter-object-field');
  });
  it('fields are looked up in the given dataset; unknown datasets are diagnosed', () => {
    expect(codes(where(clause('QueryName', 'eq', 'a.com')), { dataset: 'dns_logs' })).toEqual([]);
    expect(codes(where(clause('QueryName', 'eq', 'a.com')))).toEqual(['filter-unknown-field']);
    expect(codes(where(clause('Action', 'eq', 'block')), { dataset: 'firewall_events' })).toEqual(['filter-unfilterable-field']);
    const d = compileLogFilter(where(clause('ClientIP', 'eq', 'x')), { dataset: 'http_request' }).diagnostics;
    expect(d[0]!.code).toBe('filter-unknown-dataset');
    expect(d[0]!.message).toContain('http_requests');
  });
  it('a dataset rulekit does not know: one diagnostic about it, and the rest of the filter still checked', () => {
    const f = where({ and: [clause('X', 'neq', 1), clause('Y', 'in', 'a'), clause('Z', 'eq', { o: 1 }), { or: [] }] });
    const d = checkLogFilter(f, { dataset: 'gateway_dsn' }).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['filter-unknown-dataset', 'filter-misspelt-operator', 'filter-value-not-array', 'filter-value-type', 'filter-empty-group']);
    const ds = d[0]!;
    expect(ds.data).toMatchObject({ dataset: 'gateway_dsn', suggestion: 'gateway_dns' });
    expect(ds.message).toContain('Did you mean "gateway_dns"?');
    // It names the known datasets, by scope.
    expect(ds.message).toContain('zone: account_abuse_protection_events, dns_logs, firewall_events, http_requests');
    expect(ds.message).toContain('account: access_requests,');
    expect(d.filter((x) => x.code.includes('dataset'))).toHaveLength(1);
    // The misspelt operator still gets its fix; the limits still count.
    expect(applyFix(f, d[1]!)).toContain('"operator":"!eq"');
    const many = where({ and: Array.from({ length: 30 }, (_, i) => clause(`F${i}`, 'eq', i)) });
    expect(checkLogFilter(many, { dataset: 'nope' }).diagnostics.map((x) => x.code)).toEqual(['filter-unknown-dataset', 'filter-size-limit', 'filter-operator-limit']);
    // A well-formed filter of an unknown dataset: only the dataset diagnostic, and no checked filter.
    const ok = checkLogFilter(where(clause('Anything', 'in', [1, 'a'])), { dataset: 'nope' });
    expect(ok.diagnostics.map((x) => x.code)).toEqual(['filter-unknown-dataset']);
    expect(ok.filter).toBeUndefined();
  });
  it('a name of both scopes is checked against the scope given', () => {
    const zoneName = where(clause('ZoneName', 'eq', 'example.com'));
    expect(checkLogFilter(zoneName, { dataset: 'firewall_events', scope: 'account' }).diagnostics).toEqual([]);
    expect(checkLogFilter(zoneName, { dataset: 'firewall_events', scope: 'zone' }).diagnostics.map((x) => x.code)).toEqual(['filter-unknown-field']);
    expect(checkLogFilter(zoneName, { dataset: 'firewall_events' }).diagnostics.map((x) => x.code)).toEqual(['filter-unknown-field']);
    // A dataset only the other scope has is still checked against its catalog.
    expect(checkLogFilter(where(clause('QueryName', 'eq', 'a.com')), { dataset: 'gateway_dns', scope: 'zone' }).diagnostics).toEqual([]);
  });
  it('a deprecated field is an info', () => {
    const d = compileLogFilter(where(clause('CacheResponseStatus', 'eq', 200)), HTTP);
    expect(d.diagnostics.map((x) => [x.code, x.severity])).toEqual([['filter-deprecated-field', 'info']]);
    expect(d.matcher).toBeDefined();
  });
});

describe('limits', () => {
  const c = clause('EdgeResponseStatus', 'eq', 1);
  it('30 operators pass, 31 fail naming the limit and the figure', () => {
    // 30 clauses never fit in 1000 bytes, so the size limit fires too; the operator count is separate.
    expect(codes(where({ or: Array(29).fill(c) }))).toEqual(['filter-size-limit']); // 29 clauses + 1 or = 30
    const d = compileLogFilter(where({ or: Array(30).fill(c) }), HTTP).diagnostics.find((x) => x.code === 'filter-operator-limit')!;
    expect(d.message).toContain('31');
    expect(d.message).toContain('30');
    expect(d.data).toEqual({ limit: 30, measured: 31 });
  });
  it('1000 bytes pass, 1001 fail naming the limit and the figure (UTF-8)', () => {
    const base = where(clause('ClientRequestPath', 'eq', ''));
    const pad = (n: number, ch = 'a') => where(clause('ClientRequestPath', 'eq', ch.repeat(n)));
    expect(codes(pad(1000 - base.length))).toEqual([]);
    const over = pad(1001 - base.length);
    const d = one(over);
    expect([d.code, d.data]).toEqual(['filter-size-limit', { limit: 1000, measured: 1001 }]);
    // é is 2 bytes in UTF-8: 500 of them plus the frame is over 1000 bytes though under 1000 characters.
    const utf = pad(500, 'é');
    expect(utf.length).toBeLessThan(1000);
    expect(one(utf).data!['measured']).toBe(1000 + base.length);
  });
  it('depth 16 passes, 17 fails; 10k-deep JSON is rejected without a stack overflow', () => {
    const nest = (n: number): unknown => (n === 0 ? c : { and: [nest(n - 1)] });
    expect(codes(where(nest(16)))).toEqual([]);
    const d = one(where(nest(17)));
    expect([d.code, d.data]).toEqual(['filter-depth-limit', { limit: 16, measured: 17 }]);
    const d20 = compileLogFilter(where(nest(20)), HTTP).diagnostics;
    expect(d20.find((x) => x.code === 'filter-depth-limit')!.data).toEqual({ limit: 16, measured: 20 });
    expect(d20.find((x) => x.code === 'filter-depth-limit')!.message).toContain('20 levels');
    const deep = `{"where":${'{"and":['.repeat(10000)}${JSON.stringify(c)}${']}'.repeat(10000)}}`;
    // 160 KB: far over the size limit, so rejected by its length without being parsed.
    const r = compileLogFilter(deep, HTTP);
    expect(r.diagnostics.map((x) => x.code)).toEqual(['filter-size-limit']);
    const shallow = `{"where":${'{"and":['.repeat(100)}${JSON.stringify(c)}${']}'.repeat(100)}}`;
    expect(compileLogFilter(shallow, HTTP).diagnostics.map((x) => x.code)).toContain('filter-depth-limit');
    const raw = '['.repeat(10000);
    expect(() => checkLogFilter(raw, HTTP)).not.toThrow();
  });
  it('a 10 MB filter is rejected in time bounded by the limit, not the input', () => {
    const huge = `{"where":{"key":"ClientRequestPath","operator":"eq","value":"${'a'.repeat(10_000_000)}"}}`;
    const t = performance.now();
    const d = compileLogFilter(huge, HTTP).diagnostics;
    const ms = performance.now() - t;
    expect(d.map((x) => x.code)).toEqual(['filter-size-limit']);
    expect(d[0]!.data).toMatchObject({ limit: 1000, lowerBound: true });
    expect(ms).toBeLessThan(50);
  });
  it('a filter given as a JavaScript object nested 10,000 levels deep is a diagnostic, not a RangeError', () => {
    let w: unknown = c;
    for (let i = 0; i < 10_000; i++) w = { and: [w] };
    let arr: unknown = [];
    for (let i = 0; i < 10_000; i++) arr = [arr];
    for (const v of [{ where: w }, w, arr]) {
      const r = compileLogFilter(v as string, HTTP);
      expect(r.diagnostics.map((x) => x.code)).toEqual(['filter-invalid-json']);
    }
  });
});

describe('prototype keys are plain data', () => {
  const codesOf = (f: string) => compileLogFilter(f, { dataset: 'http_requests' }).diagnostics.map((d) => `${d.code}@${d.pointer}`);
  it('__proto__, constructor and prototype as members or field names are reported, never followed', () => {
    expect(codesOf('{"__proto__":{"where":1},"where":{"key":"EdgeResponseStatus","operator":"eq","value":1}}')).toEqual(['filter-unknown-key@/__proto__']);
    expect(codesOf('{"where":{"key":"__proto__","operator":"eq","value":1}}')).toEqual(['filter-unknown-field@/where/key']);
    expect(codesOf('{"where":{"key":"constructor","operator":"eq","value":1}}')).toEqual(['filter-unknown-field@/where/key']);
    expect(codesOf('{"where":{"__proto__":[],"and":[{"key":"ClientCountry","operator":"eq","value":"x"}]}}')).toEqual(['filter-unknown-key@/where/__proto__']);
    expect(codesOf('{"where":{"key":"ClientCountry","operator":"eq","value":"x","__proto__":{"operator":"in"}}}')).toEqual(['filter-unknown-key@/where/__proto__']);
    expect(codesOf('{"where":{"key":"ClientCountry","operator":"toString","value":"x"}}')[0]).toMatch(/^filter-unknown-operator@\/where\/operator/);
    // a parsed line with a "__proto__" member holds it as data: the field stays missing
    const r = compileLogFilter('{"where":{"key":"ClientCountry","operator":"eq","value":"x"}}', { dataset: 'http_requests' });
    expect(r.matcher!(JSON.parse('{"__proto__":{"ClientCountry":"x"}}'))).toBe(false);
  });
});
