/** The `--lists` file of the CLI's commands, read and checked before any expression is. @module */
import { renderDiagnostic, EXPRESSION_CODES, type Diagnostic } from '../index.js';
import { LIST_KIND_NAMES, type ListItems } from '../expression/index.js';
import { parseJsonText } from '../json/index.js';
import { readInput, UsageError } from './io.js';

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
