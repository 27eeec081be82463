/**
 * `rulekit test [files]` and `rulekit logfilter FILTER LINES`: the command lines around src/ruletest —
 * finding and loading test files, the exit code (0 all pass, 1 a case failed or the filter has errors,
 * 2 bad usage or a test file that cannot run), and reading log lines (gzip told by its magic bytes).
 * @module
 */
import { gunzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { SourceText, renderDiagnostic, type Diagnostic } from '../index.js';
import { parseJsonText } from '../json/index.js';
import { decodeJsonString } from '../lint/index.js';
import { compileLogFilter, DATASET_NAMES, getDataset, logFilterToExpression, type FilterExplanation } from '../logpush/index.js';
import {
  decideLine, findTestFiles, formatProblems, formatResults, loadSuite, reasonText, runSuite,
  type SuiteResult, type TestFormat, type TestProblem,
} from '../ruletest/index.js';
import { checkRegularFile, decodeUtf8, readInput, UsageError } from './io.js';

/** Options of `rulekit test`. */
export interface TestCommandOptions {
  format?: TestFormat;
  verbose?: boolean;
  color?: boolean;
  /** Leave durations out of JSON and JUnit reports (golden files). */
  times?: boolean;
}

/** Run `rulekit test`; returns the exit code. */
export async function testCommand(args: string[], options: TestCommandOptions, write: (s: string) => void, note: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let files: string[];
  try {
    files = findTestFiles(args);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new UsageError(`${err.path ?? args.join(' ')}: no such file or directory`);
    throw e;
  }
  if (!files.length) throw new UsageError(`no test files (*.ruletest.yaml, *.ruletest.yml, *.ruletest.json) under ${args.length ? args.join(', ') : 'the working directory'}`);
  const format = options.format ?? 'text';
  const problems: TestProblem[] = [];
  const suites = [];
  for (const f of files) {
    const loaded = await loadSuite(f);
    problems.push(...loaded.problems);
    if (loaded.suite) suites.push(loaded.suite);
  }
  if (problems.length) {
    if (format === 'github') write(formatProblems(problems, 'github'));
    else if (format === 'json') {
      write(JSON.stringify({ ok: false, problems: problems.map((p) => ({ file: p.file, ...(p.text !== undefined && p.range ? position(p.text, p.range.start) : {}), code: p.code, message: p.message })) }, null, 2) + '\n');
    }
    note(formatProblems(problems, 'text'));
    note(`rulekit: ${problems.length} problem(s) in the test files; no test was run\n`);
    return 2;
  }
  const results: SuiteResult[] = [];
  for (const s of suites) results.push(await runSuite(s));
  const color = format === 'text' && (options.color ?? (process.stdout.isTTY === true && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb'));
  write(formatResults(format, results, { verbose: options.verbose, color, noTimes: options.times === false }));
  return results.some((s) => s.cases.some((c) => !c.ok)) ? 1 : 0;
}

function position(text: string, offset: number): { line: number; column: number } {
  const p = new SourceText(text).position(offset);
  return { line: p.line, column: p.column + 1 };
}

/** Options of `rulekit logfilter`. */
export interface LogfilterOptions {
  dataset?: string;
  explain?: boolean;
  format?: 'text' | 'json' | 'ndjson';
}

/** Read a whole input as bytes, gunzipped when it starts with gzip's magic bytes. */
async function readMaybeGzip(path: string): Promise<{ text: string; gzip: boolean }> {
  let bytes: Buffer;
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    bytes = Buffer.concat(chunks);
  } else {
    checkRegularFile(path);
    bytes = await readFile(path);
  }
  const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (gzip) {
    try {
      bytes = gunzipSync(bytes);
    } catch (e) {
      throw new UsageError(`${path === '-' ? 'standard input' : path}: starts as gzip but cannot be decompressed (${(e as Error).message})`);
    }
  }
  return { text: decodeUtf8(bytes).text, gzip };
}

/** Run `rulekit logfilter`; returns the exit code (1: the filter or some lines have errors). */
export async function logfilterCommand(filterPath: string, linesPath: string, options: LogfilterOptions, write: (s: string) => void, note: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  if (filterPath === '-' && linesPath === '-') throw new UsageError('the filter and the lines cannot both be standard input');
  if (options.dataset !== undefined && !getDataset(options.dataset)) throw new UsageError(`unknown dataset ${JSON.stringify(options.dataset)}; the datasets are ${DATASET_NAMES.join(', ')}`);
  const filterText = (await readInput(filterPath)).text;
  const shownFilter = filterPath === '-' ? 'standard input' : filterPath;
  const { doc, errors } = parseJsonText(filterText, 64);
  if (!doc) throw new UsageError(renderDiagnostic(filterText, { code: 'invalid-filter-file', severity: 'error', message: `not valid JSON: ${errors[0]?.message}`, range: errors[0]?.range }, shownFilter));
  const v = doc.value as Record<string, unknown> | null;
  // A filter document, or a job body whose "filter" is the filter's JSON text.
  let text: string | undefined;
  let toFile: (d: Diagnostic) => Diagnostic['range'];
  let dataset = options.dataset;
  if (v && typeof v === 'object' && !Array.isArray(v) && 'where' in v) {
    text = filterText;
    toFile = (d) => d.range;
  } else if (v && typeof v === 'object' && !Array.isArray(v) && ('filter' in v || 'dataset' in v || 'destination_conf' in v)) {
    if (typeof v['dataset'] === 'string') dataset ??= v['dataset'];
    const f = v['filter'];
    if (typeof f === 'string' && f.trim() !== '') {
      text = f;
      const range = doc.valueRange('/filter')!;
      const map = decodeJsonString(filterText, range);
      toFile = (d) => (d.range && map ? map.toSource(d.range) : range);
    } else if (f !== undefined && f !== null && f !== '') {
      throw new UsageError(renderDiagnostic(filterText, { code: 'invalid-filter-file', severity: 'error', message: 'the job\'s "filter" is the filter\'s JSON text, a string', range: doc.valueRange('/filter') }, shownFilter));
    } else toFile = () => undefined;
  } else {
    throw new UsageError(`${shownFilter}: give a filter document ({"where": {...}}) or a Logpush job body ({"dataset": …, "filter": "…"})`);
  }
  dataset ??= 'http_requests';
  if (!getDataset(dataset)) throw new UsageError(`${shownFilter}: unknown dataset ${JSON.stringify(dataset)}; the datasets are ${DATASET_NAMES.join(', ')}`);

  let compiled: ReturnType<typeof compileLogFilter> | undefined;
  if (text !== undefined) {
    compiled = compileLogFilter(text, { dataset });
    const shown = compiled.diagnostics.filter((d) => d.severity !== 'hint');
    for (const d of shown) note(renderDiagnostic(filterText, { ...d, pointer: undefined, range: toFile(d) }, shownFilter) + '\n');
    if (!compiled.filter || !compiled.matcher) {
      note(`rulekit: the filter has errors; no line was run through it\n`);
      return 1;
    }
  }
  const { text: linesText, gzip } = await readMaybeGzip(linesPath);
  const shownLines = linesPath === '-' ? 'standard input' : linesPath;
  const rows: { line: number; text: string; kept: boolean; reason: string; decidedBy: FilterExplanation[]; explanation: FilterExplanation }[] = [];
  const bad: { line: number; message: string }[] = [];
  const lines = linesText.split('\n');
  lines.forEach((raw, i) => {
    const t = raw.replace(/\r$/, '');
    if (t.trim() === '') return;
    let obj: unknown;
    try {
      obj = JSON.parse(t);
    } catch (e) {
      return void bad.push({ line: i + 1, message: `not valid JSON (${(e as Error).message})` });
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return void bad.push({ line: i + 1, message: 'a log line is a JSON object' });
    const d = decideLine(compiled?.filter, compiled?.matcher, obj as Record<string, unknown>);
    rows.push({ line: i + 1, text: t, kept: d.kept, reason: reasonText(d), decidedBy: d.decidedBy, explanation: d.explanation });
  });
  for (const b of bad) note(`${shownLines}:${b.line}: error[invalid-log-line]: ${b.message}\n`);
  const kept = rows.filter((r) => r.kept).length;
  const counts = { lines: rows.length, kept, dropped: rows.length - kept, invalid: bad.length };
  const format = options.format ?? 'text';
  if (format === 'ndjson') {
    for (const r of rows) if (r.kept) write(r.text + '\n');
  } else if (format === 'json') {
    write(
      JSON.stringify(
        {
          dataset,
          filter: compiled?.filter ? logFilterToExpression(compiled.filter) : null,
          gzip,
          counts,
          lines: rows.map((r) => ({ line: r.line, kept: r.kept, ...(options.explain ? { reason: r.reason, decidedBy: r.decidedBy, explanation: r.explanation } : {}) })),
          invalid: bad,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    const out: string[] = [`filter (${dataset}): ${compiled?.filter ? logFilterToExpression(compiled.filter) : 'none: every line is pushed'}`];
    const width = String(rows.at(-1)?.line ?? 1).length;
    for (const r of rows) {
      out.push(`line ${String(r.line).padStart(width)}  ${r.kept ? 'kept   ' : 'dropped'}${options.explain ? `  ${r.reason}` : `  ${r.text.length > 100 ? r.text.slice(0, 99) + '…' : r.text}`}`);
      if (options.explain && compiled?.filter && r.explanation.children) out.push(...renderTree(r.explanation, ' '.repeat(width + 16)));
    }
    out.push(`${counts.lines} line(s): ${counts.kept} kept (would be pushed), ${counts.dropped} dropped${counts.invalid ? `, ${counts.invalid} not a log line` : ''}`);
    write(out.join('\n') + '\n');
  }
  return bad.length ? 1 : 0;
}

function renderTree(e: FilterExplanation, indent: string): string[] {
  const mark = e.result ? '✓' : '✗';
  if (!e.children) return [`${indent}${mark} ${e.expression}  (line: ${e.value === undefined ? 'absent' : JSON.stringify(e.value)})`];
  return [`${indent}${mark} ${e.expression}`, ...e.children.flatMap((c) => renderTree(c, `${indent}  `))];
}
