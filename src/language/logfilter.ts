/**
 * Completion and hover in a Logpush filter document (`{"where": {"and": [{"key", "operator", "value"}]}}`)
 * at a cursor offset: the member names of the document, the dataset's fields after `"key"`, the operators
 * the operator table allows for that key's type after `"operator"`. The JSON is read with jsonc-parser's
 * tolerant scanner, so half-typed documents still answer.
 * @module
 */
import { findNodeAtLocation, getLocation, parseTree, type Node } from 'jsonc-parser';
import {
  DATASETS, FIELD_TYPE_KINDS, FIELD_TYPE_LABEL, OPERATORS, OPERATOR_BY_NAME, OPERATOR_MISSPELLINGS, UNFILTERABLE_FIELDS,
  getDataset, operatorSupports, type DatasetField, type FilterOperator, type OperatorInfo,
} from '../logpush/index.js';
import type { CompletionItem, CompletionResult, Hover, LogFilterLanguageOptions } from './types.js';

const code = (s: string) => '`' + s + '`';

/** The members of a filter document and what each holds (the document shape of the filter checker). */
const MEMBERS: Readonly<Record<string, string>> = {
  where: 'The filter: one clause `{"key", "operator", "value"}` or a group `{"and": […]}` / `{"or": […]}`.',
  and: 'A group that holds when every node in its array holds.',
  or: 'A group that holds when at least one node in its array holds.',
  key: 'The log field the clause tests: a field of the job\'s dataset.',
  operator: `How the field is compared: one of ${OPERATORS.map((o) => code(o.name)).join(', ')}.`,
  value: `What the field is compared with: a string, a number or a boolean; an array for ${OPERATORS.filter((o) => o.arrayValue).map((o) => code(o.name)).join(' and ')}.`,
};
const GROUP_MEMBERS = ['and', 'or'];
const CLAUSE_MEMBERS = ['key', 'operator', 'value'];

/** A field of the dataset, or of any dataset when none is named, with the datasets that have it. */
interface FieldEntry {
  field: DatasetField;
  datasets: string[];
}

function fieldsOf(options: LogFilterLanguageOptions | undefined): Map<string, FieldEntry> {
  const name = typeof options?.dataset === 'string' ? options.dataset : undefined;
  const one = name !== undefined ? getDataset(name) : undefined;
  const out = new Map<string, FieldEntry>();
  for (const ds of one ? [one] : DATASETS.values()) {
    for (const f of ds.fields) {
      const known = out.get(f.name);
      if (known) known.datasets.push(ds.name);
      else out.set(f.name, { field: f, datasets: [ds.name] });
    }
  }
  return out;
}

/** Whether a field can be filtered on: its type offers an operator, and the docs do not exclude it. */
function filterable(e: FieldEntry): boolean {
  return FIELD_TYPE_KINDS[e.field.type].length > 0 && !e.datasets.every((d) => UNFILTERABLE_FIELDS.get(d)?.has(e.field.name));
}

function clamp(text: string, offset: number): number {
  return Number.isFinite(offset) ? Math.max(0, Math.min(text.length, Math.floor(offset))) : text.length;
}

/** Where the cursor is, in JSON terms, and the span a proposal replaces. */
interface Spot {
  path: (string | number)[];
  atKey: boolean;
  /** The cursor is inside a string: proposals are its contents, unquoted. */
  inString: boolean;
  from: number;
  to: number;
  root: Node | undefined;
}

function spotAt(text: string, offset: number): Spot {
  const loc = getLocation(text, offset);
  const prev = loc.previousNode;
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (prev && (prev.type === 'string' || prev.type === 'property')) {
    const len = prev.type === 'property' ? (prev.children?.[0]?.length ?? prev.length) : prev.length;
    const end = prev.offset + len;
    const closed = len >= 2 && text.charCodeAt(end - 1) === 34 && text.charCodeAt(end - 2) !== 92;
    if (offset > prev.offset && (offset < end || !closed)) {
      return { path: loc.path, atKey: loc.isAtPropertyKey, inString: true, from: prev.offset + 1, to: closed ? end - 1 : end, root };
    }
  }
  let from = offset;
  const word = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 33;
  while (from > 0 && word(text.charCodeAt(from - 1))) from--;
  let to = offset;
  while (to < text.length && word(text.charCodeAt(to))) to++;
  return { path: loc.path, atKey: loc.isAtPropertyKey, inString: false, from, to, root };
}

/** A string proposal: bare inside quotes, quoted outside. */
function quoted(spot: Spot, item: CompletionItem): CompletionItem {
  return spot.inString ? item : { ...item, insertText: JSON.stringify(item.label) };
}

/** Whether a path names a filter node (the `where` value or an element of an `and`/`or` array). */
function isNodePath(path: readonly (string | number)[]): boolean {
  const n = path.length;
  if (n === 1) return path[0] === 'where';
  return n >= 3 && typeof path[n - 1] === 'number' && (path[n - 2] === 'and' || path[n - 2] === 'or') && isNodePath(path.slice(0, -2));
}

/** The field named by the `key` member of the clause at a path. */
function clauseField(spot: Spot, clausePath: (string | number)[], fields: Map<string, FieldEntry>): FieldEntry | undefined {
  const keyNode = spot.root ? findNodeAtLocation(spot.root, [...clausePath, 'key']) : undefined;
  return keyNode?.type === 'string' ? fields.get(keyNode.value as string) : undefined;
}

