/**
 * `destination_conf` and `logpull_options` are URL-shaped strings; the WHATWG URL parser (Node's `URL`
 * and `URLSearchParams`) is the outside reader their hand-written splitters are held to, on the strings
 * where the two agree by design (no percent escapes or `+` in values, which the service keeps as written).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLogpullOptions, DESTINATION_SCHEMES, getDataset, parseDestination, parseLogpullOptions, readLogpullSettings } from '../../src/logpush/index.js';

const chars = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet.split('')), { minLength: min, maxLength: max }).map((cs) => cs.join(''));

// Labels start with a letter: URL reads all-digit hosts of special schemes (https) as IPv4 numbers.
const label = fc.tuple(chars('abcdefghijklmnopqrstuvwxyz', 1, 1), chars('abcdefghijklmnopqrstuvwxyz0123456789', 0, 7)).map(([a, b]) => a + b);
const host = fc.tuple(label, fc.array(label, { maxLength: 2 })).map(([a, rest]) => [a, ...rest].join('.'));
const target = fc.tuple(host, fc.option(fc.integer({ min: 1000, max: 65535 }), { nil: undefined })).map(([h, p]) => (p === undefined ? h : `${h}:${p}`));
const segment = chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-', 1, 8);
const path = fc.array(segment, { maxLength: 3 }).map((s) => s.map((x) => `/${x}`).join(''));
const name = chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-', 1, 12);
const value = chars('abcdefghijklmnopqrstuvwxyz0123456789-_.,:/', 0, 12);
const param = fc.tuple(name, fc.option(value, { nil: undefined })).map(([n, v]) => (v === undefined ? n : `${n}=${v}`));
const query = fc.array(param, { maxLength: 4 }).map((ps) => ps.join('&'));
const scheme = fc.constantFrom(...DESTINATION_SCHEMES.map((d) => d.scheme), 'ftp', 'S3', 'x+y.z-1');

describe('parseDestination against the WHATWG URL parser', () => {
  it('reads scheme, target, path and query parameters as URL does, with ranges that cut them out of the text', () => {
    fc.assert(
      fc.property(scheme, target, path, fc.option(query, { nil: undefined }), (sch, t, p, q) => {
        const text = `${sch}://${t}${p}${q === undefined ? '' : `?${q}`}`;
        const d = parseDestination(text)!;
        const url = new URL(text);
        expect(d.scheme.toLowerCase()).toBe(url.protocol.slice(0, -1));
        expect(d.target).toBe(url.host);
        // A special scheme's empty path is `/` to URL.
        expect(d.path).toBe(url.pathname === '/' && !text.includes(`${t}/`) ? '' : url.pathname);
        const fromUrl = [...url.searchParams].map(([n, v]) => [n, v]);
        expect(d.params.map((x) => [x.name, x.value])).toEqual(fromUrl);
        const cut = (r: { start: number; end: number }) => text.slice(r.start, r.end);
        expect([cut(d.schemeRange), cut(d.targetRange), cut(d.pathRange)]).toEqual([d.scheme, d.target, d.path]);
        for (const x of d.params) expect(cut(x.range)).toBe(x.value === '' && !cut(x.range).includes('=') ? x.name : `${x.name}=${x.value}`);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['s3://bucket', { target: 'bucket', path: '', params: [] }],
    ['s3://bucket/', { target: 'bucket', path: '/', params: [] }],
    ['s3://bucket?region=us-east-1', { target: 'bucket', path: '', params: [['region', 'us-east-1', 12, 28]] }],
    ['s3://b/p/{DATE}?a=1&&b&c=', { target: 'b', path: '/p/{DATE}', params: [['a', '1', 16, 19], ['b', '', 21, 22], ['c', '', 23, 25]] }],
    ['https://h?x=/y/z', { target: 'h', path: '', params: [['x', '/y/z', 10, 16]] }],
    ['azure://c/p?%73ig=1', { target: 'c', path: '/p', params: [['sig', '1', 12, 19]] }],
    ['azure://c?%zz=1', { target: 'c', path: '', params: [['%zz', '1', 10, 15]] }],
    ['gs://', { target: '', path: '', params: [] }],
    // A part that starts with `=` has an empty name and the rest as its value (as URLSearchParams reads it).
    ['s3://b?=x&region=us', { target: 'b', path: '', params: [['', 'x', 7, 9], ['region', 'us', 10, 19]] }],
  ] as const)('%s', (text, want) => {
    const d = parseDestination(text)!;
    expect({ target: d.target, path: d.path, params: d.params.map((p) => [p.name, p.value, p.range.start, p.range.end]) }).toEqual(want);
  });

  it.each(['', 'bucket/logs', 's3:/b', '://b', '3s://b', 's3 ://b', ' s3://b', 's_3://b'])('%j is not <scheme>://…', (text) => {
    expect(parseDestination(text)).toBeUndefined();
  });
});

describe('parseLogpullOptions against URLSearchParams', () => {
  it('gives the same names and values (empty parts kept as options with empty names), ranges cutting them out', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.oneof(param, fc.constant('')), { maxLength: 6 }), (lead, parts) => {
        const text = `${lead ? '?' : ''}${parts.join('&')}`;
        const ours = parseLogpullOptions(text);
        expect(ours.filter((o) => o.name !== '' || o.wellFormed).map((o) => [o.name, o.value])).toEqual([...new URLSearchParams(text)]);
        expect(ours.length).toBe(parts.join('&') === '' ? 0 : parts.length);
        ours.forEach((o, i) => {
          expect(text.slice(o.range.start, o.range.end)).toBe(parts[i]);
          expect(text.slice(o.nameRange.start, o.nameRange.end)).toBe(o.name);
          expect(text.slice(o.valueRange.start, o.valueRange.end)).toBe(o.value);
          expect(o.wellFormed).toBe(parts[i]!.includes('='));
          if (o.wellFormed) expect(o.valueRange.start).toBe(o.nameRange.end + 1);
          else expect(o.valueRange).toEqual({ start: o.range.end, end: o.range.end });
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the settings, unknown values falling back to the defaults', () => {
    expect(readLogpullSettings(undefined)).toEqual({ timestamps: 'unixnano' });
    expect(readLogpullSettings('')).toEqual({ timestamps: 'unixnano' });
    expect(readLogpullSettings('?fields=A,,B,&timestamps=rfc3339&sample=0.5&CVE-2021-44228=true')).toEqual({
      fields: ['A', 'B'], timestamps: 'rfc3339', sample: 0.5, cve202144228: true,
    });
    expect(readLogpullSettings('timestamps=unix&CVE-2021-44228=TRUE')).toEqual({ timestamps: 'unix', cve202144228: false });
    expect(readLogpullSettings('timestamps=rfc3339ms&fields=')).toEqual({ timestamps: 'unixnano', fields: [] });
    expect(readLogpullSettings('Fields=A&sample')).toEqual({ timestamps: 'unixnano', sample: 0 });
  });
});

describe('checkLogpullOptions diagnostics in full', () => {
  const http = getDataset('http_requests')!;
  const dns = getDataset('dns_logs')!;
  const run = (s: string, ds: typeof http | 'none' = http) =>
    checkLogpullOptions(s, ds === 'none' ? undefined : ds, '/o').map((d) => ({ code: d.code, message: d.message, range: d.range, text: s.slice(d.range!.start, d.range!.end), fix: d.fix?.edits[0]?.newText, data: d.data }));

  it('option shapes: not option=value, unknown (with and without a near name), duplicate', () => {
    expect(run('fields')).toEqual([
      { code: 'logpull-invalid-option', message: '"fields" in logpull_options is not option=value; options are fields, timestamps, sample, CVE-2021-44228', range: { start: 0, end: 6 }, text: 'fields', fix: undefined, data: undefined },
    ]);
    expect(run('?timestamp=unix&zzz=1')).toEqual([
      { code: 'logpull-unknown-option', message: 'Unknown logpull option "timestamp"; did you mean "timestamps"? (known: fields, timestamps, sample, CVE-2021-44228)', range: { start: 1, end: 10 }, text: 'timestamp', fix: 'timestamps', data: { option: 'timestamp', suggestion: 'timestamps' } },
      { code: 'logpull-unknown-option', message: 'Unknown logpull option "zzz" (known: fields, timestamps, sample, CVE-2021-44228)', range: { start: 16, end: 19 }, text: 'zzz', fix: undefined, data: { option: 'zzz', suggestion: undefined } },
    ]);
    expect(run('sample=0.5&sample=0.5')).toEqual([
      { code: 'logpull-duplicate-option', message: 'Option "sample" is given twice in logpull_options; keep one', range: { start: 11, end: 21 }, text: 'sample=0.5', fix: undefined, data: undefined },
    ]);
    // Inherited names are not options.
    expect(run('constructor=1').map((d) => d.code)).toEqual(['logpull-unknown-option']);
  });

  it('values: timestamps, sample, CVE flag', () => {
    expect(run('timestamps=unixnan')).toEqual([
      { code: 'logpull-invalid-timestamps', message: 'timestamps=unixnan is not a format; use unixnano, unix, rfc3339', range: { start: 11, end: 18 }, text: 'unixnan', fix: 'unixnano', data: undefined },
    ]);
    expect(run('timestamps=iso-8601-with-zone')[0]!.fix).toBeUndefined();
    for (const ok of ['timestamps=unixnano', 'timestamps=unix', 'timestamps=rfc3339', 'sample=1', 'sample=0.5', 'sample=.5', 'sample=1.0', 'sample=0.001', 'CVE-2021-44228=true', 'CVE-2021-44228=false']) {
      expect(run(ok), ok).toEqual([]);
    }
    for (const bad of ['0', '0.0', '1.01', '2', '-0.5', '+0.5', '.', '', '1.', '0.', '1a', '1.a', '1e-1', '0x1', '01', ' 0.5', '0.5 ', 'NaN', 'Infinity']) {
      const d = run(`sample=${bad}`);
      expect(d, bad).toEqual([
        { code: 'logpull-invalid-sample', message: `sample=${bad} is not a number in (0, 1] (0.1 keeps 10% of lines)`, range: { start: 7, end: 7 + bad.length }, text: bad, fix: undefined, data: undefined },
      ]);
    }
    expect(run('CVE-2021-44228=TRUE')).toEqual([
      { code: 'logpull-invalid-cve', message: 'CVE-2021-44228=TRUE must be true or false', range: { start: 15, end: 19 }, text: 'TRUE', fix: 'true', data: undefined },
    ]);
    expect(run('CVE-2021-44228=False')[0]!.fix).toBe('false');
    expect(run('CVE-2021-44228=1')[0]!.fix).toBeUndefined();
  });

  it('every fix says what it writes in its title', () => {
    const fixes = ['timestamp=unix', 'timestamps=unixnan', 'CVE-2021-44228=TRUE', 'fields=ClientIPP'].map((s) => checkLogpullOptions(s, http, '/o')[0]!.fix!);
    expect(fixes.map((f) => [f.title, f.edits[0]!.newText])).toEqual([
      ['replace with "timestamps"', 'timestamps'],
      ['replace with "unixnano"', 'unixnano'],
      ['replace with true', 'true'],
      ['replace with "ClientIP"', 'ClientIP'],
    ]);
  });

  it('fields: empty list, empty names, duplicates, unknown names, custom objects on other datasets', () => {
    expect(run('fields=')).toEqual([
      { code: 'logpull-empty-fields', message: 'fields= lists no field; name at least one field of the dataset', range: { start: 0, end: 7 }, text: 'fields=', fix: undefined, data: undefined },
    ]);
    expect(run('fields=RayID,,ClientIP,')).toEqual([
      { code: 'logpull-empty-fields', message: 'An empty field name between commas in fields=', range: { start: 12, end: 13 }, text: ',', fix: undefined, data: undefined },
      { code: 'logpull-empty-fields', message: 'An empty field name between commas in fields=', range: { start: 22, end: 23 }, text: ',', fix: undefined, data: undefined },
    ]);
    expect(run('x=1&fields=RayID,RayID').slice(1)).toEqual([
      { code: 'logpull-duplicate-field', message: 'RayID is listed twice in fields=', range: { start: 17, end: 22 }, text: 'RayID', fix: undefined, data: undefined },
    ]);
    expect(run('fields=RayID,ClientIp')).toEqual([
      { code: 'logpull-unknown-field', message: '"ClientIp" is not a field of http_requests; did you mean "ClientIP"?', range: { start: 13, end: 21 }, text: 'ClientIp', fix: 'ClientIP', data: { field: 'ClientIp', dataset: 'http_requests', suggestion: 'ClientIP' } },
    ]);
    expect(run('fields=Qqqqqqqqqqqq')[0]!.message).toBe('"Qqqqqqqqqqqq" is not a field of http_requests');
    expect(run('fields=RequestHeaders,Cookies')).toEqual([]);
    expect(run('fields=RequestHeaders', dns)).toEqual([
      { code: 'logpull-custom-fields-dataset', message: 'RequestHeaders adds custom log fields to http_requests jobs only; dns_logs has no such field', range: { start: 7, end: 21 }, text: 'RequestHeaders', fix: undefined, data: undefined },
    ]);
    // Without a dataset only the shape of the list is checked.
    expect(run('fields=Anything,Else', 'none')).toEqual([]);
    expect(run('fields=A,A', 'none').map((d) => d.code)).toEqual(['logpull-duplicate-field']);
  });
});
