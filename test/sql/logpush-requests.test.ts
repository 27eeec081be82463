/**
 * HTTP-phase rulesets on the SQL engines over Logpush http_requests lines equal the in-process simulator
 * and diff over the same lines: for generated rulesets over the fields the Logpush table gives (and some
 * it does not), and generated lines (members missing, null, "", values of the wrong type, values SQL
 * has no exact reading of), as NDJSON and as typed Parquet, on DuckDB and chdb — every figure and the
 * examples; where the lines hold a value without an exact reading the engine refuses, naming it.
 * The engines are development dependencies: these tests run (and fail without them), never skip.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { countDiff, diffRulesets, type TrafficDiff } from '../../src/diff/index.js';
import { HTTP_SCHEME } from '../../src/expression/index.js';
import { logpushRecord } from '../../src/http/index.js';
import { rulesetProblems, type Rule } from '../../src/ruleset/index.js';
import { countRequestDiffOnEngine, readParquetObjects, runSimulation, simulateOnEngine, type SqlEngineName } from '../../src/simulation/index.js';
import { sqlString } from '../../src/sql/index.js';
import { describeSkippedEngines } from '../helpers/sql-engines.js';
import { mutationRun } from '../helpers/tools.js';

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 30 : 15));
const ENGINES: SqlEngineName[] = mutationRun() ? ['duckdb'] : ['duckdb', 'clickhouse'];
describeSkippedEngines('Logpush requests');

const dir = mkdtempSync(join(tmpdir(), 'rulekit-logpush-sql-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let file = 0;

// Values each Logpush field takes: exact ones (valid, wrong type, null, "") and a few SQL reads inexactly.
const V = (...xs: unknown[]) => xs;
const EXACT: Record<string, unknown[]> = {
  ClientRequestMethod: V('GET', 'get', 'Post', 'PUT', '', 5, null, true, {}),
  ClientRequestHost: V('example.com', 'a.example.com', 'EXAMPLE.com', '', 7, null),
  ClientRequestUserAgent: V('curl/8', 'Mozilla/5.0', '', null, 3),
  ClientRequestReferer: V('https://example.com/', '', null),
  RequestHeaders: V({ 'x-a': '1' }, null, 'text', {}),
  ClientRequestProtocol: V('HTTP/1.1', 'HTTP/2', 'h2', 'HTTP/3', ' h3 ', 'h3-29', 'http/2.0', '', null, 2, false),
  ClientIP: V('1.2.3.4', '10.0.0.1', '::1', '2001:db8::1', '01.2.3.4', 'x', '', 5, null),
  EdgeServerIP: V('1.2.3.5', '2001:db8::2', 'nope', null),
  ClientCountry: V('us', 'US', 'de', 'DE', 'xx1', 'd', '', 12, 5, 1.5, null, true),
  ClientASN: V(13335, '13335', 64512, '  ', 'abc', 1.5, -1, 4294967296, true, false, null, {}),
  BotScore: V(1, 5, 50, 99, '7', 0, 100, -3, 'x', null, false),
  WAFAttackScore: V(1, 20, 80, '99', null),
  EdgeStartTimestamp: V(1700000000, 1700000000.25, 1700000000123456789, '1700000001', 1700000000123, -5, 0, null, true, '1', '2023-11-14T22:13:20Z', '2024-02-29T23:59:59.5Z', '2026-02-30T00:00:00.123456Z', '1969-12-31T23:59:59.999Z', '2026-13-01T00:00:00Z', '2026-01-00T00:00:00Z', '2026-01-01T23:60:00Z', '0001-03-01T00:00:00Z'),
  EdgeResponseStatus: V(200, 403, '404', 0, 1.5, null, '', true),
  EdgeResponseContentType: V('text/html', 'text/html; charset=utf-8', ' Application/JSON ', 'TEXT/PLAIN;x', '', null, 4),
  ResponseHeaders: V({ 'x-b': '2' }, null),
  ClientSSLProtocol: V('TLSv1.3', 'none', '', null),
  RayID: V('abc', 'def', 'r1'),
  VerifiedBotCategory: V('Search Engine Crawler', '', null),
};
const INEXACT: Record<string, unknown[]> = {
  ClientRequestMethod: V('gét', ['GET']),
  ClientRequestHost: V(['a', 'b'], 2.5),
  ClientRequestUserAgent: V(['curl/8']),
  RequestHeaders: V({ 'User-Agent': 'other' }),
  ClientRequestProtocol: V('HTTP/2\u00a0'),
  ClientIP: V(['1.2.3.4']),
  ClientCountry: V(['us']),
  ClientASN: V('0x10', 2 ** 60, ' 7'),
  BotScore: V(2.5, '1e1'),
  EdgeStartTimestamp: V('2023-11-14T22:13:20+01:00', '17000000001234567890', '2026-01-01T24:00:00Z', '0000-01-01T00:00:00Z', '2026-01-01 00:00:00Z'),
  EdgeResponseContentType: V('téxt/html'),
  ResponseHeaders: V({ 'Content-Type': 'a/b' }),
  ClientSSLProtocol: V(1.25),
};
const KEYS = Object.keys(EXACT);

/** A Logpush line: some members of the table's fields, and a RayID or host, so that it is one. */
const lineArb = (inexact: boolean) =>
  fc
    .tuple(
      fc.subarray(KEYS, { minLength: 2 }),
      fc.array(fc.nat(1000), { minLength: KEYS.length, maxLength: KEYS.length }),
      fc.nat(99),
    )
    .map(([keys, picks, bad]) => {
      const line: Record<string, unknown> = { RayID: `r${picks[0]}` };
      keys.forEach((k, i) => {
        const pool = inexact && bad < 3 && INEXACT[k] ? INEXACT[k]! : EXACT[k]!;
        line[k] = pool[picks[i]! % pool.length];
      });
      return line;
    });

