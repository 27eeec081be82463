/**
 * A lint run over files (Node only): read each file, tell its kind, extract, check, apply per-code
 * severities, and with `fix` apply the safe fixes until none is left (a second run changes nothing).
 * Terraform files are first parsed by `@cdktf/hcl2json` (HashiCorp's HCL parser compiled to
 * WebAssembly, loaded on the first `.tf` file): a file it rejects is reported at the position it names,
 * and each string the position-keeping reader decoded is compared with its reading.
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import { SourceText, type Diagnostic, type Severity, type TextEdit } from '../diagnostics/index.js';
import type { ExpressionOptions } from '../expression/index.js';
import { extractJson, extractRules, extractYaml } from './bodies.js';
import { checkExtracted } from './check.js';
import { analyzeTerraform } from './analysis.js';
import { lintDiagnostic } from './codes.js';
import type { SeveritySetting } from './config.js';
import { kindOfPath, type LintTarget } from './files.js';
import { OffsetMap } from './offset-map.js';
import { applySuppressions, type PointerIgnore } from './suppress.js';
import { extractTerraform } from './terraform.js';
import { oracleValues, unreadValues } from './terraform-oracle.js';
import type { Extracted, InputKind, LintDiagnostic, TextItem } from './types.js';

/** A file as read: text (BOM removed), where invalid UTF-8 was replaced, whether it had a BOM. */
export interface LintInput {
  text: string;
  invalidUtf8: number[];
  bom: boolean;
}

/** What one file gave. */
export interface FileReport {
  path: string;
  kind?: InputKind;
  text: string;
  /** Labels of the values checked (`cloudflare_ruleset.fw.rules[0].expression`, `line 3`). */
  checked: string[];
  diagnostics: LintDiagnostic[];
  /** What `fix` changed, one line each (`3:17 comma-in-set: remove the comma`). */
  fixed: string[];
}

/** Options of {@link lintFiles}. */
export interface LintFilesOptions {
  kind?: InputKind;
  expression?: ExpressionOptions;
  severity?: Record<string, SeveritySetting>;
  fix?: boolean;
  /** Read a file (`-`: standard input). */
  read: (path: string) => Promise<LintInput>;
  /** Shown name of standard input. */
  stdinName?: string;
  /** The config's `ignore` entries that match a file (by its shown path). */
  ignores?: (path: string) => PointerIgnore[];
  /** The phase of rules whose file names none (a bare array of rules, a PUT body, a `.rules` file). */
  phase?: string;
}

type Hcl2Json = (name: string, text: string) => Promise<Record<string, unknown>>;
let hcl2json: Promise<Hcl2Json> | undefined;

/** `@cdktf/hcl2json`'s parse, loaded once. */
function loadHcl2Json(): Promise<Hcl2Json> {
  hcl2json ??= import('@cdktf/hcl2json').then((m) => ((m as { parse?: Hcl2Json }).parse ?? (m as unknown as { default: { parse: Hcl2Json } }).default.parse));
  return hcl2json;
}