/** Proposals at `offset` in a Logpush filter document. */
export function completeLogFilter(text: string, offset: number, options?: LogFilterLanguageOptions): CompletionResult {
  if (typeof text !== 'string') return { from: 0, to: 0, items: [] };
  offset = clamp(text, offset);
  const spot = spotAt(text, offset);
  const { from, to } = spot;
  const fields = fieldsOf(options);
  if (spot.atKey) {
    const objectPath = spot.path.slice(0, -1);
    let names: string[] = [];
    if (objectPath.length === 0) names = ['where'];
    else if (isNodePath(objectPath)) {
      const obj = spot.root ? findNodeAtLocation(spot.root, objectPath) : undefined;
      const present = new Set((obj?.type === 'object' ? obj.children ?? [] : []).filter((p) => !(p.offset <= offset && offset <= p.offset + p.length)).map((p) => p.children?.[0]?.value as string));
      names = [...present].some((k) => CLAUSE_MEMBERS.includes(k)) ? CLAUSE_MEMBERS.filter((k) => !present.has(k)) : [...present].some((k) => GROUP_MEMBERS.includes(k)) ? [] : [...GROUP_MEMBERS, ...CLAUSE_MEMBERS];
    }
    return { from, to, items: names.map((k) => quoted(spot, { label: k, kind: 'key', documentation: MEMBERS[k] })) };
  }
  const last = spot.path[spot.path.length - 1];
  const clausePath = spot.path.slice(0, -1);
  if (!isNodePath(clausePath)) return { from, to, items: [] };
  if (last === 'key') {
    const items = [...fields.values()].filter(filterable).map((e) => quoted(spot, { label: e.field.name, kind: 'field', detail: fieldDetail(e, fields.size), documentation: fieldMarkdown(e) }));
    return { from, to, items };
  }
  if (last === 'operator') {
    const f = clauseField(spot, clausePath, fields);
    const ops = OPERATORS.filter((o) => !f || operatorSupports(o.name, f.field.type));
    return { from, to, items: ops.map((o) => quoted(spot, { label: o.name, kind: 'operator', detail: o.meaning, documentation: operatorMarkdown(o) })) };
  }
  if (last === 'value' && !spot.inString) {
    const f = clauseField(spot, clausePath, fields);
    if (f?.field.type === 'bool') return { from, to, items: ['true', 'false'].map((v) => ({ label: v, kind: 'value' })) };
  }
  return { from, to, items: [] };
}

function fieldDetail(e: FieldEntry, _all: number): string {
  return FIELD_TYPE_LABEL[e.field.type] + (e.field.deprecated ? ' (deprecated)' : '');
}

function fieldMarkdown(e: FieldEntry): string {
  const f = e.field;
  const ops = OPERATORS.filter((o) => operatorSupports(o.name, f.type)).map((o) => code(o.name));
  const parts = [`**${f.name}** ${code(FIELD_TYPE_LABEL[f.type])}`, f.description];
  if (f.deprecated) parts.push('Deprecated in the dataset documentation.');
  const unfilterable = e.datasets.filter((d) => UNFILTERABLE_FIELDS.get(d)?.has(f.name));
  if (unfilterable.length) parts.push(`Cannot be filtered on in ${unfilterable.join(', ')}.`);
  parts.push(ops.length ? `Operators: ${ops.join(' ')}` : 'No filter operator applies to this type.');
  parts.push(`Dataset${e.datasets.length === 1 ? '' : 's'}: ${e.datasets.join(', ')}`);
  return parts.join('\n\n');
}

function operatorMarkdown(o: OperatorInfo): string {
  const parts = [`**${o.name}** — ${o.meaning}`, `Field types: ${o.kinds.join(', ')}.`];
  if (o.arrayValue) parts.push('The value is an array.');
  if (o.negates) parts.push(`The negation of ${code(o.negates)}.`);
  return parts.join('\n\n');
}

/** Hover text at `offset` in a Logpush filter document: a member name, a field, an operator. */
export function hoverLogFilter(text: string, offset: number, options?: LogFilterLanguageOptions): Hover | undefined {
  if (typeof text !== 'string') return undefined;
  offset = clamp(text, offset);
  const loc = getLocation(text, offset);
  const prev = loc.previousNode;
  if (!prev || !(offset >= prev.offset && offset <= prev.offset + prev.length)) return undefined;
  if (prev.type === 'property') {
    const keyNode = prev.children?.[0] ?? prev;
    const name = keyNode.value as string;
    return Object.hasOwn(MEMBERS, name) ? { from: keyNode.offset, to: keyNode.offset + keyNode.length, markdown: `**${name}**\n\n${MEMBERS[name]}` } : undefined;
  }
  if (prev.type !== 'string') return undefined;
  const span = { from: prev.offset, to: prev.offset + prev.length };
  const last = loc.path[loc.path.length - 1];
  const value = prev.value as string;
  if (last === 'key') {
    const e = fieldsOf(options).get(value);
    return e ? { ...span, markdown: fieldMarkdown(e) } : undefined;
  }
  if (last === 'operator') {
    const o = OPERATOR_BY_NAME.get(value);
    if (o) return { ...span, markdown: operatorMarkdown(o) };
    const meant: FilterOperator | undefined = OPERATOR_MISSPELLINGS.get(value);
    return meant ? { ...span, markdown: `${code(value)} is not an operator of the service; it means ${code(meant)}.\n\n${operatorMarkdown(OPERATOR_BY_NAME.get(meant)!)}` } : undefined;
  }
  return undefined;
}
