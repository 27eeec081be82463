/**
 * The part of a HAR file's records that does not change between recordings: the port the fixture server
 * got, the multipart boundary and the timestamps are replaced by stand-ins; headers that differ between
 * Chromium versions are left out (only the fixture's own, Cookie, Referer and Content-Type are kept).
 */
import { readRequests, requestRecord } from '../../src/http/index.js';

const plain = (v: unknown): unknown => (v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [k, plain(x)])) : Array.isArray(v) ? v.map(plain) : v);

export function harProjection(har: string): Record<string, unknown>[] {
  const read = readRequests(har);
  if (read.format !== 'har' || read.diagnostics.length) throw new Error(`unexpected: ${read.format} ${JSON.stringify(read.diagnostics)}`);
  const port = /127\.0\.0\.1:(\d+)/.exec(har)?.[1] ?? 'none';
  const stable = (v: unknown): unknown => JSON.parse(JSON.stringify(plain(v)).replaceAll(`:${port}`, ':PORT').replace(/-*WebKitFormBoundary\w+/g, 'BOUNDARY'));
  return read.requests
    .map(({ request }) => requestRecord(request))
    .filter((r) => r['http.request.uri.path'] !== '/favicon.ico')
    .map((r) => {
      const headers = r['http.request.headers'] as Map<string, string[]>;
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) {
        if (k === 'http.request.headers' || k === 'http.request.headers.names' || k === 'http.request.headers.values' || k.includes('response.headers')) continue;
        // Chromium leaves serverIPAddress out of some entries (test/http/har-fixture.test.ts checks the rest).
        if (k === 'cf.edge.server_ip') continue;
        if (k === 'cf.edge.server_port') kept[k] = String(v) === port ? 'PORT' : v;
        else if (k === 'http.user_agent' || k.startsWith('http.request.timestamp.')) kept[k] = typeof v;
        else if (k === 'http.request.accepted_languages') kept[k] = Array.isArray(v);
        else kept[k] = stable(v);
      }
      kept['headers'] = stable(Object.fromEntries(['x-rulekit-test', 'cookie', 'referer', 'content-type'].filter((h) => headers.has(h)).map((h) => [h, headers.get(h)])));
      kept['response.x-served-by'] = (r['http.response.headers'] as Map<string, string[]> | undefined)?.get('x-served-by');
      return kept;
    });
}
