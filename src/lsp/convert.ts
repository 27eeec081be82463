/** Offsets and rulekit's shapes to LSP's, at the edge (LSP lines and characters are 0-based UTF-16). @module */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type Range as LspRange, type TextEdit as LspTextEdit } from 'vscode-languageserver/node';
import type { Range, Severity, TextEdit } from '../diagnostics/index.js';
import type { LintDiagnostic } from '../lint/index.js';

const SEVERITY: Readonly<Record<Severity, DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function lspRange(doc: TextDocument, r: Range | undefined): LspRange {
  const start = Math.max(0, r?.start ?? 0);
  return { start: doc.positionAt(start), end: doc.positionAt(Math.max(start, r?.end ?? start)) };
}

export function lspEdit(doc: TextDocument, e: TextEdit): LspTextEdit {
  return { range: lspRange(doc, e.range), newText: e.newText };
}

/** A diagnostic for the client: our code in `code`, where in the file in the message's `source` line. */
export function lspDiagnostic(doc: TextDocument, d: LintDiagnostic): LspDiagnostic {
  const out: LspDiagnostic = { range: lspRange(doc, d.range), severity: SEVERITY[d.severity] ?? DiagnosticSeverity.Error, code: d.code, source: 'rulekit', message: d.message };
  if (d.fix?.edits.length) out.data = { fix: d.fix.title };
  return out;
}

export function overlaps(a: LspRange, b: LspRange): boolean {
  const before = (p: { line: number; character: number }, q: { line: number; character: number }) => p.line < q.line || (p.line === q.line && p.character <= q.character);
  return before(a.start, b.end) && before(b.start, a.end);
}
