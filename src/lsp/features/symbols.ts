/**
 * Document symbols: one per rule — a rule of a ruleset body (named by its description, ref or index,
 * with its action), a line of a `.rules` file, an expression of a Terraform ruleset — and one per Logpush
 * filter, so an editor's outline lists the rules in order.
 * @module
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver/node';
import type { DocumentCheck } from '../check.js';
import { lspRange } from '../convert.js';

const short = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}…` : s);

export function documentSymbols(doc: TextDocument, check: DocumentCheck): DocumentSymbol[] {
  const body = check.extracted.items.find((i) => 'value' in i && i.kind === 'ruleset');
  const rules = body && 'value' in body ? ((body.value as { rules?: unknown }).rules as unknown[] | undefined) : undefined;
  return check.regions.map((r) => {
    const selection = lspRange(doc, { start: r.start, end: r.end });
    const text = short(r.map.text.trim());
    if (r.rule !== undefined && body && 'value' in body) {
      const rule = (rules?.[r.rule] ?? {}) as { description?: unknown; ref?: unknown; action?: unknown };
      const name = typeof rule.description === 'string' && rule.description.trim() ? rule.description : typeof rule.ref === 'string' && rule.ref ? rule.ref : `rule ${r.rule}`;
      const whole = body.locate(`/rules/${r.rule}`, 'value') ?? { start: r.start, end: r.end };
      const range = lspRange(doc, { start: Math.min(whole.start, r.start), end: Math.max(whole.end, r.end) });
      return { name, detail: `${typeof rule.action === 'string' ? rule.action : '?'}: ${text}`, kind: SymbolKind.Function, range, selectionRange: selection };
    }
    const kind = r.kind === 'filter' ? SymbolKind.Object : SymbolKind.Function;
    return { name: check.kind === 'rules' ? text || r.label : r.label, detail: check.kind === 'rules' ? r.label : text, kind, range: selection, selectionRange: selection };
  });
}
