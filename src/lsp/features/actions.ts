/**
 * Code actions: each diagnostic's fix as a quick fix (the fix travels with the diagnostic; the action only
 * applies its edits), and one `source.fixAll` action with the safe fixes `rulekit lint --fix` applies.
 * The diagnostics are those of the document's current version, matched to the client's by code and range.
 * @module
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { CodeActionKind, type CodeAction, type CodeActionParams } from 'vscode-languageserver/node';
import { selectFixes } from '../../lint/index.js';
import type { DocumentCheck } from '../check.js';
import { lspDiagnostic, lspEdit, lspRange, overlaps } from '../convert.js';

/** The code action kind of the fix-all action. */
export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.rulekit`;

const wants = (only: string[] | undefined, kind: string) => !only || only.some((k) => kind === k || kind.startsWith(`${k}.`));

export function codeActions(doc: TextDocument, check: DocumentCheck, params: CodeActionParams): CodeAction[] {
  const out: CodeAction[] = [];
  const only = params.context.only;
  if (wants(only, CodeActionKind.QuickFix)) {
    const asked = params.context.diagnostics;
    for (const d of check.diagnostics) {
      if (!d.fix?.edits.length) continue;
      const range = lspRange(doc, d.range);
      if (!overlaps(range, params.range)) continue;
      const theirs = asked.filter((a) => a.code === d.code && overlaps(a.range, range));
      if (asked.length && !theirs.length) continue;
      out.push({
        title: d.fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: theirs.length ? theirs : [lspDiagnostic(doc, d)],
        isPreferred: d.autofix === true,
        edit: { changes: { [doc.uri]: d.fix.edits.map((e) => lspEdit(doc, e)) } },
      });
    }
  }
  if (wants(only, FIX_ALL_KIND) && (only !== undefined || params.context.diagnostics.length > 0)) {
    const chosen = selectFixes(check.diagnostics);
    if (chosen.length) {
      out.push({
        title: `Fix ${chosen.length} problem${chosen.length === 1 ? '' : 's'} whose fix keeps the meaning (rulekit)`,
        kind: FIX_ALL_KIND,
        edit: { changes: { [doc.uri]: chosen.flatMap((c) => c.edits).map((e) => lspEdit(doc, e)) } },
      });
    }
  }
  return out;
}
