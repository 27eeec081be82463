/**
 * Terminal rendering of diagnostics, like a compiler's: `file:line:col: severity[code]: message`, the
 * source line, a caret under the span, and the fix. Every command prints positions this one way: line and
 * column 1-based, and a JSON pointer, when there is one, after the position
 * (`rules.json:4:21 /rules/0/expression: error[…]`), so that editors and terminals that open
 * `path:line:col` keep working.
 * @module
 */
import type { Diagnostic } from './types.js';
import { SourceText } from './source.js';

/** Options of {@link renderDiagnostics}. */
export interface RenderOptions {
  /** Name shown before the position (default `<input>`). */
  file?: string;
  /** At most this many diagnostics are shown (default 100); the rest are counted. */
  max?: number;
  /** ANSI colour: the position bold, severity and caret in the severity's colour. */
  color?: boolean;
}

/** Options of {@link renderDiagnostic}. */
export interface RenderDiagnosticOptions {
  /** ANSI colour (see {@link RenderOptions.color}). */
  color?: boolean;
}

const COLORS: Record<Diagnostic['severity'], string> = { error: '\x1b[31m', warning: '\x1b[33m', info: '\x1b[36m', hint: '\x1b[2m' };
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

const MAX_LINE = 160;

/** Render one diagnostic against the text its range refers to. */
export function renderDiagnostic(text: string | SourceText, d: Diagnostic, file = '<input>', options: RenderDiagnosticOptions = {}): string {
  const src = typeof text === 'string' ? new SourceText(text) : text;
  const paint = (code: string, s: string) => (options.color ? `${code}${s}${RESET}` : s);
  let where = file;
  const lines: string[] = [];
  if (d.range) {
    const p = src.position(d.range.start);
    where += `:${p.line}:${p.column + 1}`;
    const line = src.lineText(p.line);
    // Show a window of the line around the span so that 1 MB lines do not flood the terminal.
    const from = Math.max(0, p.column - 60);
    const shown = line.slice(from, from + MAX_LINE);
    const endPos = src.position(d.range.end);
    const spanEnd = endPos.line === p.line ? endPos.column : line.length;
    const width = Math.max(1, Math.min(spanEnd, from + MAX_LINE) - p.column);
    lines.push(`  ${visible(shown)}`);
    lines.push(`  ${' '.repeat(p.column - from)}${paint(COLORS[d.severity], '^'.repeat(width))}`);
  }
  const pointer = d.pointer ? ` ${d.pointer}` : '';
  const head = `${paint(BOLD, where)}${pointer}: ${paint(COLORS[d.severity], `${d.severity}[${d.code}]`)}: ${d.message}`;
  if (d.fix) lines.push(`  fix: ${d.fix.title}`);
  return [head, ...lines].join('\n');
}

/** Render a list of diagnostics (sorted by the caller), capped at `max`. */
export function renderDiagnostics(text: string, diagnostics: readonly Diagnostic[], options: RenderOptions = {}): string {
  const src = new SourceText(text);
  const max = options.max ?? 100;
  const out = diagnostics.slice(0, max).map((d) => renderDiagnostic(src, d, options.file, { color: options.color }));
  if (diagnostics.length > max) out.push(`... and ${diagnostics.length - max} more`);
  return out.join('\n');
}

/** Replace control characters so a caret line stays aligned (a TAB becomes one space). */
function visible(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
}
