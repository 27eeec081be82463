/**
 * `rulekit diff OLD NEW` on Logpush filters: each side a filter document (`{"where": …}`) or a job body
 * (JSON or YAML; its `filter` string and `dataset`), the log lines newly pushed and newly dropped as
 * regions with witnesses (src/diff), counted over log lines with `--against` (NDJSON, gzip told by its
 * magic bytes) in process. `--fail-on any|newly-pushed|newly-dropped|none` turns changes into exit 1.
 * @module
 */
import { isUtf8 } from 'node:buffer';
import { parse as parseYaml } from 'yaml';
import { SourceText } from '../diagnostics/index.js';
import {
  failsLogFilterGate, formatLogFilterDiffMarkdown, formatLogFilterDiffText, diffLogFilters, LogFilterDiffCounter, logFilterDiffSummary, LOG_FILTER_GATES,
  type LogFilterDiffReport, type LogFilterGate,
} from '../diff/index.js';
import { DATASET_NAMES, getDataset } from '../logpush/index.js';
import { countLogFilterDiffOnEngine, readParquetObjects, type SqlEngineName } from '../simulation/index.js';
import { inputLines } from './input-lines.js';
import { terraformFilterSide } from './diff-terraform-filter.js';
import { checkRegularFile, UsageError } from './io.js';

