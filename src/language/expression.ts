/**
 * Completion, hover and signature help for a network rule expression at a cursor offset. Pure functions
 * of (text, offset, options): no protocol, no DOM; the language server and the playground adapt them.
 * @module
 */
import type { IToken } from '@chevrotain/types';
import { COUNTRY_CODES, FUNCTIONS, LOGICAL_OPERATORS, COMPARE_OPERATORS, IN_OPERATOR, NOT_OPERATOR, type CompareOperator, type LogicalOperator } from '../expression/index.js';
import { IP_PROTOCOL_NAMES } from '../net/index.js';
import { catalogsOf, type LanguageCatalogs } from './options.js';
import { contextAfter, parametersOf, tokensOf, type ExpressionContext, type Lhs } from './expression-context.js';
import {
  fieldDetail, fieldMarkdown, functionDetail, functionMarkdown, inApplies, inMarkdown, listDetail, listMarkdown,
  logicalMarkdown, operatorDetail, operatorMarkdown, operatorsFor,
} from './expression-docs.js';
import type { CompletionItem, CompletionResult, ExpressionLanguageOptions, Hover, SignatureHelp } from './types.js';

/** Characters of a word being typed: names, numbers, `$list` names. */
const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 36;

/** The values `ip.proto` holds that have a name (numbers without one are their decimal text). */
const PROTOCOL_NAMES: readonly string[] = IP_PROTOCOL_NAMES.filter((n) => !/^\d+$/.test(n));

/** The offset clamped into the text (a caller's stale offset never throws). */
function clamp(text: string, offset: number): number {
  return Number.isFinite(offset) ? Math.max(0, Math.min(text.length, Math.floor(offset))) : text.length;
}

/** Proposals at `offset`: what may stand there, replacing `[from, to)`. */
export function completeExpression(text: string, offset: number, options?: ExpressionLanguageOptions): CompletionResult {
  if (typeof text !== 'string') return { from: 0, to: 0, items: [] };
  offset = clamp(text, offset);
  const cat = catalogsOf(options);
  const str = stringAround(tokensOf(text), offset);
  if (str) {
    // Inside a string: its value is replaced, quotes kept.
    const { context } = contextAfter(tokensOf(text.slice(0, str.token.startOffset)), cat.scheme);
    const items = valueItems(context).map((v) => ({ ...v, insertText: undefined, label: v.label.slice(1, -1) }));
    return { from: str.from, to: str.to, items };
  }
  let from = offset;
  while (from > 0 && isWordChar(text.charCodeAt(from - 1))) from--;
  let to = offset;
  while (to < text.length && isWordChar(text.charCodeAt(to))) to++;
  const { context } = contextAfter(tokensOf(text.slice(0, from)), cat.scheme);
  if (text.charCodeAt(from) === 36 /* $ */) {
    const lhs = context.kind === 'in' ? context.lhs : undefined;
    return { from, to, items: inApplies(lhs?.type).list ? listItems(cat) : [] };
  }
  return { from, to, items: itemsFor(context, cat) };
}

/** A string token the offset is inside of, with the span of its contents. */
function stringAround(tokens: readonly IToken[], offset: number): { token: IToken; from: number; to: number } | undefined {
  for (const t of tokens) {
    const name = t.tokenType.name;
    if (name !== 'StringLiteral' && name !== 'RawStringLiteral') continue;
    const end = t.endOffset! + 1;
    const open = t.image.indexOf('"') + 1;
    const closed = t.image.lastIndexOf('"') >= open;
    const contentEnd = closed ? end - 1 - (t.image.length - t.image.lastIndexOf('"') - 1) : end;
    if (offset >= t.startOffset + open && (offset < end || (!closed && offset === end))) return { token: t, from: t.startOffset + open, to: Math.max(t.startOffset + open, contentEnd) };
  }
  return undefined;
}

