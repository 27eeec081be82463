/** `rulekit lint`: the command line around src/lint (options, config, lists and scheme files, exit code). @module */
import { DIAGNOSTIC_CODES, type ExpressionOptions, type Severity } from '../index.js';
import {
  atLeast, ConfigError, configIgnores, Excludes, findConfig, formatReports, isKnownCode, lintFiles, loadConfig, resolveTargets, severitySetting, unknownCodeMessage,
  type InputKind, type LintFormat, type SeveritySetting,
} from '../lint/index.js';
import { lintExit } from './diagnostics.js';
import { loadLists } from './lists.js';
import { readInput, UsageError, useColor } from './io.js';
import { VERSION } from '../version.js';

/** Options of `rulekit lint`, as commander gives them. */
export interface LintCommandOptions {
  kind?: InputKind;
  format?: LintFormat;
  maxSeverity?: Severity;
  fix?: boolean;
  lists?: string;
  scheme?: string;
  serviceToken?: string;
  config?: string | false;
  exclude?: string[];
  severity?: string[];
  stdinFilename?: string;
  phase?: string;
  color?: boolean;
  /** Report only the findings that fail the run (errors, by default), as ESLint's --quiet. */
  quiet?: boolean;
  /** Exit 1 when there are more warnings than this (counted before --quiet hides them; -1: no limit). */
  maxWarnings?: number;
}

/** Load a scheme file: a JSON object of field name → type. */
async function loadScheme(path: string): Promise<Record<string, string>> {
  const text = (await readInput(path)).text;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.values(v).every((t) => typeof t === 'string')) {
    throw new UsageError(`${path}: a scheme is a JSON object of field names and types ({"http.host": "String"})`);
  }
  return v as Record<string, string>;
}

/** Run `rulekit lint`; returns the exit code (0 clean, 1 findings at or above --max-severity or past --max-warnings). */
export async function lintCommand(paths: string[], options: LintCommandOptions, write: (s: string) => void, note: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let config;
  try {
    config = loadConfig(options.config === false ? undefined : options.config ?? findConfig(process.cwd()));
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  const severity: Record<string, SeveritySetting> = { ...config.severity };
  for (const s of options.severity ?? []) {
    const m = /^([a-z0-9-]+)=(\w+)$/.exec(s);
    const level = m && severitySetting(m[2]);
    if (!m || !level) throw new UsageError(`--severity takes code=off|info|warn|error, not ${JSON.stringify(s)}`);
    if (!isKnownCode(m[1]!)) throw new UsageError(`--severity ${s}: ${unknownCodeMessage(m[1]!)}`);
    severity[m[1]!] = level;
  }
  const lists = options.lists ? await loadLists(options.lists) : typeof config.lists === 'string' ? await loadLists(config.lists) : config.lists;
  const scheme = options.scheme ? await loadScheme(options.scheme) : typeof config.scheme === 'string' ? await loadScheme(config.scheme) : config.scheme;
  const maxSeverity = options.maxSeverity ?? config.maxSeverity ?? 'error';
  const format = options.format ?? 'text';
  const excludes = new Excludes([...config.exclude, ...(options.exclude ?? [])]);
  let resolved;
  try {
    resolved = resolveTargets(paths.length ? paths : ['.'], excludes, config.root);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new UsageError(`${err.path ?? paths.find((p) => p !== '-')}: no such file or directory`);
    if (err.code === 'ENOMATCH' || err.code === 'EDIR') throw new UsageError(err.message);
    throw e;
  }
  for (const p of resolved.excludedNamed) note(`rulekit: ${p}: excluded by a pattern; not linted\n`);
  if (resolved.targets.filter((t) => t.path === '-').length > 1) throw new UsageError('- (standard input) can be given once');
  const ignores = configIgnores(config);
  const reports = await lintFiles(resolved.targets, {
    kind: options.kind,
    expression: { lists, scheme: scheme as ExpressionOptions['scheme'], serviceToken: options.serviceToken ?? config.serviceToken },
    severity,
    fix: options.fix,
    read: (p) => readInput(p),
    stdinName: options.stdinFilename,
    phase: options.phase,
    ignores: ignores.forFile,
  });
  for (const e of ignores.unused()) note(`rulekit: ${config.path}: the ignore entry ${JSON.stringify(e)} suppressed nothing in the files linted; remove it\n`);
  // What --fix changed goes with the text report; beside a machine-readable report it goes to stderr.
  if (format !== 'text') for (const r of reports) for (const f of r.fixed) note(`fixed ${r.path}:${f}\n`);
  const color = useColor(options.color);
  const shown = options.quiet ? reports.map((r) => ({ ...r, diagnostics: r.diagnostics.filter((d) => atLeast(d.severity, maxSeverity)) })) : reports;
  write(formatReports(format, shown, { maxSeverity, color, version: VERSION, codes: DIAGNOSTIC_CODES }));
  if (reports.some((r) => r.diagnostics.some((d) => atLeast(d.severity, maxSeverity)))) return 1;
  // Past --max-warnings: the message and the rule of analyze, check and validate.
  return lintExit(reports.flatMap((r) => r.diagnostics), options.maxWarnings, note);
}
