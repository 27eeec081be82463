/**
 * `rulekit simulate RULESET LINES --engine duckdb|clickhouse` for HTTP phases, as built (dist/bundle/cli.js):
 * over Logpush http_requests lines (NDJSON, gzip, Parquet) it prints what the in-process simulator prints;
 * a rule field without an SQL reading, or lines with values SQL does not read exactly, exit 1 naming them;
 * request objects and HAR files exit 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlString } from '../../src/sql/index.js';
import { ROOT, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-simulate-logpush-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rulekit(args: string[]) {
  return runCli(args, { timeout: 120_000 });
}

const LINES = join(ROOT, 'examples', 'http_requests.ndjson');

describe('simulate --engine over Logpush lines', () => {
  it('prints the in-process summary, from NDJSON, gzip and Parquet, on DuckDB and chdb', async () => {
    const gz = join(dir, 'lines.ndjson.gz');
    writeFileSync(gz, gzipSync(readFileSync(LINES)));
    const parquet = join(dir, 'lines.parquet');
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const columns = "{RayID: 'VARCHAR', EdgeStartTimestamp: 'VARCHAR', ClientIP: 'VARCHAR', ClientCountry: 'VARCHAR', ClientASN: 'BIGINT', ClientRequestMethod: 'VARCHAR', ClientRequestHost: 'VARCHAR', ClientRequestURI: 'VARCHAR', ClientRequestProtocol: 'VARCHAR', ClientRequestUserAgent: 'VARCHAR', BotScore: 'BIGINT', EdgeResponseStatus: 'BIGINT'}";
    await con.run(`COPY (SELECT * FROM read_json(${sqlString(LINES)}, columns = ${columns})) TO ${sqlString(parquet)} (FORMAT parquet)`);
    // Auto-detected, the timestamps become a TIMESTAMP column: its rows read as local-time text, which Date.parse reads by the machine's zone.
    const typed = join(dir, 'typed.parquet');
    await con.run(`COPY (SELECT * FROM read_json_auto(${sqlString(LINES)})) TO ${sqlString(typed)} (FORMAT parquet)`);
    con.closeSync();
    db.closeSync();
    for (const ruleset of ['examples/http-waf.json', 'examples/http-early.json']) {
      for (const input of [LINES, gz, parquet]) {
        const want = rulekit(['simulate', ruleset, input]);
        expect(want.code).toBe(0);
        expect(want.out).toContain('requests 6');
        for (const engine of ['duckdb', 'clickhouse']) {
          const got = rulekit(['simulate', ruleset, input, '--engine', engine]);
          expect(got.err, `${engine} ${input}`).toBe('');
          expect(got.out, `${engine} ${input}`).toBe(want.out);
        }
      }
    }
    expect(rulekit(['simulate', 'examples/http-waf.json', typed, '--engine', 'duckdb']).out).toBe(rulekit(['simulate', 'examples/http-waf.json', typed]).out);
    const zoned = rulekit(['simulate', 'examples/http-early.json', typed, '--engine', 'duckdb']);
    expect(zoned.code).toBe(1);
    expect(zoned.err).toContain('[sql-inexact-value]');
  });

  it('exits 1 naming the field or the values it cannot read exactly, and 2 on request objects and HAR files', () => {
    const path = rulekit(['simulate', 'examples/http-ruleset.json', LINES, '--engine', 'duckdb']);
    expect(path.code).toBe(1);
    expect(path.err).toContain('error[sql-no-exact-form]: http.request.uri.path is made from the Logpush field ClientRequestURI');
    const offset = join(dir, 'offset.ndjson');
    writeFileSync(offset, readFileSync(LINES, 'utf8').replace('"2026-11-02T09:14:04Z"', '"2026-11-02T10:14:04+01:00"'));
    const inexact = rulekit(['simulate', 'examples/http-early.json', offset, '--engine', 'clickhouse']);
    expect(inexact.code).toBe(1);
    expect(inexact.err).toContain('error[sql-inexact-value]: 1 of 6 lines hold EdgeStartTimestamp values from which SQL does not read http.request.timestamp.sec exactly');
    const objects = rulekit(['simulate', 'examples/http-waf.json', 'examples/requests.ndjson', '--engine', 'duckdb']);
    expect(objects.code).toBe(2);
    expect(objects.err).toContain('are not Logpush http_requests lines');
    const har = join(dir, 'x.har');
    writeFileSync(har, '{"log":{"entries":[]}}');
    const harRun = rulekit(['simulate', 'examples/http-waf.json', har, '--engine', 'duckdb']);
    expect(harRun.code).toBe(2);
    expect(harRun.err).toContain('a HAR file, but --engine reads Logpush http_requests lines');
  });
});
