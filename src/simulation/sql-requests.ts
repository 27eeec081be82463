/**
 * HTTP-phase rulesets on a SQL engine (Node only): `simulate --engine` and `diff --against --engine` over
 * Logpush `http_requests` lines — NDJSON (plain or gzip) or Parquet rows, each row read as the JSON object
 * the in-process readers make of it. The request table is src/sql/requests.ts's; the summary and the
 * counts are those of the in-process simulator and diff over the same lines, examples read back and
 * turned into records by `logpushRecord` itself.
 *
 * Before deciding, one pass counts what an engine must not guess: rows that are not Logpush lines
 * (request objects), values without an exact SQL reading, and the rule fields lines lack. Either of the
 * first two stops the run with an error naming the field and the count (count in process then); the
 * last is the simulator's per-rule warning (`http-logpush-missing-field`).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { HTTP_SCHEME, ListCatalog, referencedFields, checkExpression, type ListItems } from '../expression/index.js';
import { compileRuleset, type SimulationSummary } from '../engine/index.js';
import { logpushRecord, LogpushMissing } from '../http/index.js';
import type { Rule, Ruleset } from '../ruleset/index.js';
import { DiffCounter, diffCountsSql, type RulesetDiff, type TrafficDiff } from '../diff/index.js';
import { dialectOf, logpushRequestsSql, requestCheckColumn, rulesetSummarySql, type Dialect, type LogpushRequestsSql } from '../sql/index.js';
import { openEngine, withQueryRoom, type SqlEngineName, type SqlRunner } from './sql-runner.js';
import { takeRuleFigures } from './sql-summary.js';
import { ndjsonCompression } from './engine-compression.js';

const isParquet = (f: string) => /\.parquet$/i.test(f);

/**
 * The lines of files as relations with `rn` (read order) and `line` (JSON): `lines` to decide over and
 * `full` to read examples back from, and the settings that keep the order. Parquet rows become JSON
 * objects of the columns among `members` for deciding (a row's other columns are not turned into JSON),
 * of every column for examples.
 */
async function logpushLines(run: SqlRunner, dialect: Dialect, files: readonly string[], members: readonly string[]): Promise<{ lines: string; full: string; settings: string; text: string }> {
  const { source } = dialect;
  const text = source.lineText.replace(source.lineColumn, 'line');
  if (files.every(isParquet)) {
    const parquet = source.parquet(files);
    const have = new Set((await run.rows(source.describeParquet(files))).map((r) => String(r['column_name'] ?? r['name'])));
    const read = members.filter((m) => have.has(m));
    const rows = (json: string) => `(SELECT ${source.rowNumber} AS rn, ${json} AS line FROM ${parquet.from}) AS lines`;
    return { lines: rows(read.length ? source.rowJson(read) : `'{}'`), full: rows(parquet.rowJson), settings: source.readInOrder('rows'), text };
  }
  if (files.some(isParquet)) throw new Error('give Logpush lines as NDJSON or as Parquet, not both in one run');
  const lines = `(SELECT ${source.rowNumber} AS rn, ${source.lineColumn} AS line FROM ${source.objectLines(files, undefined, await ndjsonCompression(files))}) AS lines`;
  return { lines, full: lines, settings: source.readInOrder('lines'), text };
}

/** The fields the rules of rulesets read (HTTP fields), the checked rules only. */
function fieldsRead(rulesets: readonly { rules?: unknown }[], lists: ListCatalog | undefined, serviceToken: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const r of rulesets) {
    for (const rule of Array.isArray(r.rules) ? (r.rules as Rule[]) : []) {
      if (typeof rule?.expression !== 'string') continue;
      const { ast } = checkExpression(rule.expression, { scheme: HTTP_SCHEME, lists, serviceToken });
      if (ast) for (const f of referencedFields(ast)) out.add(f);
    }
  }
  return out;
}

/**
 * The refusals of fields without an SQL reading, each placed on the first rule that reads the field (and,
 * with two sides, marked with its side), so that the CLI shows which rule stops the run.
 */
