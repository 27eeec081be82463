/**
 * buildLogLine held to the promises of shared/spec/logpush.md ("Custom log fields") and docs/logpush.md
 * that log-line.test.ts leaves open: the custom objects only in `http_requests` jobs, cookies read from the
 * Cookie header as a browser sends it (RFC 6265 §4.2: `name=value` pairs separated by `; `), the budget
 * per object (objectLimit), the filter on raw time values, the NDJSON text, `output_options` only without
 * `logpull_options`, and the invalid-input diagnostics.
 */
import { describe, expect, it } from 'vitest';
import { buildLogLine, parseCookieHeaders, redactLog4Shell, type LogRequest } from '../../src/logpush/index.js';

const rule = (ap: Record<string, unknown>) => ({ action: 'log_custom_field', expression: 'true', action_parameters: ap });
const ALL = 'fields=RayID,RequestHeaders,ResponseHeaders,Cookies,EdgeStartTimestamp&timestamps=unixnano';
const job = (logpull_options = ALL, extra: object = {}) => ({ dataset: 'http_requests', logpull_options, ...extra });

describe('cookies from the Cookie request header (RFC 6265 §4.2)', () => {
  it('splits pairs on ";", trims the spaces around names and values, keeps "=" inside values', () => {
    expect(parseCookieHeaders([['Cookie', 'a=1;  b = 2 ;c=x=y; d=']])).toEqual([['a', '1'], ['b', '2'], ['c', 'x=y'], ['d', '']]);
  });
  it('skips pieces without a name, and headers other than cookie, in any case of "cookie"', () => {
    expect(parseCookieHeaders([['cookie', '=1; noequals; ;e=5'], ['COOKIE', 'f=6'], ['Set-Cookie', 'g=7'], ['x-cookie', 'h=8']])).toEqual([['e', '5'], ['f', '6']]);
    expect(parseCookieHeaders([['cookie', 5 as unknown as string], ['cookie', 'k=v']])).toEqual([['k', 'v']]);
    expect(parseCookieHeaders([null, 'cookie', [7, 'a=1'], ['cookie', 'k=v']] as never)).toEqual([['k', 'v']]);
  });
  it('cookies given as pairs win over the header; the first of a repeated cookie is logged; names are case-sensitive', () => {
    const req: LogRequest = { requestHeaders: [['cookie', 'sid=header; SID=upper; sid=second']], fields: {} };
    const fromHeader = buildLogLine(req, rule({ cookie_fields: [{ name: 'sid' }, { name: 'SID' }] }), job());
    expect(fromHeader.line!['Cookies']).toEqual({ sid: 'header', SID: 'upper' });
    const given = buildLogLine({ ...req, cookies: [['sid', 'pair'], ['sid', 'later']] }, rule({ cookie_fields: [{ name: 'sid' }, { name: 'SID' }] }), job());
    expect(given.line!['Cookies']).toEqual({ sid: 'pair' });
  });
});

