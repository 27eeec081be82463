/**
 * Terraform variable values for `rulekit diff`: `--var NAME=VALUE` and `--var-file FILE`, in the order
 * given, a later one overriding an earlier one, as `terraform plan -var -var-file` has it. A file is a
 * `.tfvars` (HCL attributes, read by HashiCorp's parser through src/lint) or, named `.json`, a
 * `.tfvars.json` (one JSON object). Values are filled into `${var.NAME}` as text: a string as it is, a
 * number or a boolean as Terraform prints it into a string; a list, a map or null cannot be interpolated
 * into an expression's string (Terraform refuses it too), so such a variable stays without a value.
 * @module
 */
import { renderDiagnostic, type Diagnostic } from '../diagnostics/index.js';
import { diffDiagnostic } from '../diff/index.js';
import { parseJsonText } from '../json/index.js';
import { hclAttributeValues } from '../lint/index.js';
import { checkRegularFile, readText, UsageError } from './io.js';

/** One `--var` or `--var-file`, in command-line order. */
export type VarSource = { var: string } | { file: string };

/** The values, by the text of the interpolation they fill (`var.office_cidr`), or the file's first problem. */
export type VarValues = { vars: Record<string, string>; problem?: undefined } | { vars?: undefined; problem: { file: string; text: string; diagnostic: Diagnostic } };

/** `NAME=VALUE` into `vars` (a name with a dot, `local.x`, taken as written). */
function setVar(vars: Record<string, string>, given: string): void {
  const eq = given.indexOf('=');
  if (eq <= 0) throw new UsageError(`--var takes NAME=VALUE (office_cidr=198.51.100.0/24), not ${JSON.stringify(given)}`);
  const name = given.slice(0, eq).trim();
  vars[name.includes('.') ? name : `var.${name}`] = given.slice(eq + 1);
}

/** A variable's value as text in an interpolation, or undefined when Terraform would not interpolate it. */
function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/**
 * Read the sources in order. A missing file is a usage error (exit 2); a file that is not valid HCL or
 * JSON, or not an object of values, is returned as a problem with its place (`diff-var-file`).
 */
export async function readVars(sources: readonly VarSource[]): Promise<VarValues> {
  const vars: Record<string, string> = {};
  for (const s of sources) {
    if ('var' in s) {
      setVar(vars, s.var);
      continue;
    }
    checkRegularFile(s.file);
    const text = await readText(s.file);
    const read = /\.json$/i.test(s.file) ? jsonValues(text) : await hclAttributeValues(text, s.file);
    const bad = read.diagnostics.find((d) => d.severity === 'error');
    if (bad || !read.values) {
      const message = bad?.message ?? 'not an object of variable values';
      return { problem: { file: s.file, text, diagnostic: diffDiagnostic('diff-var-file', message, bad?.range ? { range: bad.range } : {}) } };
    }
    for (const [name, value] of Object.entries(read.values)) {
      const t = asText(value);
      if (t === undefined) delete vars[`var.${name}`];
      else vars[`var.${name}`] = t;
    }
  }
  return { vars };
}

/** A `.tfvars.json`: one JSON object of values (its errors at their place). */
function jsonValues(text: string): { values?: Record<string, unknown>; diagnostics: Diagnostic[] } {
  const { doc, errors } = parseJsonText(text, 64);
  if (!doc) return { diagnostics: errors.map((e) => ({ code: 'json', severity: 'error', message: `not valid JSON: ${e.message}`, range: e.range })) };
  if (doc.value === null || typeof doc.value !== 'object' || Array.isArray(doc.value)) {
    return { diagnostics: [{ code: 'json', severity: 'error', message: 'a .tfvars.json file is one JSON object of variable values ({"office_cidr": "198.51.100.0/24"})', range: doc.valueRange('') }] };
  }
  return { values: doc.value as Record<string, unknown>, diagnostics: [] };
}

/** A var file's problem as people read it: `file:line:col`, the line and a caret under the place (src/diagnostics' renderer). */
export function varFileProblemText(p: { file: string; text: string; diagnostic: Diagnostic }): string {
  return renderDiagnostic(p.text, p.diagnostic, p.file) + '\n';
}
