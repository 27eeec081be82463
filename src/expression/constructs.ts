/**
 * Expressions of the whole Rules language that this engine does not check yet: calls of functions other
 * than bit_slice (`lower(…)`, `any(…)`) and `[ ]` / `[*]` indexing. Rather than a cascade of parse errors,
 * such an expression gets one `unsupported-construct` (info: it was not checked) and, since the field
 * names can still be read, `unknown-field` for names the scheme does not have.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { suggest } from '../diagnostics/index.js';
import { expressionDiagnostic } from './diagnostics.js';
import { FUNCTIONS } from './functions.js';
import { KEYWORDS } from './tokens.js';
import type { Scheme } from './scheme.js';

/** What the scan found: the first unsupported construct, and every name read as a field. */
interface Scan {
  construct?: { what: string; range: Range };
  names: { name: string; range: Range }[];
}

const WORD = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*/y;

/** Scan the text outside string literals. */
function scan(text: string): Scan {
  const out: Scan = { names: [] };
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === 'r' && /^r#*"/.test(text.slice(i, i + 258))) {
      const hashes = /^r(#*)"/.exec(text.slice(i, i + 258))![1]!;
      const end = text.indexOf('"' + hashes, i + hashes.length + 2);
      i = end < 0 ? text.length : end + 1 + hashes.length;
      continue;
    }
    if (c === '[') {
      out.construct ??= { what: text.slice(i, i + 3) === '[*]' ? '[*] unpacking' : '[ ] indexing', range: { start: i, end: i + 1 } };
      i++;
      continue;
    }
    const before = i > 0 ? text[i - 1]! : ' ';
    if (/[A-Za-z_]/.test(c) && !/[A-Za-z0-9_.$:]/.test(before)) {
      WORD.lastIndex = i;
      const word = WORD.exec(text)![0];
      const end = i + word.length;
      const rest = text.slice(end).trimStart();
      if (rest.startsWith('(')) {
        if (!KEYWORDS.has(word) && !Object.hasOwn(FUNCTIONS, word)) out.construct ??= { what: `the function ${word}()`, range: { start: i, end } };
      } else if (!KEYWORDS.has(word) && word !== 'true' && word !== 'false' && text[end] !== ':') {
        out.names.push({ name: word, range: { start: i, end } });
      }
      i = end;
      continue;
    }
    i++;
  }
  return out;
}

/**
 * The diagnostics of an expression with an unsupported construct, or undefined when it has none (then it
 * is checked as usual).
 */
export function unsupportedConstructs(text: string, scheme: Scheme): Diagnostic[] | undefined {
  const found = scan(text);
  if (!found.construct) return undefined;
  const out: Diagnostic[] = [
    expressionDiagnostic('unsupported-construct', `this expression uses ${found.construct.what}, which rulekit does not check yet; only its field names were checked`, found.construct.range, {
      data: { construct: found.construct.what },
    }),
  ];
  for (const { name, range } of found.names) {
    if (scheme.get(name)) continue;
    const guess = suggest(name, scheme.names());
    out.push(
      expressionDiagnostic('unknown-field', `unknown field ${name}${guess ? `; did you mean ${guess}?` : ''}`, range, {
        fix: guess ? { title: `replace with ${guess}`, edits: [{ range, newText: guess }] } : undefined,
        data: guess ? { suggestion: guess } : undefined,
      }),
    );
  }
  return out;
}
