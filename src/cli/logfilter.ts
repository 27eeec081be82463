/**
 * `rulekit logfilter FILTER LINES`: a Logpush filter dry-run over log lines — reading the filter (a filter
 * document or a job body), reading the lines as they arrive (gzip told by its magic bytes), and the exit
 * code (0 every line read, 1 the filter or some lines have errors, 2 bad usage).
 * @module
 */
import { isUtf8 } from 'node:buffer';
import { once } from 'node:events';
import { renderDiagnostic, type Diagnostic } from '../index.js';
import { parseJsonText } from '../json/index.js';
import { decodeJsonString } from '../lint/index.js';
import { compileLogFilter, DATASET_NAMES, getDataset, logFilterToExpression, type FilterExplanation } from '../logpush/index.js';
import { LineScanner, lineScannerFor } from './line-scanner.js';
import { decideLine, reasonText } from '../ruletest/index.js';
import { inputLineBatches } from './input-lines.js';
import { JsonReport, TextReport, type LogfilterCounts } from './logfilter-report.js';
import { readInput, UsageError, useColor } from './io.js';

/** Options of `rulekit logfilter`. */
export interface LogfilterOptions {
  /** Colour the filter's diagnostics (default: when stderr is a terminal, unless NO_COLOR). */
  color?: boolean;
  dataset?: string;
  explain?: boolean;
  format?: 'text' | 'json' | 'ndjson';
}

