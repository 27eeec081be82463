/**
 * Logpush `http_requests` lines as requests (src/http/logpush.ts): the table from dataset fields to rule
 * fields against the two catalogs, a line's record as the rules read it, and the fields a line lacks left
 * missing (and named) rather than guessed.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, HTTP_SCHEME } from '../../src/index.js';
import { DATASETS } from '../../src/logpush/datasets/index.js';
import { isLogpushLine, LOGPUSH_REQUEST_FIELDS, logpushRecord, RULE_FIELD_NEEDS } from '../../src/http/logpush.js';
import { HTTP_RECORD_SOURCES } from '../../src/http/index.js';
import { runSimulation } from '../../src/simulation/run.js';

const LINE = {
  ClientRequestMethod: 'POST', ClientRequestScheme: 'https', ClientRequestHost: 'shop.example.com', ClientRequestURI: '/login?next=%2Fcart&x=1',
  ClientRequestProtocol: 'HTTP/2', ClientRequestUserAgent: 'curl/8.5.0', ClientRequestReferer: 'https://example.com/',
  ClientIP: '198.51.100.7', ClientCountry: 'de', ClientASN: 64500, EdgeServerIP: '104.16.0.1', EdgeStartTimestamp: '2026-11-28T10:00:01.250Z',
  EdgeResponseStatus: 403, BotScore: 12, WAFAttackScore: 80, RayID: '8c1f2e3d4b5a6978', ClientSSLProtocol: 'TLSv1.3',
  RequestHeaders: { 'x-api-key': 'k1' }, Cookies: { session: 'abc' }, ZoneName: 'example.com',
};

describe('Logpush http_requests lines as requests', () => {
  it('the table names fields of the http_requests dataset and fields of the HTTP scheme that a request record holds', () => {
    const dataset = DATASETS.get('http_requests')!;
    const recordFields = new Set([...HTTP_RECORD_SOURCES.map(([f]) => f), 'cf.bot_management.score', 'cf.verified_bot_category', 'cf.waf.score', 'cf.waf.score.sqli', 'cf.waf.score.xss', 'cf.waf.score.rce', 'cf.ray_id', 'cf.tls_version']);
    for (const row of LOGPUSH_REQUEST_FIELDS) {
      expect(dataset.byName.has(row.logpush), `${row.logpush} is a field of http_requests`).toBe(true);
      for (const f of row.rule) {
        expect(HTTP_SCHEME.get(f), `${f} is a rule field`).toBeDefined();
        expect(recordFields.has(f), `${f} is a field a request record holds`).toBe(true);
      }
    }
    expect(RULE_FIELD_NEEDS.get('http.request.full_uri')).toEqual(['ClientRequestScheme', 'ClientRequestHost', 'ClientRequestURI']);
  });

  it('tells Logpush lines from request objects', () => {
    expect(isLogpushLine(LINE)).toBe(true);
    expect(isLogpushLine({ method: 'GET', url: '/' })).toBe(false);
    expect(isLogpushLine({ ClientIP: '1.2.3.4' })).toBe(false);
    expect(isLogpushLine([LINE])).toBe(false);
  });

  it('a full line gives the record the rules read', () => {
    const { record, missing } = logpushRecord(LINE);
    expect(record).toMatchObject({
      'http.request.method': 'POST', 'http.host': 'shop.example.com', ssl: true, 'http.request.uri.path': '/login', 'http.request.uri.query': 'next=%2Fcart&x=1',
      'http.request.full_uri': 'https://shop.example.com/login?next=%2Fcart&x=1', 'http.request.version': 'HTTP/2', 'http.user_agent': 'curl/8.5.0',
      'http.referer': 'https://example.com/', 'ip.src': '198.51.100.7', 'ip.src.country': 'DE', 'ip.src.asnum': 64500, 'http.response.code': 403,
      'cf.bot_management.score': 12, 'cf.waf.score': 80, 'cf.ray_id': '8c1f2e3d4b5a6978', 'cf.tls_version': 'TLSv1.3', 'http.request.timestamp.sec': 1795860001,
    });
    expect((record['http.request.headers'] as Map<string, string[]>).get('x-api-key')).toEqual(['k1']);
    expect((record['http.request.cookies'] as Map<string, string[]>).get('session')).toEqual(['abc']);
    // Not in any Logpush field: the body, the edge's port.
    expect(missing.has('http.request.body.raw') || !('http.request.body.raw' in record)).toBe(true);
    expect(record['cf.edge.server_port']).toBeUndefined();
    const m = compileExpression('http.host eq "shop.example.com" and ip.src.country eq "DE" and cf.bot_management.score lt 30 and http.request.headers["x-api-key"][0] eq "k1"', { scheme: HTTP_SCHEME });
    expect(m.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(m.matcher!(record as never)).toBe(true);
  });

  it('a line without a field leaves the rule fields it gives missing and names it; nothing is made up', () => {
    const { RequestHeaders: _h, ClientRequestHost: _host, BotScore: _b, ...rest } = LINE;
    const { record, missing } = logpushRecord(rest, new Set(['http.request.headers', 'http.host', 'http.request.full_uri', 'cf.bot_management.score', 'http.request.uri.path', 'http.request.body.raw']));
    expect(record['http.request.headers']).toBeUndefined();
    expect(record['http.host']).toBeUndefined();
    expect(record['http.request.full_uri']).toBeUndefined();
    expect(record['cf.bot_management.score']).toBeUndefined();
    expect(record['http.request.uri.path']).toBe('/login');
    expect(Object.fromEntries(missing)).toEqual({
      'http.request.headers': ['RequestHeaders'], 'http.host': ['ClientRequestHost'], 'http.request.full_uri': ['ClientRequestHost'], 'cf.bot_management.score': ['BotScore'], 'http.request.body.raw': [],
    });
  });
});

describe('simulating over Logpush lines', () => {
  it('decides each line as a request, and says which rules read fields the lines lack', async () => {
    const lines = [
      LINE,
      { ...LINE, ClientRequestHost: 'api.example.com', ClientRequestURI: '/v1/items', ClientCountry: 'us', BotScore: 90 },
      (({ RequestHeaders: _h, ...rest }) => rest)({ ...LINE, ClientRequestURI: '/admin' }),
    ];
    const ruleset = {
      name: 'waf', kind: 'zone', phase: 'http_request_firewall_custom',
      rules: [
        { ref: 'bots', action: 'block', expression: 'cf.bot_management.score lt 30 and http.request.uri.path eq "/login"' },
        { ref: 'keys', action: 'managed_challenge', expression: 'not any(http.request.headers.names[*] eq "x-api-key")' },
        { ref: 'body', action: 'block', expression: 'http.request.body.raw contains "drop table"' },
      ],
    };
    const report = await runSimulation(JSON.stringify(ruleset), new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
    expect(report.input).toBe('logpush');
    expect(report.summary.packets).toBe(3);
    const byRef = Object.fromEntries(report.summary.rules.map((r) => [r.ref, r.matched]));
    expect(byRef).toMatchObject({ bots: 1, keys: 1 });
    const missing = report.diagnostics.filter((d) => d.code === 'http-logpush-missing-field').map((d) => [d.pointer, d.message]);
    expect(missing).toEqual([
      ['/rules/1/expression', expect.stringMatching(/^rule 1 reads http\.request\.headers\.names, which 1 of 3 Logpush lines lack \(Logpush field RequestHeaders\)/)],
      ['/rules/2/expression', expect.stringMatching(/^rule 2 reads http\.request\.body\.raw, which 3 of 3 Logpush lines lack \(no Logpush field of http_requests gives it\)/)],
    ]);
  });
});
