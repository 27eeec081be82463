/**
 * JSON and YAML inputs: request bodies (a ruleset create or PUT body, a bare array of rules, one rule, a
 * Logpush job), a Logpush filter document, or an array of expression strings — told apart by their
 * shape — and `.rules` files (one expression per non-blank line, `#` comments). Every string that is
 * checked keeps a map from its decoded units back to the file: JSON escapes, YAML's quoting styles and
 * block scalars. Pure: text in, items out.
 * @module
 */
import { isMap, isPair, isScalar, isSeq, parseAllDocuments, Scalar, type Document as YamlDocument, type Node as YamlNode } from 'yaml';
import { toolFile } from './rule-files.js';
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { childPointer, parseJsonText } from '../json/index.js';
import { jsonString, rawLine, yamlBlock, yamlPlain, yamlSingle, type Encoder } from './encode.js';
import { OffsetMap } from './offset-map.js';
import { lintDiagnostic } from './codes.js';
import type { BodyItem, Extracted, TextItem } from './types.js';

/** The shape of a JSON/YAML value: what lint checks it as. */
export type BodyShape =
  | { kind: 'ruleset'; operation: 'create' | 'update'; wrap?: 'array' | 'rule' }
  | { kind: 'job'; operation: 'create' | 'update' }
  | { kind: 'filter' }
  | { kind: 'expressions' };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a parsed JSON/YAML value is, or undefined when it is none of the shapes lint reads. */
export function shapeOf(v: unknown): BodyShape | undefined {
  if (Array.isArray(v)) {
    if (v.length === 0) return undefined;
    if (v.every((x) => typeof x === 'string')) return { kind: 'expressions' };
    if (v.every(isObj) && v.some((x) => 'expression' in x || 'action' in x)) return { kind: 'ruleset', operation: 'update', wrap: 'array' };
    return undefined;
  }
  if (!isObj(v)) return undefined;
  if (Array.isArray(v['rules'])) return { kind: 'ruleset', operation: 'name' in v || 'kind' in v || 'phase' in v ? 'create' : 'update' };
  if ('expression' in v && 'action' in v) return { kind: 'ruleset', operation: 'update', wrap: 'rule' };
  if ('dataset' in v || 'destination_conf' in v) return { kind: 'job', operation: 'dataset' in v && 'destination_conf' in v ? 'create' : 'update' };
  if ('where' in v) return { kind: 'filter' };
  return undefined;
}

/** The value a shape is checked as (`{rules}` around bare rules) and the pointer prefix that wrapping adds. */
function wrapped(value: unknown, shape: BodyShape): { value: unknown; prefix: string } {
  if (shape.kind === 'ruleset' && shape.wrap === 'array') return { value: { rules: value }, prefix: '/rules' };
  if (shape.kind === 'ruleset' && shape.wrap === 'rule') return { value: { rules: [value] }, prefix: '/rules/0' };
  return { value, prefix: '' };
}

/** The file pointer of a pointer into the wrapped value, or undefined when it is outside the file's value. */
function unwrap(pointer: string, prefix: string): string | undefined {
  if (!prefix) return pointer;
  if (pointer === prefix || pointer.startsWith(prefix + '/')) return pointer.slice(prefix.length);
  return undefined;
}

/** Decode the JSON string literal at `range` of `text` (quotes included) with its map. */
export function decodeJsonString(text: string, range: Range): OffsetMap | undefined {
  if (text[range.start] !== '"' || text[range.end - 1] !== '"') return undefined;
  const map = new OffsetMap();
  map.after = range.start + 1;
  const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  for (let i = range.start + 1; i < range.end - 1; ) {
    const c = text[i]!;
    if (c === '\\') {
      const e = text[i + 1]!;
      if (e === 'u') {
        map.push(String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)), i, i + 6);
        i += 6;
      } else {
        map.push(simple[e] ?? e, i, i + 2);
        i += 2;
      }
    } else {
      map.pushVerbatim(c, i);
      i++;
    }
  }
  map.after = range.end - 1;
  return map;
}

function expressionItems(strings: { label: string; map: OffsetMap; encoder?: Encoder; range: Range }[]): TextItem[] {
  return strings.map((s) => ({ kind: 'expression', label: s.label, map: s.map, holes: [], encoder: s.encoder, range: s.range }));
}

