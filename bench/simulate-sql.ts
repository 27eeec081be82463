/**
 * `rulekit simulate --engine duckdb|clickhouse` beside the SQL an expert writes by hand for the same
 * ruleset over the same flow file: whole processes, interleaved, each deciding rule's count checked equal.
 * The ruleset is the decide bench's 50 rules less the 10k-CIDR list rule (bench/ruleset-fixture.ts); the
 * flows are sql.ts's generator (NDJSON packet objects, ~150 B a line) and the same rows as Parquet with a
 * typed column per field. `--rows N` (default 1M), `--runs N` (default 3), `--only TEXT` (the pairs whose
 * name holds it: `parquet`, `chdb`), `--before-cli PATH` (another build's `dist/bundle/cli.js`, run in the
 * same rounds, for a change's before and after under the same load).
 *
 * The hand-written query is what a DuckDB/ClickHouse user writes knowing the data: typed columns declared
 * up front (`read_json(…, columns = {…})`, `file(…, 'JSONEachRow', schema)`, Parquet as it is), ports and
 * flags compared as numbers and booleans, an IPv4 destination turned into a number once per row with
 * `split_part`, an IPv6 /48 as a text prefix, one `CASE`/`multiIf` picking the first rule that matches,
 * `GROUP BY` the deciding rule. It checks none of what rulekit checks (a value of the wrong type, an
 * address written another way, examples): on this data those give the same counts, which is the point of
 * the comparison.
 */
