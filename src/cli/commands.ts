/** The CLI's lint commands: `check` (expressions) and `validate` (ruleset bodies). @module */
import { checkExpression, validateRuleset, renderDiagnostic, SourceText, toEnvelope, EXPRESSION_CODES, type Diagnostic, type ExpressionOptions, type RulesetContext } from '../index.js';
import { LIST_KIND_NAMES, type ListItems } from '../expression/index.js';
import { parseJsonText } from '../json/index.js';
import { phaseExpressionOptions, phaseFieldDiagnostics } from '../ruleset/index.js';
import type * as Lint from '../lint/index.js';
import { readInput, UsageError, useColor, type TextInput } from './io.js';

/** Output format of the lint commands (`envelope`: validate only, the service's response envelope). */
export type LintFormat = 'text' | 'json' | 'envelope';

/** Options shared by the lint commands. */
export interface LintOptions {
  lists?: string;
  serviceToken?: string;
  format?: LintFormat;
  /** Exit 1 when there are more warnings than this (ESLint's `--max-warnings`; -1 or absent: no limit). */
  maxWarnings?: number;
  /** Colour the text output (default: on a terminal, unless NO_COLOR). */
  color?: boolean;
}

/** Most diagnostics `check` shows before it stops (garbage input should not print millions of lines). */
export const MAX_SHOWN_DIAGNOSTICS = 100;

/** A diagnostic about a whole input file (a lists file), rendered against the file's text. */
function fileDiagnostic(code: 'invalid-list-file', message: string, range: Diagnostic['range'], pointer?: string): Diagnostic {
  const d: Diagnostic = { code, severity: EXPRESSION_CODES[code].severity, message };
  if (range) d.range = range;
  if (pointer !== undefined) d.pointer = pointer;
  return d;
}

/**
 * Load a lists file: `{"name": ["cidr", ...]}`. A file that is not JSON, not an object of arrays, or has
 * members that are not strings is a usage error whose message is the rendered diagnostics about the file
 * (path, line and column), so that no expression is checked against a half-read catalog.
 */
