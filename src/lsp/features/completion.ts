/**
 * Completion, hover and signature help: the region under the cursor, its decoded text to rulekit/language,
 * the answer mapped back into the file and its text re-encoded for the literal (`\"US\"` inside a JSON
 * string).
 * @module
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { CompletionItemKind, MarkupKind, type CompletionList, type Hover, type SignatureHelp } from 'vscode-languageserver/node';
import { completeExpression, completeLogFilter, hoverExpression, hoverLogFilter, signatureHelpExpression, type CompletionKind } from '../../language/index.js';
import type { DocumentCheck } from '../check.js';
import { lspRange } from '../convert.js';
import { phaseExpressionOptions } from '../../ruleset/index.js';
import { regionAt, toDecoded, toFile } from '../regions.js';
import type { Settings } from '../settings.js';

const KINDS: Readonly<Record<CompletionKind, CompletionItemKind>> = {
  field: CompletionItemKind.Field,
  operator: CompletionItemKind.Operator,
  list: CompletionItemKind.Variable,
  keyword: CompletionItemKind.Keyword,
  value: CompletionItemKind.Value,
  function: CompletionItemKind.Function,
  key: CompletionItemKind.Property,
};

export function completion(doc: TextDocument, check: DocumentCheck, offset: number, settings: Settings): CompletionList | null {
  const r = regionAt(check.regions, offset);
  if (!r || !r.encoder) return null;
  const at = toDecoded(r, offset);
  const res = r.kind === 'expression' ? completeExpression(r.map.text, at, phaseExpressionOptions(r.phase, settings.expression ?? {})) : completeLogFilter(r.map.text, at, { dataset: r.dataset });
  const range = lspRange(doc, toFile(r, res.from, res.to));
  const width = String(res.items.length).length;
  const items = res.items.flatMap((item, i) => {
    const newText = r.encoder!(item.insertText ?? item.label);
    if (newText === undefined) return [];
    return [{
      label: item.label,
      kind: KINDS[item.kind],
      detail: item.detail,
      documentation: item.documentation ? { kind: MarkupKind.Markdown, value: item.documentation } : undefined,
      textEdit: { range, newText },
      // Clients filter on the file's text in the range: inside a JSON string that is the encoded text.
      filterText: newText !== item.label ? newText : undefined,
      // The catalogs' order (fields as declared, operators as in the table), not the alphabet.
      sortText: String(i).padStart(width, '0'),
    }];
  });
  return { isIncomplete: false, items };
}

export function hover(doc: TextDocument, check: DocumentCheck, offset: number, settings: Settings): Hover | null {
  const r = regionAt(check.regions, offset);
  if (!r) return null;
  const at = toDecoded(r, offset);
  const h = r.kind === 'expression' ? hoverExpression(r.map.text, at, phaseExpressionOptions(r.phase, settings.expression ?? {})) : hoverLogFilter(r.map.text, at, { dataset: r.dataset });
  return h ? { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: lspRange(doc, toFile(r, h.from, h.to)) } : null;
}

export function signatureHelp(check: DocumentCheck, offset: number, settings: Settings): SignatureHelp | null {
  const r = regionAt(check.regions, offset);
  if (!r || r.kind !== 'expression') return null;
  const s = signatureHelpExpression(r.map.text, toDecoded(r, offset), phaseExpressionOptions(r.phase, settings.expression ?? {}));
  if (!s) return null;
  return {
    signatures: [{ label: s.label, documentation: s.documentation, parameters: s.parameters.map((p) => ({ label: p })) }],
    activeSignature: 0,
    activeParameter: s.activeParameter,
  };
}
