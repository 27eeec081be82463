/**
 * Terminal rendering of diagnostics, like a compiler's: `file:line:col: severity[code]: message`, the
 * source line, a caret under the span, and the fix.
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
}

const MAX_LINE = 160;

/** Render one diagnostic against the text its range refers to. */
export function renderDiagnostic(text: string | SourceText, d: Diagnostic, file = '<input>'): string {
  const src = typeof text === 'string' ? new SourceText(text) : text;
  const head: string[] = [];
  let where = file;
  if (d.pointer) where += `#${d.pointer}`;
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
    lines.push(`  ${' '.repeat(p.column - from)}${'^'.repeat(width)}`);
  }
  head.push(`${where}: ${d.severity}[${d.code}]: ${d.message}`);
  if (d.fix) lines.push(`  fix: ${d.fix.title}`);
  return [...head, ...lines].join('\n');
}

/** Render a list of diagnostics (sorted by the caller), capped at `max`. */
export function renderDiagnostics(text: string, diagnostics: readonly Diagnostic[], options: RenderOptions = {}): string {
  const src = new SourceText(text);
  const max = options.max ?? 100;
  const out = diagnostics.slice(0, max).map((d) => renderDiagnostic(src, d, options.file));
  if (diagnostics.length > max) out.push(`... and ${diagnostics.length - max} more`);
  return out.join('\n');
}

/** Replace control characters so a caret line stays aligned (a TAB becomes one space). */
function visible(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
}
