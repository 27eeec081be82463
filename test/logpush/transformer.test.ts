/**
 * Transformer SQL: the docs' two examples deliver the docs' records; SQL's semantics on one record
 * (NULL, three-valued logic, integer division, LIKE, CASE, WITH); what the docs call unsupported and
 * what the checker refuses, each with its code and range.
 */
import { describe, expect, it } from 'vitest';
import { checkTransformer, previewTransformer } from '../../src/logpush/index.js';

const run = (sql: string, input: Record<string, unknown>) => {
  const p = previewTransformer(sql, input);
  if (!('output' in p)) throw new Error(JSON.stringify(p));
  return p.output;
};
const codes = (sql: string) => checkTransformer(sql).diagnostics.map((d) => d.code);

describe('transformer preview', () => {
  it('delivers the docs\' http_requests example record, and drops a health check', () => {
    const sql = `SELECT extract(epoch FROM to_timestamp(EdgeStartTimestamp)) AS unix_ts, UPPER(ClientRequestMethod) AS method, 'Cloudflare' AS provider,
      named_struct('host', ClientRequestHost, 'path', ClientRequestPath, 'method', ClientRequestMethod) AS request,
      EdgeResponseStatus >= 500 AS is_server_error, [ClientRequestHost, ClientRequestPath] AS request_meta
      FROM http_requests
      WHERE ClientRequestHost NOT IN ('internal.example.com', 'health.example.com') AND ClientRequestPath NOT LIKE '/healthz%' AND ClientRequestPath NOT LIKE '/metrics%'`;
    const input = { ClientIP: '203.0.113.42', ClientRequestHost: 'example.com', ClientRequestMethod: 'POST', ClientRequestPath: '/api/checkout', ClientRequestUserAgent: 'curl/7.85.0', EdgeResponseStatus: 502, EdgeStartTimestamp: '2026-05-21T15:00:00Z', RayID: '8e2a1c60ef9e1c9a', OriginResponseTime: 3200000000, WAFAction: 'unknown' };
    expect(JSON.stringify(run(sql, input))).toBe(JSON.stringify({
      is_server_error: true, method: 'POST', provider: 'Cloudflare', request: { host: 'example.com', method: 'POST', path: '/api/checkout' }, request_meta: ['example.com', '/api/checkout'], unix_ts: 1779375600,
    }));
    expect(run(sql, { ...input, ClientRequestPath: '/healthz/live' })).toBeNull();
    expect(run(sql, { ...input, ClientRequestHost: 'health.example.com' })).toBeNull();
  });

  it('follows SQL: NULL for missing fields, three-valued WHERE, integer division, CASE, ->>, WITH', () => {
    expect(run('SELECT ClientIP, RayID FROM http_requests', { RayID: 'r' })).toEqual({ RayID: 'r' });
    expect(run('SELECT RayID FROM http_requests WHERE EdgeResponseStatus <> 200', { RayID: 'r' })).toBeNull();
    expect(run('SELECT RayID FROM http_requests WHERE NOT (EdgeResponseStatus = 200)', { RayID: 'r' })).toBeNull();
    expect(run('SELECT RayID FROM http_requests WHERE EdgeResponseStatus IS NULL OR EdgeResponseStatus = 1', { RayID: 'r' })).toEqual({ RayID: 'r' });
    expect(run('SELECT EdgeResponseStatus / 100 AS class, EdgeResponseStatus / 100.0 AS ratio FROM http_requests', { EdgeResponseStatus: 503 })).toEqual({ class: 5, ratio: 5.03 });
    expect(run("SELECT CASE WHEN EdgeResponseStatus >= 500 THEN 'error' WHEN EdgeResponseStatus >= 400 THEN 'client' ELSE 'ok' END AS kind FROM http_requests", { EdgeResponseStatus: 404 })).toEqual({ kind: 'client' });
    expect(run("SELECT RequestHeaders ->> 'host' AS host, RequestHeaders -> 'x' AS x FROM http_requests", { RequestHeaders: { host: 'a.example' } })).toEqual({ host: 'a.example' });
    expect(run("SELECT ClientRequestPath LIKE '/a\\_b%' AS m FROM http_requests", { ClientRequestPath: '/a_bc' })).toEqual({ m: true });
    expect(run("SELECT ClientRequestPath LIKE '/a\\_b%' AS m FROM http_requests", { ClientRequestPath: '/axbc' })).toEqual({ m: false });
    expect(run("SELECT ClientIP || ' ' || CAST(EdgeResponseStatus AS VARCHAR) AS s, substr(RayID, 1, 4) AS p, coalesce(ClientCountry, 'xx') AS c FROM http_requests", { ClientIP: '1.2.3.4', EdgeResponseStatus: 200, RayID: 'abcdefgh' })).toEqual({ s: '1.2.3.4 200', p: 'abcd', c: 'xx' });
    const cte = 'WITH errs AS (SELECT ClientIP AS ip, EdgeResponseStatus AS status FROM http_requests WHERE EdgeResponseStatus >= 500) SELECT ip, status * 2 AS twice FROM errs WHERE ip LIKE \'10.%\'';
    expect(run(cte, { ClientIP: '10.0.0.1', EdgeResponseStatus: 500 })).toEqual({ ip: '10.0.0.1', twice: 1000 });
    expect(run(cte, { ClientIP: '10.0.0.1', EdgeResponseStatus: 200 })).toBeNull();
    expect(run(cte, { ClientIP: '192.0.2.1', EdgeResponseStatus: 500 })).toBeNull();
  });

  it('reads an input value of the wrong type as NULL with a warning, and answers runtime failures', () => {
    const p = previewTransformer('SELECT EdgeResponseStatus AS s, RayID FROM http_requests', { EdgeResponseStatus: '500', RayID: 'r' });
    expect(p).toMatchObject({ output: { RayID: 'r' }, diagnostics: [{ code: 'transformer-input-type', pointer: '/input/EdgeResponseStatus' }] });
    expect(previewTransformer('SELECT EdgeResponseStatus / 0 AS x FROM http_requests', { EdgeResponseStatus: 1 })).toMatchObject({ errors: [{ code: 'transformer-runtime-error' }] });
    expect(previewTransformer("SELECT CAST(ClientIP AS INT) AS x FROM http_requests", { ClientIP: 'a' })).toMatchObject({ errors: [{ code: 'transformer-runtime-error' }] });
    expect(previewTransformer('SELECT RayID FROM http_requests', [1])).toMatchObject({ errors: [{ code: 'transformer-input-type', pointer: '/input' }] });
    expect(previewTransformer("SELECT regexp_replace(ClientIP, '\\.', '-') AS x FROM http_requests", {})).toMatchObject({ notRunnable: { reason: expect.stringContaining('regexp_replace') } });
  });
});

