/** Completion and hover in Logpush filter documents, cursor marked `|`. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { completeLogFilter, hoverLogFilter, type CompletionResult } from '../../src/language/index.js';
import { OPERATORS, compileLogFilter, getDataset, operatorSupports } from '../../src/logpush/index.js';
import { cursor } from './cursor.js';

const labels = (r: CompletionResult) => r.items.map((i) => i.label);
const apply = (text: string, r: CompletionResult, label: string) => {
  const item = r.items.find((i) => i.label === label);
  if (!item) throw new Error(`${label} not proposed: ${labels(r).join(' ')}`);
  return text.slice(0, r.from) + (item.insertText ?? item.label) + text.slice(r.to);
};

describe('completeLogFilter', () => {
  const cases: { input: string; dataset?: string; has: string[]; not?: string[]; replaces?: string }[] = [
    { input: '{|}', has: ['where'], not: ['key'] },
    { input: '{"w|"}', has: ['where'], replaces: 'w' },
    { input: '{"where": {|}}', has: ['and', 'or', 'key', 'operator', 'value'], not: ['where'] },
    { input: '{"where": {"key": "A", |}}', has: ['operator', 'value'], not: ['key', 'and', 'or'] },
    { input: '{"where": {"and": [], |}}', has: [] },
    { input: '{"where": {"and": [{|}]}}', has: ['key', 'and'] },
    { input: '{"where": {"or": [{"key": "A"}, {"operator": "eq", |}]}}', has: ['key', 'value'], not: ['operator'] },
    { input: '{"where": {"key": "Edge|"}}', dataset: 'http_requests', has: ['EdgeResponseStatus', 'ClientRequestHost'], not: ['QueryName'], replaces: 'Edge' },
    { input: '{"where": {"key": |}}', dataset: 'dns_logs', has: ['QueryName', 'ResponseCode'], not: ['EdgeResponseStatus'] },
    { input: '{"where": {"key": |}}', has: ['QueryName', 'EdgeResponseStatus'] },
    { input: '{"where": {"key": |}}', dataset: 'firewall_events', has: ['ClientIP'], not: ['Action', 'Kind'] },
    { input: '{"where": {"key": "EdgeResponseStatus", "operator": "|"}}', dataset: 'http_requests', has: ['eq', 'geq', 'in', '!in'], not: ['startsWith', 'contains'] },
    { input: '{"where": {"key": "ClientRequestHost", "operator": |}}', dataset: 'http_requests', has: ['eq', 'startsWith', 'contains'], not: ['geq'] },
    { input: '{"where": {"operator": |, "key": "ClientRequestHost"}}', dataset: 'http_requests', has: ['endsWith'], not: ['lt'] },
    { input: '{"where": {"key": "ResponseCached", "operator": "eq", "value": |}}', dataset: 'dns_logs', has: ['true', 'false'] },
    { input: '{"where": {"key": "QueryName", "operator": "eq", "value": |}}', dataset: 'dns_logs', has: [] },
    { input: '{"other": {"key": |}}', has: [] },
  ];
  for (const c of cases) {
    it(`${c.input}${c.dataset ? ` (${c.dataset})` : ''}`, () => {
      const { text, offset } = cursor(c.input);
      const r = completeLogFilter(text, offset, { dataset: c.dataset });
      for (const l of c.has) expect(labels(r)).toContain(l);
      for (const l of c.not ?? []) expect(labels(r)).not.toContain(l);
      if (c.has.length === 0) expect(r.items).toEqual([]);
      if (c.replaces !== undefined) expect(text.slice(r.from, r.to)).toBe(c.replaces);
    });
  }

  it('the operators proposed for a key are the table\'s for its type', () => {
    const ds = getDataset('http_requests')!;
    for (const f of ds.fields.slice(0, 40)) {
      const text = `{"where": {"key": ${JSON.stringify(f.name)}, "operator": }}`;
      const r = completeLogFilter(text, text.length - 2, { dataset: 'http_requests' });
      expect(labels(r), f.name).toEqual(OPERATORS.filter((o) => operatorSupports(o.name, f.type)).map((o) => o.name));
    }
  });

  it('accepted proposals build a filter that checks: quoted outside strings, bare inside', () => {
    let t = '{}';
    t = apply(t, completeLogFilter(t, 1), 'where');
    expect(t).toBe('{"where"}');
    t = '{"where": {}}';
    t = apply(t, completeLogFilter(t, 11), 'key');
    t = t.replace('"key"', '"key": ""');
    const inKey = t.indexOf('""') + 1;
    t = apply(t, completeLogFilter(t, inKey, { dataset: 'http_requests' }), 'EdgeResponseStatus');
    t = t.replace('"}}', '", "operator": }}');
    t = apply(t, completeLogFilter(t, t.length - 2, { dataset: 'http_requests' }), 'geq');
    t = t.replace('}}', ', "value": 500}}');
    expect(t).toBe('{"where": {"key": "EdgeResponseStatus", "operator": "geq", "value": 500}}');
    expect(compileLogFilter(t, { dataset: 'http_requests' }).diagnostics).toEqual([]);
  });

  it('never throws; [from, to) around the cursor', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string({ maxLength: 30 })), fc.nat(60), (text, offset) => {
        const r = completeLogFilter(text, offset);
        const at = Math.min(text.length, offset);
        expect(r.from).toBeLessThanOrEqual(at);
        expect(r.to).toBeGreaterThanOrEqual(at);
        expect(r.to).toBeLessThanOrEqual(text.length);
        hoverLogFilter(text, offset);
      }),
    );
  });
});

describe('hoverLogFilter', () => {
  const cases: { input: string; span: string; says: string[] }[] = [
    { input: '{"wh|ere": {}}', span: '"where"', says: ['**where**', 'clause'] },
    { input: '{"where": {"o|r": []}}', span: '"or"', says: ['at least one'] },
    { input: '{"where": {"key": "EdgeRes|ponseStatus"}}', span: '"EdgeResponseStatus"', says: ['**EdgeResponseStatus**', '`int`', 'Operators: `eq`', 'http_requests'] },
    { input: '{"where": {"key": "Action|"}}', span: '"Action"', says: ['Cannot be filtered on in firewall_events'] },
    { input: '{"where": {"operator": "!st|artsWith"}}', span: '"!startsWith"', says: ['Does not start with', 'negation of `startsWith`'] },
    { input: '{"where": {"operator": "i|n"}}', span: '"in"', says: ['The value is an array'] },
    { input: '{"where": {"operator": "gt|e"}}', span: '"gte"', says: ['`gte` is not an operator', 'it means `geq`'] },
  ];
  for (const c of cases) {
    it(c.input, () => {
      const { text, offset } = cursor(c.input);
      const h = hoverLogFilter(text, offset, c.input.includes('Action') ? { dataset: 'firewall_events' } : {})!;
      expect(h).toBeDefined();
      expect(text.slice(h.from, h.to)).toBe(c.span);
      for (const s of c.says) expect(h.markdown).toContain(s);
    });
  }
  it('nothing on values, unknown keys and punctuation', () => {
    for (const m of ['{"where": {"value": 5|00}}', '{"where": {"key": "Nope|"}}', '{"wh|at": 1}', '{|}']) {
      const { text, offset } = cursor(m);
      expect(hoverLogFilter(text, offset), m).toBeUndefined();
    }
  });
});
