/** The CLI's lint commands: `check` (expressions) and `validate` (ruleset bodies). @module */
import { checkExpression, renderDiagnostics, validateRuleset, renderDiagnostic, SourceText, toEnvelope, type Diagnostic, type RulesetContext } from '../index.js';
import { parseJsonFile, readText } from './io.js';

/** Output format of the lint commands (`envelope`: validate only, the service's response envelope). */
export type LintFormat = 'text' | 'json' | 'envelope';

/** Options shared by the lint commands. */
export interface LintOptions {
  lists?: string;
  serviceToken?: string;
  format?: LintFormat;
}

/** Load a lists file: `{"name": ["cidr", ...]}`. */
export async function loadLists(path: string | undefined): Promise<Record<string, string[]> | undefined> {
  if (!path) return undefined;
  return parseJsonFile(await readText(path), path) as Record<string, string[]>;
}

/** `rulekit check`: lint expressions given as arguments or one per line of a file. Returns the exit code. */
export async function checkCommand(expressions: string[], options: LintOptions & { file?: string }, write: (s: string) => void): Promise<number> {
  const lists = await loadLists(options.lists);
  // Each input knows the text its diagnostics are rendered against and where in it the expression starts.
  const inputs: { name: string; text: string; source: string; offset: number }[] = expressions.map((text, i) => ({ name: `arg${i + 1}`, text, source: text, offset: 0 }));
  if (options.file) {
    const source = await readText(options.file);
    let offset = 0;
    for (const line of source.split('\n')) {
      const expr = line.replace(/\r$/, '');
      if (expr.trim() && !expr.trimStart().startsWith('#')) inputs.push({ name: options.file, text: expr, source, offset });
      offset += line.length + 1;
    }
  }
  let errors = 0;
  const report: { input: string; name: string; diagnostics: Diagnostic[] }[] = [];
  for (const input of inputs) {
    const r = checkExpression(input.text, { lists, serviceToken: options.serviceToken });
    errors += r.diagnostics.filter((d) => d.severity === 'error').length;
    report.push({ input: input.text, name: input.name, diagnostics: r.diagnostics });
  }
  if (options.format === 'json') write(JSON.stringify(report, null, 2) + '\n');
  else {
    report.forEach((r, i) => {
      const { source, offset } = inputs[i]!;
      const shifted = r.diagnostics.map((d) => (d.range ? { ...d, range: { start: d.range.start + offset, end: d.range.end + offset } } : d));
      if (shifted.length) write(renderDiagnostics(source, shifted, { file: r.name }) + '\n');
    });
    write(`${inputs.length} expression(s), ${errors} error(s)\n`);
  }
  return errors > 0 ? 1 : 0;
}

/** `rulekit validate`: validate a ruleset body file. Returns the exit code. */
export async function validateCommand(path: string, options: LintOptions & { update?: boolean; phase?: string }, write: (s: string) => void): Promise<number> {
  const text = await readText(path);
  const lists = await loadLists(options.lists);
  const context: RulesetContext = {
    operation: options.update ? 'update' : 'create',
    phase: options.phase as RulesetContext['phase'],
    expression: { lists, serviceToken: options.serviceToken },
  };
  const diagnostics = validateRuleset(text, context);
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
      write(renderDiagnostic(src, shown, path) + '\n');
    }
    write(`${path}: ${errors} error(s), ${diagnostics.length - errors} other diagnostic(s)\n`);
  }
  return errors > 0 ? 1 : 0;
}