describe('the custom objects', () => {
  const req: LogRequest = {
    requestHeaders: [['Host', 'a.example'], ['Accept', 'text/html']],
    responseHeaders: [['Server', 'edge'], ['server', 'second']],
    fields: { RayID: 'r1' },
  };
  const r = rule({ request_fields: [{ name: 'host' }, { name: 'accept' }], response_fields: [{ name: 'server' }] });

  it('appear only in http_requests jobs', () => {
    // Named in fields, an object with nothing configured is written empty.
    expect(buildLogLine(req, r, job()).line).toEqual({ RayID: 'r1', RequestHeaders: { host: 'a.example', accept: 'text/html' }, ResponseHeaders: { server: 'edge' }, Cookies: {} });
    const other = buildLogLine(req, r, { dataset: 'firewall_events', logpull_options: 'fields=RayID,RequestHeaders' });
    expect(other.line).toEqual({ RayID: 'r1' });
  });

  it('each object has its own budget (objectLimit), and a value that does not fit at all is dropped, not emptied', () => {
    const small = buildLogLine(req, r, job(), { objectLimit: 9 });
    expect(small.line!['RequestHeaders']).toEqual({ host: 'a.example' });
    expect(small.line!['ResponseHeaders']).toEqual({ server: 'edge' });
    expect(small.truncations).toEqual([{ object: 'RequestHeaders', limit: 9, bytes: 18, cut: { name: 'accept', keptBytes: 0, originalBytes: 9 }, dropped: [] }]);
    expect(small.diagnostics.map((d) => [d.code, d.severity, d.message])).toEqual([['log-line-truncated', 'warning', 'RequestHeaders passed 9 bytes of values (18 configured): accept cut to 0 of 9 bytes']]);
    const cut = buildLogLine(req, r, job(), { objectLimit: 12 });
    expect(cut.line!['RequestHeaders']).toEqual({ host: 'a.example', accept: 'tex' });
    expect(cut.diagnostics[0]!.message).toBe('RequestHeaders passed 12 bytes of values (18 configured): accept cut to 3 of 9 bytes');
    const dropped = buildLogLine({ ...req, requestHeaders: [['host', 'a.example'], ['accept', 'x'], ['dnt', '1']] }, rule({ request_fields: [{ name: 'host' }, { name: 'accept' }, { name: 'dnt' }] }), job(), { objectLimit: 9 });
    expect(dropped.truncations).toEqual([{ object: 'RequestHeaders', limit: 9, bytes: 11, cut: { name: 'accept', keptBytes: 0, originalBytes: 1 }, dropped: ['dnt'] }]);
    expect(dropped.diagnostics[0]!.message).toBe('RequestHeaders passed 9 bytes of values (11 configured): accept cut to 0 of 1 bytes; dropped dnt');
    expect(dropped.diagnostics[0]!.data).toEqual({ object: 'RequestHeaders', limit: 9, bytes: 11, cut: { name: 'accept', keptBytes: 0, originalBytes: 1 }, dropped: ['dnt'] });
  });

  it('configured names missing from the request are left out; values that are not strings are logged as text', () => {
    const odd = buildLogLine({ requestHeaders: [['host', 5 as unknown as string], ['accept', null as unknown as string], [7 as unknown as string, 'x']], fields: {} }, rule({ request_fields: [{ name: 'host' }, { name: 'accept' }, { name: 'dnt' }] }), job());
    expect(odd.line!['RequestHeaders']).toEqual({ host: '5', accept: '' });
  });

  it('transformed headers are reported only where the transform changed the value', () => {
    const t = buildLogLine(
      { ...req, transformedRequestHeaders: [['host', 'a.example'], ['accept', 'changed']], transformedResponseHeaders: [['Server', 'other']] },
      r,
      job(),
    );
    expect(t.transformedNotLogged).toEqual(['accept', 'server']);
    expect(t.line!['RequestHeaders']).toEqual({ host: 'a.example', accept: 'text/html' });
  });

  it('a rule with errors gives no line; upper-case header names alone do', () => {
    const bad = buildLogLine(req, rule({ request_fields: [{ name: 'host' }, { name: 'host' }] }), job());
    expect(bad.line).toBeUndefined();
    expect(bad.sent).toBe(false);
    expect(bad.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    const upper = buildLogLine(req, rule({ request_fields: [{ name: 'Host' }] }), job());
    expect(upper.line!['RequestHeaders']).toEqual({ host: 'a.example' });
    expect(upper.sent).toBe(true);
    // No rule (null or undefined): no custom objects, the line is still built.
    expect(buildLogLine(req, null, job()).line).toEqual({ RayID: 'r1' });
  });
});

describe('fields, filter and text', () => {
  const TS = 1700000000123456789n;
  const req: LogRequest = { fields: { RayID: 'r1', EdgeStartTimestamp: TS, EdgeResponseStatus: 200, ClientRequestHost: 'a.example' } };

  it('without fields= every field of the request is written, in its order, the custom objects left out', () => {
    const r = buildLogLine({ ...req, requestHeaders: [['host', 'h']] }, rule({ request_fields: [{ name: 'host' }] }), { dataset: 'http_requests', logpull_options: 'timestamps=unix' });
    expect(r.line).toEqual({ RayID: 'r1', EdgeStartTimestamp: 1700000000, EdgeResponseStatus: 200, ClientRequestHost: 'a.example' });
    expect(Object.keys(r.line!)).toEqual(['RayID', 'EdgeStartTimestamp', 'EdgeResponseStatus', 'ClientRequestHost']);
  });

  it('the filter compares time fields on unix nanoseconds of the raw value, whatever the output format', () => {
    const at = (ts: unknown, filter: string) => buildLogLine({ fields: { EdgeStartTimestamp: ts } }, undefined, job('fields=EdgeStartTimestamp&timestamps=rfc3339', { filter })).sent;
    const geq = (n: bigint) => `{"where":{"key":"EdgeStartTimestamp","operator":"geq","value":${n}}}`;
    expect(at(TS, geq(TS - 1000n))).toBe(true);
    expect(at('2023-11-14T22:13:20Z', geq(1700000000000000000n))).toBe(true);
    expect(at('2023-11-14T22:13:19Z', geq(1700000000000000000n))).toBe(false);
    // A blank filter is no filter.
    expect(at(TS, '   ')).toBe(true);
    expect(buildLogLine({ fields: {} }, undefined, job(ALL, { filter: null })).sent).toBe(true);
  });

  it('filter diagnostics point at /filter and keep the pointer inside the filter', () => {
    const r = buildLogLine(req, undefined, job(ALL, { filter: '{"where":{"key":"EdgeResponseStatus","operator":"eq","value":"x"}}' }));
    expect(r.sent).toBe(false);
    expect(r.line).toBeUndefined();
    const d = r.diagnostics[0]!;
    expect(d.pointer).toBe('/filter');
    expect(d.rangeIn).toBe('value');
    expect(d.data!['filterPointer']).toBe('/where/value');
  });

  it('a line the filter drops is still built, with sent false', () => {
    const r = buildLogLine(req, undefined, job('fields=RayID', { filter: '{"where":{"key":"EdgeResponseStatus","operator":"eq","value":500}}' }));
    expect([r.sent, r.line]).toEqual([false, { RayID: 'r1' }]);
  });

  it('the text is the line as NDJSON: unix nanoseconds exact, nested bigints as numbers, undefined as null', () => {
    const r = buildLogLine({ fields: { RayID: 'r1', EdgeStartTimestamp: TS, Extra: { n: 5n }, Gone: undefined } }, undefined, { dataset: 'http_requests', logpull_options: 'timestamps=unixnano' });
    expect(r.text).toBe('{"RayID":"r1","EdgeStartTimestamp":1700000000123456789,"Extra":{"n":5},"Gone":null}');
    expect(r.line!['EdgeStartTimestamp']).toBe(Number(TS));
  });

  it('output_options apply only when logpull_options is absent; unknown formats keep the default', () => {
    const both = buildLogLine(req, undefined, { dataset: 'http_requests', logpull_options: 'fields=RayID', output_options: { field_names: ['EdgeResponseStatus'] } });
    expect(both.line).toEqual({ RayID: 'r1' });
    const oo = buildLogLine({ fields: { RayID: 'a${b}', EdgeStartTimestamp: TS } }, undefined, { dataset: 'http_requests', output_options: { field_names: ['RayID', 5, 'EdgeStartTimestamp'] as string[], timestamp_format: 'weird', 'CVE-2021-44228': true } });
    // The default format is unixnano.
    expect(oo.line).toEqual({ RayID: 'ax{b}', EdgeStartTimestamp: Number(TS) });
    const notTrue = buildLogLine({ fields: { RayID: 'a${b}' } }, undefined, { dataset: 'http_requests', output_options: { field_names: ['RayID'], 'CVE-2021-44228': 'yes' as unknown as boolean } });
    expect(notTrue.line).toEqual({ RayID: 'a${b}' });
    const noNames = buildLogLine({ fields: { RayID: 'r' } }, undefined, { dataset: 'http_requests', output_options: { field_names: 'RayID' as unknown as string[] } });
    expect(noNames.line).toEqual({ RayID: 'r' });
  });

  it('the dataset defaults to http_requests; an unknown one is an error at /dataset', () => {
    expect(buildLogLine({ fields: { RayID: 'r' } }, undefined, { logpull_options: 'fields=RayID' }).line).toEqual({ RayID: 'r' });
    const r = buildLogLine({ fields: {} }, undefined, { dataset: 'nope' });
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.pointer, d.message])).toEqual([['log-line-invalid-input', 'error', '/dataset', 'Unknown dataset "nope"']]);
  });

  it('a request or job that is not an object is an error that names what it was', () => {
    const r = buildLogLine(null as never, undefined, job());
    expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([['log-line-invalid-input', 'The request is an object with headers and fields, not null']]);
    const j = buildLogLine({ fields: {} }, undefined, [] as never);
    expect(j.diagnostics.map((d) => [d.code, d.message])).toEqual([['log-line-invalid-input', 'The job is an object with dataset, logpull_options and filter, not an array of 0']]);
    for (const x of [r, j]) expect([x.sent, x.line, x.text]).toEqual([false, undefined, undefined]);
  });
});

describe('redactLog4Shell', () => {
  it('replaces in nested keys and values, and leaves other values as they are', () => {
    const o: Record<string, unknown> = { a: '${x}${y}', n: 5, arr: ['${a}', 1, null], obj: { '${k}': '${v}', plain: 'p', num: 3 }, nil: null };
    redactLog4Shell(o);
    expect(o).toEqual({ a: 'x{x}x{y}', n: 5, arr: ['x{a}', 1, null], obj: { 'x{k}': 'x{v}', plain: 'p', num: 3 }, nil: null });
    expect(Object.keys(o['obj'] as object)).toEqual(['plain', 'num', 'x{k}']);
  });
});
