import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateLogpushJob } from '../../src/logpush/index.js';
import type { Diagnostic } from '../../src/diagnostics/types.js';

const GOOD = {
  name: 'static-assets',
  destination_conf: 's3://my-bucket/logs/{DATE}?region=us-west-2',
  dataset: 'http_requests',
  logpull_options: 'fields=ClientIP,EdgeStartTimestamp,RayID,RequestHeaders&timestamps=rfc3339&sample=0.1&CVE-2021-44228=true',
  ownership_challenge: '<OWNERSHIP_CHALLENGE>',
  filter: '{"where":{"and":[{"key":"ClientRequestPath","operator":"contains","value":"/static"},{"key":"ClientRequestHost","operator":"eq","value":"example.com"}]}}',
};
const codes = (body: unknown, ctx?: Parameters<typeof validateLogpushJob>[1]) => validateLogpushJob(body, ctx).map((d) => d.code);
const find = (ds: Diagnostic[], code: string) => ds.find((d) => d.code === code)!;

describe('validateLogpushJob', () => {
  it('lists at most 100 field-name problems one by one and counts the rest (80,000 unknown names)', () => {
    const names = Array.from({ length: 80_000 }, (_, i) => `NoSuchField${i}`);
    const body = { ...GOOD, logpull_options: undefined, output_options: { field_names: ['ClientIP', 'ClientIP', ...names] } };
    const out = validateLogpushJob(body);
    const fields = out.filter((d) => d.pointer?.startsWith('/output_options/field_names'));
    expect(fields).toHaveLength(101);
    expect(fields[0]).toMatchObject({ code: 'logpull-duplicate-field', pointer: '/output_options/field_names/1' });
    expect(fields[1]).toMatchObject({ code: 'logpull-unknown-field', pointer: '/output_options/field_names/2' });
    expect(fields[100]).toMatchObject({ code: 'logpull-unknown-field', pointer: '/output_options/field_names', data: { more: 80_000 - 99 } });
  });
  it('accepts the spec-shaped body, as an object and as text', () => {
    expect(validateLogpushJob(GOOD)).toEqual([]);
    expect(validateLogpushJob(JSON.stringify(GOOD, null, 2))).toEqual([]);
  });
  it('accepts the other destination schemes with their parameters', () => {
    for (const d of [
      'r2://logs/{DATE}?account-id=abc&access-key-id=k&secret-access-key=s',
      'gs://bucket/path/{DATE}',
      'azure://container/path?sv=2020-08-04&sig=abc',
      'https://logs.example.com/ingest?header_Authorization=Basic%20abc',
      'splunk://splunk.example.com:8088/services/collector/raw?channel=123&header_Authorization=Splunk%20t',
      'datadog://http-intake.logs.datadoghq.com/v1/input?header_DD-API-KEY=k',
      'sumo://endpoint1.collection.sumologic.com/receiver/v1/http/token',
    ]) expect(codes({ ...GOOD, destination_conf: d, ownership_challenge: undefined })).toEqual([]);
  });
  it('requires destination_conf and dataset on create, not on update', () => {
    expect(codes({ name: 'x' })).toEqual(['job-missing-member', 'job-missing-member']);
    expect(codes({ name: 'x' }, { operation: 'update' })).toEqual([]);
  });
  it('requires ownership_challenge for s3 on create only', () => {
    const { ownership_challenge: _, ...body } = GOOD;
    expect(codes(body)).toEqual(['ownership-challenge-missing']);
    expect(codes(body, { operation: 'update' })).toEqual([]);
    expect(codes({ ...body, destination_conf: 'gs://b/p' })).toEqual([]);
  });
  it('destination: scheme, required params, region, {DATE}', () => {
    expect(codes({ ...GOOD, destination_conf: 'bucket/logs' })).toEqual(['destination-invalid']);
    const d = validateLogpushJob({ ...GOOD, destination_conf: 's4://b?region=us-west-2' });
    expect(d[0]!.code).toBe('destination-unknown-scheme');
    expect(d[0]!.fix!.edits[0]!.newText).toBe('s3');
    expect([d[0]!.pointer, d[0]!.rangeIn, d[0]!.range]).toEqual(['/destination_conf', 'value', { start: 0, end: 2 }]);
    const r2 = validateLogpushJob({ ...GOOD, destination_conf: 'r2://logs?account-id=abc' });
    expect(r2.map((x) => x.data?.['param'])).toEqual(['access-key-id', 'secret-access-key']);
    expect(codes({ ...GOOD, destination_conf: 's3://bucket/logs' })).toEqual(['destination-missing-param']);
    expect(codes({ ...GOOD, destination_conf: 's3://?region=us-west-2' })).toEqual(['destination-missing-target']);
    // The docs' own example has a stray "/" after the region.
    expect(codes({ ...GOOD, destination_conf: 's3://<BUCKET_PATH>?region=us-west-2/' })).toEqual(['destination-invalid-param']);
    const date = validateLogpushJob({ ...GOOD, destination_conf: 's3://b/logs/{date}?region=us-west-2' });
    expect(date.map((x) => x.code)).toEqual(['destination-date-placeholder']);
    expect(GOOD.destination_conf.slice(0, 0) + 's3://b/logs/{date}?region=us-west-2'.slice(date[0]!.range!.start, date[0]!.range!.end)).toBe('{date}');
  });
  it('knows each dataset\'s scope: a dataset of the other scope is an error naming the endpoint', () => {
    const gw = { destination_conf: 'https://logs.example.com', dataset: 'gateway_dns' };
    const d = validateLogpushJob(gw, { scope: 'zone' });
    expect(d.map((x) => [x.code, x.severity, x.pointer])).toEqual([['job-dataset-scope', 'error', '/dataset']]);
    expect(d[0]!.message).toContain('gateway_dns is an account-scoped dataset');
    expect(d[0]!.message).toContain('/accounts/{account_id}/logpush/jobs');
    expect(d[0]!.data).toMatchObject({ scope: 'zone', datasetScopes: ['account'] });
    expect(codes(gw, { scope: 'account' })).toEqual([]);
    expect(codes(gw)).toEqual([]);
    const http = validateLogpushJob(JSON.stringify({ ...GOOD, ownership_challenge: 'x' }), { scope: 'account' });
    expect(http.map((x) => x.code)).toEqual(['job-dataset-scope']);
    expect(http[0]!.message).toContain('/zones/{zone_id}/logpush/jobs');
    expect(http[0]!.range).toBeDefined();
    // Both scopes offer firewall_events and websocket_analytics.
    for (const scope of ['zone', 'account'] as const) {
      expect(codes({ destination_conf: 'https://l.example.com', dataset: 'firewall_events' }, { scope })).toEqual([]);
      expect(codes({ destination_conf: 'https://l.example.com', dataset: 'websocket_analytics' }, { scope })).toEqual([]);
    }
    // An update without dataset uses the stored one.
    expect(codes({ name: 'x' }, { operation: 'update', dataset: 'audit_logs', scope: 'zone' })).toEqual(['job-dataset-scope']);
  });
  it('an unknown dataset: suggestions from the job\'s scope first; the filter is still checked, with no second dataset diagnostic', () => {
    const d = validateLogpushJob({ destination_conf: 'https://l.example.com', dataset: 'gatway_http', filter: '{"where":{"key":"X","operator":"gte","value":1}}' }, { scope: 'account' });
    expect(d.map((x) => x.code)).toEqual(['job-unknown-dataset', 'filter-misspelt-operator']);
    expect(d[0]!.message).toContain('Did you mean "gateway_http"?');
    expect(d[0]!.message).toContain('account: access_requests');
    expect(d[1]!.pointer).toBe('/filter');
  });
  it('dataset and name', () => {
    const d = validateLogpushJob({ ...GOOD, dataset: 'http_request' });
    expect(d.map((x) => x.code)).toContain('job-unknown-dataset');
    expect(find(d, 'job-unknown-dataset').message).toContain('"http_requests"');
    expect(codes({ ...GOOD, name: 'my job!' })).toEqual(['job-invalid-name']);
    expect(codes({ ...GOOD, name: 'a'.repeat(513) })).toEqual(['job-invalid-name']);
    expect(codes({ ...GOOD, name: 5 })).toEqual(['job-member-type']);
  });
  it('logpull_options: fields, timestamps, sample, CVE flag, unknown and duplicate options', () => {
    const opts = (o: string) => validateLogpushJob({ ...GOOD, logpull_options: o });
    const uf = opts('fields=ClientIP,EdgeResponseStatu,RayID');
    expect(uf.map((x) => x.code)).toEqual(['logpull-unknown-field']);
    expect(uf[0]!.fix!.edits[0]).toEqual({ range: { start: 16, end: 33 }, newText: 'EdgeResponseStatus' });
    expect([uf[0]!.pointer, uf[0]!.rangeIn]).toEqual(['/logpull_options', 'value']);
    expect(opts('fields=ClientIP,ClientIP').map((x) => x.code)).toEqual(['logpull-duplicate-field']);
    expect(opts('fields=').map((x) => x.code)).toEqual(['logpull-empty-fields']);
    expect(opts('fields=ClientIP,,RayID').map((x) => x.code)).toEqual(['logpull-empty-fields']);
    expect(opts('timestamps=rfc3339ms').map((x) => x.code)).toEqual(['logpull-invalid-timestamps']);
    for (const s of ['0', '1.5', 'abc', '-0.1', '']) expect(opts(`sample=${s}`).map((x) => x.code)).toEqual(['logpull-invalid-sample']);
    expect(opts('sample=1').map((x) => x.code)).toEqual([]);
    expect(opts('sample=.5').map((x) => x.code)).toEqual([]);
    expect(opts('CVE-2021-44228=yes').map((x) => x.code)).toEqual(['logpull-invalid-cve']);
    expect(opts('CVE-2021-44228=True')[0]!.fix!.edits[0]!.newText).toBe('true');
    const unk = opts('fields=ClientIP&timestamp=rfc3339');
    expect(unk.map((x) => x.code)).toEqual(['logpull-unknown-option']);
    expect(unk[0]!.message).toContain('"timestamp"');
    expect(unk[0]!.message).toContain('did you mean "timestamps"');
    expect(opts('timestamps=unix&timestamps=rfc3339').map((x) => x.code)).toEqual(['logpull-duplicate-option']);
    expect(opts('fields').map((x) => x.code)).toEqual(['logpull-invalid-option']);
    const dns = validateLogpushJob({ ...GOOD, dataset: 'dns_logs', logpull_options: 'fields=QueryName,Cookies', filter: undefined });
    expect(dns.map((x) => x.code)).toEqual(['logpull-custom-fields-dataset']);
  });
  it('notes custom field objects the zone does not configure (when its rules are given)', () => {
    const rule = { action: 'log_custom_field', expression: 'true', action_parameters: { cookie_fields: [{ name: 'a' }] } };
    const lo = 'fields=RayID,RequestHeaders,Cookies';
    const d = validateLogpushJob({ ...GOOD, logpull_options: lo }, { customFieldRules: [rule] });
    expect(d.map((x) => [x.code, x.severity])).toEqual([['logpull-custom-fields-unconfigured', 'info']]);
    expect(lo.slice(d[0]!.range!.start, d[0]!.range!.end)).toBe('RequestHeaders');
    expect(validateLogpushJob({ ...GOOD, logpull_options: lo })).toEqual([]);
  });
  it('re-bases filter diagnostics to /filter with a range inside the filter string', () => {
    const filter = '{"where":{"and":[{"key":"ClientCountry","operator":"eq","value":"us"},{"key":"EdgeResponseStatus","operator":"gte","value":500}]}}';
    const d = validateLogpushJob({ ...GOOD, filter });
    expect(d).toHaveLength(1);
    expect(d[0]!.code).toBe('filter-misspelt-operator');
    expect(d[0]!.pointer).toBe('/filter');
    expect(d[0]!.rangeIn).toBe('value');
    expect(filter.slice(d[0]!.range!.start, d[0]!.range!.end)).toBe('"gte"');
    expect(d[0]!.data!['filterPointer']).toBe('/where/and/1/operator');
    // Field names are checked against the job's dataset.
    expect(codes({ ...GOOD, dataset: 'dns_logs', logpull_options: undefined })).toContain('filter-unknown-field');
    expect(codes({ ...GOOD, filter: '' })).toEqual([]);
  });
  it('gives document ranges when the body is text, and diagnoses malformed text', () => {
    const text = JSON.stringify({ ...GOOD, datset: 'x' }, null, 1);
    const d = validateLogpushJob(text);
    const u = find(d, 'job-unknown-member');
    expect(text.slice(u.range!.start, u.range!.end)).toBe('"datset"');
    expect(u.data!['suggestion']).toBe('dataset');
    const t = validateLogpushJob(JSON.stringify({ ...GOOD, dataset: 7 }));
    const m = find(t, 'job-member-type');
    expect(m.pointer).toBe('/dataset');
    expect(JSON.stringify({ ...GOOD, dataset: 7 }).slice(m.range!.start, m.range!.end)).toBe('7');
    expect(codes('{"name": "x",}')).toEqual(['job-invalid-json']);
    const dup = '{"dataset":"http_requests","destination_conf":"gs://b","dataset":"dns_logs"}';
    const dd = validateLogpushJob(dup);
    expect(dd.map((x) => [x.code, x.pointer])).toEqual([['job-duplicate-member', '/dataset']]);
    expect(dup.slice(dd[0]!.range!.start, dd[0]!.range!.end)).toBe('"dataset"');
    expect(codes('[1]')).toEqual(['job-not-object']);
    expect(codes(null)).toEqual(['job-not-object']);
  });
  it('checks the published API example body, output_options included', () => {
    // Source: cloudflare/cloudflare-docs src/content/docs/logs/logpush/logpush-job/filters.mdx
    // @0c50ffa05a96c48067721cbe0c1d637885537479 (the APIRequest example); its destination has a stray "/".
    const body = {
      name: 'static-assets',
      output_options: { field_names: ['ClientIP', 'EdgeStartTimestamp', 'RayID'], sample_rate: 0.1, timestamp_format: 'rfc3339', 'CVE-2021-44228': true },
      dataset: 'http_requests',
      filter: JSON.stringify({ where: { and: [{ key: 'ClientRequestPath', operator: 'contains', value: '/static' }, { key: 'ClientRequestHost', operator: 'eq', value: 'example.com' }] } }),
      destination_conf: 's3://<BUCKET_PATH>?region=us-west-2/',
    };
    expect(validateLogpushJob(body, { operation: 'update' }).map((d) => d.code)).toEqual(['destination-invalid-param']);
    const bad = validateLogpushJob({ ...body, output_options: { field_names: ['ClientIP', 'ClientIp', 7], sample_rate: 2, timestamp_format: 'iso', 'CVE-2021-44228': 'yes' } }, { operation: 'update' });
    expect(bad.map((d) => [d.code, d.pointer])).toEqual([
      ['destination-invalid-param', '/destination_conf'],
      ['logpull-unknown-field', '/output_options/field_names/1'],
      ['job-member-type', '/output_options/field_names/2'],
      ['logpull-invalid-timestamps', '/output_options/timestamp_format'],
      ['logpull-invalid-sample', '/output_options/sample_rate'],
      ['logpull-invalid-cve', '/output_options/CVE-2021-44228'],
    ]);
  });
  it('accepts the other members of the public API without noise and names unknown ones', () => {
    expect(codes({ ...GOOD, enabled: true, frequency: 'high', output_options: {}, max_upload_bytes: 5e6 })).toEqual([]);
    expect(codes({ ...GOOD, __proto__x: 1, constructor: 1 })).toEqual(['job-unknown-member', 'job-unknown-member']);
  });
});

