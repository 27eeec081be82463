/**
 * `rulekit logfilter` as a whole process beside DuckDB's `read_json_auto` with the filter written by hand,
 * and beside a minimal Node loop (chunks split on LF, `JSON.parse` of each line, the filter as a
 * hand-written test): the same NDJSON file of http_requests lines (sql.ts's generator, ~365 B a line), the
 * same three-clause filter as sql.ts, counts equal or the bench throws. `--rows N` (default 1M), `--runs N`
 * (default 3), `--before-cli PATH` (another build's dist/bundle/cli.js, timed in the same rounds: before
 * and after from one run). Peak RSS of rulekit at N/5 and N lines shows whether memory grows with the input.
 */
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { printTable, ratio, fmt, flagValue } from './harness.js';
import { canMeasurePeak, runInterleaved, runProcess, type Command } from './processes.js';
import { logLine, writeLines } from './sql.js';

const ROWS = Number(flagValue('--rows') ?? 1_000_000);
const RUNS = Number(flagValue('--runs') ?? 3);
const BEFORE_CLI = flagValue('--before-cli');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/bundle/cli.js');
const FILTER = { where: { and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientCountry', operator: 'in', value: ['us', 'de'] }, { key: 'ClientRequestMethod', operator: 'eq', value: 'GET' }] } };
const HAND_WHERE = "EdgeResponseStatus >= 500 AND ClientCountry IN ('us', 'de') AND ClientRequestMethod = 'GET'";

/** The minimal loop: what any Node program reading NDJSON does, with the filter as a plain test. */
const JSON_PARSE_LOOP = `
const fs = require('node:fs');
let n = 0, pending = null;
const test = (r) => typeof r.EdgeResponseStatus === 'number' && r.EdgeResponseStatus >= 500 && (r.ClientCountry === 'us' || r.ClientCountry === 'de') && r.ClientRequestMethod === 'GET';
fs.createReadStream(process.env.F, { highWaterMark: 1 << 20 }).on('data', (chunk) => {
  const b = pending ? Buffer.concat([pending, chunk]) : chunk;
  let at = 0;
  for (let nl = b.indexOf(10, at); nl >= 0; nl = b.indexOf(10, at)) {
    if (nl > at && test(JSON.parse(b.toString('utf8', at, nl)))) n++;
    at = nl + 1;
  }
  pending = at < b.length ? b.subarray(at) : null;
}).on('end', () => console.log(n));`;

async function dataFile(rows: number): Promise<string> {
  const dir = join(tmpdir(), `rulekit-bench-logfilter-${rows}-v1`);
  const file = join(dir, 'lines.ndjson');
  if (existsSync(join(dir, 'complete'))) return file;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await writeLines(file, rows, logLine);
  writeFileSync(join(dir, 'complete'), `${rows}\n`);
  return file;
}

export async function run(): Promise<void> {
  console.log(`${ROWS} lines, ${RUNS} runs each; load: ${execSync('uptime').toString().trim()}${canMeasurePeak ? '' : '; no GNU time: no peak RSS'}`);
  const lines = await dataFile(ROWS);
  const small = await dataFile(Math.max(1000, Math.round(ROWS / 5)));
  const filter = join(tmpdir(), 'rulekit-bench-logfilter-filter.json');
  writeFileSync(filter, JSON.stringify(FILTER));
  const mb = statSync(lines).size / 1e6;
  const logfilter = (name: string, cli: string, file: string): Command => ({ name, cmd: process.execPath, args: [cli, 'logfilter', filter, file, '--format', 'ndjson'], peak: true });
  const duck = `import { DuckDBInstance } from '@duckdb/node-api'; const db = await DuckDBInstance.create(':memory:'); const c = await db.connect(); console.log(String((await c.runAndReadAll(process.env.Q)).getRows()[0][0]));`;
  const commands: Command[] = [
    { name: 'DuckDB read_json_auto (hand-written query)', cmd: process.execPath, args: ['--input-type=module', '-e', duck], env: { Q: `SELECT count(*) FROM read_json_auto('${lines.replaceAll("'", "''")}') WHERE ${HAND_WHERE}` }, peak: true },
    { name: 'Node: JSON.parse per line, hand-written test', cmd: process.execPath, args: ['-e', JSON_PARSE_LOOP], env: { F: lines }, peak: true },
    logfilter('rulekit logfilter (this build)', CLI, lines),
    ...(BEFORE_CLI ? [logfilter('rulekit logfilter (before)', BEFORE_CLI, lines)] : []),
  ];
  let expected: number | undefined;
  const count = (c: Command, out: string) => (c.name.startsWith('rulekit') ? (out.trim() === '' ? 0 : out.trim().split('\n').length) : Number(out.trim().split('\n').pop()));
  const { stats, runs } = runInterleaved(commands, {
    runs: RUNS,
    warmup: 1,
    check: (i, r) => {
      const n = count(commands[i]!, r.stdout);
      expected ??= n;
      if (n !== expected) throw new Error(`${commands[i]!.name} counted ${n}, the first command ${expected}`);
    },
  });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const cpu = runs.map((rs) => (rs.every((r) => r.cpuS !== undefined) ? median(rs.map((r) => r.cpuS!)) : NaN));
  const [duckMs, parseMs] = [stats[0]!.median, stats[1]!.median];
  const [duckCpu, parseCpu] = [cpu[0]!, cpu[1]!];
  printTable(`rulekit logfilter beside DuckDB and a JSON.parse loop, ${ROWS} lines (${mb.toFixed(0)} MB NDJSON, ${expected} match), whole processes`, ['command', 's (median)', 's (min)', 'MB/s', '× DuckDB', '× JSON.parse loop', 'CPU s (median)', 'CPU × DuckDB', 'CPU × JSON.parse loop', 'peak RSS MB'], commands.map((c, i) => {
    const s = stats[i]!;
    return [c.name, s.median / 1000, s.min / 1000, fmt(mb / (s.median / 1000)), ratio(s.median, duckMs), ratio(s.median, parseMs), cpu[i]!, ratio(cpu[i]!, duckCpu), ratio(cpu[i]!, parseCpu), s.last.peakMB === undefined ? '–' : fmt(s.last.peakMB)];
  }), [
    `Median of ${RUNS} runs after one warm-up, interleaved (each round runs every command once, rotated); start-up included. CPU: user + system seconds (GNU time), DuckDB's over its threads.`,
    'Target: rulekit logfilter ≤ 2.5× DuckDB read_json_auto. On a loaded machine DuckDB\'s threads find no idle core, so wall-clock ratios flatter rulekit; the CPU ratios do not.',
  ]);
  // Memory: the same command on a fifth of the lines.
  const peaks = [small, lines].map((f) => runProcess(logfilter('rulekit logfilter', CLI, f), { peak: true }).peakMB);
  printTable('rulekit logfilter peak RSS against the input size', ['lines', 'peak RSS MB'], [
    [Math.max(1000, Math.round(ROWS / 5)), peaks[0] === undefined ? '–' : fmt(peaks[0])],
    [ROWS, peaks[1] === undefined ? '–' : fmt(peaks[1])],
  ], ['Flat memory: the two figures about equal (--format ndjson; text and json keep a record a line for the report).']);
}
