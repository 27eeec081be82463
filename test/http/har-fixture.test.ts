/**
 * A HAR file recorded by a real browser (Debian's Chromium through playwright-core, against the small
 * server of test/fixtures/http/record-har.ts) read into records: the committed recording gives the
 * committed records, and a fresh recording gives the same ones.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsTool } from '../helpers/tools.js';
import { readRequests, requestRecord } from '../../src/http/index.js';
import { recordHar } from '../fixtures/http/record-har.js';
import { harProjection } from './har-projection.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'http');
const HAR = readFileSync(join(DIR, 'chromium.har'), 'utf8');
const RECORDS = JSON.parse(readFileSync(join(DIR, 'chromium.records.json'), 'utf8')) as Record<string, unknown>[];

describe('the HAR recorded by Chromium', () => {
  it('gives the committed records', () => {
    expect(harProjection(HAR)).toEqual(RECORDS);
  });

  it('holds what the page sent, as the fields reference says the fields hold it', () => {
    const byUri = new Map(readRequests(HAR).requests.map(({ request }) => requestRecord(request)).map((r) => [r['raw.http.request.uri'], r]));
    const items = byUri.get('/api/items?color=red&color=blue&q=a+b%20c&empty=')!;
    // Arguments: not decoded, repeated names kept in order, an empty value kept.
    expect(items['http.request.uri.args']).toEqual(new Map([['color', ['red', 'blue']], ['q', ['a+b%20c']], ['empty', ['']]]));
    expect((items['http.request.headers'] as Map<string, string[]>).get('x-rulekit-test')).toEqual(['one']);
    expect(items['http.request.headers.names']).toContain('X-Rulekit-Test');
    // The cookies the server set on the page, sent back.
    expect(items['http.request.cookies']).toEqual(new Map([['session', ['abc123']], ['theme', ['dark']]]));
    expect(items['cf.edge.server_ip']).toBe('127.0.0.1');
    const login = byUri.get('/login?next=%2Fhome')!;
    expect(login['http.request.method']).toBe('POST');
    expect(login['http.request.body.form']).toEqual(new Map([['user', ['alice']], ['password', ['s3cret']], ['remember', ['']]]));
    expect(login['http.request.body.size']).toBe(35);
    const upload = byUri.get('/upload?text=1')!;
    expect(upload['http.request.body.multipart']).toEqual(new Map([['title', ['holiday']], ['tags', ['sea', 'sun']]]));
    expect(upload['http.request.body.multipart.names']).toEqual([['title'], ['tags'], ['tags']]);
    // The upload with a file has no body in Chromium's HAR: the body fields stay missing.
    expect(byUri.get('/upload')!['http.request.body.raw']).toBeUndefined();
    const missing = byUri.get('/missing/Report.HTML')!;
    expect([missing['http.response.code'], missing['http.request.uri.path.extension'], missing['raw.http.request.uri.path.extension']]).toEqual([404, 'html', 'HTML']);
    expect(missing['http.response.content_type.media_type']).toBe('text/plain');
  });

  needsTool('chromium')('recorded again, gives the same records', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rulekit-har-')), 'fresh.har');
    await recordHar(out);
    expect(harProjection(readFileSync(out, 'utf8'))).toEqual(RECORDS);
  }, 120_000);
});
