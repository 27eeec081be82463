import { describe, expect, it } from 'vitest';
import { compileLogFilter, explainLogFilter, renderFilterExplanation, logFilterFields, evaluateLogFilter } from '../../src/logpush/index.js';

const F = '{"where":{"or":[{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientCountry","operator":"!eq","value":"us"}]},{"key":"ClientRequestPath","operator":"startsWith","value":"/api"}]}}';
const filter = compileLogFilter(F, { dataset: 'http_requests' }).filter!;

describe('explainLogFilter', () => {
  it('explains every clause, with the line value and the missing-field rule', () => {
    const line = { EdgeResponseStatus: 503, ClientRequestPath: '/home' };
    const e = explainLogFilter(filter, line);
    expect(e.result).toBe(evaluateLogFilter(filter, line));
    expect(e.result).toBe(false);
    expect(renderFilterExplanation(e)).toBe([
      '✗ or',
      '  ✗ and',
      '    ✓ EdgeResponseStatus >= 500  (line: 503)',
      '    ✗ ClientCountry != "us"  (line: absent) — ClientCountry is absent in the line, so the clause is false',
      '  ✗ ClientRequestPath starts with "/api"  (line: "/home")',
    ].join('\n'));
    expect(e.children![0]!.children![1]!.pointer).toBe('/where/or/0/and/1');
  });
  it('agrees with the interpreter and lists the fields read', () => {
    for (const line of [{}, { ClientRequestPath: '/api/x' }, { EdgeResponseStatus: 500, ClientCountry: 'de' }, null]) {
      expect(explainLogFilter(filter, line).result).toBe(evaluateLogFilter(filter, line));
    }
    expect(logFilterFields(filter)).toEqual(['EdgeResponseStatus', 'ClientCountry', 'ClientRequestPath']);
  });
});

describe('renderFilterExplanation details', () => {
  it('says null apart from absent, shows values as JSON cut at 60 characters, and nests groups', () => {
    const f = compileLogFilter('{"where":{"and":[{"key":"ClientRequestPath","operator":"contains","value":"x"},{"key":"ClientCountry","operator":"eq","value":"us"}]}}', { dataset: 'http_requests' }).filter!;
    const long = `/${'x'.repeat(70)}`;
    const e = explainLogFilter(f, { ClientRequestPath: long, ClientCountry: null });
    expect(e.result).toBe(false);
    expect(e.children!.map((c) => [c.result, c.value, c.note])).toEqual([
      [true, long, undefined],
      [false, null, 'ClientCountry is null in the line, so the clause is false'],
    ]);
    expect(renderFilterExplanation(e, '> ')).toBe([
      '> ✗ and',
      `>   ✓ ClientRequestPath contains "x"  (line: ${JSON.stringify(long).slice(0, 60)}…)`,
      '>   ✗ ClientCountry == "us"  (line: null) — ClientCountry is null in the line, so the clause is false',
    ].join('\n'));
    const exactly60 = 'y'.repeat(58);
    expect(renderFilterExplanation(explainLogFilter(f, { ClientRequestPath: exactly60, ClientCountry: 'us' }))).toBe([
      '✗ and',
      `  ✗ ClientRequestPath contains "x"  (line: "${exactly60}")`,
      '  ✓ ClientCountry == "us"  (line: "us")',
    ].join('\n'));
  });

  it('an or group is true when one child is, and every child is still explained', () => {
    const f = compileLogFilter('{"where":{"or":[{"key":"EdgeResponseStatus","operator":"eq","value":200},{"key":"EdgeResponseStatus","operator":"lt","value":300}]}}', { dataset: 'http_requests' }).filter!;
    const e = explainLogFilter(f, { EdgeResponseStatus: 200 });
    expect([e.result, e.children!.map((c) => c.result)]).toEqual([true, [true, true]]);
    const e2 = explainLogFilter(f, { EdgeResponseStatus: 250 });
    expect([e2.result, e2.children!.map((c) => c.result)]).toEqual([true, [false, true]]);
    expect(explainLogFilter(f, 'not a line').result).toBe(false);
    expect(logFilterFields(f)).toEqual(['EdgeResponseStatus']);
  });
});
