/**
 * The diagnostic shape every public entry point of rulekit returns. It is LSP-shaped and plain JSON data,
 * so an editor, a worker or a server can ship it as it is.
 * @module
 */

/** How serious a diagnostic is. `error` means the input is rejected; the others are advice. */
export type Severity = 'error' | 'warning' | 'info' | 'hint';

/**
 * A half-open span `[start, end)` of UTF-16 code-unit offsets into the text a diagnostic is about
 * (an expression, or a JSON document). Lines and columns are derived from it by {@link SourceText}.
 */
export interface Range {
  start: number;
  end: number;
}

/** One replacement of the text in `range` by `newText`. */
export interface TextEdit {
  range: Range;
  newText: string;
}

/** A quick fix that travels with its diagnostic: an editor's code action only applies the edits. */
export interface Fix {
  /** What the fix does, e.g. `replace with "and"`. */
  title: string;
  /** Edits on the same text the diagnostic's `range` refers to. */
  edits: TextEdit[];
}

/** A diagnostic: where, what, and the likely fix. */
export interface Diagnostic {
  /** Kebab-case id from the code tables (see {@link DIAGNOSTIC_CODES}). */
  code: string;
  severity: Severity;
  /** One readable sentence; names the limit and the measured figure where one was breached. */
  message: string;
  /** Span in the text the diagnostic is about (an expression, or a JSON document's source). */
  range?: Range;
  /**
   * RFC 6901 JSON pointer into the JSON body the diagnostic is about (`/rules/2/expression`), when the
   * input was a JSON document. When both are set, `range` is inside the text at `pointer` if
   * `rangeIn === 'value'`, else inside the whole JSON document.
   */
  pointer?: string;
  /** What `range` is relative to when `pointer` is set: the whole document (default) or the string value at `pointer`. */
  rangeIn?: 'document' | 'value';
  /** A suggested fix. */
  fix?: Fix;
  /** Structured payload (limit, measured figure, suggestion...) for tools that want more than the message. */
  data?: Record<string, unknown>;
}

/** The documented meaning of one diagnostic code. */
export interface DiagnosticCodeInfo {
  /** Default severity. */
  severity: Severity;
  /** One-line documentation of what the code means. */
  doc: string;
}

/** True when any diagnostic in the list is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  for (const d of diagnostics) if (d.severity === 'error') return true;
  return false;
}

/** Sort diagnostics by position (start offset, then pointer), errors first on ties. Returns a new array. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };
  return [...diagnostics].sort(
    (a, b) =>
      (a.pointer ?? '').localeCompare(b.pointer ?? '') ||
      (a.range?.start ?? 0) - (b.range?.start ?? 0) ||
      rank[a.severity] - rank[b.severity],
  );
}
