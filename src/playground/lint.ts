/**
 * rulekit's diagnostics as CodeMirror lint diagnostics: squiggles, messages, and each diagnostic's `fix`
 * as a lint action (the quick fix). CodeMirror takes our UTF-16 offsets as they are; an action is applied
 * to the diagnostic's current span, so edits are shifted by how far that span moved since the check.
 * @module
 */
import type { Diagnostic as LintDiagnostic, Action } from '@codemirror/lint';
import { linter } from '@codemirror/lint';
import type { EditorView } from '@codemirror/view';
import { StateEffect, type Extension } from '@codemirror/state';
import type { Diagnostic, Fix } from '../diagnostics/index.js';

/** Where a diagnostic sits in the editor's text, and the fix in that text's offsets (if it has one there). */
export interface Placed {
  from: number;
  to: number;
  fix?: Fix;
}

/** A lint action applying `fix`, whose edits were computed when the diagnostic started at `at`. */
export function fixAction(fix: Fix, at: number): Action {
  return {
    name: fix.title,
    apply(view: EditorView, from: number) {
      const shift = from - at;
      const length = view.state.doc.length;
      const changes = fix.edits.map((e) => ({
        from: Math.min(length, Math.max(0, e.range.start + shift)),
        to: Math.min(length, Math.max(0, e.range.end + shift)),
        insert: e.newText,
      }));
      view.dispatch({ changes, userEvent: 'input.fix' });
    },
  };
}

/** One rulekit diagnostic as a CodeMirror one, at `placed` (clamped to the text; an empty span stays empty). */
export function toLintDiagnostic(d: Diagnostic, placed: Placed, length: number): LintDiagnostic {
  const from = Math.min(Math.max(0, placed.from), length);
  const to = Math.min(Math.max(from, placed.to), length);
  const out: LintDiagnostic = { from, to, severity: d.severity, message: d.message, source: d.code };
  if (placed.fix) out.actions = [fixAction(placed.fix, from)];
  return out;
}

/** Diagnostics whose ranges are in the editor's own text (an expression, a filter document). */
export function lintDiagnostics(diagnostics: readonly Diagnostic[], length: number): LintDiagnostic[] {
  return diagnostics.map((d) => {
    const range = d.range ?? { start: 0, end: length };
    return toLintDiagnostic(d, { from: range.start, to: range.end, fix: d.fix }, length);
  });
}

/** How long the editor waits after a keystroke before checking (ms). */
export const LINT_DELAY = 250;

/** An effect that makes the linter check again though the text did not change (the lists or the dataset did). */
export const recheck = StateEffect.define<null>();

/** Ask an editor's linter to check its text again. */
export function requestRecheck(view: EditorView): void {
  view.dispatch({ effects: recheck.of(null) });
}

/** A CodeMirror linter over a checker of the whole text. */
export function rulekitLinter(check: (text: string) => LintDiagnostic[]): Extension {
  return linter((view) => check(view.state.doc.toString()), {
    delay: LINT_DELAY,
    needsRefresh: (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(recheck))),
  });
}
