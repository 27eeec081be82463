/**
 * Formatting: every expression of the document in the printer's canonical form (`AND` → `and`, `eq` →
 * `==`, one space between tokens), written back through the literal's encoder. An expression with a
 * syntax error, one with Terraform interpolations, or one whose literal cannot take the new text is left
 * as it is. The rest of the file is not touched.
 * @module
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextEdit } from 'vscode-languageserver/node';
import { hasErrors } from '../../diagnostics/index.js';
import { parseExpression, print } from '../../expression/index.js';
import type { DocumentCheck } from '../check.js';
import { lspEdit } from '../convert.js';

export function formatting(doc: TextDocument, check: DocumentCheck): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const r of check.regions) {
    if (r.kind !== 'expression' || r.interpolated || !r.encoder) continue;
    const text = r.map.text;
    const parsed = parseExpression(text);
    if (!parsed.ast || hasErrors(parsed.diagnostics)) continue;
    const canonical = print(parsed.ast);
    if (canonical === text) continue;
    const range = r.map.editRange({ start: 0, end: text.length });
    const newText = r.encoder(canonical);
    if (range && newText !== undefined) edits.push(lspEdit(doc, { range, newText }));
  }
  return edits;
}