/** A file of one shape, given how to locate pointers and decode strings in it. */
function bodyItems(
  value: unknown,
  shape: BodyShape,
  locate: (pointer: string, part: 'value' | 'key') => Range | undefined,
  stringAt: (pointer: string) => { map: OffsetMap; encoder?: Encoder } | undefined,
  wholeRange: Range,
  identity: () => { map: OffsetMap; encoder?: Encoder },
): (TextItem | BodyItem)[] {
  if (shape.kind === 'expressions') {
    return expressionItems(
      (value as string[]).flatMap((_, i) => {
        const p = `/${i}`;
        const s = stringAt(p);
        return s ? [{ label: p, ...s, range: locate(p, 'value') ?? wholeRange }] : [];
      }),
    );
  }
  if (shape.kind === 'filter') {
    const id = identity();
    return [{ kind: 'filter', label: 'filter', map: id.map, holes: [], encoder: id.encoder, range: wholeRange }];
  }
  const w = wrapped(value, shape);
  return [
    {
      kind: shape.kind,
      label: shape.kind === 'job' ? 'Logpush job' : 'ruleset',
      value: w.value,
      operation: shape.operation,
      pointerPrefix: w.prefix,
      locate: (p, part) => {
        const inner = unwrap(p, w.prefix);
        return inner === undefined ? wholeRange : locate(inner, part);
      },
      stringAt: (p) => {
        const inner = unwrap(p, w.prefix);
        return inner === undefined ? undefined : stringAt(inner);
      },
    },
  ];
}

const unrecognized = (text: string, what: string): Diagnostic =>
  lintDiagnostic('lint-unrecognized', `this ${what} is none of the shapes lint reads: a ruleset body ({"name", "kind", "phase", "rules"} or {"rules"}), an array of rules, a rule, a Logpush job, a Logpush filter ({"where"}) or an array of expressions`, { start: 0, end: Math.min(text.length, 1) });

/** Extract from a JSON file. `unknownShape`: report a file of no known shape (true for files named on the command line). */
export function extractJson(text: string, unknownShape = true): Extracted {
  const out: Extracted = { kind: 'json', items: [], diagnostics: [] };
  const parsed = parseJsonText(text, 128);
  if (!parsed.doc) {
    const e = parsed.errors[0];
    out.diagnostics.push(lintDiagnostic('lint-parse-error', `not valid JSON: ${e?.message ?? 'unreadable'}`, e?.range ?? { start: 0, end: 0 }));
    return out;
  }
  const doc = parsed.doc;
  const shape = shapeOf(doc.value);
  if (!shape) {
    if (unknownShape) out.diagnostics.push(unrecognized(text, 'JSON file'));
    return out;
  }
  const whole = doc.valueRange('') ?? { start: 0, end: text.length };
  const stringAt = (p: string) => {
    const r = doc.valueRange(p);
    const map = r && decodeJsonString(text, r);
    return map ? { map, encoder: jsonString } : undefined;
  };
  out.items.push(...bodyItems(doc.value, shape, (p, part) => (part === 'key' ? doc.keyRange(p) : doc.valueRange(p)), stringAt, whole, () => ({ map: OffsetMap.verbatim(text, 0), encoder: (s) => s })));
  const body = out.items[0];
  if (body && (body.kind === 'ruleset' || body.kind === 'job') && doc.duplicates.length) {
    body.textDiagnostics = doc.duplicates.map((d) => ({
      code: body.kind === 'job' ? 'job-duplicate-member' : 'ruleset-duplicate-member',
      severity: 'warning' as const,
      message: `"${d.key}" appears twice in this object; only the last one counts`,
      range: d.range,
      pointer: d.pointer,
    }));
  }
  return out;
}

/**
 * Extract from a YAML file (see {@link extractJson}): every document of it (`---` between Kubernetes
 * manifests), each a body of a shape lint reads or a rule-management tool's file (rule-files.ts).
 */