export async function loadLists(path: string | undefined): Promise<ListItems | undefined> {
  if (!path) return undefined;
  const input = await readInput(path);
  const text = input.text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const parsed = parseJsonText(text, 64);
    const e = parsed.errors[0];
    throw new UsageError(renderDiagnostic(text, fileDiagnostic('invalid-list-file', `the lists file is not valid JSON: ${e?.message ?? 'unreadable'}`, e?.range), path));
  }
  const problems: { message: string; pointer: string }[] = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ message: `the lists file must be a JSON object of arrays ({"name": ["192.0.2.0/24", ...]}), not ${describe(value)}`, pointer: '' });
  } else {
    for (const [name, given] of Object.entries(value)) {
      const p = `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      // A list of another kind says so: {"kind": "hostname", "items": [...]}; its items are checked where it is built.
      if (given !== null && typeof given === 'object' && !Array.isArray(given)) {
        const kind = (given as { kind?: unknown }).kind;
        if (typeof kind !== 'string' || !(LIST_KIND_NAMES as readonly string[]).includes(kind)) problems.push({ message: `list "${name}" has kind ${JSON.stringify(kind)}; the kinds are ${LIST_KIND_NAMES.join(', ')}`, pointer: `${p}/kind` });
        if (!Array.isArray((given as { items?: unknown }).items)) problems.push({ message: `list "${name}" needs an "items" array`, pointer: p });
        continue;
      }
      const items = given;
      if (!Array.isArray(items)) problems.push({ message: `list "${name}" must be an array of IP addresses, CIDRs or ranges, or {"kind": "hostname"|"asn"|"redirect", "items": [...]}, not ${describe(items)}`, pointer: p });
      else {
        items.forEach((item, i) => {
          if (typeof item !== 'string') problems.push({ message: `item ${i} of list "${name}" must be a string such as "192.0.2.0/24", not ${describe(item)}`, pointer: `${p}/${i}` });
        });
      }
    }
  }
  if (input.invalidUtf8.length) problems.push({ message: `the lists file has bytes that are not UTF-8 (${input.invalidUtf8.length} place(s))`, pointer: '' });
  if (!problems.length) return value as ListItems;
  const doc = parseJsonText(text, 64).doc;
  const lines = problems.slice(0, 20).map((p) => renderDiagnostic(text, fileDiagnostic('invalid-list-file', p.message, doc?.valueRange(p.pointer), p.pointer || undefined), path));
  if (problems.length > 20) lines.push(`... and ${problems.length - 20} more`);
  throw new UsageError(lines.join('\n'));
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `${typeof v === 'string' ? 'a string' : `a ${typeof v}`} (${JSON.stringify(v)?.slice(0, 40)})`;
}

/** Diagnostics of bytes that are not UTF-8, at their place in the decoded text. */
function utf8Diagnostics(input: TextInput): Diagnostic[] {
  return input.invalidUtf8.map((at) => ({
    code: 'invalid-utf8',
    severity: EXPRESSION_CODES['invalid-utf8'].severity,
    message: 'bytes that are not UTF-8; they are read as U+FFFD (\uFFFD). Save the file as UTF-8',
    range: { start: at, end: at + 1 },
  }));
}

/** Exit code of a lint command: 1 on errors, or on more warnings than `--max-warnings` allows. */
export function lintExit(diagnostics: readonly Diagnostic[], maxWarnings: number | undefined, note: (s: string) => void): number {
  let errors = 0;
  let warnings = 0;
  for (const d of diagnostics) {
    if (d.severity === 'error') errors++;
    else if (d.severity === 'warning') warnings++;
  }
  if (errors > 0) return 1;
  if (maxWarnings !== undefined && maxWarnings >= 0 && warnings > maxWarnings) {
    note(`rulekit: ${warnings} warning(s), more than --max-warnings ${maxWarnings}\n`);
    return 1;
  }
  return 0;
}

/** `rulekit check`: lint expressions given as arguments or one per line of a file. Returns the exit code. */
export async function checkCommand(expressions: string[], options: LintOptions & { file?: string; phase?: string }, write: (s: string) => void): Promise<number> {
  const lists = await loadLists(options.lists);
  // Each input knows the text its diagnostics are rendered against, where in it the expression starts and its line.
  const inputs: { name: string; text: string; source: SourceText; offset: number; line: number; extra: Diagnostic[] }[] = expressions.map((text, i) => ({
    name: `arg${i + 1}`,
    text,
    source: new SourceText(text),
    offset: 0,
    line: 1,
    extra: [],
  }));
  if (options.file) {
    const input = await readInput(options.file);
    const source = new SourceText(input.text);
    const bad = utf8Diagnostics(input);
    let offset = 0;
    let line = 1;
    for (const raw of input.text.split('\n')) {
      const expr = raw.replace(/\r$/, '');
      if (expr.trim() && !expr.trimStart().startsWith('#')) {
        // Bytes that were not UTF-8 are reported on the expression they fall in, relative to it.
        const extra = bad.filter((d) => d.range!.start >= offset && d.range!.start < offset + expr.length).map((d) => ({ ...d, range: { start: d.range!.start - offset, end: d.range!.end - offset } }));
        inputs.push({ name: options.file, text: expr, source, offset, line, extra });
      }
      offset += raw.length + 1;
      line++;
    }
  }
  const all: Diagnostic[] = [];
  const report: { input: string; name: string; line: number; diagnostics: Diagnostic[] }[] = [];
  let shown = 0;
  let checked = 0;
  let hidden = 0;
  for (const input of inputs) {
    if (shown >= MAX_SHOWN_DIAGNOSTICS) break;
    const r = checkExpression(input.text, phaseExpressionOptions<ExpressionOptions>(options.phase, { lists, serviceToken: options.serviceToken }));
    // With a phase, a field of the other field set is named as such (rule-field-phase), as validate does.
    const found = phaseFieldDiagnostics(input.text, r.diagnostics, options.phase, r.ast);
    const diagnostics = input.extra.length ? [...input.extra, ...found].sort((a, b) => (a.range?.start ?? 0) - (b.range?.start ?? 0)) : found;
    checked++;
    all.push(...diagnostics);
    const room = MAX_SHOWN_DIAGNOSTICS - shown;
    const kept = diagnostics.length > room ? diagnostics.slice(0, room) : diagnostics;
    hidden += diagnostics.length - kept.length;
    shown += kept.length;
    report.push({ input: input.text, name: input.name, line: input.line, diagnostics: kept });
  }
  const unchecked = inputs.length - checked;
  const errors = all.filter((d) => d.severity === 'error').length;
  if (options.format === 'json') write(JSON.stringify(report, null, 2) + '\n');
  else {
    report.forEach((r, i) => {
      const { source, offset } = inputs[i]!;
      for (const d of r.diagnostics) write(renderDiagnostic(source, d.range ? { ...d, range: { start: d.range.start + offset, end: d.range.end + offset } } : d, r.name, { color: useColor(options.color) }) + '\n');
    });
    write(`${inputs.length} expression(s), ${errors} error(s)\n`);
  }
  if (hidden || unchecked) {
    process.stderr.write(
      `rulekit: stopped after ${MAX_SHOWN_DIAGNOSTICS} diagnostics${hidden ? `; ${hidden} more not shown` : ''}${unchecked ? `; ${unchecked} expression(s) not checked` : ''}\n`,
    );
  }
  return lintExit(all, options.maxWarnings, (s) => process.stderr.write(s));
}

/**
 * What validate reads a file as: `ruleset` a JSON ruleset body (validated on its text, as the server does),
 * `body` any other body lint reads (YAML, a Logpush job, an array of rules: through lint's extractors).
 * Terraform and `.rules` files hold many values, not one body: a usage error pointing to the command for them.
 */
function validateKind(path: string, text: string, { detectKind, kindOfPath, shapeOf }: typeof Lint): 'ruleset' | 'body' {
  const kind = (path === '-' ? undefined : kindOfPath(path)) ?? detectKind(text);
  if (kind === 'terraform') throw new UsageError(`${path}: a Terraform file; validate reads one request body (JSON or YAML): use rulekit lint ${path}`);
  if (kind === 'rules') throw new UsageError(`${path}: not a JSON or YAML body; for expressions one a line use rulekit check -f ${path}, for any file rulekit lint ${path}`);
  if (kind === 'yaml') return 'body';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'ruleset'; // its syntax error is reported at its place
  }
  const shape = shapeOf(value);
  return !shape || (shape.kind === 'ruleset' && !shape.wrap) ? 'ruleset' : 'body';
}

/** A body through lint's extractor and checks: diagnostics in the file's coordinates, with their pointers. */
function validateBody(text: string, path: string, options: { update?: boolean; phase?: string }, expression: ExpressionOptions, { checkExtracted, detectKind, extract, kindOfPath }: typeof Lint): { value: unknown; diagnostics: Diagnostic[] } {
  const kind = (path === '-' ? undefined : kindOfPath(path)) ?? detectKind(text);
  const extracted = extract(text, kind === 'yaml' ? 'yaml' : 'json', true);
  for (const item of extracted.items) {
    if (!('value' in item)) continue;
    if (options.update) item.operation = 'update';
    if (options.phase) item.phase = options.phase;
  }
  const body = extracted.items.find((i) => 'value' in i);
  const diagnostics = checkExtracted(extracted, { expression, analysis: false }).map(({ where: _w, autofix: _a, ...d }) => d as Diagnostic);
  return { value: body && 'value' in body ? body.value : undefined, diagnostics };
}

/** `rulekit validate`: validate a ruleset body file. Returns the exit code. */
export async function validateCommand(path: string, options: LintOptions & { update?: boolean; phase?: string }, write: (s: string) => void): Promise<number> {
  const input = await readInput(path);
  const text = input.text;
  const lists = await loadLists(options.lists);
  // The lint module (and its YAML reader) is loaded only by the commands that read such files.
  const lint = await import('../lint/index.js');
  if (validateKind(path, text, lint) === 'body') {
    const { value, diagnostics } = validateBody(text, path, options, { lists, serviceToken: options.serviceToken }, lint);
    diagnostics.unshift(...utf8Diagnostics(input));
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    if (options.format === 'json') write(JSON.stringify(diagnostics, null, 2) + '\n');
    else if (options.format === 'envelope') write(JSON.stringify(toEnvelope(errors ? null : value, diagnostics), null, 2) + '\n');
    else {
      const src = new SourceText(text);
      for (const d of diagnostics) write(renderDiagnostic(src, d, path, { color: useColor(options.color) }) + '\n');
      write(`${path}: ${errors} error(s), ${diagnostics.length - errors} other diagnostic(s)\n`);
    }
    return lintExit(diagnostics, options.maxWarnings, (s) => process.stderr.write(s));
  }
  const context: RulesetContext = {
    operation: options.update ? 'update' : 'create',
    phase: options.phase as RulesetContext['phase'],
    expression: { lists, serviceToken: options.serviceToken },
  };
  const diagnostics = [...utf8Diagnostics(input).map((d) => ({ ...d, pointer: '' })), ...validateRuleset(text, context)];
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (options.format === 'json') write(JSON.stringify(diagnostics, null, 2) + '\n');
  else if (options.format === 'envelope') {
    // What the reference server answers for this body: the body as the result, or the errors.
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // invalid JSON is among the diagnostics
    }
    write(JSON.stringify(toEnvelope(body, diagnostics), null, 2) + '\n');
  } else {
    const src = new SourceText(text);
    for (const d of diagnostics) {
      // Expression diagnostics point inside the expression string; show them in the file when they map.
      const docRange = d.data?.['documentRange'] as Diagnostic['range'] | undefined;
      const shown: Diagnostic = d.rangeIn === 'value' ? { ...d, range: docRange } : d;
      write(renderDiagnostic(src, shown, path, { color: useColor(options.color) }) + '\n');
    }
    write(`${path}: ${errors} error(s), ${diagnostics.length - errors} other diagnostic(s)\n`);
  }
  return lintExit(diagnostics, options.maxWarnings, (s) => process.stderr.write(s));
}