function placeRefusals(refused: readonly Diagnostic[], sides: readonly { rules?: unknown }[], lists: ListCatalog | undefined, serviceToken: string | undefined): Diagnostic[] {
  return refused.map((d) => {
    const field = d.data?.['field'];
    for (const [s, side] of sides.entries()) {
      const rules = Array.isArray(side.rules) ? (side.rules as Rule[]) : [];
      const index = rules.findIndex((rule) => typeof rule?.expression === 'string' && fieldsRead([{ rules: [rule] }], lists, serviceToken).has(String(field)));
      if (index >= 0) return { ...d, pointer: `/rules/${index}/expression`, ...(sides.length > 1 ? { data: { ...d.data, side: s ? 'new' : 'old' } } : {}) };
    }
    return d;
  });
}

/** The counts the first pass makes, as numbers. */
interface Checked {
  rows: number;
  notLogpush: number;
  inexact: Map<string, number>;
  lacks: Map<string, number>;
}

/** The check columns of the request table, in the order {@link checkedOf} reads their counts. */
function checkColumns(dialect: Dialect, table: LogpushRequestsSql): string[] {
  const id = (s: string) => dialect.identifier(s);
  return [id(requestCheckColumn.notLogpush), ...[...table.inexact.keys()].map((f) => id(requestCheckColumn.inexact(f))), ...table.logpush.map((k) => id(requestCheckColumn.lacks(k)))];
}

/** The counts of the check columns (`count(i)`: the rows where the i-th holds) as {@link Checked}. */
function checkedOf(rows: number, table: LogpushRequestsSql, count: (i: number) => number): Checked {
  const inexact = [...table.inexact.keys()];
  return {
    rows,
    notLogpush: count(0),
    inexact: new Map(inexact.map((f, i) => [f, count(1 + i)])),
    lacks: new Map(table.logpush.map((k, i) => [k, count(1 + inexact.length + i)])),
  };
}

/** One pass over the request table: rows, rows that are no Logpush line, inexact values per field, lacking Logpush fields. */
async function checkRows(run: SqlRunner, dialect: Dialect, table: LogpushRequestsSql, settings: string): Promise<Checked> {
  const cols = checkColumns(dialect, table).map((c, i) => `${dialect.countIf(c)} AS c${i}`);
  const [row = {}] = await run.rows(`SELECT count(*) AS n, ${cols.join(', ')} FROM ${table.relation}${settings}`);
  return checkedOf(Number(row['n'] ?? 0), table, (i) => Number(row[`c${i}`] ?? 0));
}

/** The errors that stop a run: rows that are no Logpush line, values without an exact reading. */
function refusals(checked: Checked, table: LogpushRequestsSql, engine: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (checked.notLogpush) {
    out.push({ code: 'sql-not-logpush-lines', severity: 'error', message: `${checked.notLogpush} of ${checked.rows} rows are not Logpush http_requests lines (request objects {method, url}, or objects without ClientRequestHost, ClientRequestMethod, ClientRequestURI, EdgeStartTimestamp or RayID): ${engine} reads Logpush lines only; count them in this process (leave out --engine)`, pointer: '', data: { rows: checked.notLogpush } });
  }
  for (const [field, count] of checked.inexact) {
    if (!count) continue;
    const { logpush, why } = table.inexact.get(field)!;
    out.push({ code: 'sql-inexact-value', severity: 'error', message: `${count} of ${checked.rows} lines hold ${logpush} values from which SQL does not read ${field} exactly (${why}); count them in this process (leave out --engine)`, pointer: '', data: { field, logpush, lines: count } });
  }
  return out;
}

/** Per rule field, the lines lacking it and the Logpush fields they lack (for LogpushMissing). */
function missingByField(checked: Checked, table: LogpushRequestsSql): Map<string, { lines: number; logpush: readonly string[] }> {
  const out = new Map<string, { lines: number; logpush: readonly string[] }>();
  for (const [field, needs] of table.needs) {
    if (!needs.length) {
      out.set(field, { lines: checked.rows, logpush: [] });
      continue;
    }
    const lacked = needs.filter((k) => (checked.lacks.get(k) ?? 0) > 0);
    // A field needing one Logpush field is lacked by exactly its lines; with several, a line may lack more than one.
    // Fields with a reading need one Logpush field (src/sql/requests.ts): its lines lacking it are the field's.
    if (lacked.length === 1 && needs.length === 1) out.set(field, { lines: checked.lacks.get(needs[0]!)!, logpush: lacked });
  }
  return out;
}

/** Options of {@link simulateRequestsOnEngine}. */
export interface EngineRequestSimulationOptions {
  engine: SqlEngineName;
  lists?: ListItems | ListCatalog;
  serviceToken?: string;
  examplesPerRule?: number;
}