/** Tell the kind of a text with no telling extension: JSON, Terraform, YAML with a known shape, else expressions. */
export function detectKind(text: string): InputKind {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      // not JSON: maybe HCL or YAML flow
    }
  }
  if (/^\s*(?:resource|variable|locals|terraform|provider|module|data|output)\s+("|\{|[A-Za-z])/m.test(text)) return 'terraform';
  if (/^\s*(?:-\s|[A-Za-z_"'][\w"' .-]*:\s)/m.test(text) && !/^\s*[a-z0-9_.]+\s*(==|!=|eq|ne|in|contains|matches|>|<)/m.test(t)) return 'yaml';
  return 'rules';
}

/** Extract from one text (the pure part), by kind. */
export function extract(text: string, kind: InputKind, named: boolean): Extracted {
  switch (kind) {
    case 'terraform': return extractTerraform(text);
    case 'json': return extractJson(text, named);
    case 'yaml': return extractYaml(text, named);
    case 'rules': return extractRules(text);
  }
}

/**
 * The values of an HCL file's top-level attributes as HashiCorp's parser reads them (`@cdktf/hcl2json`:
 * strings, numbers, booleans, lists, maps), for files of values such as Terraform's `.tfvars`; or, for
 * text that is not valid HCL, its first syntax error at its place (`lint-parse-error`).
 */
export async function hclAttributeValues(text: string, name: string): Promise<{ values?: Record<string, unknown>; diagnostics: Diagnostic[] }> {
  try {
    return { values: await (await loadHcl2Json())(name, text), diagnostics: [] };
  } catch (e) {
    return { diagnostics: hclErrors(String((e as Error)?.message ?? e), text) };
  }
}

/** hcl2json's message `file:3,5-6: Summary; Detail` as diagnostics at their place. */
function hclErrors(message: string, text: string): Diagnostic[] {
  const src = new SourceText(text);
  const lineStart = (line: number) => {
    let off = 0;
    for (let l = 1; l < line; l++) {
      const n = text.indexOf('\n', off);
      if (n < 0) return text.length;
      off = n + 1;
    }
    return off;
  };
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const m of message.matchAll(/:(\d+),(\d+)(?:-(?:(\d+),)?(\d+))?: ([^;\]]+?)(?:; ([^\]]*?))?(?=\s+\S+:\d+,\d+|\]|$)/g)) {
    const line = Number(m[1]);
    const col = Number(m[2]);
    const start = Math.min(text.length, lineStart(line) + col - 1);
    const endLine = m[3] ? Number(m[3]) : line;
    const end = m[4] ? Math.min(text.length, lineStart(endLine) + Number(m[4]) - 1) : start + 1;
    const key = `${start}:${m[5]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(lintDiagnostic('lint-parse-error', `not valid HCL: ${m[5]!.trim()}${m[6] ? `; ${m[6].trim()}` : ''}`, { start, end: Math.max(end, start + (start < text.length ? 1 : 0)) }));
  }
  if (!out.length) out.push(lintDiagnostic('lint-parse-error', `not valid HCL: ${message.replace(/^parse config: /, '')}`, { start: 0, end: Math.min(1, src.text.length) }));
  // Only the first: the later ones are usually cascades of it.
  return out.slice(0, 1);
}

/** Compare each decoded string with hcl2json's reading; where they differ, trust hcl2json and point at the whole literal. */
function crossCheck(ex: Extracted, parsed: Record<string, unknown>): void {
  for (const item of ex.items) {
    if (item.kind !== 'expression' && item.kind !== 'filter') continue;
    const t = item as TextItem;
    if (!t.source || t.holes.length) continue;
    let v: unknown = parsed;
    for (const k of t.source) v = v && typeof v === 'object' ? (v as Record<string | number, unknown>)[k] : undefined;
    if (typeof v !== 'string' || v === t.map.text || /\$\{|%\{/.test(v)) continue;
    const m = new OffsetMap();
    m.push(v, t.range.start, t.range.end);
    t.map = m;
    delete t.encoder;
  }
}

/** Lint one text: extract, check, re-grade by the severity settings. */
export async function lintText(text: string, kind: InputKind, named: boolean, options: Omit<LintFilesOptions, 'read'>, name = 'input.tf'): Promise<{ diagnostics: LintDiagnostic[]; checked: string[] }> {
  const ex = extract(text, kind, named);
  if (options.phase !== undefined) withPhase(ex, options.phase);
  if (kind === 'terraform') {
    let parsed: Record<string, unknown>;
    try {
      parsed = await (await loadHcl2Json())(name, text);
    } catch (e) {
      return { diagnostics: hclErrors(String((e as Error)?.message ?? e), text), checked: [] };
    }
    crossCheck(ex, parsed);
    ex.diagnostics.push(...unreadValues(oracleValues(parsed), ex, text));
  }
  const checked = ex.items.map((i) => i.label);
  if (named && checked.length === 0 && !ex.diagnostics.some((d) => d.severity === 'error' || NOT_CHECKED_REPORTED.has(d.code))) {
    ex.diagnostics.push(nothingChecked(kind, text));
  }
  const found = checkExtracted(ex, { expression: options.expression });
  // Analysis needs the whole ruleset; only files without errors are analysed (an error may be any rule's).
  if (kind === 'terraform' && !found.some((d) => d.severity === 'error')) {
    found.push(...analyzeTerraform(text, options.expression));
    found.sort((a, b) => (a.range?.start ?? 0) - (b.range?.start ?? 0));
  }
  // Suppressions before severities: a suppressed code turned off still counts as suppressed (suppress.ts).
  const diagnostics = regrade(applySuppressions(found, text, kind, { ignores: options.ignores?.(name) }), options.severity ?? {});
  return { diagnostics, checked };
}

/** `--phase` for what names no phase of its own: bodies without "phase", expressions without a resource's. */
function withPhase(ex: Extracted, phase: string): void {
  for (const item of ex.items) {
    if ('value' in item) {
      const v = item.value as { phase?: unknown } | null;
      if (item.kind === 'ruleset' && item.phase === undefined && !(v && typeof v === 'object' && 'phase' in v)) item.phase = phase;
    } else if (item.kind === 'expression' && item.phase === undefined) item.phase = phase;
  }
}

/** Codes that already say why a file gave nothing to check (a ruleset of an unknown phase: its rules are not read). */
const NOT_CHECKED_REPORTED: ReadonlySet<string> = new Set(['lint-not-literal', 'ruleset-unknown-phase', 'lint-unrecognized', 'lint-unread-value']);

/** `lint-nothing-checked` for a file: what rulekit looks for in a file of its kind. */
export function nothingChecked(kind: InputKind, text: string): LintDiagnostic {
  const what: Record<InputKind, string> = {
    terraform: 'no cloudflare_ruleset rule with an expression and no cloudflare_logpush_job with a filter',
    json: 'no rule expression, ruleset body, Logpush job or filter',
    yaml: 'no rule expression, ruleset body, Logpush job or filter',
    rules: 'no expression',
  };
  return lintDiagnostic('lint-nothing-checked', `nothing here that rulekit checks (${what[kind]}); this file passes only because nothing was read`, { start: 0, end: Math.min(1, text.length) });
}

/** Apply per-code severity settings (`off` drops the code). */
export function regrade(diagnostics: LintDiagnostic[], severity: Record<string, SeveritySetting>): LintDiagnostic[] {
  if (!Object.keys(severity).length) return diagnostics;
  const out: LintDiagnostic[] = [];
  for (const d of diagnostics) {
    const s = severity[d.code];
    if (s === 'off') continue;
    out.push(s ? { ...d, severity: s as Severity } : d);
  }
  return out;
}

/** The safe edits of a set of diagnostics that do not overlap each other (earlier diagnostics first). */
export function selectFixes(diagnostics: readonly LintDiagnostic[]): { diagnostic: LintDiagnostic; edits: TextEdit[] }[] {
  const taken: TextEdit[] = [];
  const chosen: { diagnostic: LintDiagnostic; edits: TextEdit[] }[] = [];
  for (const d of diagnostics) {
    if (!d.autofix || !d.fix?.edits.length) continue;
    const clash = d.fix.edits.some((e) => taken.some((t) => e.range.start < t.range.end && t.range.start < e.range.end || (e.range.start === t.range.start && e.range.end === t.range.end)));
    if (clash) continue;
    taken.push(...d.fix.edits);
    chosen.push({ diagnostic: d, edits: d.fix.edits });
  }
  return chosen;
}

/** Apply edits (non-overlapping) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.range.start - a.range.start || b.range.end - a.range.end);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.range.start) + e.newText + out.slice(e.range.end);
  return out;
}

/** Lint files in order; with `fix`, fix them in place first. */
export async function lintFiles(targets: readonly LintTarget[], options: LintFilesOptions): Promise<FileReport[]> {
  const reports: FileReport[] = [];
  for (const t of targets) {
    const input = await options.read(t.path);
    const path = t.path === '-' ? (options.stdinName ?? '<stdin>') : t.path;
    const kind = options.kind ?? (t.path === '-' && options.stdinName ? kindOfPath(options.stdinName) : kindOfPath(t.path)) ?? detectKind(input.text);
    let text = input.text;
    const fixed: string[] = [];
    let result = await lintText(text, kind, t.named, options, path);
    // Fixing a file with bytes that are not UTF-8 would rewrite them: such files are only reported.
    if (options.fix && t.path !== '-' && input.invalidUtf8.length === 0) {
      for (let pass = 0; pass < 10; pass++) {
        const chosen = selectFixes(result.diagnostics);
        if (!chosen.length) break;
        const src = new SourceText(text);
        for (const c of chosen) {
          const p = src.position(c.diagnostic.range?.start ?? c.edits[0]!.range.start);
          fixed.push(`${p.line}:${p.column + 1} ${c.diagnostic.code}: ${c.diagnostic.fix!.title}`);
        }
        const next = applyEdits(text, chosen.flatMap((c) => c.edits));
        if (next === text) break;
        text = next;
        result = await lintText(text, kind, t.named, options, path);
      }
      if (text !== input.text) await writeFile(t.path, (input.bom ? '\uFEFF' : '') + text);
    }
    const diagnostics = result.diagnostics;
    for (const at of input.invalidUtf8) {
      diagnostics.unshift({ code: 'invalid-utf8', severity: 'error', message: 'bytes that are not UTF-8; they are read as U+FFFD (\uFFFD). Save the file as UTF-8', range: { start: at, end: at + 1 } });
    }
    reports.push({ path, kind, text, checked: result.checked, diagnostics, fixed });
  }
  // A run that read nothing at all (a directory of .tf files without rules, say) is no clean pass either:
  // each of its files says so, not only those named on the command line.
  if (reports.length && reports.every((r) => r.checked.length === 0)) {
    for (const r of reports) {
      if (r.kind && !r.diagnostics.some((d) => d.code === 'lint-nothing-checked' || d.severity === 'error' || NOT_CHECKED_REPORTED.has(d.code))) {
        r.diagnostics.unshift(...regrade([nothingChecked(r.kind, r.text)], options.severity ?? {}));
      }
    }
  }
  return reports;
}

/** Read a file as a {@link LintInput} (a helper for callers without their own reader). */
export async function readLintInput(path: string): Promise<LintInput> {
  const bytes = await readFile(path);
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { text: new TextDecoder().decode(bom ? bytes.subarray(3) : bytes), invalidUtf8: [], bom };
}