export function extractYaml(text: string, unknownShape = true): Extracted {
  const out: Extracted = { kind: 'yaml', items: [], diagnostics: [] };
  const docs = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: false });
  if (!Array.isArray(docs)) return out; // an empty stream
  for (const doc of docs) {
    if (doc.errors.length) {
      const e = doc.errors[0]!;
      out.diagnostics.push(lintDiagnostic('lint-parse-error', `not valid YAML: ${e.message.split('\n')[0]}`, { start: e.pos[0], end: Math.max(e.pos[0], e.pos[1]) }));
      return out;
    }
  }
  let read = 0;
  for (const doc of docs) if (yamlDocument(text, doc, out)) read++;
  if (!read && unknownShape) out.diagnostics.push(unrecognized(text, 'YAML file'));
  return out;
}

/** The items of one YAML document into `out`; false when it is of no shape lint reads. */
function yamlDocument(text: string, doc: YamlDocument, out: Extracted): boolean {
  const value: unknown = doc.toJS();
  const tool = shapeOf(value) ? undefined : toolFile(value);
  const shape = shapeOf(value);
  if (!shape && !tool) return false;
  const nodes = new Map<string, { value: YamlNode; key?: YamlNode }>();
  const walk = (n: unknown, pointer: string, key?: YamlNode) => {
    if (!n || typeof n !== 'object') return;
    nodes.set(pointer, { value: n as YamlNode, key });
    if (isMap(n)) {
      for (const item of n.items) {
        if (!isPair(item)) continue;
        const k = isScalar(item.key) ? String(item.key.value) : String(item.key);
        walk(item.value, childPointer(pointer, k), item.key as YamlNode);
      }
    } else if (isSeq(n)) n.items.forEach((item, i) => walk(item, childPointer(pointer, i)));
  };
  walk(doc.contents, '');
  const rangeOf = (n: YamlNode | undefined): Range | undefined => (n?.range ? { start: n.range[0], end: n.range[1] } : undefined);
  const whole = rangeOf(doc.contents as YamlNode) ?? { start: 0, end: text.length };
  const stringAt = (p: string) => {
    const n = nodes.get(p)?.value;
    return n && isScalar(n) && typeof n.value === 'string' ? decodeYamlScalar(text, n as Scalar<string>) : undefined;
  };
  const locate = (p: string, part: 'value' | 'key') => rangeOf(part === 'key' ? nodes.get(p)?.key : nodes.get(p)?.value);
  if (tool) {
    for (const rs of tool.rulesets) {
      out.items.push({
        kind: 'ruleset',
        label: rs.label,
        value: rs.body,
        operation: 'name' in rs.body ? 'create' : 'update',
        pointerPrefix: '',
        showPointer: rs.filePointer,
        locate: (p, part) => locate(rs.filePointer(p), part) ?? locate(rs.filePointer(p), 'value') ?? whole,
        stringAt: (p) => stringAt(rs.filePointer(p)),
      });
    }
    if (tool.lists) out.lists = { ...out.lists, ...tool.lists };
    return true;
  }
  out.items.push(...bodyItems(value, shape!, locate, stringAt, whole, () => ({ map: OffsetMap.verbatim(text, 0), encoder: (s) => s })));
  return true;
}

/**
 * Decode a YAML string scalar from its source with a map. Plain and quoted one-line scalars and literal
 * blocks (`|`) map unit by unit; other styles (folded, multi-line flow scalars) map every unit to the
 * whole scalar and take no fixes. The result is checked against the parser's value, so a style this
 * reader gets wrong costs precision, never a wrong reading.
 */