// Rules over the fields those give (and a few they do not), each one checked against the HTTP scheme.
const STRING_FIELDS = ['http.host', 'http.request.method', 'http.user_agent', 'http.referer', 'http.request.version', 'ip.src.country', 'cf.tls_version', 'cf.ray_id', 'cf.verified_bot_category', 'http.response.content_type.media_type', 'cf.response.error_type', 'cf.worker.upstream_zone', 'http.request.body.raw'];
const STRINGS = ['example.com', 'a.example.com', 'GET', 'POST', 'curl/8', 'HTTP/2', 'HTTP/3', 'HTTP/1.1', 'US', 'DE', '12', 'TLSv1.3', '', 'abc', 'r1', 'text/html', 'application/json', 'get', 'Search Engine Crawler', 'Mozilla/5.0'];
const INT_FIELDS = ['ip.src.asnum', 'cf.bot_management.score', 'cf.waf.score', 'http.response.code', 'http.request.timestamp.sec', 'http.request.timestamp.msec', 'cf.response.1xxx_code', 'cf.threat_score', 'ip.geoip.asnum'];
const INTS = [0, 1, 5, 7, 20, 50, 99, 123, 200, 250, 403, 404, 13335, 64512, 1700000000, 1700000001];
const IP_FIELDS = ['ip.src', 'cf.edge.server_ip'];
const CIDRS = ['1.2.3.0/24', '10.0.0.0/8', '::1/128', '2001:db8::/32', '0.0.0.0/0', '1.2.3.4'];

const PHASE = 'http_ratelimit';

const predicateArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom(...STRING_FIELDS), fc.constantFrom('eq', 'ne', 'lt', 'ge', 'contains'), fc.constantFrom(...STRINGS)).map(([f, op, v]) => `${f} ${op} ${JSON.stringify(op === 'contains' ? v.slice(0, 2) : v)}`),
  fc.tuple(fc.constantFrom(...STRING_FIELDS), fc.subarray(STRINGS, { minLength: 1, maxLength: 3 })).map(([f, vs]) => `${f} in {${vs.map((v) => JSON.stringify(v)).join(' ')}}`),
  fc.tuple(fc.constantFrom(...INT_FIELDS), fc.constantFrom('eq', 'ne', 'lt', 'ge'), fc.constantFrom(...INTS)).map(([f, op, v]) => `${f} ${op} ${v}`),
  fc.tuple(fc.constantFrom(...INT_FIELDS), fc.constantFrom(...INTS), fc.constantFrom(...INTS)).map(([f, a, b]) => `${f} in {${Math.min(a, b)}..${Math.max(a, b)}}`),
  fc.tuple(fc.constantFrom(...IP_FIELDS), fc.subarray(CIDRS, { minLength: 1, maxLength: 2 })).map(([f, cs]) => `${f} in {${cs.join(' ')}}`),
  fc.constantFrom('cf.edge.client_tcp', 'not cf.edge.client_tcp'),
);
const exprArb: fc.Arbitrary<string> = fc
  .tuple(predicateArb, fc.option(fc.tuple(fc.constantFrom('and', 'or'), predicateArb, fc.boolean()), { nil: undefined }))
  .map(([a, more]) => (more ? `${more[2] ? 'not ' : ''}(${a} ${more[0]} ${more[1]})` : a))
  // An expression with errors in the phase (a field of other phases) is replaced: both sides would refuse the ruleset.
  .map((e) => (rulesetProblems(JSON.stringify({ name: 'p', kind: 'zone', phase: PHASE, rules: [{ action: 'block', expression: e }] }), {}).some((d) => d.severity === 'error') ? 'http.host eq "example.com"' : e));