describe('transformer checks', () => {
  it('accepts the documented operations and derives the dataset from FROM', () => {
    expect(checkTransformer('SELECT * FROM http_requests WHERE EdgeResponseStatus >= 400').diagnostics).toEqual([]);
    expect(checkTransformer('SELECT ClientIP FROM http_requests').dataset).toBe('http_requests');
    expect(checkTransformer('WITH a AS (SELECT ActionType FROM audit_logs_v2) SELECT ActionType FROM a').dataset).toBe('audit_logs_v2');
    expect(checkTransformer('select r.RayID from http_requests r where r.EdgeResponseStatus between 500 and 599;').diagnostics).toEqual([]);
  });

  it('refuses what the docs list as not supported, unknown names and wrong kinds, at their place', () => {
    expect(codes('SELECT ClientCountry, COUNT(*) FROM http_requests GROUP BY ClientCountry')).toEqual(['transformer-unsupported']);
    expect(codes('SELECT RayID FROM http_requests ORDER BY RayID')).toEqual(['transformer-unsupported']);
    expect(codes('SELECT RayID FROM http_requests, firewall_events')).toEqual(['transformer-unsupported']);
    expect(codes('SELECT RayID FROM http_requests JOIN firewall_events ON 1 = 1')).toEqual(['transformer-unsupported']);
    expect(codes('SELECT RayID FROM (SELECT RayID FROM http_requests)')).toEqual(['transformer-unsupported']);
    expect(codes('SELECT RayID FROM http_requests; SELECT RayID FROM http_requests')).toEqual(['transformer-unsupported']);
    expect(codes('SELECT row_number() OVER () FROM http_requests')).toEqual(['transformer-unsupported']);
    expect(codes('SELECT RayID FROM http_requests WHERE')).toEqual(['transformer-syntax']);
    expect(codes("SELECT 'x FROM http_requests")).toEqual(['transformer-syntax']);
    expect(codes('SELECT RayID FROM logs')).toEqual(['transformer-unknown-dataset']);
    expect(codes('SELECT rayid FROM http_requests')).toEqual(['transformer-unknown-field']);
    expect(codes('SELECT uppercase(RayID) FROM http_requests')).toEqual(['transformer-unknown-function']);
    expect(codes('SELECT ClientIP + 1 AS x FROM http_requests')).toEqual(['transformer-type']);
    expect(codes('SELECT RayID FROM http_requests WHERE EdgeResponseStatus')).toEqual(['transformer-type']);
    expect(codes('SELECT upper(RayID, ClientIP) FROM http_requests')).toEqual(['transformer-type']);
    expect(codes('SELECT RayID, ClientIP AS RayID FROM http_requests')).toEqual(['transformer-duplicate-column']);
    expect(codes(`SELECT RayID FROM http_requests -- ${'x'.repeat(40_000)}`)).toEqual(['transformer-too-large']);
    expect(codes(`SELECT ${'('.repeat(200)}1${')'.repeat(200)} AS x FROM http_requests`)).toEqual(['transformer-syntax']);
    const d = checkTransformer('SELECT ClientIp FROM http_requests').diagnostics[0]!;
    expect(d.range).toEqual({ start: 7, end: 15 });
    expect(d.message).toContain('did you mean "ClientIP"');
  });

  it('delivers a member named __proto__ as an own member', () => {
    expect(JSON.stringify(run('SELECT RayID AS "__proto__" FROM http_requests', { RayID: 'r' }))).toBe('{"__proto__":"r"}');
  });
});