/**
 * Run an HTTP-phase ruleset (parsed, without errors) over Logpush lines on an engine: the simulator's
 * summary and diagnostics, or (not ok) the errors that stopped it.
 */
export async function simulateRequestsOnEngine(body: Ruleset, files: readonly string[], options: EngineRequestSimulationOptions, diagnostics: Diagnostic[]): Promise<{ ok: boolean; summary: SimulationSummary; diagnostics: Diagnostic[]; sql?: string }> {
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const examples = options.examplesPerRule ?? 3;
  const compiled = compileRuleset(body, { lists, serviceToken: options.serviceToken, examplesPerRule: examples });
  diagnostics.push(...compiled.diagnostics);
  // As in process, no country/ASN-table warning: Logpush lines carry ClientCountry and ClientASN, and
  // lines lacking them are named by http-logpush-missing-field.
  const dialect = dialectOf(options.engine);
  const fields = fieldsRead([body], lists, options.serviceToken);
  const summaryOptions = { dialect: options.engine, lists, serviceToken: options.serviceToken, examplesPerRule: examples, requests: true };
  // Written once over no lines: what it refuses, and the members it reads.
  const probe = logpushRequestsSql(dialect, fields, '(SELECT 1) AS lines');
  const probeQuery = rulesetSummarySql(body, probe.relation, summaryOptions);
  const refused = [...placeRefusals(probe.refused, [body], lists, options.serviceToken), ...probeQuery.diagnostics.filter((d) => d.code.startsWith('sql-'))];
  if (refused.length || !probeQuery.sql) return { ok: false, summary: compiled.summary(), diagnostics: [...diagnostics, ...refused] };
  const run = await openEngine(options.engine);
  try {
    const { lines, full, settings, text } = await logpushLines(run, dialect, files, probe.members);
    const table = logpushRequestsSql(dialect, fields, lines);
    // The checks counted in the same pass as the summary (`counted_I`); a refusal then drops the figures.
    const query = rulesetSummarySql(body, table.relation, { ...summaryOptions, counts: checkColumns(dialect, table) });
    const [row] = await run.rows(withQueryRoom(query.sql!, settings, dialect));
    const n = (k: string) => Number(row?.[k] ?? 0);
    const checked = checkedOf(n('packets'), table, (i) => n(`counted_${i}`));
    const stop = refusals(checked, table, dialect.title);
    if (stop.length) return { ok: false, summary: compiled.summary(), diagnostics: [...diagnostics, ...stop] };
    const missing = new LogpushMissing();
    missing.addCounted(checked.rows, missingByField(checked, table));
    const summary = compiled.summary();
    summary.packets = n('packets');
    // Challenges and the other terminating actions of HTTP phases are verdicts too (only those that occur, as in process).
    const others = Object.fromEntries(Object.keys(row ?? {}).filter((k) => k.startsWith('verdict ') && n(k) > 0).map((k) => [k.slice(8), n(k)]));
    const decidedOther = Object.values(others).reduce((a, b) => a + b, 0);
    summary.verdicts = { allow: n('packets') - n('blocked') - decidedOther, block: n('blocked'), ...others };
    summary.defaultAllowed = n('default_allowed');
    const wanted = takeRuleFigures(summary, query.rules!, row);
    const got = await readBack(run, dialect, full, text, [...new Set([...wanted.values()].flat())], settings);
    for (const [index, rns] of wanted) {
      summary.rules[index]!.examples = rns.map((i) => ({ index: i, packet: logpushRecord(JSON.parse(got.get(i) ?? '{}') as Record<string, unknown>, compiled.fields).record }));
    }
    diagnostics.push(...missing.diagnostics(body.rules));
    return { ok: true, summary, diagnostics, sql: query.sql };
  } catch (e) {
    diagnostics.push({ code: 'simulation-unreadable-input', severity: 'error', message: `${options.engine} could not read the Logpush lines: ${(e as Error).message.split('\n')[0]}`, pointer: '' });
    return { ok: false, summary: compiled.summary(), diagnostics };
  } finally {
    await run.close();
  }
}

/** The lines of the given numbers, as JSON text. */
async function readBack(run: SqlRunner, dialect: Dialect, lines: string, text: string, numbers: readonly number[], settings: string): Promise<Map<number, string>> {
  if (!numbers.length) return new Map();
  const got = await run.rows(`SELECT rn, ${text} AS t FROM ${dialect.source.keepNumbering(lines)} WHERE rn IN (${numbers.join(', ')})${settings}`);
  return new Map(got.map((r) => [Number(r['rn']), String(r['t'])]));
}