/** Run `rulekit logfilter`; returns the exit code (1: the filter or some lines have errors). */
export async function logfilterCommand(
  filterPath: string,
  linesPath: string,
  options: LogfilterOptions,
  output: (s: string) => boolean | void,
  note: (s: string) => void = (s) => process.stderr.write(s),
  drained: () => Promise<unknown> = () => once(process.stdout, 'drain'),
): Promise<number> {
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
    // The pointer is the file's: inside a filter document its own, inside a job the "filter" string's.
    const color = useColor(options.color, process.stderr);
    for (const d of shown) note(renderDiagnostic(filterText, { ...d, pointer: text === filterText ? d.pointer : '/filter', range: toFile(d) }, shownFilter, { color }) + '\n');
    if (!compiled.filter || !compiled.matcher) {
      note(`rulekit: the filter has errors; no line was run through it\n`);
      return 1;
    }
  }
  const shownLines = linesPath === '-' ? 'standard input' : linesPath;
  const format = options.format ?? 'text';
  const filter = compiled?.filter;
  const matcher = compiled?.matcher;
  // The explanation of a line is far dearer than its verdict: it is built only where it is shown.
  const explain = options.explain === true;
  let gzip = false;
  // Output is written as lines are read: when it says it is full (a pipe read slower than the lines are),
  // reading waits for it to drain, or what is written would pile up in memory.
  let full = false;
  const write = (s: string) => {
    if (output(s) === false) full = true;
  };
  const pause = async () => {
    if (full) {
      full = false;
      await drained();
    }
  };
  const counts: LogfilterCounts = { lines: 0, kept: 0, dropped: 0, invalid: 0 };
  const expression = filter ? logFilterToExpression(filter) : null;
  // No format keeps a line's record to the end (see logfilter-report.ts): ndjson writes the kept lines,
  // text a row a line, json spools each line's entry for the document written at the end.
  const textReport = format === 'text' ? new TextReport(`filter (${dataset}): ${expression ?? 'none: every line is pushed'}`, write) : undefined;
  const jsonReport = format === 'json' ? new JsonReport(write) : undefined;
  const refuse = (line: number, message: string) => {
    counts.invalid++;
    jsonReport?.invalidLine(line, message);
    note(`${shownLines}:${line}:1: error[invalid-log-line]: ${message}\n`);
  };
  let out = '';
  const flush = (force: boolean) => {
    if (out.length >= 1 << 16 || (force && out)) {
      write(out);
      out = '';
    }
  };
  // Only the filter's keys are read from each line (see line-scanner.ts), all an explanation reads too; a
  // line the scanner is not sure of, and a line that is not UTF-8, is parsed whole.
  const scanner = filter ? lineScannerFor(filter) : new LineScanner([]);
  /** A line read as a log line: its verdict, and what the format keeps of it. */
  const decided = (line: number, record: Record<string, unknown>, bytes: Buffer, start: number, end: number, text: string | undefined) => {
    counts.lines++;
    if (!explain) {
      const kept = !matcher || matcher(record);
      if (kept) counts.kept++;
      if (format === 'ndjson') {
        if (kept) {
          out += (text ?? bytes.toString('utf8', start, end)) + '\n';
          flush(false);
        }
      } else if (jsonReport) jsonReport.verdict(line, kept);
      else {
        const t = text ?? bytes.toString('utf8', start, end);
        textReport!.row(line, kept, t.length > 100 ? t.slice(0, 99) + '…' : t, []);
      }
      return;
    }
    const d = decideLine(filter, matcher, record);
    if (d.kept) counts.kept++;
    if (format === 'ndjson') {
      if (d.kept) {
        out += (text ?? bytes.toString('utf8', start, end)) + '\n';
        flush(false);
      }
    } else if (jsonReport) jsonReport.line({ line, kept: d.kept, reason: reasonText(d), decidedBy: d.decidedBy, explanation: d.explanation });
    else textReport!.row(line, d.kept, reasonText(d), filter && d.explanation.children ? renderTree(d.explanation, '') : []);
  };
  /** A line the scanner did not read: blank, not UTF-8, or parsed whole. */
  const readLine = (bytes: Buffer, utf8: boolean, line: number, start: number, end: number) => {
    // Blank lines (spaces and tabs only) are not log lines.
    let blank = true;
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      if (b !== 32 && b !== 9 && b !== 13) {
        blank = false;
        break;
      }
    }
    if (blank) return;
    if (!utf8) {
      if (!isUtf8(bytes.subarray(start, end))) note(`${shownLines}:${line}:1: warning[invalid-utf8]: bytes that are not UTF-8, read as U+FFFD\n`);
      else if (scanner && scanner.scan(bytes, start, end)) return decided(line, scanner.record, bytes, start, end, undefined);
    }
    const t = bytes.toString('utf8', start, end);
    let obj: unknown;
    try {
      obj = JSON.parse(t);
    } catch (e) {
      refuse(line, `not valid JSON (${(e as Error).message})`);
      return;
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
      refuse(line, 'a log line is a JSON object');
      return;
    }
    decided(line, obj as Record<string, unknown>, bytes, start, end, t);
  };
  try {
    for await (const { firstLine, bytes } of inputLineBatches(linesPath, () => (gzip = true))) {
      // UTF-8 is checked once a chunk; only a chunk that is not is checked line by line, for the warnings.
      const utf8 = isUtf8(bytes);
      const n = bytes.length;
      let line = firstLine;
      let at = 0;
      while (at < n) {
        // The scanner finds the line's end itself; a line it cannot read is cut at its LF and read whole.
        let nl = utf8 && scanner ? scanner.scanLine(bytes, at, n) : -1;
        const scanned = nl >= 0;
        if (!scanned) {
          nl = bytes.indexOf(10, at);
          if (nl < 0) nl = n;
        }
        const end = nl > at && bytes[nl - 1] === 13 ? nl - 1 : nl;
        if (scanned) decided(line, scanner!.record, bytes, at, end, undefined);
        else readLine(bytes, utf8, line, at, end);
        line++;
        at = nl + 1;
      }
      await pause();
    }
    flush(true);
    counts.dropped = counts.lines - counts.kept;
    await jsonReport?.end({ dataset, filter: expression, gzip, counts }, pause);
    textReport?.end(counts);
  } finally {
    jsonReport?.dispose();
  }
  return counts.invalid ? 1 : 0;
}

function renderTree(e: FilterExplanation, indent: string): string[] {
  const mark = e.result ? '✓' : '✗';
  if (!e.children) return [`${indent}${mark} ${e.expression}  (line: ${e.value === undefined ? 'absent' : JSON.stringify(e.value)})`];
  return [`${indent}${mark} ${e.expression}`, ...e.children.flatMap((c) => renderTree(c, `${indent}  `))];
}