/** One side of a filter diff: the filter's JSON text (`''`: a job without one pushes every line), the dataset it names, and the line of the filter in its file. */
export interface FilterSide {
  filter: string;
  dataset?: string;
  line: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The filter side a file holds, or undefined when it is not one (a ruleset): a filter document has
 * `where`; a job body has `filter`, `dataset` or `destination_conf` and no `rules`; a Terraform file
 * has a `cloudflare_logpush_job` (./diff-terraform-filter.ts).
 */
export function readFilterSide(text: string, path: string, shown: string, resource?: string): FilterSide | undefined {
  if (/\.tf$/i.test(path)) return terraformFilterSide(text, shown, resource);
  if (/\.rules$/i.test(path)) return undefined;
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch {
    try {
      value = parseYaml(text);
    } catch {
      return undefined;
    }
  }
  if (!isObject(value)) return undefined;
  if ('where' in value) return { filter: /^\s*\{/.test(text) && !/\.ya?ml$/i.test(path) ? text : JSON.stringify(value), line: 1 };
  if ('rules' in value || !('filter' in value || 'dataset' in value || 'destination_conf' in value)) return undefined;
  const f = value['filter'];
  if (f !== undefined && f !== null && typeof f !== 'string') throw new UsageError(`${shown}: the job's "filter" is the filter's JSON text, a string`);
  const at = text.search(/["']?filter["']?\s*:/);
  const side: FilterSide = { filter: typeof f === 'string' ? f : '', line: at < 0 ? 1 : new SourceText(text).position(at).line };
  if (value['dataset'] !== undefined) {
    if (typeof value['dataset'] !== 'string') throw new UsageError(`${shown}: the job's "dataset" is a dataset's name, a string`);
    side.dataset = value['dataset'];
  }
  return side;
}

/** Options of a filter diff (those of `rulekit diff` that apply). */
export interface FilterDiffOptions {
  dataset?: string;
  against?: string;
  format?: 'text' | 'json' | 'markdown' | 'github';
  failOn?: string;
  examples?: number;
  /** Count `--against` on a SQL engine (log lines as NDJSON, gzip or not, or Parquet; globs allowed). */
  engine?: SqlEngineName;
}
/** The engines `--engine` takes. */
const ENGINES: readonly SqlEngineName[] = ['duckdb', 'clickhouse'];

/** `--against` is a file (a glob with `--engine`), and `--engine` a known engine with something to count. */
export function checkAgainst(options: { against?: string; engine?: string; clickhouseUrl?: string }): void {
  if (options.engine !== undefined) {
    if (!ENGINES.includes(options.engine as SqlEngineName)) throw new UsageError(`--engine takes duckdb or clickhouse, not ${JSON.stringify(options.engine)}`);
    if (options.against === undefined) throw new UsageError(`--engine counts what --against holds: give --against ${options.clickhouseUrl === undefined ? 'FILE' : 'TABLE'}`);
  }
  if (options.clickhouseUrl !== undefined) {
    if (options.engine !== 'clickhouse') throw new UsageError('--clickhouse-url goes with --engine clickhouse');
    // The input is a table's name on the server, not a file here.
    return;
  }
  if (options.against === undefined) return;
  if (options.engine !== undefined && /[*?[]/.test(options.against)) return;
  checkRegularFile(options.against);
}

/** Whether a path names Parquet (by its extension, as the engines tell it). */
export const isParquetPath = (path: string) => /\.parquet$/i.test(path);



/** Diff two filter sides; returns the exit code (1: `--fail-on` holds, or a filter has errors). */
export async function diffFilterSides(olds: FilterSide, news: FilterSide, shownOld: string, shownNew: string, options: FilterDiffOptions, write: (s: string) => void, note: (s: string) => void): Promise<number> {
  const gate = (options.failOn ?? 'none') as LogFilterGate;
  if (!LOG_FILTER_GATES.includes(gate)) throw new UsageError(`--fail-on on Logpush filters takes ${LOG_FILTER_GATES.join(', ')}, not ${JSON.stringify(gate)}`);
  const dataset = datasetOf(olds, news, shownOld, shownNew, options.dataset);
  const diff = diffLogFilters(olds.filter, news.filter, dataset);
  const report: LogFilterDiffReport = { name: shownNew, diff };
  checkAgainst(options);
  if (options.against !== undefined && options.engine !== undefined) {
    let got;
    try {
      got = await countLogFilterDiffOnEngine(olds.filter, news.filter, dataset, [options.against], { engine: options.engine, diff, examples: options.examples ?? 3 });
    } catch (e) {
      if (e instanceof Error && e.name === 'MissingPartError') throw e;
      throw new UsageError(`${options.against}: ${options.engine} could not read it: ${(e as Error).message.split('\n')[0]}`);
    }
    if (!got.ok) {
      for (const d of got.diagnostics.filter((x) => x.severity === 'error')) note(`rulekit: ${d.data?.['side'] === 'old' ? shownOld : shownNew}: ${d.severity}: ${d.message} [${d.code}]\n`);
      note(`rulekit: the filters cannot be counted on ${options.engine}; count in this process (leave out --engine)\n`);
      return 1;
    }
    report.counts = got.counts;
  } else if (options.against !== undefined) report.counts = await countLines(options.against, olds.filter, news.filter, dataset, diff, options.examples ?? 3, note);

  let failed = false;
  for (const d of diff.diagnostics) {
    note(`rulekit: ${d.data?.['side'] === 'old' ? shownOld : shownNew}: ${d.severity}: ${d.message} [${d.code}]\n`);
    if (d.severity === 'error') failed = true;
  }
  const summary = logFilterDiffSummary([diff]);
  const format = options.format ?? 'text';
  if (format === 'json') write(JSON.stringify({ reports: [{ name: report.name, dataset, regions: diff.regions, diagnostics: diff.diagnostics, ...(report.counts ? { counts: report.counts } : {}) }], summary }, null, 2) + '\n');
  else if (format === 'markdown') write(formatLogFilterDiffMarkdown([report]));
  else if (format === 'github') write(annotations(report, shownNew, news.line));
  else write(formatLogFilterDiffText([report]));
  return failed || failsLogFilterGate(summary, gate) ? 1 : 0;
}

/** The dataset both sides are of: what the jobs say (they must agree), else `--dataset`, else http_requests. */
function datasetOf(olds: FilterSide, news: FilterSide, shownOld: string, shownNew: string, given: string | undefined): string {
  if (olds.dataset !== undefined && news.dataset !== undefined && olds.dataset !== news.dataset) {
    throw new UsageError(`${shownOld} is a job of ${olds.dataset}, ${shownNew} one of ${news.dataset}: their log lines have different fields, so nothing is compared`);
  }
  const named = olds.dataset ?? news.dataset;
  if (named !== undefined && given !== undefined && named !== given) throw new UsageError(`--dataset ${given}, but the job says ${named}`);
  const dataset = named ?? given ?? 'http_requests';
  if (!getDataset(dataset)) throw new UsageError(`unknown dataset ${JSON.stringify(dataset)}; the datasets are ${DATASET_NAMES.join(', ')}`);
  return dataset;
}

/** Count the log lines of an NDJSON file (gzipped or not) the two filters push differently. */
async function countLines(path: string, oldFilter: string, newFilter: string, dataset: string, diff: LogFilterDiffReport['diff'], examples: number, note: (s: string) => void) {
  const counter = new LogFilterDiffCounter(oldFilter, newFilter, dataset, { diff, examples });
  if (isParquetPath(path)) {
    // Parquet rows read by DuckDB, run through the filters here.
    (await readParquetObjects([path])).forEach((line, index) => counter.add(line, index));
    return counter.result();
  }
  let index = 0;
  let warned = false;
  for await (const { line, bytes } of inputLines(path, () => {})) {
    if (!warned && !isUtf8(bytes)) {
      warned = true;
      note(`${path}:${line}:1: warning[invalid-utf8]: bytes that are not UTF-8, read as U+FFFD\n`);
    }
    const text = bytes.toString('utf8');
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UsageError(`${path}:${line}: not a JSON object (NDJSON log lines, gzipped or not)`);
    }
    if (!isObject(value)) throw new UsageError(`${path}:${line}: not a JSON object`);
    counter.add(value, index++);
  }
  return counter.result();
}

/** GitHub annotations on the new file's filter: a warning for lines newly dropped and for unknowns, a notice for lines newly pushed. */
function annotations(report: LogFilterDiffReport, file: string, line: number): string {
  const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const out = report.diff.regions.map((r) => {
    const level = r.kind === 'unknown' || r.change === 'dropped' ? 'warning' : 'notice';
    const title = r.kind === 'unknown' ? 'rulekit diff: unknown change' : r.change === 'dropped' ? 'rulekit diff: lines newly dropped' : 'rulekit diff: lines newly pushed';
    const witness = r.kind === 'exact' && r.witness ? `; for example ${JSON.stringify(r.witness)}` : '';
    return `::${level} file=${prop(file)},line=${line},title=${prop(title)}::${data(`${report.diff.dataset}: ${r.text}${witness}`)}`;
  });
  return out.length ? out.join('\n') + '\n' : '';
}
