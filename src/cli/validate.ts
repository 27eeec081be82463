/** `rulekit validate`: one request body (a ruleset, an array of rules, a Logpush job) validated. @module */
import { validateRuleset, renderDiagnostic, SourceText, toEnvelope, type Diagnostic, type ExpressionOptions, type RulesetContext } from '../index.js';
import type * as Lint from '../lint/index.js';
import type { LintOptions } from './check.js';
import { lintExit, utf8Diagnostics } from './diagnostics.js';
import { readInput, UsageError, useColor } from './io.js';
import { loadLists } from './lists.js';

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