export function decodeYamlScalar(text: string, node: Scalar<string>): { map: OffsetMap; encoder?: Encoder } {
  const [start, end] = node.range ?? [0, 0];
  const raw = text.slice(start, end);
  const value = node.value;
  const fallback = () => {
    const m = new OffsetMap();
    m.push(value, start, end);
    m.after = end;
    return { map: m };
  };
  let map: OffsetMap | undefined;
  let encoder: Encoder | undefined;
  if (node.type === Scalar.PLAIN && !raw.includes('\n')) {
    map = OffsetMap.verbatim(raw.trimEnd(), start);
    encoder = yamlPlain;
  } else if (node.type === Scalar.QUOTE_SINGLE && !raw.includes('\n')) {
    map = new OffsetMap();
    map.after = start + 1;
    for (let i = start + 1; i < end - 1; i++) {
      if (text[i] === "'" && text[i + 1] === "'") {
        map.push("'", i, i + 2);
        i++;
      } else map.pushVerbatim(text[i]!, i);
    }
    map.after = end - 1;
    encoder = yamlSingle;
  } else if (node.type === Scalar.QUOTE_DOUBLE && !raw.includes('\n')) {
    map = decodeYamlDouble(text, start, end);
    encoder = (s) => (/[\r\n]/.test(s) ? undefined : jsonString(s));
  } else if (node.type === Scalar.BLOCK_LITERAL) {
    map = decodeLiteralBlock(text, start, end);
    encoder = yamlBlock;
  }
  if (!map || map.text !== value) return fallback();
  return { map, encoder };
}

function decodeYamlDouble(text: string, start: number, end: number): OffsetMap {
  const map = new OffsetMap();
  map.after = start + 1;
  const simple: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029' };
  for (let i = start + 1; i < end - 1; ) {
    const c = text[i]!;
    if (c === '\\') {
      const e = text[i + 1]!;
      const len = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (len) {
        map.push(String.fromCodePoint(parseInt(text.slice(i + 2, i + 2 + len), 16)), i, i + 2 + len);
        i += 2 + len;
      } else {
        map.push(simple[e] ?? e, i, i + 2);
        i += 2;
      }
    } else {
      map.pushVerbatim(c, i);
      i++;
    }
  }
  map.after = end - 1;
  return map;
}

/** A `|` block: indentation of the first content line removed, line breaks kept, chomping applied. */
function decodeLiteralBlock(text: string, start: number, end: number): OffsetMap | undefined {
  const header = /^\|([1-9]?)([+-]?)([1-9]?)[ \t]*(?:#[^\n]*)?\r?\n/.exec(text.slice(start, end));
  if (!header) return undefined;
  const chomp = header[2] || '';
  const explicit = Number(header[1] || header[3] || 0);
  const map = new OffsetMap();
  let p = start + header[0].length;
  let indent = -1;
  const lines: { s: number; e: number; nl: number }[] = [];
  while (p < end) {
    let e = text.indexOf('\n', p);
    if (e < 0 || e > end) e = end;
    const le = e > p && text[e - 1] === '\r' ? e - 1 : e;
    lines.push({ s: p, e: le, nl: e < end ? e + 1 : e });
    p = e + 1;
  }
  for (const l of lines) {
    const line = text.slice(l.s, l.e);
    if (indent < 0 && line.trim() !== '') indent = explicit || /^ */.exec(line)![0].length;
  }
  if (indent < 0) indent = 0;
  for (const l of lines) {
    const from = Math.min(l.s + indent, l.e);
    map.pushVerbatim(text.slice(from, l.e), from);
    if (l.nl > l.e) map.push('\n', l.e, l.nl);
  }
  // Chomping: clip keeps one final line break, strip none, keep all.
  if (chomp !== '+') {
    let t = map.text;
    let n = t.length;
    while (n > 0 && t[n - 1] === '\n') n--;
    const keep = chomp === '-' ? n : Math.min(t.length, n + 1);
    if (keep < t.length) {
      const cut = new OffsetMap();
      for (let i = 0; i < keep; i++) {
        const s = map.span(i);
        cut.push(t[i]!, s.start, s.end);
      }
      cut.after = keep > 0 ? map.span(keep - 1).end : start;
      t = '';
      return cut;
    }
  }
  return map;
}

/** Extract from a `.rules` file: one expression per non-blank line, `#` starts a comment line. */
export function extractRules(text: string): Extracted {
  const out: Extracted = { kind: 'rules', items: [], diagnostics: [] };
  let offset = 0;
  let line = 1;
  for (const raw of text.split('\n')) {
    const expr = raw.replace(/\r$/, '');
    if (expr.trim() && !expr.trimStart().startsWith('#')) {
      out.items.push({ kind: 'expression', label: `line ${line}`, map: OffsetMap.verbatim(expr, offset), holes: [], encoder: rawLine, range: { start: offset, end: offset + expr.length } });
    }
    offset += raw.length + 1;
    line++;
  }
  return out;
}
