/** `rulekit check`: expressions given as arguments or one per line of a file, linted. @module */
import { checkExpression, renderDiagnostic, SourceText, type Diagnostic, type ExpressionOptions } from '../index.js';
import { phaseExpressionOptions, phaseFieldDiagnostics } from '../ruleset/index.js';
import { lintExit, utf8Diagnostics } from './diagnostics.js';
import { readInput, UsageError, useColor } from './io.js';
import { loadLists } from './lists.js';

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