describe('job diagnostics are anchored', () => {
  it('pointers resolve and ranges stay inside the document or the member string', () => {
    const piece = fc.constantFrom('s3://', 'r2://', 'gs://', 'x://', 'bucket', '/{DATE}', '/{date}', '?region=us-west-2', '?region=', '&account-id=a', 'fields=', 'ClientIP', ',', 'RayID', '&timestamps=unix', '&sample=2', '&foo=1', '{"where":', '{"key":"ClientIP","operator":"neq","value":"a"}', '}', '');
    const str = fc.array(piece, { maxLength: 6 }).map((a) => a.join(''));
    const body = fc.record({
      name: fc.oneof(str, fc.constant('ok-name')),
      destination_conf: str, dataset: fc.constantFrom('http_requests', 'dns_logs', 'nope'),
      logpull_options: str, filter: str, ownership_challenge: fc.constantFrom('', 't'),
    }, { requiredKeys: [] });
    fc.assert(fc.property(body, fc.boolean(), (b, asText) => {
      const text = JSON.stringify(b, null, 1);
      for (const d of validateLogpushJob(asText ? text : b)) {
        expect(typeof d.pointer, d.code).toBe('string');
        if (!d.range) continue;
        const member = d.pointer!.split('/')[1];
        const target = d.rangeIn === 'value' ? String((b as Record<string, unknown>)[member!] ?? '') : text;
        if (d.rangeIn !== 'value') expect(asText, d.code).toBe(true);
        expect(d.range.start).toBeGreaterThanOrEqual(0);
        expect(d.range.end).toBeLessThanOrEqual(target.length);
        expect(d.range.end).toBeGreaterThanOrEqual(d.range.start);
      }
    }), { numRuns: 400 });
  });
});

