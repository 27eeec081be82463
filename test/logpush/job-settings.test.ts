import { describe, expect, it } from 'vitest';
import { JOB_SETTINGS, OUTPUT_OPTIONS_MEMBERS, validateLogpushJob } from '../../src/logpush/index.js';

const BASE = { dataset: 'http_requests', destination_conf: 'https://logs.example.com/in' };
const run = (extra: Record<string, unknown>) => validateLogpushJob({ ...BASE, ...extra }).map((d) => [d.code, d.pointer, d.message]);

describe('job settings typed as the API schema types them', () => {
  it('takes every setting at its bounds, 0 and null where the schema does', () => {
    const ok = [
      { enabled: true, filter_attack_traffic: false, frequency: 'low', kind: 'edge' },
      { frequency: null, kind: '' },
      { max_upload_bytes: 0, max_upload_interval_seconds: 0, max_upload_records: 0 },
      { max_upload_bytes: 5_000_000, max_upload_interval_seconds: 30, max_upload_records: 1000 },
      { max_upload_bytes: 1_000_000_000, max_upload_interval_seconds: 300, max_upload_records: 1_000_000 },
      { max_upload_bytes: null, output_options: null },
      { output_options: { output_type: 'csv', field_delimiter: ',', record_prefix: null, merge_subrequests: true, timestamp_format: 'rfc3339ns', sample_rate: 0.5, 'CVE-2021-44228': null, field_names: ['ClientIP'] } },
    ];
    for (const body of ok) expect(run(body), JSON.stringify(body)).toEqual([]);
  });

  it('refuses wrong types and values with the member\'s pointer', () => {
    expect(run({ enabled: 'true' })).toEqual([['job-member-type', '/enabled', '"enabled" is true or false, not "true"']]);
    expect(run({ frequency: 'medium' })).toEqual([['job-member-type', '/frequency', '"frequency" is one of "high", "low" or null, not "medium"']]);
    expect(run({ kind: 'instant-logs' })[0]!.slice(0, 2)).toEqual(['job-member-type', '/kind']);
    expect(run({ max_upload_records: 12.5 })[0]!.slice(0, 2)).toEqual(['job-member-type', '/max_upload_records']);
  });

  it('refuses a limit outside its range, naming the range and 0', () => {
    expect(run({ max_upload_bytes: 4_999_999 })).toEqual([['job-member-range', '/max_upload_bytes', '"max_upload_bytes" is 4999999; it takes 5,000,000 to 1,000,000,000 bytes, or 0 to turn the limit off']]);
    expect(run({ max_upload_interval_seconds: 301 })[0]!.slice(0, 2)).toEqual(['job-member-range', '/max_upload_interval_seconds']);
    expect(run({ max_upload_records: 999 })[0]!.slice(0, 2)).toEqual(['job-member-range', '/max_upload_records']);
    expect(run({ max_upload_records: -1 })[0]!.slice(0, 2)).toEqual(['job-member-range', '/max_upload_records']);
  });

  it('checks output_options members: types, output_type, unknown members suggested', () => {
    expect(run({ output_options: { output_type: 'json' } })).toEqual([['job-member-type', '/output_options/output_type', '"output_options.output_type" is "ndjson" or "csv", not "json"']]);
    expect(run({ output_options: { batch_prefix: 1 } })[0]!.slice(0, 2)).toEqual(['job-member-type', '/output_options/batch_prefix']);
    expect(run({ output_options: { merge_subrequests: 'yes' } })[0]!.slice(0, 2)).toEqual(['job-member-type', '/output_options/merge_subrequests']);
    const unknown = validateLogpushJob({ ...BASE, output_options: { record_templat: '{{.ClientIP}}' } });
    expect(unknown).toMatchObject([{ code: 'job-unknown-member', severity: 'warning', pointer: '/output_options/record_templat', data: { suggestion: 'record_template' } }]);
    expect(run({ output_options: [] })[0]!.slice(0, 2)).toEqual(['job-member-type', '/output_options']);
  });

  it('the tables name the schema\'s members', () => {
    expect(Object.keys(JOB_SETTINGS).sort()).toEqual(['enabled', 'filter_attack_traffic', 'frequency', 'kind', 'max_upload_bytes', 'max_upload_interval_seconds', 'max_upload_records']);
    expect(Object.keys(OUTPUT_OPTIONS_MEMBERS)).toHaveLength(13);
  });
});
