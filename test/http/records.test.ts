/**
 * Requests into records: the fields reference's examples and rules (URL normalization, extensions,
 * arguments not decoded, lower-cased header keys, URL-decoded cookie names), the readers' diagnostics,
 * and the laws: a request written as NDJSON and as HAR gives the same record; no input makes a reader
 * throw; normalizing a normalized path changes nothing.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HTTP_FIELD_ROWS } from '../../src/expression/index.js';
import { HTTP_RECORD_SOURCES, normalizePath, pathExtension, readRequests, requestRecord, splitUrl, type HttpRequest } from '../../src/http/index.js';

const record = (r: Partial<HttpRequest>) => requestRecord({ method: 'GET', url: 'https://example.com/', headers: [], ...r });

describe('URL fields', () => {
  it.each([
    // The examples of the URL normalization page (type Cloudflare, incoming URLs normalized).
    ['/%68ello', '/hello'],
    ['/en//%68ello\\path', '/en/hello/path'],
    ['\\hello', '/hello'],
    ['/./en//hello./', '/en/hello./'],
    ['/hello//../path', '/path'],
    ['/hello/\\../path', '/path'],
    ['/a%2fb%7e', '/a%2Fb~'],
    ['/caf\u00e9 x', '/caf%C3%A9%20x'],
  ])('%s is normalized to %s; the raw path stays as sent', (path, normalized) => {
    const r = record({ url: `https://example.com${path}` });
    expect(r['http.request.uri.path']).toBe(normalized);
    expect(r['raw.http.request.uri.path']).toBe(path);
  });

  it.each([
    ['/foo', ''],
    ['/foo.mp3', 'mp3'],
    ['/.mp3', ''],
    ['/.foo.mp3', 'mp3'],
    ['/foo.tar.bz2', 'bz2'],
    ['/foo.', ''],
    ['/foo.MP3', 'mp3'],
  ])('the extension of %s is %j (the reference table)', (path, ext) => {
    expect(record({ url: `https://example.com${path}` })['http.request.uri.path.extension']).toBe(ext);
  });

  it('full URI, URI and query as the reference example shows them; the fragment is not sent', () => {
    const r = record({ url: 'https://www.example.org/articles/index?section=539061&expand=comments#top', headers: [['Host', 'www.example.org']] });
    expect(r['http.request.full_uri']).toBe('https://www.example.org/articles/index?section=539061&expand=comments');
    expect(r['http.request.uri']).toBe('/articles/index?section=539061&expand=comments');
    expect(r['http.request.uri.query']).toBe('section=539061&expand=comments');
    expect(r['http.host']).toBe('www.example.org');
    expect([r['ssl'], r['cf.edge.server_port']]).toEqual([true, 443]);
  });

  it('arguments are not decoded and keep repeated names in order (search: red+apples)', () => {
    const r = record({ url: '/s?search=red+apples&a=1&a=%32&flag', headers: [['Host', 'example.com']] });
    expect(r['http.request.uri.args']).toEqual(new Map([['search', ['red+apples']], ['a', ['1', '%32']], ['flag', ['']]]));
    expect(r['http.request.uri.args.names']).toEqual(['search', 'a', 'a', 'flag']);
    // An origin-form target has no scheme: no full URI, no ssl.
    expect(r['http.request.full_uri']).toBeUndefined();
    expect(r['ssl']).toBeUndefined();
  });

  it('splits an IPv6 authority with a port and user info', () => {
    expect(splitUrl('http://u:p@[2001:db8::1]:8080/x?y')).toEqual({ scheme: 'http', host: '2001:db8::1', authority: '[2001:db8::1]:8080', port: 8080, path: '/x', query: 'y' });
    expect(splitUrl('example.com/x')).toBeUndefined();
  });
});

describe('headers, cookies and bodies', () => {
  it('header keys are lower-cased, names and values kept as sent; __proto__ is a plain key of a real Map', () => {
    const r = record({ headers: [['X-Forwarded-For', '203.0.113.195'], ['x-forwarded-for', '70.41.3.18'], ['__proto__', 'x'], ['User-Agent', 'curl/8'], ['User-Agent', 'second']] });
    const h = r['http.request.headers'] as Map<string, string[]>;
    expect(h).toBeInstanceOf(Map);
    expect(h.get('__proto__')).toEqual(['x']);
    expect(h.get('x-forwarded-for')).toEqual(['203.0.113.195', '70.41.3.18']);
    expect(r['http.x_forwarded_for']).toBe('203.0.113.195, 70.41.3.18');
    expect(r['http.user_agent']).toBe('curl/8');
    expect(r['http.request.headers.names']).toEqual(['X-Forwarded-For', 'x-forwarded-for', '__proto__', 'User-Agent', 'User-Agent']);
  });

  it('cookie names are URL-decoded and merged; values are not processed; HTTP/2 cookie headers join with "; "', () => {
    const r = record({ headers: [['cookie', 'a%70p=test; app=Two'], ['cookie', 'x=%41']], httpVersion: 'h2' });
    expect(r['http.request.cookies']).toEqual(new Map([['app', ['test', 'Two']], ['x', ['%41']]]));
    expect(r['http.cookie']).toBe('a%70p=test; app=Two; x=%41');
    expect(r['http.request.version']).toBe('HTTP/2');
  });

  it('Accept-Language tags by weight, * left out (the reference example)', () => {
    expect(record({ headers: [['Accept-Language', 'fr-CH, fr;q=0.8, en;q=0.9, de;q=0.7, *;q=0.5']] })['http.request.accepted_languages']).toEqual(['fr-CH', 'en', 'fr', 'de']);
  });

  it('a form body gives the form fields; other bodies only raw and size', () => {
    const form = record({ method: 'post', headers: [['Content-Type', 'application/x-www-form-urlencoded; charset=UTF-8']], body: 'username=admin&x=%41' });
    expect(form['http.request.body.form']).toEqual(new Map([['username', ['admin']], ['x', ['%41']]]));
    expect(form['http.request.method']).toBe('POST');
    const json = record({ headers: [['Content-Type', 'application/json']], body: '{"é":1}' });
    expect([json['http.request.body.raw'], json['http.request.body.size'], json['http.request.body.form']]).toEqual(['{"é":1}', 8, undefined]);
  });

  it('no response: the response fields are missing; a response gives code, headers and media type', () => {
    expect(record({})['http.response.code']).toBeUndefined();
    const r = record({ response: { status: 503, headers: [['Content-Type', 'Text/HTML+extra; charset=utf-8'], ['Server', 'nginx']] } });
    expect(r['http.response.code']).toBe(503);
    expect(r['http.response.content_type.media_type']).toBe('text/html+extra');
    expect((r['http.response.headers'] as Map<string, string[]>).get('server')).toEqual(['nginx']);
  });

  it('every field a record can hold is a field of the reference, and a full request fills the whole table', () => {
    const names = new Set(HTTP_FIELD_ROWS.map(([n]) => n));
    for (const [field] of HTTP_RECORD_SOURCES) expect(names.has(field), field).toBe(true);
    const full = record({
      url: 'https://example.com/a.txt?x=1',
      httpVersion: 'HTTP/1.1',
      headers: [['Host', 'example.com'], ['User-Agent', 'u'], ['Referer', 'r'], ['X-Forwarded-For', 'f'], ['Cookie', 'c=1'], ['Accept-Language', 'en'], ['Content-Type', 'multipart/form-data; boundary=b']],
      body: '--b\r\nContent-Disposition: form-data; name="n"\r\n\r\nv\r\n--b--\r\n',
      clientIp: '192.0.2.1',
      serverIp: '198.51.100.1',
      country: 'GB',
      asn: 64496,
      timestamp: 1484063137857,
      response: { status: 200, headers: [['Content-Type', 'text/plain']] },
    });
    const form = record({ headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: 'a=1' });
    const produced = new Set([...Object.keys(full), ...Object.keys(form)]);
    expect([...produced].sort()).toEqual(HTTP_RECORD_SOURCES.map(([f]) => f).sort());
    expect([full['http.request.timestamp.sec'], full['http.request.timestamp.msec']]).toEqual([1484063137, 857]);
  });
});

describe('readers', () => {
  it('NDJSON: headers as pairs or an object; bad members are warnings with pointer and line; bad lines errors', () => {
    const text = [
      JSON.stringify({ method: 'GET', url: '/a', headers: { Host: 'example.com', Accept: ['a', 'b'] }, clientIp: 'nope', fields: { 'cf.bot_management.score': 'high', 'cf.waf.score': 12, 'http.request.cookies': { a: ['1'] } } }),
      '',
      '[1,2]',
      JSON.stringify({ method: 'GET', url: 'example.com/no-slash' }),
    ].join('\n');
    const read = readRequests(text);
    expect(read.format).toBe('ndjson');
    expect(read.requests.map((r) => r.line)).toEqual([1]);
    const r = requestRecord(read.requests[0]!.request);
    expect(r['http.request.headers.values']).toEqual(['example.com', 'a', 'b']);
    expect(r['ip.src']).toBeUndefined();
    expect(r['cf.waf.score']).toBe(12);
    expect(r['http.request.cookies']).toEqual(new Map([['a', ['1']]]));
    expect(read.diagnostics.map((d) => `${d.severity}:${d.code}:${(d.data as { line: number }).line}:${d.pointer ?? ''}`)).toEqual([
      'warning:http-invalid-value:1:/clientIp',
      'warning:http-invalid-value:1:/fields/cf.bot_management.score',
      'error:http-invalid-request:3:',
      'error:http-invalid-request:4:/url',
    ]);
  });

  it('HAR: a malformed entry is skipped with a warning naming its pointer; the others are read', () => {
    const har = { log: { version: '1.2', entries: [{ request: { method: 'GET', url: 'https://a.example/' } }, { request: { url: 'https://b.example/' } }, 7, { request: { method: 'GET', url: 'https://c.example/', headers: [{ name: 'X', value: 1 }] } }] } };
    const read = readRequests(JSON.stringify(har));
    expect(read.format).toBe('har');
    expect(read.requests.map((r) => r.pointer)).toEqual(['/log/entries/0', '/log/entries/3']);
    expect(read.diagnostics.map((d) => `${d.severity}:${d.code}:${d.pointer}`)).toEqual([
      'warning:http-har-entry-skipped:/log/entries/1/request/method',
      'warning:http-har-entry-skipped:/log/entries/2',
      'warning:http-invalid-value:/log/entries/3/request/headers/0',
    ]);
  });

  it('a HAR document without entries is one error', () => {
    expect(readRequests('{"log":{}}').diagnostics.map((d) => d.code)).toEqual(['http-invalid-har']);
    expect(readRequests('{"log":', { format: 'har' }).diagnostics.map((d) => d.code)).toEqual(['http-invalid-har']);
  });

  it('no input makes a reader throw (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ log: { entries: [v, { request: v }] } })), fc.jsonValue().map((v) => JSON.stringify({ method: 'GET', url: '/', headers: v, response: v, fields: v, cookies: v }))), (text) => {
        const read = readRequests(text);
        for (const r of read.requests) requestRecord(r.request);
      }),
      { numRuns: 300 },
    );
  });
});

describe('laws', () => {
  const token = fc.stringMatching(/^[A-Za-z0-9_.~-]{1,8}$/);
  const text = fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ' '));
  const request = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'delete'),
    scheme: fc.constantFrom('http', 'https'),
    host: fc.constantFrom('example.com', 'www.example.org', '192.0.2.1:8080'),
    segments: fc.array(fc.oneof(token, fc.constantFrom('.', '..', '', '%41', 'a%2fb', 'x.PNG')), { maxLength: 4 }),
    query: fc.option(fc.array(fc.tuple(token, fc.oneof(token, fc.constantFrom('a+b', '%20', ''))), { maxLength: 3 }), { nil: undefined }),
    headers: fc.array(fc.tuple(fc.constantFrom('User-Agent', 'Referer', 'Cookie', 'X-Custom', 'Accept-Language', 'x-forwarded-for', '__proto__'), text), { maxLength: 5 }),
    version: fc.constantFrom('HTTP/1.1', 'HTTP/2', 'h3'),
    body: fc.option(text, { nil: undefined }),
    clientIp: fc.option(fc.constantFrom('198.51.100.7', '2001:db8::1'), { nil: undefined }),
    serverIp: fc.option(fc.constantFrom('203.0.113.1'), { nil: undefined }),
    time: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
    responseHeaders: fc.array(fc.tuple(fc.constantFrom('Content-Type', 'Server', 'Set-Cookie'), text), { maxLength: 3 }),
  });

  it('a request written as NDJSON and as HAR gives the same record', () => {
    fc.assert(
      fc.property(request, (g) => {
        const url = `${g.scheme}://${g.host}/${g.segments.join('/')}${g.query ? `?${g.query.map(([n, v]) => `${n}=${v}`).join('&')}` : ''}`;
        const started = new Date(g.time).toISOString();
        const ndjson = {
          method: g.method, url, httpVersion: g.version, headers: g.headers, body: g.body, clientIp: g.clientIp, serverIp: g.serverIp, timestamp: started,
          response: g.status === undefined && !g.responseHeaders.length ? undefined : { status: g.status, headers: g.responseHeaders },
        };
        const entry = {
          startedDateTime: started,
          serverIPAddress: g.serverIp,
          request: { method: g.method, url, httpVersion: g.version, headers: g.headers.map(([name, value]) => ({ name, value })), cookies: [], postData: g.body === undefined ? undefined : { mimeType: 'text/plain', text: g.body }, bodySize: g.body === undefined ? 0 : new TextEncoder().encode(g.body).length },
          response: { status: g.status ?? 0, headers: g.responseHeaders.map(([name, value]) => ({ name, value })) },
          _rulekit: g.clientIp === undefined ? undefined : { clientIp: g.clientIp },
        };
        const a = readRequests(JSON.stringify(ndjson));
        const b = readRequests(JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [entry] } }));
        expect([a.format, b.format]).toEqual(['ndjson', 'har']);
        expect([a.diagnostics, b.diagnostics]).toEqual([[], []]);
        expect(requestRecord(b.requests[0]!.request)).toEqual(requestRecord(a.requests[0]!.request));
      }),
      { numRuns: 300 },
    );
  });

  it('a record for some fields is the whole record restricted to them (deprecated names read their sources)', () => {
    const all = HTTP_RECORD_SOURCES.map(([f]) => f);
    fc.assert(
      fc.property(request, fc.subarray([...all, 'ip.geoip.country', 'cf.bot_management.score']), (g, fields) => {
        const req: HttpRequest = {
          method: g.method, url: `${g.scheme}://${g.host}/${g.segments.join('/')}${g.query ? `?${g.query.map(([n, v]) => `${n}=${v}`).join('&')}` : ''}`, httpVersion: g.version,
          headers: [...g.headers, ['Content-Type', 'application/x-www-form-urlencoded']], body: g.body, clientIp: g.clientIp, country: 'GB', timestamp: g.time,
          response: { status: g.status, headers: g.responseHeaders }, fields: { 'cf.bot_management.score': 5 },
        };
        const full = requestRecord(req);
        const wanted = new Set(fields.includes('ip.geoip.country') ? [...fields, 'ip.src.country'] : fields);
        const expected = Object.fromEntries(Object.entries(full).filter(([k]) => wanted.has(k) || k === 'cf.bot_management.score'));
        expect(requestRecord(req, new Set(fields))).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('normalizing a normalized path changes nothing, and leaves no dot segment or double slash', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('.', '..', '%2e', '%2E%2e', '\\', '%7e', '%zz')), { maxLength: 6 }), (parts) => {
        const once = normalizePath('/' + parts.join('/'));
        expect(normalizePath(once)).toBe(once);
        expect(once).not.toMatch(/\/\.\.?(\/|$)|\/\//);
        expect(pathExtension(once)).toBe(pathExtension(normalizePath(once)));
      }),
      { numRuns: 500 },
    );
  });
});
