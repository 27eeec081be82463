/**
 * SQL engines against rulekit's streaming paths, on generated data written once into a temp dir and kept
 * there for the next run at the same scale (`--rows N`, default 200k so that a run takes a few minutes on
 * two cores; the issue's scale is `--rows 10000000`, about 6 GB on disk and an hour on two shared cores):
 * - log lines (http_requests, ~395 B each) as NDJSON and as Parquet, one three-clause Logpush filter:
 *   first `rulekit query --count` beside the query an analyst writes by hand (DuckDB `read_json` /
 *   `read_parquet`, chdb `file(…, 'JSONEachRow', schema)` / Parquet) and rulekit's SQL for chdb, interleaved,
 *   with `--before-cli PATH` another build's `query` in the same rounds (`--only-query` stops there); then
 *   `rulekit logfilter` (the streaming matcher, whole process), `rulekit query --count` (DuckDB, whole
 *   process), DuckDB and chdb on the NDJSON (JSON mode) and on the Parquet (column mode), each a whole
 *   Node process with the engine loaded, and `jq` with the same filter when installed; then the same
 *   queries in this process on engines already loaded (the query's own time, warm page cache) beside
 *   rulekit's matcher behind readline + JSON.parse in this process: the columnar path against the
 *   streaming one both ways, against the issue's 50× target;
 * - flow rows as NDJSON and Parquet, the decide bench's 50-rule ruleset less its 10k-CIDR list rule:
 *   `rulekit simulate` in process against `--engine duckdb|clickhouse` on both files; and the summary
 *   SQL evaluating every rule on every row (eager, the default) against only the rules a row reaches
 *   (lazy), in this process on the Parquet (at most its first 1M rows);
 * - compile time of the 50-rule ruleset to SQL, both dialects, beside compiling it to rulekit's matcher.
 * Every run's match count must equal rulekit's or the bench throws. Rows/s, MB/s and peak RSS; ratios
 * against rulekit's streaming path of the same run.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { prng } from './capture-gen.js';
import { measureInterleaved, printTable, ratio, fmt, flagValue } from './harness.js';
import { canMeasurePeak, runInterleaved, runProcess, type Command, type ProcessRun } from './processes.js';
import { rulesetBody, ruleSpecs, blocklist } from './ruleset-fixture.js';
import { compileRuleset, ListCatalog, logFilterToSql, rulesetToSql, sqlString, flowFields, flowColumnFromJson } from '../dist/index.js';
import { dialectOf } from '../dist/sql/index.js';
import { compileLogFilter } from '../dist/logpush/index.js';
import { simulateOnEngine } from '../dist/simulation/index.js';

/** `--rows N` or `--rows=N` (bench/index.ts passes the flag through), else SQL_ROWS, else 200k. */
function rowsOption(): number {
  const argv = process.argv;
  const at = argv.findIndex((a) => a === '--rows' || a.startsWith('--rows='));
  const v = at < 0 ? process.env['SQL_ROWS'] : argv[at]!.includes('=') ? argv[at]!.slice(7) : argv[at + 1];
  const n = Number(v ?? 200_000);
  if (!Number.isSafeInteger(n) || n < 1000) throw new Error(`--rows takes a whole number of rows, 1000 or more, not ${v}`);
  return n;
}
const ROWS = rowsOption();
/**
 * `--before-cli PATH`: the CLI of another build (main's `dist/bundle/cli.js`, built in its own checkout),
 * whose `query --count` is timed in the same rounds as this build's: before and after from one run.
 */
