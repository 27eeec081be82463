/**
 * `rulekit logfilter FILTER LINES`: a Logpush filter dry-run over log lines — reading the filter (a filter
 * document or a job body), reading the lines as they arrive (gzip told by its magic bytes), and the exit
 * code (0 every line read, 1 the filter or some lines have errors, 2 bad usage).
 * @module
 */
import { isUtf8 } from 'node:buffer';
import { renderDiagnostic, type Diagnostic } from '../index.js';
import { parseJsonText } from '../json/index.js';
import { decodeJsonString } from '../lint/index.js';
import { compileLogFilter, DATASET_NAMES, getDataset, logFilterToExpression, type FilterExplanation } from '../logpush/index.js';
import { LineScanner, lineScannerFor } from './line-scanner.js';
import { decideLine, reasonText } from '../ruletest/index.js';
import { inputLineBatches } from './input-lines.js';
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
  const counts = { lines: 0, kept: 0, dropped: 0, invalid: 0 };
  const invalid: { line: number; message: string }[] = [];
  const refuse = (line: number, message: string) => {
    counts.invalid++;
    if (format === 'json') invalid.push({ line, message });
    note(`${shownLines}:${line}:1: error[invalid-log-line]: ${message}\n`);
  };
  // What is kept until the end is what the format needs there: nothing for ndjson, a small record a line
  // for json, the report's lines for text (their width depends on the last line number).
  const jsonLines: object[] = [];
  const textRows: { line: number; kept: boolean; shown: string; tree: string[] }[] = [];
  let out = '';
  const flush = (force: boolean) => {
    if (out.length >= 1 << 16 || (force && out)) {
      write(out);
      out = '';
    }
  };
  // Without --explain only the filter's keys are read from each line (see line-scanner.ts); a line the
  // scanner is not sure of, and a line that is not UTF-8, is parsed whole as before.
  const scanner = explain ? undefined : filter ? lineScannerFor(filter) : new LineScanner([]);
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
      } else if (format === 'json') jsonLines.push({ line, kept });
      else {
        const t = text ?? bytes.toString('utf8', start, end);
        textRows.push({ line, kept, shown: t.length > 100 ? t.slice(0, 99) + '…' : t, tree: [] });
      }
      return;
    }
    const t = text ?? bytes.toString('utf8', start, end);
    const d = decideLine(filter, matcher, record);
    if (d.kept) counts.kept++;
    if (format === 'ndjson') {
      if (d.kept) {
        out += t + '\n';
        flush(false);
      }
    } else if (format === 'json') jsonLines.push({ line, kept: d.kept, reason: reasonText(d), decidedBy: d.decidedBy, explanation: d.explanation });
    else textRows.push({ line, kept: d.kept, shown: reasonText(d), tree: filter && d.explanation.children ? renderTree(d.explanation, '') : [] });
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
  }
  flush(true);
  counts.dropped = counts.lines - counts.kept;
  if (format === 'json') {
    write(
      JSON.stringify(
        { dataset, filter: filter ? logFilterToExpression(filter) : null, gzip, counts, lines: jsonLines, invalid },
        null,
        2,
      ) + '\n',
    );
  } else if (format === 'text') {
    const report: string[] = [`filter (${dataset}): ${filter ? logFilterToExpression(filter) : 'none: every line is pushed'}`];
    const width = String(textRows.at(-1)?.line ?? 1).length;
    const indent = ' '.repeat(width + 16);
    for (const r of textRows) {
      report.push(`line ${String(r.line).padStart(width)}  ${r.kept ? 'kept   ' : 'dropped'}  ${r.shown}`);
      for (const l of r.tree) report.push(indent + l);
    }
    report.push(`${counts.lines} line(s): ${counts.kept} kept (would be pushed), ${counts.dropped} dropped${counts.invalid ? `, ${counts.invalid} not a log line` : ''}`);
    write(report.join('\n') + '\n');
  }
  return counts.invalid ? 1 : 0;
}

function renderTree(e: FilterExplanation, indent: string): string[] {
  const mark = e.result ? '✓' : '✗';
  if (!e.children) return [`${indent}${mark} ${e.expression}  (line: ${e.value === undefined ? 'absent' : JSON.stringify(e.value)})`];
  return [`${indent}${mark} ${e.expression}`, ...e.children.flatMap((c) => renderTree(c, `${indent}  `))];
}
