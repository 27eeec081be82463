/**
 * `rulekit simulate RULESET.json (CAPTURE.pcap|CAPTURE.pcapng|PACKETS.ndjson|ROWS.parquet|-)` (an HTTP
 * phase: requests as HAR, NDJSON or Logpush lines; any of them gzip-compressed): the arguments mapped to
 * a simulation (src/simulation/) and its report rendered: a progress bar on stderr when it is a terminal,
 * the summary table (or JSON, or one NDJSON line per packet) on stdout, diagnostics on stderr.
 * @module
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { captureFormatOf } from '../capture/index.js';
import { isHttpRuleset, renderDiagnostic, SourceText, type Diagnostic, type SimulationSummary } from '../index.js';
import { runSimulation, simulateOnEngine, simulation, type SimulateInputOptions, type SimulationReport, type SimulationSource } from '../simulation/index.js';
import { checkRegularFile, readText, UsageError, useColor } from './io.js';
import { loadLists } from './lists.js';

/** Options of the simulate command. */
export interface SimulateOptions {
  /** Colour the ruleset's diagnostics (default: when stderr is a terminal, unless NO_COLOR). */
  color?: boolean;
  lists?: string;
  geoip?: string;
  colo?: string;
  serviceToken?: string;
  format?: 'text' | 'json' | 'ndjson';
  examples?: string;
  progress?: boolean;
  /** Print packets/s and peak memory to stderr at the end. */
  stats?: boolean;
  /** Worker threads for a classic pcap (default: by size and cores, see `defaultThreads`); also RULEKIT_THREADS. */
  threads?: number;
  /** Bytes per chunk handed to a worker (default 1 MiB; tests use small ones). */
  chunkBytes?: number;
  /** With `format: 'ndjson'`: diagnostics also as `{"diagnostic": …}` lines on stdout. */
  ndjsonDiagnostics?: boolean;
  /** `objects`: decide on packet objects even where numeric slots would do (tests compare the two). */
  decoder?: 'auto' | 'objects';
  /** Run the ruleset as SQL on this engine over flow files (NDJSON or Parquet) instead of in this process. */
  engine?: 'duckdb' | 'clickhouse';
  /** With `engine: 'clickhouse'`: a ClickHouse server's HTTP URL; the input is then a table name. */
  clickhouseUrl?: string;
}

/**
 * Seconds on a monotonic clock, for `--stats`. Not `performance.now()`: Node's global `performance` loads
 * perf_hooks and its eleven internal modules on first use, in every run of the command.
 */
