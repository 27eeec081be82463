/**
 * Completion, hover and signature help in the editors, from `rulekit/language` (src/language: the same
 * module the language server answers with). This file only converts: offsets are CodeMirror's as they
 * are, a completion item's kind becomes a CodeMirror completion type, hover markdown becomes text.
 * @module
 */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { hoverTooltip, showTooltip, type Tooltip } from '@codemirror/view';
import { EditorState, StateField, type Extension } from '@codemirror/state';
import {
  completeExpression,
  completeLogFilter,
  hoverExpression,
  hoverLogFilter,
  signatureHelpExpression,
  type CompletionItem,
  type CompletionKind,
  type CompletionResult as RulekitCompletions,
  type Hover,
  type SignatureHelp,
} from '../language/index.js';
import type { ListItems } from '../index.js';
import { parseJsonText } from '../json/index.js';
import { h } from './dom.js';

/** CodeMirror's completion type (its icon) for each kind of item. */
const TYPE_OF_KIND: Readonly<Record<CompletionKind, string>> = {
  field: 'property',
  operator: 'keyword',
  list: 'variable',
  keyword: 'keyword',
  value: 'constant',
  function: 'function',
  key: 'property',
};

function toCompletion(item: CompletionItem): Completion {
  const c: Completion = { label: item.label, type: TYPE_OF_KIND[item.kind] ?? 'text' };
  if (item.detail) c.detail = item.detail;
  if (item.documentation) {
    const doc = item.documentation;
    c.info = () => hoverDom(doc);
  }
  if (item.insertText !== undefined && item.insertText !== item.label) c.apply = item.insertText;
  return c;
}

/** A completion source registered as language data, so it joins whatever language the editor has. */
function completionFrom(source: CompletionSource): Extension {
  return EditorState.languageData.of(() => [{ autocomplete: source }]);
}

/** rulekit's completions as CodeMirror's; null when there is nothing to offer. */
export function toCompletionResult(r: RulekitCompletions, context: CompletionContext): CompletionResult | null {
  if (!r.items.length) return null;
  // Typing inside the word being completed should not close the list: filter on CodeMirror's side.
  if (!context.explicit && r.from === r.to && !/[.$({ ]$/.test(context.state.sliceDoc(Math.max(0, context.pos - 1), context.pos))) return null;
  return { from: r.from, to: r.to, options: r.items.map(toCompletion), validFor: /^[\w.$!]*$/ };
}

/** Hover markdown as a tooltip: code spans and bold kept, the rest as text. */
export function hoverDom(markdown: string): HTMLElement {
  const root = h('div', { class: 'cm-rulekit-hover' });
  for (const para of markdown.split(/\n{2,}/)) {
    const p = h('p');
    for (const part of para.split(/(`[^`]+`|\*\*[^*]+\*\*)/)) {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1) p.append(h('code', {}, part.slice(1, -1)));
      else if (part.startsWith('**') && part.endsWith('**') && part.length > 3) p.append(h('strong', {}, part.slice(2, -2)));
      else if (part) p.append(part.replace(/```\w*\n?/g, ''));
    }
    root.append(p);
  }
  return root;
}

function tooltipOf(hover: Hover | undefined): Tooltip | null {
  if (!hover) return null;
  return { pos: hover.from, end: hover.to, above: true, create: () => ({ dom: hoverDom(hover.markdown) }) };
}

/** Completion, hover and signature help for an expression editor; `lists` read at each request. */
export function expressionAssist(lists: () => ListItems | undefined): Extension[] {
  const source: CompletionSource = (context) => toCompletionResult(completeExpression(context.state.doc.toString(), context.pos, { lists: lists() }), context);
  return [
    completionFrom(source),
    hoverTooltip((view, pos) => tooltipOf(hoverExpression(view.state.doc.toString(), pos, { lists: lists() }))),
    signatureTooltip(),
  ];
}

/** The signature of the function call around the cursor, the parameter being written in bold. */
export function signatureDom(sig: SignatureHelp): HTMLElement {
  const params = sig.parameters.map((p, i) => (i === sig.activeParameter ? h('strong', {}, p) : p));
  const name = sig.label.slice(0, Math.max(0, sig.label.indexOf('(')));
  const parts: (Node | string)[] = [`${name}(`];
  params.forEach((p, i) => parts.push(...(i ? [', ', p] : [p])));
  parts.push(sig.label.slice(sig.label.lastIndexOf(')')));
  return h('div', { class: 'cm-rulekit-signature' }, h('code', {}, ...parts), sig.documentation ? hoverDom(sig.documentation) : undefined);
}

/** Signature help while the cursor is inside a function call's arguments: a tooltip above the cursor. */
function signatureTooltip(): Extension {
  const at = (state: EditorState): Tooltip | null => {
    const sel = state.selection.main;
    if (!sel.empty) return null;
    const sig = signatureHelpExpression(state.doc.toString(), sel.head);
    return sig ? { pos: sel.head, above: true, arrow: true, create: () => ({ dom: signatureDom(sig) }) } : null;
  };
  return StateField.define<Tooltip | null>({
    create: at,
    update: (value, tr) => (tr.docChanged || tr.selection ? at(tr.state) : value),
    provide: (f) => showTooltip.from(f),
  });
}

/** Completion and hover for a Logpush filter editor on the dataset `dataset()` names. */
export function logFilterAssist(dataset: () => string): Extension[] {
  const source: CompletionSource = (context) => toCompletionResult(completeLogFilter(context.state.doc.toString(), context.pos, { dataset: dataset() }), context);
  return [completionFrom(source), hoverTooltip((view, pos) => tooltipOf(hoverLogFilter(view.state.doc.toString(), pos, { dataset: dataset() })))];
}

/**
 * The expression string of a ruleset body around `pos`: its text and where it starts in the document;
 * undefined outside one, or in a string with escapes (its offsets would not map one to one).
 */
export function expressionStringAt(doc: string, pos: number): { text: string; start: number } | undefined {
  const parsed = parseJsonText(doc, 64).doc;
  const rules = (parsed?.value as { rules?: unknown } | undefined)?.rules;
  if (!parsed || !Array.isArray(rules)) return undefined;
  for (let i = 0; i < rules.length; i++) {
    const text = (rules[i] as { expression?: unknown } | null)?.expression;
    const r = parsed.valueRange(`/rules/${i}/expression`);
    if (typeof text !== 'string' || !r || pos <= r.start || pos >= r.end) continue;
    return r.end - r.start === text.length + 2 ? { text, start: r.start + 1 } : undefined;
  }
  return undefined;
}

/** Completion, hover and signature help inside the expression strings of a ruleset body. */
export function rulesetAssist(lists: () => ListItems | undefined): Extension[] {
  const source: CompletionSource = (context) => {
    const at = expressionStringAt(context.state.doc.toString(), context.pos);
    if (!at) return null;
    const r = completeExpression(at.text, context.pos - at.start, { lists: lists() });
    const items = r.items.map((i) => (i.insertText?.includes('"') ? { ...i, insertText: JSON.stringify(i.insertText).slice(1, -1) } : i));
    return toCompletionResult({ from: r.from + at.start, to: r.to + at.start, items }, context);
  };
  return [
    completionFrom(source),
    hoverTooltip((view, pos) => {
      const at = expressionStringAt(view.state.doc.toString(), pos);
      const hover = at && hoverExpression(at.text, pos - at.start, { lists: lists() });
      return tooltipOf(hover && { ...hover, from: hover.from + at.start, to: hover.to + at.start });
    }),
  ];
}
