/**
 * `rulekit diff OLD NEW`: what a change to a ruleset does, exactly (src/diff). The two sides are read as
 * lint reads rulesets — JSON or YAML bodies (create, PUT, a bare array of rules, a rule-management
 * tool's file), Terraform `cloudflare_ruleset` resources — or the old side from git (`--git REV`: the
 * file as it is at REV). A file of several rulesets is compared ruleset by ruleset, by name (the
 * Terraform address, the tool's label); `--resource` picks one. `--against` counts the packets of a
 * capture, an NDJSON or Parquet file (or, with `--engine clickhouse --clickhouse-url`, a ClickHouse
 * server's table of flows) that change. Two Logpush filters (or jobs) are compared by ./diff-logfilter.ts.
 * `--fail-on` turns changes into exit code 1; usage problems exit 2.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { captureFormatOf } from '../capture/index.js';
import { SourceText } from '../diagnostics/index.js';
import {
  asMatchSetReport, DiffCounter, diffRulesets, exampleText, diffSummary, DIFF_GATES, failsGate, failsMatchSetGate, formatDiffMarkdown, formatDiffText, LOG_FILTER_GATES, MATCH_SET_GATES, matchSetSummary,
  type DiffGate, type DiffReport, type LogFilterGate, type MatchSetGate, type MatchSetLine, type UndecidedRule,
} from '../diff/index.js';
import { isRulesFile, matchSetSide } from './diff-rules.js';
import type { LogpushMissing } from '../http/index.js';
import { checkAgainst, diffFilterSides, readFilterSide } from './diff-logfilter.js';
import { pairRulesetSides, RulesetSideError, rulesetSides } from '../lint/index.js';
import { checkRegularFile, readText, UsageError } from './io.js';
import { countDiffOnEngine, countRequestDiffOnEngine, readTrafficFile, TrafficFileError, type SqlEngineName } from '../simulation/index.js';
import { loadLists } from './lists.js';
import { readVars, varFileProblemText, type VarSource } from './var-file.js';
import { fieldSetScheme } from '../ruleset/index.js';

/** Options of the diff command. */
export interface DiffCommandOptions {
  /** Read the old side from git: the file NEW (or OLD, when only one is given) as it is at this revision. */
  git?: string;
  /** The ruleset of each file to compare: a Terraform address (`cloudflare_ruleset.fw`) or a tool file's label. */
  resource?: string;
  /** A capture (pcap, pcapng) or NDJSON packet objects: count the packets that change; for filters, NDJSON log lines (gzip or not). */
  against?: string;
  format?: 'text' | 'json' | 'markdown' | 'github';
  /**
   * Exit 1 when the diff has: any region, a region that blocks what was allowed, one that allows what was
   * blocked; for filters, lines newly pushed or newly dropped; for `.rules` files, packets a line now
   * matches that none did, or that no line matches any more; `none` (default): never.
   */
  failOn?: DiffGate | LogFilterGate | MatchSetGate;
  /**
   * Values of Terraform variables in rule expressions, `NAME=VALUE` each (`office_cidr=198.51.100.0/24`
   * fills `${var.office_cidr}`; a name with a dot, `local.x=…`, is taken as written), as `terraform -var`.
   */
  var?: string[];
  /** Files of Terraform variable values (`.tfvars`, `.tfvars.json`), read before the `var`s (see `vars` for the order given). */
  varFile?: string[];
  /** The `--var` and `--var-file` options in the order given, a later one overriding an earlier one (as Terraform has it); overrides `var` and `varFile`. */
  vars?: VarSource[];
  /** Dataset of Logpush filters whose sides name none (a filter document; default http_requests). */
  dataset?: string;
  /** Phase of bodies that name none (a PUT body, a bare array of rules). */
  phase?: string;
  lists?: string;
  serviceToken?: string;
  /** Example packets kept per region and per pair of rules (default 3). */
  examples?: number;
  /**
   * Count `--against` on a SQL engine instead of in this process: flow files (NDJSON packet objects or
   * Parquet, globs allowed) for network-phase rulesets, log lines (NDJSON, gzip or not, or Parquet) for filters.
   */
  engine?: SqlEngineName;
  /**
   * With `engine: 'clickhouse'`: a ClickHouse server's HTTP URL (credentials in it or `CLICKHOUSE_USER` /
   * `CLICKHOUSE_PASSWORD`); `against` is then a table of flows on it (`flows` or `db.flows`), a column per field.
   */
  clickhouseUrl?: string;
}