function itemsFor(context: ExpressionContext, cat: LanguageCatalogs): CompletionItem[] {
  switch (context.kind) {
    case 'start':
      return [
        ...cat.fields.filter((f) => !f.rawHeader).map(fieldItem),
        // Network rules have one function, bit_slice; the HTTP phases every function of the catalog.
        ...Object.keys(FUNCTIONS).filter((name) => cat.scheme.rulesLanguage || FUNCTIONS[name]!.check !== undefined).map(functionItem),
        keywordItem('not'),
      ];
    case 'argument': {
      const fn = Object.hasOwn(FUNCTIONS, context.call.name) ? FUNCTIONS[context.call.name] : undefined;
      const param = fn ? parametersOf(fn.signature)[context.call.argument] : undefined;
      if (param && /:\s*raw header$/.test(param)) return cat.fields.filter((f) => f.rawHeader).map(fieldItem);
      // An argument of another function is a value: a field, or a call.
      return fn && !fn.check && cat.scheme.rulesLanguage
        ? [...cat.fields.filter((f) => !f.rawHeader).map(fieldItem), ...Object.keys(FUNCTIONS).filter((name) => !FUNCTIONS[name]!.check).map(functionItem)]
        : [];
    }
    case 'operator':
      return operatorItems(context.lhs);
    case 'strict':
      return [operatorItem(context.op, COMPARE_OPERATORS[context.op].print.split(' ').slice(1).join(' '))];
    case 'value':
    case 'set':
      return valueItems(context);
    case 'in':
      return [
        ...(inApplies(context.lhs.type).list ? listItems(cat) : []),
        ...(inApplies(context.lhs.type).set ? [{ label: '{}', kind: 'keyword' as const, detail: 'a set of values', documentation: inMarkdown(), insertText: '{}' }] : []),
      ];
    case 'after':
      // Tightest-binding first: `and` is what is written most.
      return (Object.keys(LOGICAL_OPERATORS) as LogicalOperator[]).sort((a, b) => LOGICAL_OPERATORS[b].precedence - LOGICAL_OPERATORS[a].precedence).map(keywordItem);
  }
}

function fieldItem(f: LanguageCatalogs['fields'][number]): CompletionItem {
  return { label: f.name, kind: 'field', detail: fieldDetail(f), documentation: fieldMarkdown(f) };
}

function functionItem(name: string): CompletionItem {
  return { label: name, kind: 'function', detail: functionDetail(name), documentation: functionMarkdown(name), insertText: `${name}(` };
}

function keywordItem(op: LogicalOperator | 'not'): CompletionItem {
  const row = op === 'not' ? NOT_OPERATOR : LOGICAL_OPERATORS[op];
  return { label: row.print, kind: 'keyword', documentation: logicalMarkdown(op) };
}

function operatorItem(op: CompareOperator, label = COMPARE_OPERATORS[op].print): CompletionItem {
  return { label, kind: 'operator', detail: operatorDetail(op), documentation: operatorMarkdown(op) };
}

/** Every spelling of each operator valid on the left-hand side (`==` and `eq`: people type either). */
function operatorItems(lhs: Lhs): CompletionItem[] {
  const items = operatorsFor(lhs.type).flatMap((op) => COMPARE_OPERATORS[op].spellings.map((s) => operatorItem(op, s)));
  if (inApplies(lhs.type).set) items.push({ label: IN_OPERATOR.print, kind: 'operator', detail: 'set or list membership', documentation: inMarkdown() });
  return items;
}

function listItems(cat: LanguageCatalogs): CompletionItem[] {
  return cat.lists.map((l) => ({ label: `$${l.name}`, kind: 'list', detail: listDetail(l), documentation: listMarkdown(l, l.name) }));
}