function clock(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

/** Run the command. Returns the exit code: 0 fine, 1 the ruleset or the input has errors. */
export async function simulateCommand(rulesetPath: string, inputPath: string, options: SimulateOptions, out: (s: string) => void): Promise<number> {
  const started = clock();
  if (rulesetPath === '-' && inputPath === '-') throw new UsageError('the ruleset and the input cannot both be standard input');
  const rulesetText = await readText(rulesetPath);
  if (options.engine) return engineCommand(rulesetText, rulesetPath, inputPath, options, out);
  // Files are checked before anything runs: a directory, a FIFO or a missing file is one line, exit 2.
  if (inputPath !== '-') checkRegularFile(inputPath);
  if (options.geoip) checkRegularFile(options.geoip);
  const lists = await loadLists(options.lists);
  const examples = options.examples ?? '3';
  if (!/^\d+$/.test(examples)) throw new UsageError(`--examples takes a whole number 0 or more, not ${JSON.stringify(examples)}`);
  const env = process.env['RULEKIT_THREADS'];
  const threads = options.threads ?? (env !== undefined && /^\d+$/.test(env) ? Number(env) : undefined);
  const stdin = inputPath === '-';
  const size = stdin ? undefined : fileSize(inputPath);
  const ndjson = options.format === 'ndjson';

  // A bar with a total for files over 4 MB; for standard input (size unknown) a running count instead.
  const showBar = options.progress !== false && process.stderr.isTTY && (stdin || (size ?? 0) > 4 << 20);
  // cli-progress is loaded only when a bar is shown: `rulekit check` and piped runs never pay for it.
  const progressBars = showBar ? (await import('cli-progress')).default : undefined;
  const bar = progressBars
    ? new progressBars.SingleBar({ format: stdin ? 'simulate | {value} MB read | {packets} packets' : 'simulate [{bar}] {percentage}% | {value}/{total} MB | {packets} packets', stream: process.stderr }, progressBars.Presets.shades_classic)
    : undefined;
  bar?.start(stdin ? 0 : Math.ceil((size ?? 0) / 1048576), 0, { packets: 0 });

  const simOptions: SimulateInputOptions = {
    lists,
    serviceToken: options.serviceToken,
    geoip: options.geoip,
    colo: options.colo ? { name: options.colo } : undefined,
    examplesPerRule: Number(examples),
    threads,
    chunkBytes: options.chunkBytes,
    decoder: options.decoder,
    progress: bar ? (p) => bar.update(Math.floor(p.bytes / 1048576), { packets: p.packets }) : undefined,
    inputName: stdin ? 'standard input' : inputPath,
  };
  const source: SimulationSource = stdin ? (process.stdin as AsyncIterable<Uint8Array>) : inputPath;
  let report: SimulationReport;
  try {
    if (ndjson) {
      const it = simulation(rulesetText, source, simOptions, true);
      for (;;) {
        const next = await it.next();
        if (next.done) {
          report = next.value;
          break;
        }
        const v = next.value;
        out(JSON.stringify({ index: v.index, verdict: v.verdict, decidedBy: v.decidedBy ?? null, matched: v.matched }) + '\n');
      }
    } else report = await runSimulation(rulesetText, source, simOptions);
    if (bar && !stdin) bar.update(Math.ceil((size ?? 0) / 1048576), { packets: report.summary.packets });
  } finally {
    bar?.stop();
  }

  const rulesetSource = new SourceText(rulesetText);
  if (!report.ok && report.input === 'none') {
    // Nothing was simulated: the ruleset (or the country/ASN table) has errors.
    const shown = report.diagnostics.filter((d) => d.code !== 'simulation-invalid-ruleset');
    for (const d of shown) {
      process.stderr.write((d.code.startsWith('simulation-') ? diagnosticLine(d) : renderRulesetDiagnostic(rulesetSource, d, rulesetPath, useColor(options.color, process.stderr))) + '\n');
    }
    const errors = shown.filter((d) => d.severity === 'error').length;
    const culprit = shown.some((d) => d.severity === 'error' && !d.code.startsWith('simulation-')) ? rulesetPath : options.geoip ?? 'simulate';
    process.stderr.write(`${culprit}: ${errors} error(s); fix them to simulate\n`);
    return 1;
  }

  // An HTTP phase's input is requests whatever its form (HAR, NDJSON, Logpush lines, Parquet rows).
  const requests = report.input !== 'pcap' && report.input !== 'pcapng' && isHttpText(rulesetText);
  const unit = requests ? 'requests' : 'packets';
  if (options.stats) {
    const seconds = clock() - started;
    const n = report.summary.packets;
    process.stderr.write(`stats: ${n} ${unit} in ${seconds.toFixed(2)} s = ${Math.round(n / seconds)} ${unit}/s; ${report.input}${inputGzip(inputPath) ? ' (gzip)' : ''}, ${report.decoder}, ${report.threads} worker thread(s); peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB\n`);
  }
  const summary = report.summary;
  if (options.format === 'json') out(JSON.stringify({ summary, diagnostics: report.diagnostics }, mapsAsObjects, 2) + '\n');
  else if (ndjson) {
    out(JSON.stringify({ summary: { packets: summary.packets, verdicts: summary.verdicts, defaultAllowed: summary.defaultAllowed, rules: summary.rules.map(({ examples: _e, ...r }) => r) } }) + '\n');
    // Per-packet lines own stdout: diagnostics go to stderr (and, when asked, to stdout as lines of their own).
    const shown = report.diagnostics.filter((x) => x.severity !== 'hint');
    for (const d of shown.slice(0, 100)) process.stderr.write(diagnosticLine(d, inputPath === '-' ? 'standard input' : inputPath) + '\n');
    if (shown.length > 100) process.stderr.write(`... and ${shown.length - 100} more diagnostics (--ndjson-diagnostics or --format json list them all)\n`);
    if (options.ndjsonDiagnostics) for (const d of report.diagnostics) out(JSON.stringify({ diagnostic: d }) + '\n');
  } else out(renderSummary(summary, report.diagnostics, unit, report.input === 'parquet' ? 'row' : undefined));
  return report.ok ? 0 : 1;
}

/** `--engine`: the summary from DuckDB or chdb over flow files, rendered as the in-process one is. */
async function engineCommand(rulesetText: string, rulesetPath: string, inputPath: string, options: SimulateOptions, out: (s: string) => void): Promise<number> {
  if (inputPath === '-') throw new UsageError('--engine reads flow files (NDJSON or Parquet; globs allowed) or a ClickHouse table, not standard input');
  if (options.clickhouseUrl !== undefined && options.engine !== 'clickhouse') throw new UsageError('--clickhouse-url goes with --engine clickhouse');
  // What an engine does not do, refused rather than run differently from the in-process simulator.
  if (options.geoip) throw new UsageError('--engine takes the flows as they are: --geoip (a country/ASN table filling the packets that lack those fields) is applied in this process only; add the countries and ASNs to the flow table, or simulate without --engine');
  if (options.colo) throw new UsageError('--engine takes the flows as they are: --colo names the data center of a capture\'s packets, which flow rows carry themselves as cf.colo.name');
  if (options.format === 'ndjson') throw new UsageError('--engine gives the summary (text or json), not one line per packet');
  // With a server the input is a table's name, not a file here.
  if (options.clickhouseUrl === undefined && !/[*?[]/.test(inputPath)) {
    checkRegularFile(inputPath);
    captureRefusal(inputPath, captureFormatOf(readHead(inputPath)));
  } else if (options.clickhouseUrl === undefined) captureRefusal(inputPath, /\.(?:pcapng|pcap|cap)$/i.test(inputPath) ? 'pcap' : undefined);
  if (isHttpText(rulesetText) && /\.har$/i.test(inputPath)) throw new UsageError(`${inputPath}: a HAR file, but --engine reads Logpush http_requests lines (NDJSON or Parquet) for HTTP phases; simulate it in this process (leave out --engine)`);
  const lists = await loadLists(options.lists);
  const started = clock();
  let report;
  try {
    report = await simulateOnEngine(rulesetText, [inputPath], { engine: options.engine!, lists, serviceToken: options.serviceToken, examplesPerRule: Number(options.examples ?? '3'), clickhouseUrl: options.clickhouseUrl });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // Request objects are an input an engine does not read (a usage matter, as a capture is).
  const notLines = report.diagnostics.find((d) => d.code === 'sql-not-logpush-lines');
  if (notLines) throw new UsageError(`${inputPath}: ${notLines.message}`);
  if (!report.ok) {
    const src = new SourceText(rulesetText);
    for (const d of report.diagnostics) process.stderr.write((d.code.startsWith('simulation-') ? diagnosticLine(d) : renderRulesetDiagnostic(src, d, rulesetPath, useColor(options.color, process.stderr))) + '\n');
    return 1;
  }
  if (options.stats) {
    const seconds = clock() - started;
    process.stderr.write(`stats: ${report.summary.packets} packets in ${seconds.toFixed(2)} s = ${Math.round(report.summary.packets / seconds)} packets/s on ${options.engine}; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB\n`);
  }
  if (options.format === 'json') out(JSON.stringify({ summary: report.summary, diagnostics: report.diagnostics }, null, 2) + '\n');
  // HTTP requests from Parquet rows are named by row, as in process.
  else out(renderSummary(report.summary, report.diagnostics, isHttpText(rulesetText) ? 'requests' : 'packets', isHttpText(rulesetText) && /\.parquet$/i.test(inputPath) ? 'row' : undefined));
  return 0;
}

/** The engines read flow rows: a capture given to them would be read as no rows at all ("packets 0"), so it is refused. */
function captureRefusal(path: string, format: 'pcap' | 'pcapng' | undefined): void {
  if (!format) return;
  throw new UsageError(`${path} is a ${format} capture, but --engine reads flow rows (NDJSON or Parquet, one packet object per row); simulate the capture in this process (leave out --engine)`);
}

/** Whether a file (not standard input) starts with gzip's magic bytes. */
function inputGzip(path: string): boolean {
  if (path === '-') return false;
  const head = readHead(path);
  return head[0] === 0x1f && head[1] === 0x8b;
}

/** The first bytes of a file (enough for a capture's magic number). */
function readHead(path: string): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const head = new Uint8Array(8);
    const n = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined; // opening it reports the problem
  }
}

/** A ruleset diagnostic against the ruleset's text (an expression's range re-based into the file). */
function renderRulesetDiagnostic(src: SourceText, d: Diagnostic, path: string, color = useColor(undefined, process.stderr)): string {
  return renderDiagnostic(src, d.rangeIn === 'value' ? { ...d, range: d.data?.['documentRange'] as Diagnostic['range'] } : d, path, { color });
}

/** One diagnostic on one line: severity, code, where, message. */
function diagnosticLine(d: Diagnostic, path?: string): string {
  // An input line's diagnostic, beside its file: path:line:col as every command prints it.
  const line = typeof d.data?.['line'] === 'number' ? d.data['line'] : /^line (\d+): /.exec(d.message)?.[1];
  if (path !== undefined && line !== undefined && !d.pointer) return `${path}:${line}:1: ${d.severity}[${d.code}]: ${d.message.replace(/^line \d+: /, '')}`;
  // Capture messages that name their byte offset already ("At byte N: …") are not given it twice.
  const offset = d.data && 'offset' in d.data && !/^At byte \d+/.test(d.message) ? ` at byte ${d.data['offset']}` : '';
  const where = d.pointer ? ` ${d.pointer}` : offset || (d.data && 'line' in d.data && !d.message.startsWith('line ') ? ` line ${d.data['line']}` : '');
  return `${d.severity}[${d.code}]${where}: ${d.message}`;
}

/** Whether a ruleset text is of an HTTP phase (its input is requests). */
function isHttpText(text: string): boolean {
  try {
    return isHttpRuleset(JSON.parse(text));
  } catch {
    return false;
  }
}

/** A JSON.stringify replacer writing the Map fields of request records as objects. */
function mapsAsObjects(_key: string, value: unknown): unknown {
  return value instanceof Map ? Object.fromEntries(value) : value;
}

/**
 * The text summary: one row per rule, then the verdict totals and the input's diagnostics. Examples are
 * frame numbers of a capture (or packets of NDJSON), requests, or rows of Parquet (`examplesAre: 'row'`).
 */
export function renderSummary(summary: SimulationSummary, diagnostics: Diagnostic[], unit: 'packets' | 'requests' = 'packets', examplesAre?: 'row'): string {
  const rows = [['#', 'action', 'rule', 'matched', 'decided', examplesAre === 'row' ? 'examples (rows, 1-based)' : unit === 'packets' ? 'examples (frame numbers, 1-based)' : 'examples (requests, 1-based)']];
  for (const r of summary.rules) {
    const name = (r.description ?? r.ref ?? r.expression).slice(0, 48) + (r.enabled ? '' : ' (disabled)');
    rows.push([String(r.index), r.action, name, String(r.matched), String(r.decided), r.examples.map((e) => e.index + 1).join(' ')]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((c, i) => (i >= 3 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd());
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  const pct = (n: number) => (summary.packets ? ` (${((100 * n) / summary.packets).toFixed(1)}%)` : '');
  lines.push('');
  // Verdicts other than allow and block (HTTP phases: challenges, redirects…) by their action's name.
  const others = Object.entries(summary.verdicts).filter(([k, n]) => k !== 'allow' && k !== 'block' && n).map(([k, n]) => `, ${k} ${n}${pct(n!)}`).join('');
  lines.push(`${unit} ${summary.packets}: allowed ${summary.verdicts.allow}${pct(summary.verdicts.allow)}, blocked ${summary.verdicts.block}${pct(summary.verdicts.block)}${others}, allowed by default ${summary.defaultAllowed}`);
  const shown = diagnostics.filter((d) => d.severity !== 'hint');
  for (const d of shown.slice(0, 20)) lines.push(diagnosticLine(d));
  if (shown.length > 20) lines.push(`... and ${shown.length - 20} more diagnostics (use --format json)`);
  return lines.join('\n') + '\n';
}

export { UsageError };
