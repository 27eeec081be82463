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