/** Values known for a field: country codes, protocol names — as string literals. */
function valueItems(context: ExpressionContext): CompletionItem[] {
  if (context.kind !== 'value' && context.kind !== 'set') return [];
  const f = context.lhs.field;
  if (!f || f.type !== 'String') return [];
  if (f.country) return [...COUNTRY_CODES].map((c) => ({ label: `"${c}"`, kind: 'value', detail: 'country code' }));
  if (f.name === 'ip.proto') return PROTOCOL_NAMES.map((p) => ({ label: `"${p}"`, kind: 'value', detail: 'IP protocol' }));
  return [];
}

/** Hover text for the token at `offset`. */
export function hoverExpression(text: string, offset: number, options?: ExpressionLanguageOptions): Hover | undefined {
  if (typeof text !== 'string') return undefined;
  offset = clamp(text, offset);
  const tokens = tokensOf(text);
  const i = tokens.findIndex((t) => t.startOffset <= offset && offset < t.endOffset! + 1);
  const at = i >= 0 ? i : tokens.findIndex((t) => t.endOffset! + 1 === offset);
  if (at < 0) return undefined;
  const tok = tokens[at]!;
  const name = tok.tokenType.name;
  const span = { from: tok.startOffset, to: tok.endOffset! + 1 };
  const cat = catalogsOf(options);
  if (name === 'Identifier') {
    if (tokens[at + 1]?.tokenType.name === 'LParen' && Object.hasOwn(FUNCTIONS, tok.image)) return { ...span, markdown: functionMarkdown(tok.image) };
    const f = cat.scheme.get(tok.image);
    return f ? { ...span, markdown: fieldMarkdown(f) } : undefined;
  }
  if (name === 'ListRef') {
    const listName = tok.image.slice(1);
    return { ...span, markdown: listMarkdown(cat.lists.find((l) => l.name === listName), listName) };
  }
  for (const [op, row] of Object.entries(LOGICAL_OPERATORS) as [LogicalOperator, (typeof LOGICAL_OPERATORS)[LogicalOperator]][]) {
    if (row.tokens.includes(name)) return { ...span, markdown: logicalMarkdown(op) };
  }
  if (NOT_OPERATOR.tokens.includes(name)) return { ...span, markdown: logicalMarkdown('not') };
  if (IN_OPERATOR.tokens.includes(name)) return { ...span, markdown: inMarkdown() };
  const op = operatorOfToken(tokens, at);
  return op ? { ...span, markdown: operatorMarkdown(op) } : undefined;
}

/** The comparison operator a token spells (either word of `strict wildcard` is that operator). */
function operatorOfToken(tokens: readonly IToken[], at: number): CompareOperator | undefined {
  const name = tokens[at]!.tokenType.name;
  const rows = Object.entries(COMPARE_OPERATORS) as [CompareOperator, (typeof COMPARE_OPERATORS)[CompareOperator]][];
  for (const [op, row] of rows) {
    for (const t of row.tokens) {
      if (!t.includes(' ')) continue;
      const words = t.split(' ');
      const k = words.indexOf(name);
      if (k >= 0 && words.every((w, j) => tokens[at - k + j]?.tokenType.name === w)) return op;
    }
  }
  return rows.find(([, row]) => row.tokens.includes(name))?.[0];
}

/** The signature of the function call around `offset`, with the argument being written. */
export function signatureHelpExpression(text: string, offset: number, options?: ExpressionLanguageOptions): SignatureHelp | undefined {
  if (typeof text !== 'string') return undefined;
  offset = clamp(text, offset);
  const { frames } = contextAfter(tokensOf(text.slice(0, offset)), catalogsOf(options).scheme);
  for (let k = frames.length - 1; k >= 0; k--) {
    const f = frames[k]!;
    if (f.kind !== 'call') continue;
    if (!Object.hasOwn(FUNCTIONS, f.name)) return undefined;
    const fn = FUNCTIONS[f.name]!;
    const parameters = parametersOf(fn.signature);
    return { label: fn.signature, parameters, activeParameter: Math.min(f.argument, Math.max(0, parameters.length - 1)), documentation: fn.doc };
  }
  return undefined;
}