/** Grouped rows as numbers, in the order of their first row. */
function groups(rows: Record<string, unknown>[]): { row: Record<string, unknown>; n: number; reg: number; ex: number[] }[] {
  return rows
    .map((row) => ({ row, n: Number(row['n']), reg: Number(row['reg']), first: Number(row['first']), ex: ((row['ex'] as unknown[]) ?? []).map(Number) }))
    .sort((a, b) => a.first - b.first);
}

/** Options of {@link countRequestDiffOnEngine}. */
export interface EngineRequestDiffOptions {
  engine: SqlEngineName;
  lists?: ListItems | ListCatalog;
  serviceToken?: string;
  phase?: string;
  diff?: RulesetDiff;
  examples?: number;
}

/**
 * Count the Logpush lines whose outcome changes between two HTTP-phase rulesets, on an engine: the
 * figures of `countDiff` over the lines' records (`logpushRecord`), examples included, and (`logpush`)
 * the rule fields the lines lack, counted over every file read: `logpush.diagnostics(rules)` names the
 * rules those lines do not decide.
 *
 * ```ts
 * const r = await countRequestDiffOnEngine(oldRuleset, newRuleset, ['http_requests.ndjson.gz'], { engine: 'duckdb' });
 * r.counts?.changed;
 * ```
 */
export async function countRequestDiffOnEngine(oldRuleset: { rules: readonly Rule[]; phase?: unknown }, newRuleset: { rules: readonly Rule[]; phase?: unknown }, files: readonly string[], options: EngineRequestDiffOptions): Promise<{ ok: boolean; counts?: TrafficDiff; diagnostics: Diagnostic[]; sql?: string; logpush?: LogpushMissing }> {
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const counter = new DiffCounter(oldRuleset, newRuleset, { lists, serviceToken: options.serviceToken, phase: options.phase, diff: options.diff, examples: options.examples });
  const dialect = dialectOf(options.engine);
  const sqlOptions = { dialect: options.engine, lists, serviceToken: options.serviceToken, examples: options.examples, requests: true };
  // The regions name fields too: the query written once over nothing tells which.
  const probe = diffCountsSql(oldRuleset, newRuleset, counter.diff, '(SELECT 1) AS requests', sqlOptions);
  if (!probe.sql) return { ok: false, diagnostics: probe.diagnostics };
  const fields = new Set([...fieldsRead([oldRuleset, newRuleset], lists, options.serviceToken), ...probe.fields]);
  const probeTable = logpushRequestsSql(dialect, fields, '(SELECT 1) AS lines', { checked: true });
  if (probeTable.refused.length) return { ok: false, diagnostics: placeRefusals(probeTable.refused, [oldRuleset, newRuleset], lists, options.serviceToken) };
  const run = await openEngine(options.engine);
  try {
    const { lines, full, settings, text } = await logpushLines(run, dialect, files, probeTable.members);
    const table = logpushRequestsSql(dialect, fields, lines, { checked: true });
    const query = diffCountsSql(oldRuleset, newRuleset, counter.diff, table.relation, sqlOptions);
    const checked = await checkRows(run, dialect, table, settings);
    const stop = refusals(checked, table, dialect.title);
    if (stop.length) return { ok: false, diagnostics: stop };
    const grouped = groups(await run.rows(withQueryRoom(query.sql!, settings, dialect)));
    const changed = grouped.filter((g) => counter.changes(Number(g.row['od']), Number(g.row['nd'])));
    const got = await readBack(run, dialect, full, text, [...new Set(changed.flatMap((g) => g.ex))], settings);
    for (const g of grouped) {
      counter.addDecided(Number(g.row['od']), Number(g.row['nd']), g.n, g.reg, g.ex.map((index) => ({ index, packet: logpushRecord(JSON.parse(got.get(index) ?? '{}') as Record<string, unknown>).record })));
    }
    // The rule fields the lines lack, counted by the engine over every file it read (a glob's too), for the rules they leave undecided.
    const logpush = new LogpushMissing();
    logpush.addCounted(checked.rows, missingByField(checked, table));
    return { ok: true, counts: counter.result(), diagnostics: query.diagnostics, sql: query.sql, logpush };
  } finally {
    await run.close();
  }
}
