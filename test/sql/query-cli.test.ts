/**
 * `rulekit query`: the lines a filter keeps from NDJSON, gzip and Parquet files on DuckDB are the ones the
 * compiled matcher keeps, with counts; bad filters and unreadable files exit as the CLI promises.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLogFilter } from '../../src/logpush/index.js';
import { sqlString } from '../../src/sql/index.js';
import { CLI } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-query-'));
const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'query', ...args], { encoding: 'utf8', cwd: dir });

const LINES = Array.from({ length: 300 }, (_, i) => ({
  EdgeResponseStatus: [200, 404, 500, 503, '500'][i % 5],
  ClientRequestHost: i % 3 ? `h${i}.example.com` : `h${i}.example.org`,
  ...(i % 7 ? { ClientCountry: ['us', 'de', 'fr'][i % 3] } : {}),
}));
const FILTER = { where: { and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { or: [{ key: 'ClientRequestHost', operator: 'endsWith', value: '.example.com' }, { key: 'ClientCountry', operator: '!in', value: ['us'] }] }] } };

beforeAll(async () => {
  const ndjson = LINES.map((l) => JSON.stringify(l)).join('\n') + '\n';
  writeFileSync(join(dir, 'a.ndjson'), ndjson);
  writeFileSync(join(dir, 'b.ndjson.gz'), gzipSync(ndjson));
  writeFileSync(join(dir, 'filter.json'), JSON.stringify(FILTER));
  writeFileSync(join(dir, 'job.json'), JSON.stringify({ dataset: 'http_requests', filter: JSON.stringify(FILTER) }));
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'startsWith', value: 5 } }));
  // Parquet of the lines whose status is a number (a Parquet column has one type).
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const numeric = LINES.filter((l) => typeof l.EdgeResponseStatus === 'number').map((l) => JSON.stringify(l)).join('\n');
  writeFileSync(join(dir, 'numeric.ndjson'), numeric + '\n');
  await con.run(`COPY (SELECT * FROM read_ndjson_auto(${sqlString(join(dir, 'numeric.ndjson'))})) TO ${sqlString(join(dir, 'c.parquet'))} (FORMAT parquet)`);
  con.closeSync();
  db.closeSync();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rulekit query', () => {
  const matcher = compileLogFilter(JSON.stringify(FILTER), { dataset: 'http_requests' }).matcher!;
  const expected = LINES.filter((l) => matcher(l)).length;
  const numericExpected = LINES.filter((l) => typeof l.EdgeResponseStatus === 'number' && matcher(l)).length;

  it('counts what the matcher keeps, over NDJSON, gzip and Parquet together', () => {
    expect(expected).toBeGreaterThan(20);
    const r = run('--filter', 'filter.json', '--count', 'a.ndjson', 'b.ndjson.gz', 'c.parquet');
    expect(r.status, r.stderr).toBe(0);
    expect(Number(r.stdout)).toBe(2 * expected + numericExpected);
  });

  it('prints every matching line with --format ndjson, and takes a job body or a glob', () => {
    const r = run('--filter', 'job.json', '--format', 'ndjson', '*.ndjson');
    expect(r.status, r.stderr).toBe(0);
    const got = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(got.length).toBe(expected + LINES.filter((l) => typeof l.EdgeResponseStatus === 'number' && matcher(l)).length);
    expect(got.every((l) => matcher(l))).toBe(true);
  });

  it('a text summary with a sample; a bad filter exits 1 with its position; a missing file exits 2', () => {
    const t = run('--filter', 'filter.json', '--limit', '2', 'a.ndjson');
    expect(t.stdout).toMatch(new RegExp(`${expected} of 300 line\\(s\\) match .*2 shown`));
    const bad = run('--filter', 'bad.json', 'a.ndjson');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/bad\.json:1:\d+ \/where\/operator: error/);
    const missing = run('--filter', 'filter.json', 'nope.ndjson');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/DuckDB could not read/);
  });

  it('--scope account reads a dataset both scopes offer with the account catalog', () => {
    writeFileSync(join(dir, 'fw.ndjson'), ['{"ZoneName":"example.com","Action":"block"}', '{"ZoneName":"example.org","Action":"block"}', '{"Action":"log"}'].join('\n') + '\n');
    writeFileSync(join(dir, 'zone-name.json'), JSON.stringify({ where: { key: 'ZoneName', operator: 'eq', value: 'example.com' } }));
    const account = run('--filter', 'zone-name.json', '--dataset', 'firewall_events', '--scope', 'account', '--count', 'fw.ndjson');
    expect([account.status, account.stdout]).toEqual([0, '1\n']);
    // Zone jobs of firewall_events have no ZoneName: the filter has an error there.
    const zone = run('--filter', 'zone-name.json', '--dataset', 'firewall_events', '--scope', 'zone', '--count', 'fw.ndjson');
    expect(zone.status).toBe(1);
    expect(zone.stderr).toContain('filter-unknown-field');
  });
});
