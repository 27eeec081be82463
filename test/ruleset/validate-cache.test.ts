/**
 * The validator's cache of checked expressions (src/ruleset/validate.ts) must be invisible: the same
 * diagnostics as without it, whatever the options, and nothing a caller does to an answer reaches the next.
 */
import { describe, expect, it } from 'vitest';
import { ListCatalog, Scheme, validateRuleset } from '../../src/index.js';

const body = (expression: string) => ({ name: 'fw', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression }] });
const summary = (ds: ReturnType<typeof validateRuleset>) => ds.map((d) => `${d.code}@${d.pointer}:${d.range?.start}-${d.range?.end}`);

describe('validateRuleset: cached expression checks', () => {
  it('answers copies: changing one answer leaves the next alone', () => {
    const text = JSON.stringify(body('ip.geoip.country == "KP" and ip.src in $svc.anonymizer'));
    const first = validateRuleset(text);
    expect(first.length).toBeGreaterThan(0);
    const expected = JSON.parse(JSON.stringify(first));
    for (const d of first) {
      d.message = 'changed';
      if (d.range) d.range.start = -1;
      if (d.data) d.data['x'] = 1;
    }
    expect(validateRuleset(text)).toEqual(expected);
  });

  it('keeps results apart per list catalog, scheme, limits and service token', () => {
    const expr = 'ip.src in $svc.anonymizer and ip.src in $partners';
    const a = ListCatalog.from({ 'svc.anonymizer': ['198.51.100.0/24'], partners: ['192.0.2.0/24'] });
    const b = ListCatalog.from({ 'svc.anonymizer': ['198.51.100.0/24'] });
    const withA = summary(validateRuleset(body(expr), { expression: { lists: a } }));
    const withB = summary(validateRuleset(body(expr), { expression: { lists: b } }));
    const none = summary(validateRuleset(body(expr)));
    expect(withA).not.toEqual(withB);
    expect(summary(validateRuleset(body(expr), { expression: { lists: a } }))).toEqual(withA);
    expect(summary(validateRuleset(body(expr), { expression: { lists: b } }))).toEqual(withB);
    expect(summary(validateRuleset(body(expr)))).toEqual(none);

    const short = summary(validateRuleset(body(expr), { expression: { limits: { maxLength: 10 } } }));
    expect(short.some((s) => s.startsWith('expression-too-long'))).toBe(true);
    expect(summary(validateRuleset(body(expr)))).toEqual(none);

    const scheme = Scheme.of([{ name: 'ip.src', type: 'Ip', doc: '' }]);
    const other = summary(validateRuleset(body('tcp.dstport == 80'), { expression: { scheme } }));
    expect(other.some((s) => s.startsWith('unknown-field'))).toBe(true);
    expect(summary(validateRuleset(body('tcp.dstport == 80')))).toEqual([]);

    const token = summary(validateRuleset(body('ip.src in $cf.anonymizer'), { expression: { serviceToken: 'cf' } }));
    expect(token).not.toEqual(summary(validateRuleset(body('ip.src in $cf.anonymizer'))));
  });

  it('gives the same answers as uncached options (lists as items build a catalog per call)', () => {
    const expr = 'ip.src in $partners or tcp.dstport in {1..1023}';
    const items = { partners: ['192.0.2.0/24'] };
    const catalog = ListCatalog.from(items);
    expect(validateRuleset(body(expr), { expression: { lists: catalog } })).toEqual(validateRuleset(body(expr), { expression: { lists: items } }));
    expect(validateRuleset(body(expr), { expression: { lists: catalog } })).toEqual(validateRuleset(body(expr), { expression: { lists: items } }));
  });
});