/** One ruleset of a file, with the way back to its rules' lines. */
interface Side {
  name: string;
  ruleset: { rules: unknown[]; phase?: unknown };
  /** 1-based line of rule `index` in the file, when known. */
  lineOf(index: number): number | undefined;
  /** A `.rules` file's lines: the side is a match set (src/diff/match-sets.ts). */
  lines?: MatchSetLine[];
}

/**
 * Run the command. Returns the exit code: 0, or 1 when `--fail-on` holds or a side cannot be compared
 * (its diagnostics say why). Usage problems are thrown as {@link UsageError} (exit 2).
 */
export async function diffCommand(oldPath: string, newPath: string | undefined, options: DiffCommandOptions, write: (s: string) => void, note: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  const gate = options.failOn ?? 'none';
  if (![...DIFF_GATES, ...LOG_FILTER_GATES, ...MATCH_SET_GATES].includes(gate as DiffGate)) throw new UsageError(`--fail-on takes any, blocks-added, allows-added or none (rulesets), newly-pushed or newly-dropped (Logpush filters), newly-matched or newly-unmatched (.rules files), not ${JSON.stringify(gate)}`);
  const format = options.format ?? 'text';
  if (!['text', 'json', 'markdown', 'github'].includes(format)) throw new UsageError(`--format takes text, json, markdown or github, not ${JSON.stringify(format)}`);
  let oldText: string;
  let newText: string;
  let shownNew: string;
  if (options.git !== undefined) {
    if (newPath !== undefined && newPath !== oldPath) throw new UsageError('with --git give one file: its version at the revision is the old side, the file as it is the new one');
    shownNew = oldPath;
    newText = await readText(oldPath);
    oldText = gitShow(options.git, oldPath);
  } else {
    if (newPath === undefined) throw new UsageError('give two files, OLD and NEW, or one file and --git REV');
    shownNew = newPath;
    oldText = await readText(oldPath);
    newText = await readText(newPath);
  }
  const shownOld = options.git !== undefined ? `${options.git}:${oldPath}` : oldPath;
  const oldFilter = readFilterSide(oldText, oldPath, shownOld, options.resource);
  const newFilter = readFilterSide(newText, shownNew, shownNew, options.resource);
  if (oldFilter && newFilter && options.clickhouseUrl !== undefined) throw new UsageError('--clickhouse-url counts the flows of a server\'s table for rulesets; count log lines of filters over files (NDJSON or Parquet), or with rulekit query --clickhouse-url');
  if (oldFilter && newFilter) return diffFilterSides(oldFilter, newFilter, shownOld, shownNew, options, write, note);
  if (oldFilter || newFilter) throw new UsageError(`${oldFilter ? shownOld : shownNew} is a Logpush filter and ${oldFilter ? shownNew : shownOld} is not: give two filters (or jobs), or two rulesets`);
  if (options.dataset !== undefined) throw new UsageError('--dataset is for Logpush filters; rulesets name their phase (--phase)');
  const matchSets = [isRulesFile(oldPath, oldText), isRulesFile(shownNew, newText)];
  if (matchSets[0] !== matchSets[1]) throw new UsageError(`${matchSets[0] ? shownOld : shownNew} is a .rules file (expressions without actions, diffed as which line matches) and ${matchSets[0] ? shownNew : shownOld} is not: give two .rules files, or two rulesets`);
  const matchSet = matchSets[0]!;
  if (matchSet && !MATCH_SET_GATES.includes(gate as MatchSetGate)) throw new UsageError(`--fail-on ${gate} is not for .rules files (their lines have no actions); on them it takes ${MATCH_SET_GATES.join(', ')}`);
  if (!matchSet && !DIFF_GATES.includes(gate as DiffGate)) throw new UsageError(`--fail-on ${gate} is for ${MATCH_SET_GATES.includes(gate as MatchSetGate) ? '.rules files' : 'Logpush filters'}; on rulesets it takes ${DIFF_GATES.join(', ')}`);
  const values = await readVars(options.vars ?? [...(options.varFile ?? []).map((file) => ({ file })), ...(options.var ?? []).map((v) => ({ var: v }))]);
  if (values.problem) {
    note(varFileProblemText(values.problem));
    return 1;
  }
  const olds = matchSet ? [matchSetSide(oldText, shownOld, options.phase)] : readSides(oldText, shownOld, oldPath, options, values.vars);
  const news = matchSet ? [matchSetSide(newText, shownNew, options.phase)] : readSides(newText, shownNew, shownNew, options, values.vars);
  const pairs = pairSides(olds, news, options.resource);
  const lists = await loadLists(options.lists);
  checkAgainst(options);

  const diffOptions = { lists, serviceToken: options.serviceToken, phase: options.phase };
  const reports: (DiffReport & { newSide?: Side; oldSide?: Side })[] = pairs.map(([o, n]) => ({
    name: n?.name ?? o!.name,
    diff: diffRulesets(o?.ruleset ?? { rules: [], phase: n!.ruleset.phase }, n?.ruleset ?? { rules: [], phase: o!.ruleset.phase }, diffOptions),
    newSide: n,
    oldSide: o,
  }));
  if (options.against !== undefined && options.engine !== undefined) {
    if (!(await countOnEngine(options.against, options.engine, reports, pairs, diffOptions, options.examples ?? 3, note, options.clickhouseUrl))) return 1;
  } else if (options.against !== undefined) await countAgainst(options.against, reports, pairs, diffOptions, options.examples ?? 3);
  if (matchSet) for (const r of reports) asMatchSetReport(r.diff, r.counts, r.oldSide!.lines!, r.newSide!.lines!), (r.matchSet = true), options.phase === undefined && httpFieldHint(r.diff);

  let failed = false;
  for (const r of reports) {
    for (const d of r.diff.diagnostics) {
      note(`rulekit: ${r.name}: ${d.severity}: ${d.message} [${d.code}]\n`);
      if (d.severity === 'error') failed = true;
    }
  }
  const summary = matchSet ? matchSetSummary(reports.map((r) => r.diff)) : diffSummary(reports.map((r) => r.diff));
  if (format === 'json') {
    write(JSON.stringify({ reports: reports.map((r) => ({ name: r.name, unit: r.diff.unit, regions: r.diff.regions, matches: r.diff.matches, diagnostics: r.diff.diagnostics, ...(r.counts ? { counts: r.counts } : {}), ...(r.undecided ? { undecided: r.undecided } : {}) })), summary }, null, 2) + '\n');
  } else if (format === 'markdown') write(formatDiffMarkdown(reports));
  else if (format === 'github') write(githubAnnotations(reports, shownNew));
  else write(formatDiffText(reports));
  const fails = matchSet ? failsMatchSetGate(summary as ReturnType<typeof matchSetSummary>, gate as MatchSetGate) : failsGate(summary as ReturnType<typeof diffSummary>, gate as DiffGate);
  return failed || fails ? 1 : 0;
}