import { existsSync, mkdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { printTable, ratio, fmt, flagValue } from './harness.js';
import { canMeasurePeak, runInterleaved, runProcess, type Command } from './processes.js';
import { ruleSpecs, rulesetBody, type RuleSpec } from './ruleset-fixture.js';
import { flowRow, writeLines } from './sql.js';
import { flowFields, flowColumnFromJson, sqlString } from '../dist/index.js';

const ROWS = Number(flagValue('--rows') ?? 1_000_000);
const RUNS = Number(flagValue('--runs') ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/bundle/cli.js');
const BEFORE_CLI = flagValue('--before-cli');
/** NDJSON and Parquet of one flow row, about. */
const BYTES_PER_ROW = 200;

type Engine = 'duckdb' | 'chdb';

/** The fields the ruleset reads and their types, as the hand-written query declares them. */
const FIELDS: [name: string, duck: string, ch: string][] = [
  ['ip.src', 'VARCHAR', 'Nullable(String)'],
  ['ip.dst', 'VARCHAR', 'Nullable(String)'],
  ['ip.proto', 'VARCHAR', 'Nullable(String)'],
  ['ip.ttl', 'BIGINT', 'Nullable(Int64)'],
  ['tcp.srcport', 'BIGINT', 'Nullable(Int64)'],
  ['tcp.dstport', 'BIGINT', 'Nullable(Int64)'],
  ['udp.dstport', 'BIGINT', 'Nullable(Int64)'],
  ['tcp.flags.syn', 'BOOLEAN', 'Nullable(Bool)'],
  ['tcp.flags.ack', 'BOOLEAN', 'Nullable(Bool)'],
  ['icmp.type', 'BIGINT', 'Nullable(Int64)'],
];

/** One rule's test as an expert writes it, from the numbers the fixture gives (its `test`). */
function handTest(s: RuleSpec, e: Engine): string {
  const q = (f: string) => (e === 'duckdb' ? `"${f}"` : `\`${f}\``);
  const t = s.test;
  switch (t.kind) {
    case 'tcp-dstport':
      return `(${q('tcp.dstport')} IN (${t.ports.join(', ')})${t.lo <= t.hi ? ` OR ${q('tcp.dstport')} BETWEEN ${t.lo} AND ${t.hi}` : ''})`;
    case 'udp-dstport-ttl':
      return `(${q('udp.dstport')} = ${t.port} AND ${q('ip.ttl')} < ${t.ttlBelow})`;
    case 'dst4-syn':
      return `(dst4 BETWEEN ${t.lo} AND ${t.hi} AND ${q('tcp.flags.syn')} AND NOT ${q('tcp.flags.ack')})`;
    case 'icmp4-type':
      return `(${q('ip.proto')} = 'icmp' AND ${q('icmp.type')} = ${t.type})`;
    case 'src6-or-tcp-srcport':
      return `(${e === 'duckdb' ? 'starts_with' : 'startsWith'}(${q('ip.src')}, '2001:db8:${t.group.toString(16)}:') OR ${q('tcp.srcport')} = ${t.port})`;
    case 'dstport-range':
      return `(${q('tcp.dstport')} BETWEEN ${t.lo} AND ${t.hi} OR ${q('udp.dstport')} BETWEEN ${t.lo} AND ${t.hi})`;
    case 'src4-list':
      throw new Error('the list rule is left out of this bench');
  }
}

/** The hand-written query: per deciding rule (−1: none) its row count. */
function handSql(specs: readonly RuleSpec[], e: Engine, file: string, parquet: boolean): string {
  const when = specs.map((s, i) => [handTest(s, e), i] as const);
  if (e === 'duckdb') {
    const dst4 = `TRY_CAST(split_part("ip.dst", '.', 1) AS BIGINT) * 16777216 + TRY_CAST(split_part("ip.dst", '.', 2) AS BIGINT) * 65536 + TRY_CAST(split_part("ip.dst", '.', 3) AS BIGINT) * 256 + TRY_CAST(split_part("ip.dst", '.', 4) AS BIGINT)`;
    const from = parquet ? `read_parquet(${sqlString(file)})` : `read_json(${sqlString(file)}, format = 'newline_delimited', columns = {${FIELDS.map(([n, t]) => `'${n}': '${t}'`).join(', ')}})`;
    return `SELECT d, count(*) FROM (SELECT CASE ${when.map(([c, i]) => `WHEN ${c} THEN ${i}`).join(' ')} ELSE -1 END AS d FROM (SELECT *, ${dst4} AS dst4 FROM ${from})) GROUP BY d ORDER BY d`;
  }
  const dst4 = "if(isIPv4String(`ip.dst`), toUInt32(toIPv4OrNull(`ip.dst`)), NULL)";
  const from = parquet ? `file(${sqlString(file, 'clickhouse')}, 'Parquet')` : `file(${sqlString(file, 'clickhouse')}, 'JSONEachRow', ${sqlString(FIELDS.map(([n, , t]) => `\`${n}\` ${t}`).join(', '), 'clickhouse')})`;
  return `SELECT d, count() FROM (SELECT multiIf(${when.map(([c, i]) => `${c}, ${i}`).join(', ')}, -1) AS d FROM (SELECT *, ${dst4} AS dst4 FROM ${from})) GROUP BY d ORDER BY d`;
}

/** A whole Node process running one query, printing `d count` lines. */
function engineCommand(name: string, engine: Engine, sql: string): Command {
  const code = engine === 'duckdb'
    ? `import { DuckDBInstance } from '@duckdb/node-api'; const db = await DuckDBInstance.create(':memory:'); const c = await db.connect(); for (const r of (await c.runAndReadAll(process.env.Q)).getRows()) console.log(r.map(String).join(' '));`
    : `import { query } from 'chdb'; console.log(query(process.env.Q, 'TSV').trim().replace(/\\t/g, ' '));`;
  return { name, cmd: process.execPath, args: ['--input-type=module', '-e', code], env: { Q: sql }, peak: true };
}

/** `d count` lines of the deciding rules (−1 for none), from a hand query's output or rulekit's summary. */
function decidedOf(name: string, stdout: string): string {
  if (name.startsWith('rulekit')) {
    const s = (JSON.parse(stdout) as { summary: { packets: number; rules: { index: number; decided: number }[] } }).summary;
    const lines = s.rules.filter((r) => r.decided).map((r) => `${r.index} ${r.decided}`);
    const none = s.packets - s.rules.reduce((a, r) => a + r.decided, 0);
    return [...(none ? [`-1 ${none}`] : []), ...lines].join('\n');
  }
  return stdout.trim();
}

async function data(): Promise<{ dir: string; ndjson: string; parquet: string }> {
  const dir = join(tmpdir(), `rulekit-bench-simulate-sql-${ROWS}-v1`);
  const files = { dir, ndjson: join(dir, 'flows.ndjson'), parquet: join(dir, 'flows.parquet') };
  if (existsSync(join(dir, 'complete'))) return files;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const fs = statfsSync(dir);
  if (fs.bavail * fs.bsize < ROWS * BYTES_PER_ROW * 1.2) throw new Error(`${ROWS} flow rows need about ${((ROWS * BYTES_PER_ROW) / 1e9).toFixed(1)} GB in ${dir}`);
  await writeLines(files.ndjson, ROWS, flowRow);
  const cols = flowFields(undefined, {}).map((f: Parameters<typeof flowColumnFromJson>[0]) => flowColumnFromJson(f, 'json', 'duckdb')).join(', ');
  runProcess(engineCommand('to parquet', 'duckdb', `COPY (SELECT ${cols} FROM read_ndjson_objects(${sqlString(files.ndjson)})) TO ${sqlString(files.parquet)} (FORMAT parquet)`));
  writeFileSync(join(dir, 'complete'), `${ROWS}\n`);
  return files;
}

export async function run(): Promise<void> {
  console.log(`${ROWS} flow rows, ${RUNS} runs each; load: ${execSync('uptime').toString().trim()}${canMeasurePeak ? '' : '; no GNU time: no peak RSS'}`);
  const { dir, ndjson, parquet } = await data();
  const specs = ruleSpecs().filter((s) => s.test.kind !== 'src4-list');
  const rs = join(dir, 'ruleset.json');
  writeFileSync(rs, JSON.stringify(rulesetBody(specs)));
  const sim = (engine: 'duckdb' | 'clickhouse', file: string, cli = CLI): Command => ({ name: `rulekit simulate --engine ${engine}${cli === CLI ? '' : ' (before)'}`, cmd: process.execPath, args: [cli, 'simulate', rs, file, '--engine', engine, '--format', 'json', '--no-progress'], peak: true });
  const pairs = [
    { what: 'DuckDB, NDJSON', bytes: statSync(ndjson).size, hand: engineCommand('hand: DuckDB read_json', 'duckdb', handSql(specs, 'duckdb', ndjson, false)), rulekit: sim('duckdb', ndjson) },
    { what: 'DuckDB, Parquet', bytes: statSync(parquet).size, hand: engineCommand('hand: DuckDB read_parquet', 'duckdb', handSql(specs, 'duckdb', parquet, true)), rulekit: sim('duckdb', parquet) },
    { what: 'chdb, NDJSON', bytes: statSync(ndjson).size, hand: engineCommand('hand: chdb JSONEachRow', 'chdb', handSql(specs, 'chdb', ndjson, false)), rulekit: sim('clickhouse', ndjson) },
    { what: 'chdb, Parquet', bytes: statSync(parquet).size, hand: engineCommand('hand: chdb Parquet', 'chdb', handSql(specs, 'chdb', parquet, true)), rulekit: sim('clickhouse', parquet) },
  ].filter((p) => !flagValue('--only') || p.what.toLowerCase().includes(flagValue('--only')!.toLowerCase()))
    .map((p) => ({ ...p, before: BEFORE_CLI ? sim(p.rulekit.args[5] as 'duckdb' | 'clickhouse', p.rulekit.args[3]!, BEFORE_CLI) : undefined }));
  const commands = pairs.flatMap((p) => [p.hand, p.rulekit, ...(p.before ? [p.before] : [])]);
  const pairOf = (i: number) => pairs.find((p) => p.hand === commands[i] || p.rulekit === commands[i] || p.before === commands[i])!;
  let expected: string | undefined;
  const { stats } = runInterleaved(commands, {
    runs: RUNS,
    warmup: ROWS <= 1_000_000 ? 1 : 0,
    check: (i, r) => {
      const got = decidedOf(commands[i]!.name, r.stdout);
      expected ??= got;
      if (got !== expected) throw new Error(`${commands[i]!.name} (${pairOf(i).what}) decided\n${got}\nthe first query\n${expected}`);
    },
  });
  const at = (c: Command) => stats[commands.indexOf(c)]!;
  const cpu = (c: Command) => at(c).last.cpuS;
  const before = (p: (typeof pairs)[number]) => (p.before ? [at(p.before).q1 / 1000, ratio(at(p.before).q1, at(p.hand).q1)] : []);
  printTable(`rulekit simulate --engine beside a hand-written query: ${specs.length} rules, ${ROWS} flow rows, whole processes`, ['engine, file', 'hand s', 'rulekit s', 'rulekit / hand', ...(BEFORE_CLI ? ['before s', 'before / hand'] : []), `CPU s (hand, rulekit${BEFORE_CLI ? ', before' : ''})`, 'MB/s (rulekit)', 'peak RSS MB (hand, rulekit)'], pairs.map((p) => [
    p.what, at(p.hand).q1 / 1000, at(p.rulekit).q1 / 1000, ratio(at(p.rulekit).q1, at(p.hand).q1), ...before(p),
    [p.hand, p.rulekit, ...(p.before ? [p.before] : [])].map((c) => (cpu(c) === undefined ? '–' : fmt(cpu(c)!))).join(', '),
    fmt(p.bytes / 1e6 / (at(p.rulekit).q1 / 1000)),
    [p.hand, p.rulekit].map((c) => (at(c).last.peakMB === undefined ? '–' : fmt(at(c).last.peakMB!))).join(', '),
  ]), [
    ...(BEFORE_CLI ? [`before: rulekit simulate of ${BEFORE_CLI}, in the same rounds.`] : []),
    `Lower quartile of ${RUNS} runs, interleaved, each a whole Node process with its engine loaded; every run's count per deciding rule equal. Target rulekit / hand ≤ 1.3×.`,
    'rulekit does more than the hand query: the example packets per rule (read back by number: a second query), the invalid-value counts, the keys of the first 100k lines for misspelt fields.',
  ]);
}