const ruleArb: fc.Arbitrary<Rule> = fc.tuple(exprArb, fc.constantFrom('block', 'block', 'log', 'managed_challenge'), fc.nat(5)).map(([expression, action, n]) => ({ action, expression, enabled: n > 0, description: `r ${expression.length}` }) as Rule);
const rulesArb = fc.array(ruleArb, { minLength: 1, maxLength: 5 });

/** Lines written as Parquet by DuckDB with typed columns (the scalar members: a value of another type is NULL). */
async function linesToParquet(ndjson: string, parquet: string): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const types: Record<string, string> = { ClientASN: 'BIGINT', BotScore: 'BIGINT', WAFAttackScore: 'BIGINT', EdgeStartTimestamp: 'BIGINT', EdgeResponseStatus: 'BIGINT' };
  const cols = KEYS.filter((k) => !k.endsWith('Headers')).map((k) => {
    const t = types[k] ?? 'VARCHAR';
    const path = sqlString(`$.${k}`);
    const ok = t === 'VARCHAR' ? `json_type(json, ${path}) = 'VARCHAR'` : `json_type(json, ${path}) IN ('BIGINT', 'UBIGINT')`;
    return `CASE WHEN ${ok} THEN TRY_CAST(json_extract_string(json, ${path}) AS ${t}) END AS "${k}"`;
  });
  await con.run(`COPY (SELECT ${cols.join(', ')} FROM read_ndjson_objects(${sqlString(ndjson)})) TO ${sqlString(parquet)} (FORMAT parquet)`);
  con.closeSync();
  db.closeSync();
}

/** The counts with each example's record or only its index. */
function shown(c: TrafficDiff, records: boolean) {
  const ex = (es: { index: number; record: unknown }[]) => es.map((e) => (records ? e : e.index));
  return { ...c, regions: c.regions.map((r) => ({ ...r, examples: ex(r.examples) })), pairs: c.pairs.map((p) => ({ ...p, examples: ex(p.examples) })) };
}

const inexactCodes = (ds: { code: string }[]) => ds.map((d) => d.code).filter((c) => c.startsWith('sql-'));