describe('job diagnostics in full (words, pointers, ranges inside the member, fixes)', () => {
  const base = { dataset: 'http_requests', destination_conf: 'gs://b', ownership_challenge: 'x' };
  const run = (body: Record<string, unknown>, ctx?: Parameters<typeof validateLogpushJob>[1]) =>
    validateLogpushJob({ ...base, ...body }, ctx).map((d) => ({ code: d.code, message: d.message, pointer: d.pointer, range: d.range, fix: d.fix?.edits[0]?.newText, data: d.data }));

  it('every AWS region (from the AWS region list) passes, and near-misses do not', () => {
    const regions = [
      'us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'af-south-1', 'ap-east-1', 'ap-south-1', 'ap-south-2', 'ap-southeast-1', 'ap-southeast-2',
      'ap-southeast-3', 'ap-southeast-4', 'ap-northeast-1', 'ap-northeast-2', 'ap-northeast-3', 'ca-central-1', 'ca-west-1', 'eu-central-1',
      'eu-central-2', 'eu-west-1', 'eu-west-2', 'eu-west-3', 'eu-south-1', 'eu-south-2', 'eu-north-1', 'il-central-1', 'me-south-1',
      'me-central-1', 'sa-east-1', 'us-gov-east-1', 'us-gov-west-1', 'cn-north-1', 'cn-northwest-1', 'us-iso-east-1', 'us-isob-east-1',
    ];
    for (const r of regions) expect(run({ destination_conf: `s3://b/p?region=${r}` }), r).toEqual([]);
    for (const r of ['US-WEST-2', 'us-west', 'uswest2', 'us-west-123', 'usa-west-2', 'u-west-2', 'us-west-2 ', 'us--2', 'us-foo-west-1']) {
      const d = run({ destination_conf: `s3://b?region=${r}` });
      expect(d, r).toEqual([{ code: 'destination-invalid-param', message: `region=${r} does not look like an AWS region (e.g. us-west-2)`, pointer: '/destination_conf', range: { start: 7, end: 14 + r.length }, fix: undefined, data: undefined }]);
    }
  });

  it('destination words and ranges', () => {
    expect(run({ destination_conf: 'bucket' })).toEqual([
      { code: 'destination-invalid', message: 'destination_conf "bucket" is not <scheme>://<target>; e.g. s3://<bucket>[/<path>]?region=<region>', pointer: '/destination_conf', range: { start: 0, end: 6 }, fix: undefined, data: undefined },
    ]);
    expect(run({ destination_conf: 'sumoo://h/receiver/v1/http/t' })).toEqual([
      { code: 'destination-unknown-scheme', message: 'Unknown destination scheme "sumoo"; known: s3, r2, gs, azure, https, splunk, datadog, sumo. Did you mean "sumo"?', pointer: '/destination_conf', range: { start: 0, end: 5 }, fix: 'sumo', data: undefined },
    ]);
    expect(run({ destination_conf: 'zzzzzzz://h' })[0]!.message).toBe('Unknown destination scheme "zzzzzzz"; known: s3, r2, gs, azure, https, splunk, datadog, sumo');
    expect(run({ destination_conf: 'GS://bucket/x' })).toEqual([]);
    expect(run({ destination_conf: 'azure:///p?sig=1' })).toEqual([
      { code: 'destination-missing-target', message: 'The azure destination names no container; the form is azure://<container>[/<path>]?<SAS token with sig=…>', pointer: '/destination_conf', range: { start: 8, end: 8 }, fix: undefined, data: undefined },
    ]);
    expect(run({ destination_conf: 'splunk://h:8088/services/collector/raw?channel=&x=1' })).toEqual([
      { code: 'destination-missing-param', message: 'A splunk:// destination needs the "header_Authorization" parameter; the form is splunk://<host>[:<port>]/services/collector/raw?channel=<id>&header_Authorization=<token>', pointer: '/destination_conf', range: { start: 38, end: 51 }, fix: undefined, data: { scheme: 'splunk', param: 'header_Authorization' } },
      { code: 'destination-invalid-param', message: 'The "channel" parameter of the destination is empty', pointer: '/destination_conf', range: { start: 39, end: 47 }, fix: undefined, data: undefined },
    ]);
    // An empty value of a parameter no scheme requires is fine; an empty region is reported once.
    expect(run({ destination_conf: 'https://h/p?x=' })).toEqual([]);
    expect(run({ destination_conf: 's3://b?region=' }).map((d) => d.code)).toEqual(['destination-invalid-param']);
    expect(run({ destination_conf: 'gs://b/{yyyy}/{DATE}/{other}/{Day}' })).toEqual([
      { code: 'destination-date-placeholder', message: '{yyyy} is not replaced by the service; the date placeholder is {DATE}', pointer: '/destination_conf', range: { start: 7, end: 13 }, fix: '{DATE}', data: undefined },
      { code: 'destination-date-placeholder', message: '{Day} is not replaced by the service; the date placeholder is {DATE}', pointer: '/destination_conf', range: { start: 29, end: 34 }, fix: '{DATE}', data: undefined },
    ]);
    // The s3 ownership challenge: on create only, and an empty one counts as missing.
    const s3 = { destination_conf: 's3://b?region=us-east-1' };
    expect(run({ ...s3, ownership_challenge: '' }).map((d) => [d.code, d.pointer, d.message])).toEqual([
      ['ownership-challenge-missing', '', 'Creating a job with an s3:// destination needs "ownership_challenge": the token the service wrote to the bucket'],
    ]);
    expect(run({ ...s3, ownership_challenge: '' }, { operation: 'update' })).toEqual([]);
    expect(run({ destination_conf: 'gs://b', ownership_challenge: '' })).toEqual([]);
  });

  it('name, members and datasets', () => {
    expect(run({ name: 'a b' })).toEqual([
      { code: 'job-invalid-name', message: 'The job name has " " at index 1; names hold letters, digits, "-" and "." only', pointer: '/name', range: { start: 1, end: 2 }, fix: undefined, data: undefined },
    ]);
    expect(run({ name: 'a'.repeat(512) })).toEqual([]);
    expect(run({ name: 'a'.repeat(513) })).toEqual([
      { code: 'job-invalid-name', message: 'The job name is 513 characters; the limit is 512', pointer: '/name', range: { start: 512, end: 513 }, fix: undefined, data: undefined },
    ]);
    expect(run({ datset: 'x' }).map((d) => [d.code, d.message, d.data])).toEqual([
      ['job-unknown-member', 'The job body has no member "datset"; did you mean "dataset"?', { member: 'datset', suggestion: 'dataset' }],
    ]);
    expect(run({ 'a/b~c': 1 }).map((d) => d.pointer)).toEqual(['/a~1b~0c']);
    expect(run({ name: 5, filter: null }).map((d) => [d.code, d.pointer, d.message])).toEqual([['job-member-type', '/name', '"name" must be a string, not 5']]);
    expect(run({ dataset: 'http_request' }).map((d) => [d.code, d.message.startsWith('Unknown dataset "http_request". Did you mean "http_requests"? The catalogued datasets are zone: '), d.data])).toEqual([
      ['job-unknown-dataset', true, { dataset: 'http_request', suggestion: 'http_requests' }],
    ]);
    // The existing job's dataset is used when an update body names none, and not when it names one.
    expect(validateLogpushJob({ logpull_options: 'fields=QueryName' }, { operation: 'update', dataset: 'dns_logs' })).toEqual([]);
    expect(validateLogpushJob({ logpull_options: 'fields=QueryName' }, { operation: 'update', dataset: 'http_requests' }).map((d) => d.code)).toEqual(['logpull-unknown-field']);
    expect(validateLogpushJob({ dataset: 'dns_logs', logpull_options: 'fields=QueryName' }, { operation: 'update', dataset: 'http_requests' })).toEqual([]);
  });

  it('custom field objects named in fields that the zone leaves empty', () => {
    const rules = [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'host' }] } }];
    expect(run({ logpull_options: 'fields=RayID,RequestHeaders,ResponseHeaders,Cookies' }, { customFieldRules: rules })).toEqual([
      { code: 'logpull-custom-fields-unconfigured', message: "ResponseHeaders is in fields, but the zone's custom field rule has no response_fields: the object will be empty", pointer: '/logpull_options', range: { start: 28, end: 43 }, fix: undefined, data: undefined },
      { code: 'logpull-custom-fields-unconfigured', message: "Cookies is in fields, but the zone's custom field rule has no cookie_fields: the object will be empty", pointer: '/logpull_options', range: { start: 44, end: 51 }, fix: undefined, data: undefined },
    ]);
    expect(run({ logpull_options: 'timestamps=unix' }, { customFieldRules: [] })).toEqual([]);
    expect(run({ logpull_options: 'fields=Cookies' })).toEqual([]);
  });

  it('output_options', () => {
    expect(run({ output_options: 5 }).map((d) => [d.pointer, d.message])).toEqual([['/output_options', '"output_options" must be an object, not 5']]);
    expect(run({ output_options: { field_names: 'RayID' } }).map((d) => [d.pointer, d.message])).toEqual([['/output_options/field_names', '"output_options.field_names" must be an array of field names, not "RayID"']]);
    expect(run({ output_options: { field_names: ['RayID', 3, 'RayID', 'RayId', 'Qqqqqqqqqqqq'], timestamp_format: 'unixnano', sample_rate: 1, 'CVE-2021-44228': false } })).toEqual([
      { code: 'job-member-type', message: 'field_names[1] must be a string, not 3', pointer: '/output_options/field_names/1', range: undefined, fix: undefined, data: undefined },
      { code: 'logpull-duplicate-field', message: 'RayID is listed twice in field_names', pointer: '/output_options/field_names/2', range: undefined, fix: undefined, data: undefined },
      { code: 'logpull-unknown-field', message: '"RayId" is not a field of http_requests; did you mean "RayID"?', pointer: '/output_options/field_names/3', range: undefined, fix: undefined, data: { field: 'RayId', dataset: 'http_requests', suggestion: 'RayID' } },
      { code: 'logpull-unknown-field', message: '"Qqqqqqqqqqqq" is not a field of http_requests', pointer: '/output_options/field_names/4', range: undefined, fix: undefined, data: { field: 'Qqqqqqqqqqqq', dataset: 'http_requests', suggestion: undefined } },
    ]);
    expect(run({ output_options: { timestamp_format: 'iso', sample_rate: 0, 'CVE-2021-44228': 'true' } }).map((d) => [d.code, d.pointer, d.message])).toEqual([
      ['logpull-invalid-timestamps', '/output_options/timestamp_format', 'timestamp_format "iso" is not a format; use unixnano, unix, rfc3339, rfc3339ms, rfc3339ns'],
      ['logpull-invalid-sample', '/output_options/sample_rate', 'sample_rate 0 is not a number in (0, 1]'],
      ['logpull-invalid-cve', '/output_options/CVE-2021-44228', '"CVE-2021-44228" in output_options is true or false, not "true"'],
    ]);
    for (const ok of [0.001, 0.5, 1]) expect(run({ output_options: { sample_rate: ok } }), String(ok)).toEqual([]);
    for (const bad of [1.01, -1, '0.5']) expect(run({ output_options: { sample_rate: bad } }).map((d) => d.code), String(bad)).toEqual(['logpull-invalid-sample']);
  });

  it('JSON text: the first parse error, ranges of members in the text', () => {
    expect(validateLogpushJob('{"dataset": ')[0]!.message).toMatch(/^The job body is not valid JSON: .+ at offset \d+$/);
    const text = '{"dataset":"http_requests","destination_conf":"gs://b","dataset":"dns_logs","bogus":1}';
    expect(validateLogpushJob(text).map((d) => [d.code, d.pointer, text.slice(d.range!.start, d.range!.end)])).toEqual([
      ['job-duplicate-member', '/dataset', '"dataset"'],
      ['job-unknown-member', '/bogus', '"bogus"'],
    ]);
  });
});