const BEFORE_CLI = flagValue('--before-cli');
/** `--only-query`: only the table of rulekit query beside hand-written queries. */
const ONLY_QUERY = process.argv.includes('--only-query');
/** What the generated files take per row (NDJSON and Parquet of both tables), to check the disk first. */
const BYTES_PER_ROW = 650;
/** Bumped when the generators change: older data is not reused. */
const DATA_VERSION = 'v1';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/bundle/cli.js');
const FILTER = { where: { and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientCountry', operator: 'in', value: ['us', 'de'] }, { key: 'ClientRequestMethod', operator: 'eq', value: 'GET' }] } };
const JQ = 'select(.EdgeResponseStatus >= 500 and (.ClientCountry == "us" or .ClientCountry == "de") and .ClientRequestMethod == "GET")';
/** The filter as an analyst writes it by hand over typed columns (the same in both engines). */
const HAND_WHERE = "EdgeResponseStatus >= 500 AND ClientCountry IN ('us', 'de') AND ClientRequestMethod = 'GET'";
/** The columns the hand-written ClickHouse query declares for NDJSON (no schema inference). */
const HAND_CH_SCHEMA = 'EdgeResponseStatus Nullable(Int64), ClientCountry Nullable(String), ClientRequestMethod Nullable(String)';
/** The fields the filter reads, for the member-mode read rulekit writes. */
const FILTER_FIELDS = ['EdgeResponseStatus', 'ClientCountry', 'ClientRequestMethod'];

const COUNTRIES = ['us', 'ca', 'de', 'fr', 'gb', 'jp', 'br', 'in', 'au', 'nl', 'se', 'es', 'it', 'pl', 'kr', 'mx'];
const HOSTS = ['www.example.com', 'api.example.com', 'example.org', 'shop.example.net', 'cdn.example.com'];
const PATHS = ['/', '/index.html', '/api/v1/users', '/api/v1/orders', '/static/app.js', '/img/logo.png', '/login'];
const STATUSES = [200, 200, 200, 200, 200, 200, 200, 200, 301, 302, 304, 404, 403, 500, 502, 503];
const UAS = ['Mozilla/5.0 (Windows NT 10.0; Win64; x64)', 'curl/8.4.0', 'python-requests/2.31', 'Googlebot/2.1'];

export async function writeLines(path: string, n: number, line: (r: () => number, i: number) => unknown): Promise<void> {
  const r = prng(7);
  const out = createWriteStream(path);
  let buf = '';
  for (let i = 0; i < n; i++) {
    buf += JSON.stringify(line(r, i)) + '\n';
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}
const pick = <T>(r: () => number, a: readonly T[]) => a[Math.floor(r() * a.length)]!;

export function logLine(r: () => number, i: number): unknown {
  const ts = 1_700_000_000_000_000_000 + i * 1000;
  return {
    ClientIP: `${10 + Math.floor(r() * 200)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}`,
    ClientCountry: pick(r, COUNTRIES),
    ClientRequestHost: pick(r, HOSTS),
    ClientRequestMethod: r() < 0.8 ? 'GET' : 'POST',
    ClientRequestPath: pick(r, PATHS),
    ClientRequestUserAgent: pick(r, UAS),
    BotScore: 1 + Math.floor(r() * 99),
    EdgeResponseBytes: Math.floor(r() * 200_000),
    EdgeResponseStatus: pick(r, STATUSES),
    EdgeStartTimestamp: ts,
    EdgeEndTimestamp: ts + Math.floor(r() * 1e8),
    RayID: Math.floor(r() * 2 ** 52).toString(16).padStart(16, '0'),
    WorkerSubrequest: r() < 0.05,
  };
}

export function flowRow(r: () => number): unknown {
  const tcp = r() < 0.7;
  const v6 = r() < 0.1;
  const src = v6 ? `2001:db8:${Math.floor(r() * 64).toString(16)}::${Math.floor(r() * 65536).toString(16)}` : `${Math.floor(r() * 224)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}`;
  const dst = v6 ? '2001:db8:ffff::1' : `203.0.113.${Math.floor(r() * 64)}`;
  const port = r() < 0.5 ? pick(r, [80, 443, 8080, 22, 53]) : Math.floor(r() * 65536);
  return {
    'ip.src': src,
    'ip.dst': dst,
    'ip.proto': tcp ? 'tcp' : r() < 0.8 ? 'udp' : 'icmp',
    'ip.ttl': Math.floor(r() * 128),
    'ip.len': 40 + Math.floor(r() * 1460),
    ...(tcp ? { 'tcp.srcport': Math.floor(r() * 65536), 'tcp.dstport': port, 'tcp.flags.syn': r() < 0.3, 'tcp.flags.ack': r() < 0.7 } : { 'udp.srcport': Math.floor(r() * 65536), 'udp.dstport': port }),
    ...(r() < 0.05 ? { 'icmp.type': Math.floor(r() * 20) } : {}),
  };
}

/** A whole Node process running one query on an engine, printing its first value. */
function engineCommand(name: string, engine: 'duckdb' | 'chdb', sql: string): Command {
  const code = engine === 'duckdb'
    ? `import { DuckDBInstance } from '@duckdb/node-api'; const db = await DuckDBInstance.create(':memory:'); const c = await db.connect(); console.log(String((await c.runAndReadAll(process.env.Q)).getRows()[0][0]));`
    : `import { query } from 'chdb'; console.log(query(process.env.Q, 'TSV').trim());`;
  return { name, cmd: process.execPath, args: ['--input-type=module', '-e', code], env: { Q: sql }, peak: true };
}

interface Row { name: string; run: ProcessRun; rows: number; bytes: number }

function table(title: string, rows: Row[], baseline: Row, notes: string[]): void {
  printTable(title, ['path', 's', 'rows/s', 'MB/s', 'vs rulekit', 'peak RSS MB'], rows.map((r) => [
    r.name, r.run.ms / 1000, fmt(r.rows / (r.run.ms / 1000)), fmt(r.bytes / 1e6 / (r.run.ms / 1000)), ratio(baseline.run.ms, r.run.ms), r.run.peakMB === undefined ? '–' : fmt(r.run.peakMB),
  ]), notes);
}

/** The data of one scale, generated once and kept: a marker file says it is complete. */
async function data(): Promise<{ dir: string; lines: string; linesParquet: string; flows: string; flowsParquet: string; flowsSample: string; reused: boolean; seconds: number }> {
  const dir = join(tmpdir(), `rulekit-bench-sql-${ROWS}-${DATA_VERSION}`);
  const files = { dir, lines: join(dir, 'lines.ndjson'), linesParquet: join(dir, 'lines.parquet'), flows: join(dir, 'flows.ndjson'), flowsParquet: join(dir, 'flows.parquet'), flowsSample: join(dir, 'flows-sample.parquet') };
  const marker = join(dir, 'complete');
  if (existsSync(marker) && !process.argv.includes('--fresh')) return { ...files, reused: true, seconds: 0 };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  if (free < ROWS * BYTES_PER_ROW * 1.2) throw new Error(`${ROWS} rows need about ${((ROWS * BYTES_PER_ROW) / 1e9).toFixed(1)} GB in ${dir}; ${(free / 1e9).toFixed(1)} GB free`);
  const t0 = performance.now();
  await writeLines(files.lines, ROWS, logLine);
  await writeLines(files.flows, ROWS, flowRow);
  const flowCols = flowFields(undefined, {}).map((f: Parameters<typeof flowColumnFromJson>[0]) => flowColumnFromJson(f, 'json', 'duckdb')).join(', ');
  runProcess(engineCommand('to parquet', 'duckdb', [
    `COPY (SELECT * FROM read_ndjson(${sqlString(files.lines)})) TO ${sqlString(files.linesParquet)} (FORMAT parquet)`,
    `COPY (SELECT ${flowCols} FROM read_ndjson_objects(${sqlString(files.flows)})) TO ${sqlString(files.flowsParquet)} (FORMAT parquet)`,
    `COPY (SELECT * FROM read_parquet(${sqlString(files.flowsParquet)}) LIMIT 1000000) TO ${sqlString(files.flowsSample)} (FORMAT parquet)`,
    'SELECT 1',
  ].join('; ')));
  writeFileSync(marker, `${DATA_VERSION} ${ROWS}\n`);
  return { ...files, reused: false, seconds: (performance.now() - t0) / 1000 };
}

/**
 * rulekit's SQL beside the query an analyst writes by hand, whole processes interleaved over the same files,
 * counts equal: `rulekit query --count` (DuckDB) on NDJSON and Parquet, and on ClickHouse (chdb) the SQL rulekit
 * writes for it (member mode over NDJSON, column mode over Parquet); with `--before-cli`, the other build's
 * `query --count`, and the JSON-mode SQL (each clause parsing the whole line) on chdb, in the same rounds.
 */
function queryPairs(filter: string, lines: string, parquet: string, warm: boolean): void {
  const text = JSON.stringify(FILTER);
  const ch = dialectOf('clickhouse');
  const memberSql = logFilterToSql(text, { dialect: 'clickhouse', jsonColumns: true }).sql!;
  const jsonSql = logFilterToSql(text, { dialect: 'clickhouse', column: 'line' }).sql!;
  const columnSql = logFilterToSql(text, { dialect: 'clickhouse', columns: true }).sql!;
  const chString = (s: string) => sqlString(s, 'clickhouse');
  const query = (name: string, cli: string, file: string): Command => ({ name, cmd: process.execPath, args: [cli, 'query', '--filter', filter, file, '--count'], peak: true });
  interface Pair { what: string; hand: Command; rulekit: Command; before?: Command }
  const pairs: Pair[] = [
    {
      what: 'DuckDB, NDJSON',
      hand: engineCommand('hand: read_json', 'duckdb', `SELECT count(*) FROM read_json(${sqlString(lines)}) WHERE ${HAND_WHERE}`),
      rulekit: query('rulekit query --count', CLI, lines),
      before: BEFORE_CLI ? query('before: rulekit query --count', BEFORE_CLI, lines) : undefined,
    },
    {
      what: 'DuckDB, Parquet',
      hand: engineCommand('hand: read_parquet', 'duckdb', `SELECT count(*) FROM read_parquet(${sqlString(parquet)}) WHERE ${HAND_WHERE}`),
      rulekit: query('rulekit query --count', CLI, parquet),
      before: BEFORE_CLI ? query('before: rulekit query --count', BEFORE_CLI, parquet) : undefined,
    },
    {
      what: 'chdb, NDJSON',
      hand: engineCommand('hand: JSONEachRow', 'chdb', `SELECT count() FROM file(${chString(lines)}, 'JSONEachRow', ${chString(HAND_CH_SCHEMA)}) WHERE ${HAND_WHERE}`),
      rulekit: engineCommand('rulekit SQL (member mode)', 'chdb', `SELECT count() FROM ${ch.source.memberColumns([lines], FILTER_FIELDS)} AS lines WHERE ${memberSql}`),
      before: engineCommand('rulekit SQL (JSON mode)', 'chdb', `SELECT count() FROM file(${chString(lines)}, 'LineAsString', 'line String') WHERE ${jsonSql}`),
    },
    {
      what: 'chdb, Parquet',
      hand: engineCommand('hand: Parquet', 'chdb', `SELECT count() FROM file(${chString(parquet)}, 'Parquet') WHERE ${HAND_WHERE}`),
      rulekit: engineCommand('rulekit SQL (column mode)', 'chdb', `SELECT count() FROM file(${chString(parquet)}, 'Parquet') WHERE ${columnSql}`),
    },
  ];
  const commands = pairs.flatMap((p) => [p.hand, p.rulekit, ...(p.before ? [p.before] : [])]);
  let expected: string | undefined;
  const { stats } = runInterleaved(commands, {
    runs: warm ? 5 : 1,
    warmup: warm ? 1 : 0,
    check: (i, r) => {
      const count = r.stdout.trim().split('\n').pop()!;
      expected ??= count;
      if (count !== expected) throw new Error(`${commands[i]!.name} counted ${count}, the first query ${expected}`);
    },
  });
  const at = (c: Command) => stats[commands.indexOf(c)]!;
  printTable(`rulekit query beside a hand-written query, ${ROWS} log lines (${expected} match), whole processes`, ['engine, file', 'hand-written s', 'rulekit s', 'rulekit / hand', 'before s', 'before / hand', 'peak RSS MB (hand, rulekit)'], pairs.map((p) => [
    p.what, at(p.hand).q1 / 1000, at(p.rulekit).q1 / 1000, ratio(at(p.rulekit).q1, at(p.hand).q1),
    p.before ? at(p.before).q1 / 1000 : '–', p.before ? ratio(at(p.before).q1, at(p.hand).q1) : '–',
    [p.hand, p.rulekit].map((c) => (at(c).last.peakMB === undefined ? '–' : fmt(at(c).last.peakMB!))).join(', '),
  ]), [
    `Lower quartile of ${warm ? '5 runs after a warm-up' : 'one run'}, interleaved, each a whole Node process with its engine loaded; target rulekit / hand ≤ 1.3×.`,
    'Hand-written: typed columns by name (DuckDB infers them; ClickHouse is told them). rulekit: NDJSON in member mode (each field the filter reads parsed once as a JSON value, its type tested), Parquet in column mode where the column has the catalog\'s type.',
    `before: ${BEFORE_CLI ? `rulekit query of ${BEFORE_CLI}` : 'no --before-cli given'} on DuckDB; on chdb the JSON-mode SQL (each clause reads the whole line).`,
  ]);
}

/** rulekit's matcher behind readline + JSON.parse, in this process: the count of lines kept. */
async function streamingCount(path: string): Promise<number> {
  const matcher = compileLogFilter(JSON.stringify(FILTER), { dataset: 'http_requests' }).matcher!;
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) if (line && matcher(JSON.parse(line) as Record<string, unknown>)) n++;
  return n;
}

/** A query's own time on engines loaded in this process: the second of two runs (page cache warm). */
async function inEngine(): Promise<{ duckdb: (sql: string) => Promise<{ ms: number; value: number }>; chdb: (sql: string) => Promise<{ ms: number; value: number }>; close: () => void }> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const chdb = await import('chdb');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const twice = async (q: () => Promise<number>) => {
    await q();
    const t0 = performance.now();
    const value = await q();
    return { ms: performance.now() - t0, value };
  };
  return {
    duckdb: (sql) => twice(async () => Number((await con.runAndReadAll(sql)).getRows()[0]![0])),
    chdb: (sql) => twice(async () => Number((await chdb.queryAsync(sql, { format: 'TSV' })).text().trim())),
    close: () => {
      con.closeSync();
      db.closeSync();
    },
  };
}

export async function run(): Promise<void> {
  console.log(`${ROWS} rows (--rows N to choose); load: ${execSync('uptime').toString().trim()}${canMeasurePeak ? '' : '; no GNU time: no peak RSS'}`);
  const { dir, lines, linesParquet, flows, flowsParquet, flowsSample, reused, seconds } = await data();
  const size = (f: string) => statSync(f).size;
  console.log(`${reused ? 'reused' : `generated in ${seconds.toFixed(1)} s`} ${dir} (delete it when done): lines ${(size(lines) / 1e6).toFixed(0)} MB NDJSON, ${(size(linesParquet) / 1e6).toFixed(0)} MB Parquet; flows ${(size(flows) / 1e6).toFixed(0)} MB NDJSON, ${(size(flowsParquet) / 1e6).toFixed(0)} MB Parquet`);
  const filter = join(dir, 'filter.json');
  writeFileSync(filter, JSON.stringify(FILTER));
  // Above 1M rows one run each: a warm-up run would double a half-hour bench, and the page cache holds the files anyway.
  const warm = ROWS <= 1_000_000;

  queryPairs(filter, lines, linesParquet, warm);
  if (ONLY_QUERY) return;

  // Log lines: one filter everywhere.
  const json = (d: 'duckdb' | 'clickhouse', column: string) => logFilterToSql(JSON.stringify(FILTER), { dialect: d, column }).sql!;
  const cols = (d: 'duckdb' | 'clickhouse') => logFilterToSql(JSON.stringify(FILTER), { dialect: d, columns: true }).sql!;
  const ndjsonBytes = size(lines);
  const parquetBytes = size(linesParquet);
  const queries = {
    duckdbNdjson: `SELECT count(*) FROM read_ndjson_objects(${sqlString(lines)}) AS t(line) WHERE ${json('duckdb', 'line')}`,
    chdbNdjson: `SELECT count() FROM file(${sqlString(lines, 'clickhouse')}, 'LineAsString', 'line String') WHERE ${json('clickhouse', 'line')}`,
    duckdbParquet: `SELECT count(*) FROM read_parquet(${sqlString(linesParquet)}) WHERE ${cols('duckdb')}`,
    chdbParquet: `SELECT count() FROM file(${sqlString(linesParquet, 'clickhouse')}, 'Parquet') WHERE ${cols('clickhouse')}`,
  };
  const commands: [Command, number][] = [
    [{ name: 'rulekit logfilter (matcher, NDJSON)', cmd: process.execPath, args: [CLI, 'logfilter', filter, lines, '--format', 'ndjson'], peak: true }, ndjsonBytes],
    [{ name: 'rulekit query --count (DuckDB, NDJSON)', cmd: process.execPath, args: [CLI, 'query', '--filter', filter, lines, '--count'], peak: true }, ndjsonBytes],
    [engineCommand('DuckDB, NDJSON (JSON mode)', 'duckdb', queries.duckdbNdjson), ndjsonBytes],
    [engineCommand('chdb, NDJSON (JSON mode)', 'chdb', queries.chdbNdjson), ndjsonBytes],
    [engineCommand('DuckDB, Parquet (columns)', 'duckdb', queries.duckdbParquet), parquetBytes],
    [engineCommand('chdb, Parquet (columns)', 'chdb', queries.chdbParquet), parquetBytes],
  ];
  let jq = false;
  try {
    execSync('jq --version', { stdio: 'ignore' });
    jq = true;
    commands.push([{ name: 'jq (NDJSON)', cmd: 'jq', args: ['-c', JQ, lines], peak: true }, ndjsonBytes]);
  } catch {
    // not installed: left out, said below
  }
  const rows: Row[] = [];
  let expected: number | undefined;
  const counted = (name: string, out: string) => (name.startsWith('rulekit logfilter') || name.startsWith('jq') ? (out === '' ? 0 : out.split('\n').length) : Number(out.split('\n').pop()));
  for (const [c, bytes] of commands) {
    if (warm) runProcess(c); // warm: page cache, the engine's libraries
    const r = runProcess(c, { peak: true });
    const count = counted(c.name, r.stdout.trim());
    expected ??= count;
    if (count !== expected) throw new Error(`${c.name} counted ${count}, rulekit ${expected}`);
    rows.push({ name: c.name, run: r, rows: ROWS, bytes });
  }
  table(`Logpush filter over ${ROWS} log lines (${expected} match), whole processes`, rows, rows[0]!, [
    `Each row is one whole process${warm ? ' after one warm-up run' : ' (one run: at this scale the files stay in the page cache between runs)'}, start-up included; MB/s of the file each reads (Parquet is smaller).`,
    'vs rulekit: rulekit logfilter\'s time over this one\'s (above 1× is faster than rulekit).',
    ...(jq ? [] : ['jq is not installed (apt-get install jq): left out.']),
  ]);

  // The same queries in this process: the engines' own time, against rulekit's matcher in this process.
  const engines = await inEngine();
  const t0 = performance.now();
  const streamed = await streamingCount(lines);
  const streamMs = performance.now() - t0;
  if (streamed !== expected) throw new Error(`the matcher in process counted ${streamed}, rulekit logfilter ${expected}`);
  const inProcess: [string, { ms: number; value: number }, number][] = [
    ['DuckDB, NDJSON (JSON mode)', await engines.duckdb(queries.duckdbNdjson), ndjsonBytes],
    ['chdb, NDJSON (JSON mode)', await engines.chdb(queries.chdbNdjson), ndjsonBytes],
    ['DuckDB, Parquet (columns)', await engines.duckdb(queries.duckdbParquet), parquetBytes],
    ['chdb, Parquet (columns)', await engines.chdb(queries.chdbParquet), parquetBytes],
  ];
  for (const [name, r] of inProcess) if (r.value !== expected) throw new Error(`${name} in process counted ${r.value}, rulekit ${expected}`);
  const streamWhole = rows[0]!.run.ms;
  printTable(`The same filter in this process (engines loaded, second run), ${ROWS} lines`, ['path', 's', 'rows/s', 'MB/s', 'vs matcher in process', 'vs rulekit logfilter (whole process)'], [
    ['rulekit matcher, readline + JSON.parse', streamMs / 1000, fmt(ROWS / (streamMs / 1000)), fmt(ndjsonBytes / 1e6 / (streamMs / 1000)), '1.00×', ratio(streamWhole, streamMs)],
    ...inProcess.map(([name, r, bytes]) => [name, r.ms / 1000, fmt(ROWS / (r.ms / 1000)), fmt(bytes / 1e6 / (r.ms / 1000)), ratio(streamMs, r.ms), ratio(streamWhole, r.ms)]),
  ], [
    'The columnar path (Parquet) against the streaming one, the issue\'s target being 50×: the last two columns are the streaming time over this row\'s.',
    `Whole processes (table above): Parquet on DuckDB ${ratio(streamWhole, rows[4]!.run.ms)} and on chdb ${ratio(streamWhole, rows[5]!.run.ms)} the streaming rulekit logfilter.`,
  ]);

  // Flows: the ruleset on engines against the in-process simulator.
  const specs = ruleSpecs().filter((s) => !s.expression.includes('$blocklist'));
  const rsPath = join(dir, 'ruleset.json');
  writeFileSync(rsPath, JSON.stringify(rulesetBody(specs)));
  const sim = (name: string, input: string, extra: string[]): Command => ({ name, cmd: process.execPath, args: [CLI, 'simulate', rsPath, input, '--format', 'json', '--no-progress', ...extra], peak: true });
  const simCommands: [Command, number][] = [
    [sim('rulekit simulate (in process, NDJSON)', flows, []), size(flows)],
    [sim('simulate --engine duckdb, NDJSON', flows, ['--engine', 'duckdb']), size(flows)],
    [sim('simulate --engine clickhouse, NDJSON', flows, ['--engine', 'clickhouse']), size(flows)],
    [sim('simulate --engine duckdb, Parquet', flowsParquet, ['--engine', 'duckdb']), size(flowsParquet)],
    [sim('simulate --engine clickhouse, Parquet', flowsParquet, ['--engine', 'clickhouse']), size(flowsParquet)],
  ];
  const simRows: Row[] = [];
  let want: string | undefined;
  const figuresOf = (s: { rules: { matched: number; decided: number }[]; verdicts: unknown }) => JSON.stringify([s.verdicts, s.rules.map((x) => [x.matched, x.decided])]);
  for (const [c, bytes] of simCommands) {
    const r = runProcess(c, { peak: true });
    const figures = figuresOf((JSON.parse(r.stdout) as { summary: { rules: { matched: number; decided: number }[]; verdicts: unknown } }).summary);
    want ??= figures;
    if (figures !== want) throw new Error(`${c.name}: summary differs from rulekit's`);
    simRows.push({ name: c.name, run: r, rows: ROWS, bytes });
  }
  table(`Ruleset of ${specs.length} rules over ${ROWS} flow rows`, simRows, simRows[0]!, [
    'One run each, whole processes; every summary\'s counts equal the in-process one. The engines read single-threaded where packet numbers must follow file order (ClickHouse), and fetch the example packets in a second query.',
    'The 10k-CIDR list rule of the decide bench is left out: a list becomes an array of ranges the engine scans per row.',
  ]);

  // Eager (every rule on every row) against lazy (only the rules a row reaches), in this process.
  const sampleRows = Math.min(ROWS, 1_000_000);
  const rsText = JSON.stringify(rulesetBody(specs));
  const lazyRows: (string | number)[][] = [];
  for (const engine of ['duckdb', 'clickhouse'] as const) {
    const times: Record<string, number> = {};
    let figures: string | undefined;
    for (const evaluation of ['eager', 'lazy', 'eager', 'lazy'] as const) {
      const t = performance.now();
      const r = await simulateOnEngine(rsText, [flowsSample], { engine, evaluation });
      const ms = performance.now() - t;
      times[evaluation] = Math.min(times[evaluation] ?? Infinity, ms);
      figures ??= figuresOf(r.summary);
      if (figuresOf(r.summary) !== figures) throw new Error(`${engine} ${evaluation}: summary differs`);
    }
    lazyRows.push([engine, times['eager']! / 1000, times['lazy']! / 1000, ratio(times['lazy']!, times['eager']!)]);
  }
  printTable(`Summary SQL: every rule on every row (eager) or only the rules a row reaches (lazy), ${specs.length} rules, ${sampleRows} Parquet flow rows`, ['engine', 'eager s', 'lazy s', 'lazy / eager'], lazyRows, [
    'simulateOnEngine in this process, the better of two runs each, alternated; equal summaries. Above 1× lazy is slower: filtering every column down per rule costs more than computing a cheap test over whole columns.',
  ]);
  engines.close();

  // Compile time of the 50-rule ruleset (with its 10k-CIDR list) to SQL, beside compiling it to the matcher.
  const body = rulesetBody(ruleSpecs());
  const lists = ListCatalog.from({ blocklist: blocklist() });
  const small = rulesetBody(specs);
  const cases: [string, () => unknown][] = [
    [`matcher (compileRuleset): ${specs.length} rules, no list`, () => compileRuleset(small, {})],
    [`matcher (compileRuleset): 50 rules with the 10k-CIDR list`, () => compileRuleset(body, { lists })],
    ...(['duckdb', 'clickhouse'] as const).flatMap((d) => [
      [`SQL ${d}: ${specs.length} rules, no list`, () => rulesetToSql(small, { dialect: d })],
      [`SQL ${d}: 50 rules with the 10k-CIDR list`, () => rulesetToSql(body, { dialect: d, lists })],
    ] as [string, () => unknown][]),
  ];
  const timings = measureInterleaved(cases.map(([, f]) => f), { rounds: 21, warmupMs: 300 });
  printTable('Ruleset compile time (parse, check, then the matcher or the SQL text)', ['ruleset', 'ms (q1)', 'ms (median)', 'vs the matcher, same ruleset', 'vs 1 ms target'], cases.map(([n], i) => [n, timings[i]!.q1 / 1e6, timings[i]!.median / 1e6, ratio(timings[i]!.q1, timings[i % 2]!.q1), ratio(timings[i]!.q1 / 1e6, 1)]), [
    'Target < 1 ms for a 50-rule ruleset. With the list, the time is the expression checker building the 10k-CIDR set (as the simulator does on every compile); the SQL text of its ranges is kept per set.',
  ]);
}
