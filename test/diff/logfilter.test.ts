/**
 * The diff of Logpush filters: regions of lines newly pushed and newly dropped on hand-written filters,
 * and its laws on generated filters and lines (the shared filter arbitraries): every line the two
 * filters push differently lies in a region of its change, every line of an exact region changes as it
 * says, every exact witness differs, and the counts equal the two filters run over the same lines.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateLogFilter, checkLogFilter } from '../../src/logpush/index.js';
import { countLogFilterDiff, diffLogFilters, LogFilterDiffCounter, logRegionContains } from '../../src/diff/index.js';
import { lineArb, nodeArb } from '../helpers/logfilter-arbitraries.js';

const where = (w: unknown) => JSON.stringify({ where: w });
const clause = (key: string, operator: string, value: unknown) => ({ key, operator, value });

describe('diffLogFilters', () => {
  it('a country added to a set: its lines are newly pushed', () => {
    const d = diffLogFilters(where(clause('ClientCountry', 'eq', 'de')), where(clause('ClientCountry', 'in', ['de', 'fr'])), 'http_requests');
    expect(d.regions.map((r) => [r.kind, r.text])).toEqual([['exact', 'ClientCountry "fr": dropped → pushed']]);
    expect(d.regions[0]!.witness).toEqual({ ClientCountry: 'fr' });
  });

  it('a status threshold raised: the lines between are newly dropped', () => {
    const d = diffLogFilters(where(clause('EdgeResponseStatus', 'geq', 400)), where(clause('EdgeResponseStatus', 'geq', 500)), 'http_requests');
    expect(d.regions.map((r) => r.text)).toEqual(['EdgeResponseStatus 400..499: pushed → dropped']);
  });

  it('startsWith is an opaque part: the region is unknown and says what it assumes', () => {
    const d = diffLogFilters(where(clause('ClientRequestPath', 'startsWith', '/api')), where({ and: [clause('ClientRequestPath', 'startsWith', '/api'), clause('EdgeResponseStatus', 'eq', 200)] }), 'http_requests');
    expect(d.regions).toHaveLength(1);
    expect(d.regions[0]).toMatchObject({ kind: 'unknown', change: 'dropped', assumes: ['ClientRequestPath startsWith "/api" is true'] });
  });

  it('the same filter: no regions; a filter with errors: its diagnostics, with the side', () => {
    const f = where(clause('ClientCountry', 'eq', 'de'));
    expect(diffLogFilters(f, f, 'http_requests').regions).toEqual([]);
    const bad = diffLogFilters(f, where(clause('NoSuchField', 'eq', 'x')), 'http_requests');
    expect(bad.regions).toEqual([]);
    expect(bad.diagnostics.some((x) => x.severity === 'error' && x.data?.['side'] === 'new')).toBe(true);
  });

  it('an empty filter is a job without one: it pushes every line; open integer ranges read as orderings', () => {
    const d = diffLogFilters(where(clause('EdgeResponseStatus', 'geq', 400)), '', 'http_requests');
    expect(d.regions.map((r) => [r.kind, r.text])).toEqual([['exact', 'EdgeResponseStatus <= 399 or missing: dropped → pushed']]);
    expect(d.regions[0]!.witness).toEqual({ EdgeResponseStatus: 0 });
    expect(diffLogFilters('', ' ', 'http_requests').regions).toEqual([]);
    const counter = new LogFilterDiffCounter('', where(clause('EdgeResponseStatus', 'geq', 400)), 'http_requests');
    for (const line of [{ EdgeResponseStatus: 200 }, { EdgeResponseStatus: 404 }, {}]) counter.add(line);
    expect(counter.result()).toMatchObject({ lines: 3, newlyPushed: 0, newlyDropped: 2, outside: 0, regions: [{ region: 0, count: 2 }] });
  });

  it('counts lines newly pushed and dropped, per region', () => {
    const lines = ['de', 'fr', 'fr', 'us', undefined].map((c) => (c ? { ClientCountry: c } : {}));
    const counts = countLogFilterDiff(where(clause('ClientCountry', 'eq', 'de')), where(clause('ClientCountry', 'in', ['de', 'fr'])), 'http_requests', lines);
    expect(counts).toMatchObject({ lines: 5, newlyPushed: 2, newlyDropped: 0, outside: 0, regions: [{ region: 0, count: 2 }] });
  });
});

describe('laws on generated filters and lines', () => {
  const filterArb = nodeArb.map((w) => JSON.stringify({ where: w })).filter((f) => checkLogFilter(f, { dataset: 'http_requests' }).filter !== undefined);
  it('every changed line lies in a region of its change; exact regions and their witnesses change as they say; counts agree', () => {
    fc.assert(fc.property(filterArb, filterArb, fc.array(lineArb, { maxLength: 40 }), (a, b, lines) => {
      const d = diffLogFilters(a, b, 'http_requests');
      const fa = checkLogFilter(a, { dataset: 'http_requests' }).filter!;
      const fb = checkLogFilter(b, { dataset: 'http_requests' }).filter!;
      const witnesses = d.regions.flatMap((r) => (r.kind === 'exact' ? [r.witness!] : []));
      for (const line of [...lines, ...witnesses]) {
        const before = evaluateLogFilter(fa, line);
        const after = evaluateLogFilter(fb, line);
        const change = before === after ? undefined : after ? 'pushed' : 'dropped';
        const holding = d.regions.filter((r) => logRegionContains(r, line));
        if (change) expect(holding.some((r) => r.change === change), `${JSON.stringify(line)} (${change}) in none of ${JSON.stringify(d.regions.map((r) => r.text))}`).toBe(true);
        for (const r of holding) if (r.kind === 'exact') expect({ line, region: r.text, change }).toEqual({ line, region: r.text, change: r.change });
      }
      const counts = countLogFilterDiff(a, b, 'http_requests', lines, { diff: d });
      expect(counts.newlyPushed).toBe(lines.filter((l) => !evaluateLogFilter(fa, l) && evaluateLogFilter(fb, l)).length);
      expect(counts.newlyDropped).toBe(lines.filter((l) => evaluateLogFilter(fa, l) && !evaluateLogFilter(fb, l)).length);
      expect(counts.outside).toBe(0);
    }), { numRuns: process.env.CI ? 300 : 120 });
  });
});