/**
 * A `.rules` line left out for an HTTP field, read with no `--phase` (as network_transit's packet
 * fields, lint's rule): its warning says how to read the file as HTTP rules.
 */
function httpFieldHint(diff: DiffReport['diff']): void {
  for (const d of diff.diagnostics) {
    const field = d.code === 'diff-rule-left-out' ? /unknown field (\S+)/.exec(d.message)?.[1] : undefined;
    if (field && fieldSetScheme('http').get(field) && !fieldSetScheme('network').get(field)) {
      d.message += ` (a field of HTTP requests: a .rules file is read as network_transit's unless --phase names another, such as --phase http_request_firewall_custom)`;
    }
  }
}

/** The text of a file at a git revision (`git show REV:./file`, run in the file's directory). */
function gitShow(rev: string, path: string): string {
  if (!/^[^-\s][^\s:]*$/.test(rev)) throw new UsageError(`--git takes a revision (a commit, a branch, HEAD~1), not ${JSON.stringify(rev)}`);
  try {
    return execFileSync('git', ['show', `${rev}:./${basename(path)}`], { cwd: dirname(resolve(path)), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? (e as Error).message).trim().split('\n')[0];
    throw new UsageError(`${path}: cannot read it at ${rev} from git: ${stderr}`);
  }
}

/** The rulesets of one file (src/lint/ruleset-sides.ts), with their rules' lines; a side that cannot be compared is a usage error. */
function readSides(text: string, shown: string, path: string, options: DiffCommandOptions, vars: Record<string, string>): Side[] {
  const src = new SourceText(text);
  try {
    return rulesetSides(text, shown, path, { phase: options.phase, resource: options.resource, vars }).map((s) => ({
      name: s.name,
      ruleset: s.ruleset,
      lineOf: (i: number) => {
        const at = s.rangeOf(i)?.start;
        return at === undefined ? undefined : src.position(at).line;
      },
    }));
  } catch (e) {
    throw e instanceof RulesetSideError ? new UsageError(e.message) : e;
  }
}

/** The rulesets to compare (src/lint/ruleset-sides.ts). */
function pairSides(olds: Side[], news: Side[], resource: string | undefined): [Side | undefined, Side | undefined][] {
  try {
    return pairRulesetSides(olds, news, resource);
  } catch (e) {
    throw e instanceof RulesetSideError ? new UsageError(e.message) : e;
  }
}

/**
 * `--engine`: each pair's counts from one query: over flow files (or a ClickHouse server's table of flows)
 * for network-phase rulesets, over Logpush http_requests files for HTTP phases; a capture is refused.
 * False when a side has no SQL form, or the lines hold values SQL does not read exactly (said on stderr).
 */
async function countOnEngine(path: string, engine: SqlEngineName, reports: DiffReport[], pairs: [Side | undefined, Side | undefined][], options: { lists?: unknown; serviceToken?: string; phase?: string }, examples: number, note: (s: string) => void, clickhouseUrl?: string): Promise<boolean> {
  const requests = reports.map((r) => r.diff.unit === 'request');
  if (requests.some((x) => x) && requests.some((x) => !x)) throw new UsageError(`${path}: the rulesets compared read packets and HTTP requests both; compare them with one input kind at a time (--resource)`);
  if (requests[0] && clickhouseUrl !== undefined) throw new UsageError('--clickhouse-url counts a server table of flows for network-phase rulesets; count HTTP requests over Logpush files with --engine duckdb|clickhouse (no URL), or in this process');
  if (requests[0] && /\.har$/i.test(path)) throw new UsageError(`${path}: a HAR file, but --engine reads Logpush http_requests lines (NDJSON or Parquet); count it in this process (leave out --engine)`);
  if (clickhouseUrl === undefined && !/[*?[]/.test(path)) {
    const head = new Uint8Array(4);
    const fd = await open(path, 'r');
    await fd.read(head, 0, 4, 0);
    await fd.close();
    const format = captureFormatOf(head);
    if (format) throw new UsageError(`${path} is a ${format} capture, but --engine reads ${requests[0] ? 'Logpush http_requests lines (NDJSON or Parquet)' : 'flow rows (NDJSON or Parquet, one packet object per row)'}; count the capture in this process (leave out --engine)`);
  }
  for (const [i, r] of reports.entries()) {
    const [o, n] = pairs[i]!;
    const empty = { rules: [] };
    let got;
    try {
      const pair = [(o?.ruleset ?? empty) as never, (n?.ruleset ?? empty) as never, [path]] as const;
      const common = { engine, lists: options.lists as never, serviceToken: options.serviceToken, phase: options.phase, diff: r.diff, examples };
      got = requests[i] ? await countRequestDiffOnEngine(...pair, common) : await countDiffOnEngine(...pair, { ...common, clickhouseUrl });
    } catch (e) {
      if (e instanceof Error && e.name === 'MissingPartError') throw e;
      const message = (e as Error).message.split('\n')[0]!;
      // A URL or table name refused before connecting says what to give; a server's refusal names the server.
      if (clickhouseUrl !== undefined && /^(--clickhouse-url|give )/.test(message)) throw new UsageError(message);
      throw new UsageError(`${path}: ${clickhouseUrl === undefined ? engine : `the ClickHouse server at ${hostOf(clickhouseUrl)}`} could not read it: ${message}`);
    }
    const notLines = got.diagnostics.find((d) => d.code === 'sql-not-logpush-lines');
    if (notLines) throw new UsageError(`${path}: ${notLines.message}`);
    if (!got.ok) {
      for (const d of got.diagnostics.filter((x) => x.severity === 'error')) {
        const side = d.data?.['side'];
        note(`rulekit: ${r.name}: ${side !== undefined ? `the ${String(side)} ruleset${d.pointer ? ` at ${d.pointer}` : ''}: ` : ''}${d.severity}: ${d.message} [${d.code}]\n`);
      }
      const why = got.diagnostics.some((d) => d.code === 'sql-no-exact-form') ? 'a rule or field without an exact SQL form' : 'lines it does not read exactly';
      note(`rulekit: ${r.name}: the rulesets cannot be counted on ${engine} (${why}); count in this process (leave out --engine)\n`);
      return false;
    }
    r.counts = got.counts;
    r.examplesAre = clickhouseUrl !== undefined || /\.parquet$/i.test(path) ? 'row' : 'line';
    // The rules Logpush lines do not decide, named as in process, from the fields the engine counted the
    // lines lacking (every file of a glob).
    const logpush = (got as { logpush?: LogpushMissing }).logpush;
    if (logpush) undecidedOver(logpush, r, pairs[i]!);
  }
  return true;
}

/** A URL's host for messages (credentials left out), or the text as given when it is no URL. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Count the packets of a capture or NDJSON file through every pair at once (the file is read once). */
async function countAgainst(path: string, reports: DiffReport[], pairs: [Side | undefined, Side | undefined][], options: { lists?: unknown; serviceToken?: string; phase?: string }, examples: number): Promise<void> {
  const counters = reports.map((r, i) => {
    const [o, n] = pairs[i]!;
    return new DiffCounter(o?.ruleset ?? { rules: [] }, n?.ruleset ?? { rules: [] }, { ...(options as object), diff: r.diff, examples });
  });
  const requests = reports.map((r) => r.diff.unit === 'request');
  if (requests.some((x) => x) && requests.some((x) => !x)) throw new UsageError(`${path}: the rulesets compared read packets and HTTP requests both; compare them with one input kind at a time (--resource)`);
  let logpush: LogpushMissing | undefined;
  try {
    const examplesAre = await readTrafficFile(
      path,
      requests[0] ? 'request' : 'packet',
      (record, index, whole) => {
        for (const c of counters) c.add(record, index, whole);
      },
      (m) => (logpush = m),
      // A capture's frames decoded into one object, the fields either side of any pair reads.
      { fields: new Set(counters.flatMap((c) => c.readFields)) },
    );
    for (const r of reports) r.examplesAre = examplesAre;
  } catch (e) {
    throw e instanceof TrafficFileError ? new UsageError(e.message) : e;
  }
  counters.forEach((c, i) => (reports[i]!.counts = c.result()));
  if (logpush) reports.forEach((r, i) => undecidedOver(logpush!, r, pairs[i]!));
}

/**
 * The rules of a pair that Logpush lines do not decide (they read a field the lines lack): a warning on
 * the diff each (printed and in JSON, as `simulate` warns), and the report's `undecided` for the counts' text.
 */
function undecidedOver(logpush: LogpushMissing, report: DiffReport, [o, n]: [Side | undefined, Side | undefined]): void {
  const undecided: UndecidedRule[] = [];
  for (const [side, s] of [['old', o], ['new', n]] as const) {
    for (const d of logpush.diagnostics(s?.ruleset.rules)) {
      const data = d.data as { rule: number; field: string; lines: number; of: number };
      // A .rules file's rule is its line: named by its number in the file.
      const line = s?.lines?.[data.rule]?.line;
      undecided.push({ side, ...data, ...(line !== undefined ? { line } : {}) });
      const message = line !== undefined ? `the ${side} file's line ${line} ${d.message.replace(/^rule \d+ /, '')}` : `the ${side} ruleset's ${d.message}`;
      report.diff.diagnostics.push({ ...d, message, data: { ...d.data, side, ...(line !== undefined ? { line } : {}) } });
    }
  }
  if (undecided.length) report.undecided = undecided;
}

/** GitHub annotations: each region on the rule that decides it on the new side (else the old rule's place in the new file, else line 1). */
function githubAnnotations(reports: (DiffReport & { newSide?: Side })[], file: string): string {
  /** The new rule that is the old rule deciding a region (the same rule, or its edit), for a region nobody decides on the new side. */
  const partner = (r: DiffReport, old: number | undefined) => (old === undefined ? undefined : r.diff.matches.find((m) => m.old === old)?.new);
  const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const out: string[] = [];
  for (const r of reports) {
    for (const region of r.diff.regions) {
      const rule = region.new.rule?.index ?? partner(r, region.old.rule?.index);
      const line = (rule !== undefined ? r.newSide?.lineOf(rule) : undefined) ?? r.newSide?.lineOf(0) ?? 1;
      const level = region.kind === 'unknown' || region.change === 'verdict' ? 'warning' : 'notice';
      const title = region.kind === 'unknown' ? 'rulekit diff: unknown change' : r.matchSet ? `rulekit diff: ${region.change === 'rule' ? 'matched by another line' : region.new.rule ? 'newly matched' : 'no longer matched'}` : region.change === 'verdict' ? 'rulekit diff: verdict changes' : 'rulekit diff: deciding rule changes';
      const witness = region.kind === 'exact' && region.witness ? `; for example ${JSON.stringify(region.witness)}` : '';
      const counted = r.counts?.regions.find((c) => c.region === r.diff.regions.indexOf(region));
      const traffic = r.counts ? `; ${counted?.count ?? 0} ${r.diff.unit}(s) of the traffic${counted?.examples[0] ? `, e.g. ${exampleText(counted.examples[0], r.examplesAre)}` : ''}` : '';
      out.push(`::${level} file=${prop(file)},line=${line},title=${prop(title)}::${data(`${r.name}: ${region.text}${witness}${traffic}`)}`);
    }
  }
  return out.length ? out.join('\n') + '\n' : '';
}