describe('HTTP rulesets over Logpush lines on an engine', () => {
  it('simulate: the summary equals the in-process one, over NDJSON and Parquet, on DuckDB and chdb', async () => {
    let compared = 0;
    let refused = 0;
    let matched = 0;
    await fc.assert(
      fc.asyncProperty(rulesArb, fc.boolean(), fc.nat(3).chain((n) => fc.array(lineArb(n === 0), { minLength: 5, maxLength: 30 }).map((ls) => [n === 0, ls] as const)), async (rules, _unused, [inexact, lines]) => {
        const ndjson = join(dir, `s${file}.ndjson`);
        const parquet = join(dir, `s${file++}.parquet`);
        writeFileSync(ndjson, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
        await linesToParquet(ndjson, parquet);
        const parquetLines = join(dir, `s${file++}.ndjson`);
        writeFileSync(parquetLines, (await readParquetObjects([parquet])).map((r) => JSON.stringify(r)).join('\n') + '\n');
        const text = JSON.stringify({ name: 'p', kind: 'zone', phase: PHASE, rules });
        for (const [input, reference] of [[ndjson, ndjson], [parquet, parquetLines]] as const) {
          const want = await runSimulation(text, reference, { threads: 0 });
          expect(want.ok).toBe(true);
          for (const engine of ENGINES) {
            const got = await simulateOnEngine(text, [input], { engine });
            if (!got.ok) {
              // Only a field without a reading, or (lines with such values) an inexact value, may stop it.
              const codes = inexactCodes(got.diagnostics);
              expect(codes.length, `${engine} ${input}: ${got.diagnostics.map((d) => d.message).join('; ')}`).toBeGreaterThan(0);
              if (codes.includes('sql-inexact-value')) expect(inexact, `${engine} ${input}`).toBe(true);
              refused++;
              continue;
            }
            expect(got.summary, `${engine} ${input}`).toEqual(want.summary);
            const warnings = (ds: { code: string; message: string }[]) => ds.filter((d) => d.code === 'http-logpush-missing-field').map((d) => d.message).sort();
            expect(warnings(got.diagnostics), `${engine} ${input}`).toEqual(warnings(want.diagnostics));
            compared++;
            matched += want.summary.verdicts.block;
          }
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    expect(compared).toBeGreaterThanOrEqual(RUNS * ENGINES.length * 2 * 0.5);
    expect(matched).toBeGreaterThan(RUNS);
    console.log(`simulate over Logpush lines: ${compared} engine comparisons, ${refused} refusals, ${matched} blocked requests`);
  }, 900_000);

  it('diff: the counts equal the in-process ones, over NDJSON and Parquet, on DuckDB and chdb', async () => {
    let compared = 0;
    let changed = 0;
    await fc.assert(
      fc.asyncProperty(rulesArb, rulesArb, fc.nat(3).chain((n) => fc.array(lineArb(n === 0), { minLength: 5, maxLength: 30 }).map((ls) => [n === 0, ls] as const)), async (oldRules, newRules, [inexact, lines]) => {
        const ndjson = join(dir, `d${file}.ndjson`);
        const parquet = join(dir, `d${file++}.parquet`);
        writeFileSync(ndjson, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
        await linesToParquet(ndjson, parquet);
        const old = { phase: PHASE, rules: oldRules };
        const next = { phase: PHASE, rules: newRules };
        const diff = diffRulesets(old, next);
        const records = (ls: Record<string, unknown>[]) => ls.map((l) => logpushRecord(l).record);
        const wants = [
          [ndjson, countDiff(old, next, records(lines), { diff })],
          [parquet, countDiff(old, next, records(await readParquetObjects([parquet])), { diff })],
        ] as const;
        for (const [input, want] of wants) {
          for (const engine of ENGINES) {
            const got = await countRequestDiffOnEngine(old, next, [input], { engine, diff });
            if (!got.ok) {
              const codes = inexactCodes(got.diagnostics);
              expect(codes.length, `${engine} ${input}: ${got.diagnostics.map((d) => d.message).join('; ')}`).toBeGreaterThan(0);
              if (codes.includes('sql-inexact-value')) expect(inexact, `${engine} ${input}`).toBe(true);
              continue;
            }
            expect(shown(got.counts!, true), `${engine} ${input}`).toEqual(shown(want, true));
            compared++;
          }
          changed += want.changed;
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    expect(compared).toBeGreaterThanOrEqual(RUNS * ENGINES.length * 2 * 0.5);
    expect(changed).toBeGreaterThan(RUNS);
    console.log(`diff over Logpush lines: ${compared} engine comparisons, ${changed} changed requests`);
  }, 900_000);

  it('refuses each value without an exact reading, naming the rule field, on DuckDB and chdb', async () => {
    const reads: Record<string, string> = {
      ClientRequestMethod: 'http.request.method', ClientRequestHost: 'http.host', ClientRequestUserAgent: 'http.user_agent', RequestHeaders: 'http.user_agent',
      ClientRequestProtocol: 'http.request.version', ClientIP: 'ip.src', ClientCountry: 'ip.src.country', ClientASN: 'ip.src.asnum', BotScore: 'cf.bot_management.score',
      EdgeStartTimestamp: 'http.request.timestamp.sec', EdgeResponseContentType: 'http.response.content_type.media_type', ResponseHeaders: 'http.response.content_type.media_type', ClientSSLProtocol: 'cf.tls_version',
    };
    const test = (field: string) => {
      const type = HTTP_SCHEME.get(field)!.type;
      return type === 'Int' ? `${field} eq 1` : type === 'Ip' ? `${field} in {1.2.3.0/24}` : `${field} eq "x"`;
    };
    let n = 0;
    for (const [key, values] of Object.entries(INEXACT)) {
      const field = reads[key]!;
      for (const value of values) {
        // The field's own Logpush member is there (a header map only overrides a value the line has).
        const own = key.endsWith('Headers') ? { [key === 'RequestHeaders' ? 'ClientRequestUserAgent' : 'EdgeResponseContentType']: 'text/plain' } : {};
        const path = join(dir, `i${n++}.ndjson`);
        writeFileSync(path, [{ RayID: 'a', ClientRequestHost: 'example.com' }, { RayID: 'b', ...own, [key]: value }].map((l) => JSON.stringify(l)).join('\n') + '\n');
        const text = JSON.stringify({ name: 'p', kind: 'zone', phase: PHASE, rules: [{ action: 'block', expression: test(field) }] });
        for (const engine of ENGINES) {
          const got = await simulateOnEngine(text, [path], { engine });
          const refusal = got.diagnostics.find((d) => d.code === 'sql-inexact-value');
          expect(got.ok, `${engine} ${key} ${JSON.stringify(value)}`).toBe(false);
          expect(refusal?.data, `${engine} ${key} ${JSON.stringify(value)}`).toMatchObject({ field, lines: 1 });
        }
      }
    }
  }, 300_000);
});
