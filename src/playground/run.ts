/**
 * What each tab computes, apart from the page: an expression or a ruleset over the packet table, a
 * Logpush filter over log lines, a capture through the ruleset. Plain functions of the state's texts,
 * so they are tested without a browser. Everything here goes through rulekit's public entry points.
 * @module
 */
import {
  compileExpression,
  hasErrors,
  NETWORK_SCHEME,
  print,
  toWireshark,
  validateRuleset,
  simulate,
  compileRuleset,
  LIST_KIND_NAMES,
  type Diagnostic,
  type ExpressionOptions,
  type ListItems,
  type Packet,
  type Rule,
  type RuleRef,
} from '../index.js';
import { compileLogFilter, explainLogFilter, logFilterToExpression, printLogFilter, type FilterExplanation } from '../logpush/index.js';
import { decodePacket, readCaptureBatches, type CaptureSummary } from '../capture/index.js';
import { parseJsonText } from '../json/index.js';
import { phaseExpressionOptions, phaseFieldDiagnostics, phaseInfo } from '../ruleset/index.js';
import { type SimulationSummary, type Verdict } from '../engine/index.js';
import { readRequests, requestRecord, simulateRequests, type HttpRequest } from '../http/index.js';
import type { Placed } from './lint.js';

/** Lists from their JSON text, or the reason they cannot be read. */
export function parseLists(text: string): { lists?: ListItems; error?: string } {
  if (!text.trim()) return { lists: {} };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `the lists are not JSON: ${(e as Error).message}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { error: 'the lists must be a JSON object: {"name": ["192.0.2.0/24", ...], "hosts": {"kind": "hostname", "items": ["*.example.com"]}}' };
  for (const [name, items] of Object.entries(v)) {
    if (items !== null && typeof items === 'object' && !Array.isArray(items)) {
      // A list of another kind (asn, hostname, redirect) names it; its items are checked where the list is used.
      const { kind, items: typed } = items as { kind?: unknown; items?: unknown };
      if (typeof kind !== 'string' || !(LIST_KIND_NAMES as readonly string[]).includes(kind)) return { error: `list "${name}" has kind ${JSON.stringify(kind)}; the kinds are ${LIST_KIND_NAMES.join(', ')}` };
      if (!Array.isArray(typed)) return { error: `list "${name}" needs an "items" array` };
      continue;
    }
    if (!Array.isArray(items) || !items.every((i) => typeof i === 'string')) return { error: `list "${name}" must be an array of strings (addresses, CIDRs, ranges), or {"kind": "hostname"|"asn"|"redirect", "items": [...]}` };
  }
  return { lists: v as ListItems };
}

/** A packet from the table's cell texts: each value read as its field's type; empty cells are missing fields. */
export function packetOf(cells: Record<string, string>): { packet: Packet; problems: string[] } {
  const packet: Record<string, Packet[string]> = {};
  const problems: string[] = [];
  for (const [field, raw] of Object.entries(cells)) {
    const text = raw.trim();
    if (text === '') continue;
    const type = NETWORK_SCHEME.get(field)?.type;
    if (type === 'Int') {
      const n = /^(?:0x[0-9a-f]+|-?\d+)$/i.test(text) ? Number(text) : NaN;
      if (Number.isSafeInteger(n)) packet[field] = n;
      else problems.push(`${field}: "${text}" is not an integer`);
    } else if (type === 'Bool') {
      if (text === 'true' || text === 'false') packet[field] = text === 'true';
      else problems.push(`${field}: "${text}" is not true or false`);
    } else if (type === undefined) {
      problems.push(`${field} is not a field of the network scheme`);
    } else {
      packet[field] = text;
    }
  }
  return { packet, problems };
}

/** The outcome for one packet of the table. */
export interface PacketOutcome {
  /** `match` / `no match` for an expression; `allow` / `block` for a ruleset; `error` when it did not run. */
  verdict: 'match' | 'no match' | Verdict | 'error';
  /** The rule that decided (ruleset mode). */
  decidedBy?: RuleRef;
  /** Why it did not run, or what was wrong with the packet's cells. */
  problems: string[];
}

/** The views beside the editor: AST, canonical form, Wireshark filter (absent when the text has errors). */
export interface ExpressionViews {
  /** Which expression these are of (ruleset mode: the rule's index and ref). */
  title?: string;
  ast?: string;
  canonical?: string;
  wireshark?: string;
  /** Why there is no Wireshark filter, when the expression has no equivalent there. */
  wiresharkNote?: string;
}

/** One request of the requests list (HTTP phases) and its outcome. */
export interface RequestOutcome extends PacketOutcome {
  /** `GET https://example.com/admin`. */
  label: string;
}

/** What the rules tab shows. */
export interface RulesOutcome {
  /** Diagnostics placed in the editor's text. */
  diagnostics: { diagnostic: Diagnostic; placed: Placed }[];
  packets: PacketOutcome[];
  /** HTTP phases: the requests of the requests list instead of the packet table, and the list's problems. */
  requests?: RequestOutcome[];
  requestProblems?: string[];
  views: ExpressionViews;
  /** A problem outside the editor (the lists). */
  error?: string;
  /** Ruleset mode: the body's own `phase`, which the ruleset is checked for (the selector is not). */
  phase?: string;
}

/** A node of the AST as the tree view reads it (the AST is plain data, a union on `kind`). */
type AstObject = { kind: string; range?: { start: number; end: number } } & Record<string, unknown>;

const isNode = (v: unknown): v is AstObject => typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string';

/**
 * The AST as an indented tree, a node a line: its kind, its scalar members (`op`, `name`, `text`…) and
 * its range `[start, end)`; children below it under the member that holds them. Written over any node
 * shape, so a new kind of node shows without a change here.
 */
export function astText(node: unknown, indent = '', label = ''): string {
  if (!isNode(node)) return `${indent}${label}${JSON.stringify(node)}`;
  const scalars: string[] = [];
  const children: string[] = [];
  for (const [k, v] of Object.entries(node)) {
    if (k === 'kind' || k === 'id' || k === 'range' || k.endsWith('Range')) continue;
    if (isNode(v)) children.push(astText(v, `${indent}  `, `${k}: `));
    else if (Array.isArray(v) && v.some(isNode)) v.forEach((c, i) => children.push(astText(c, `${indent}  `, `${k}[${i}]: `)));
    else if (v !== undefined) scalars.push(`${k}=${JSON.stringify(v)}`);
  }
  const range = node.range ? `  [${node.range.start}, ${node.range.end})` : '';
  return [`${indent}${label}${node.kind}${scalars.length ? ` ${scalars.join(' ')}` : ''}${range}`, ...children].join('\n');
}

/** The views of one expression (checked with `phase`'s fields). */
export function expressionViews(text: string, lists: ListItems | undefined, phase?: string): ExpressionViews {
  const compiled = compileExpression(text, phaseExpressionOptions<ExpressionOptions>(phase, { lists }));
  if (!compiled.ast) return {};
  const views: ExpressionViews = { ast: astText(compiled.ast) };
  if (hasErrors(compiled.diagnostics)) return views;
  views.canonical = print(compiled.ast);
  if (isHttpPhase(phase)) {
    views.wiresharkNote = 'HTTP-phase expressions are not exported to Wireshark';
    return views;
  }
  const ws = toWireshark(text, { lists });
  if (ws.filter !== undefined) views.wireshark = ws.filter;
  else views.wiresharkNote = ws.diagnostics.map((d) => d.message).join('; ') || 'no equivalent';
  return views;
}

/** Whether a phase reads HTTP requests (else packets). */
export function isHttpPhase(phase: string | undefined): boolean {
  return phase !== undefined && phaseInfo(phase)?.fields === 'http';
}

/** The requests of the requests list (NDJSON request objects or a HAR document) and what is wrong with it. */
export function requestsOf(text: string): { requests: HttpRequest[]; problems: string[] } {
  const read = readRequests(text);
  return { requests: read.requests.map((r) => r.request), problems: read.diagnostics.map((d) => `${d.severity}: ${d.message}${d.pointer && !d.data?.['line'] ? ` (${d.pointer})` : ''}`) };
}

const labelOf = (r: HttpRequest) => `${r.method.toUpperCase()} ${r.url}`;

/**
 * An expression over the packets — or, for an HTTP phase, over the requests list — match or not each;
 * checked with the phase's field set (response fields only in response phases).
 */
export function runExpression(text: string, listsText: string, rows: Record<string, string>[], phase = 'network_transit', requestsText = ''): RulesOutcome {
  const { lists, error } = parseLists(listsText);
  const http = isHttpPhase(phase);
  const compiled = compileExpression(text, phaseExpressionOptions<ExpressionOptions>(phase, { lists }));
  const found = phaseFieldDiagnostics(text, compiled.diagnostics, phase, compiled.ast);
  const diagnostics = found.map((d) => ({ diagnostic: d, placed: { from: d.range?.start ?? 0, to: d.range?.end ?? text.length, fix: d.fix } }));
  const matcher = hasErrors(found) ? undefined : compiled.matcher;
  if (http) {
    const { requests, problems } = requestsOf(requestsText);
    const outcomes = requests.map((r): RequestOutcome => ({ label: labelOf(r), verdict: matcher ? (matcher(requestRecord(r)) ? 'match' : 'no match') : 'error', problems: [] }));
    return { diagnostics, packets: [], requests: outcomes, requestProblems: problems, views: expressionViews(text, lists, phase), error };
  }
  const packets = rows.map((row): PacketOutcome => {
    const { packet, problems } = packetOf(row);
    if (!matcher) return { verdict: 'error', problems };
    return { verdict: matcher(packet) ? 'match' : 'no match', problems };
  });
  return { diagnostics, packets, views: expressionViews(text, lists), error };
}

/**
 * Where a ruleset diagnostic sits in the JSON text. An expression's diagnostic is inside its string:
 * at its own span (and with its fix, JSON-escaped) when the string has no escapes, else on the whole string.
 */
export function placeInDocument(d: Diagnostic, text: string, valueRange: (pointer: string) => { start: number; end: number } | undefined): Placed {
  const documentRange = d.data?.['documentRange'] as { start: number; end: number } | undefined;
  if (d.rangeIn === 'value') {
    if (documentRange && d.range) {
      const shift = documentRange.start - d.range.start;
      const fix = d.fix && { title: d.fix.title, edits: d.fix.edits.map((e) => ({ range: { start: e.range.start + shift, end: e.range.end + shift }, newText: JSON.stringify(e.newText).slice(1, -1) })) };
      return { from: documentRange.start, to: documentRange.end, fix };
    }
    const at = d.pointer !== undefined ? valueRange(d.pointer) : undefined;
    return at ? { from: at.start, to: at.end } : { from: 0, to: text.length };
  }
  if (d.range) return { from: d.range.start, to: d.range.end, fix: d.fix };
  const at = d.pointer !== undefined ? valueRange(d.pointer) : undefined;
  return at ? { from: at.start, to: at.end } : { from: 0, to: 0 };
}

/** The rule whose expression string holds `offset`, if any. */
export function ruleAt(text: string, offset: number): number | undefined {
  const doc = parseJsonText(text, 64).doc;
  const rules = (doc?.value as { rules?: unknown } | undefined)?.rules;
  if (!doc || !Array.isArray(rules)) return undefined;
  for (let i = 0; i < rules.length; i++) {
    const r = doc.memberRange(`/rules/${i}`) ?? doc.valueRange(`/rules/${i}`);
    if (r && offset >= r.start && offset <= r.end) return i;
  }
  return undefined;
}

/** A ruleset body over the packets: verdict and deciding rule per packet; the views of the rule at `cursor`. */
export function runRuleset(text: string, listsText: string, rows: Record<string, string>[], cursor = 0, requestsText = ''): RulesOutcome {
  const { lists, error } = parseLists(listsText);
  const found = validateRuleset(text, { expression: { lists } });
  const parsed = parseJsonText(text, 64);
  const valueRange = (p: string) => parsed.doc?.valueRange(p) ?? parsed.doc?.keyRange(p);
  const diagnostics = found.map((d) => ({ diagnostic: d, placed: placeInDocument(d, text, valueRange) }));
  const body = parsed.doc?.value as { rules: Rule[] } | undefined;
  const rulesetErrors = hasErrors(found);
  const packets = rows.map((row): PacketOutcome => {
    const { packet, problems } = packetOf(row);
    if (rulesetErrors || !body) return { verdict: 'error', problems };
    const r = simulate(body, [packet], { lists });
    const v = r.results[0];
    if (!v) return { verdict: 'error', problems: r.diagnostics.map((d) => d.message) };
    return v.decidedBy ? { verdict: v.verdict, decidedBy: v.decidedBy, problems } : { verdict: v.verdict, problems };
  });
  const rules = Array.isArray(body?.rules) ? body!.rules : [];
  const inRule = ruleAt(text, cursor);
  const at = inRule ?? 0;
  const expression = rules[at]?.expression;
  const declared = (body as { phase?: unknown } | undefined)?.phase;
  const phase = typeof declared === 'string' ? declared : undefined;
  const views: ExpressionViews = typeof expression === 'string' ? expressionViews(expression, lists, phase) : {};
  if (typeof expression === 'string') views.title = `${inRule === undefined ? 'The first rule' : 'The rule at the cursor'}: #${at}${typeof rules[at]?.ref === 'string' ? ` ${rules[at]!.ref}` : ''}`;
  if (isHttpPhase(phase)) {
    // An HTTP-phase ruleset runs over the requests list, not the packet table.
    const { requests, problems } = requestsOf(requestsText);
    const sim = rulesetErrors || !body ? undefined : simulateRequests(body as never, requests, { lists });
    const outcomes = requests.map((r, i): RequestOutcome => {
      const v = sim?.results[i];
      if (!v) return { label: labelOf(r), verdict: 'error', problems: [] };
      return v.decidedBy ? { label: labelOf(r), verdict: v.verdict, decidedBy: v.decidedBy, problems: [] } : { label: labelOf(r), verdict: v.verdict, problems: [] };
    });
    return { diagnostics, packets: [], requests: outcomes, requestProblems: problems, views, error, phase };
  }
  return phase === undefined ? { diagnostics, packets, views, error } : { diagnostics, packets, views, error, phase };
}

/** The outcome for one log line. */
export interface LineOutcome {
  line: number;
  kept?: boolean;
  /** Why: the explanation tree of the filter on this line. */
  explanation?: FilterExplanation;
  /** The line is not a JSON object. */
  error?: string;
}

/** What the Logpush tab shows. */
export interface LogpushOutcome {
  diagnostics: Diagnostic[];
  lines: LineOutcome[];
  /** The filter in readable form (`EdgeResponseStatus >= 500 and …`). */
  readable?: string;
  /** The filter document as the printer writes it (canonical JSON). */
  canonical?: string;
}

/** A filter over NDJSON lines: kept or dropped per line, with the explanation. */
export function runLogFilter(filterText: string, dataset: string, linesText: string): LogpushOutcome {
  const compiled = compileLogFilter(filterText, { dataset });
  const out: LogpushOutcome = { diagnostics: compiled.diagnostics, lines: [] };
  if (compiled.filter) {
    out.readable = logFilterToExpression(compiled.filter);
    out.canonical = printLogFilter(compiled.filter);
  }
  linesText.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      out.lines.push({ line: i + 1, error: `not JSON: ${(e as Error).message}` });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      out.lines.push({ line: i + 1, error: 'not a JSON object' });
      return;
    }
    if (!compiled.filter || !compiled.matcher) {
      out.lines.push({ line: i + 1 });
      return;
    }
    out.lines.push({ line: i + 1, kept: compiled.matcher(value as Record<string, unknown>), explanation: explainLogFilter(compiled.filter, value) });
  });
  return out;
}

/** The rules the capture tab runs: the ruleset, or the expression as one blocking rule. */
export function rulesOf(mode: 'expression' | 'ruleset', expression: string, rulesetText: string): { rules?: Rule[]; error?: string } {
  if (mode === 'expression') return { rules: [{ action: 'block', expression, description: 'the expression' }] };
  let body: unknown;
  try {
    body = JSON.parse(rulesetText);
  } catch {
    return { error: 'the ruleset is not JSON' };
  }
  const rules = (body as { rules?: unknown })?.rules;
  return Array.isArray(rules) ? { rules: rules as Rule[] } : { error: 'the ruleset has no "rules" array' };
}

/** What the capture tab shows. */
export interface CaptureOutcome {
  /** The capture as read: format, records, bytes, corrupt records. */
  capture: CaptureSummary;
  /** The simulation: verdict totals and per-rule figures. */
  summary?: SimulationSummary;
  /** Problems of the rules (nothing simulated). */
  diagnostics: Diagnostic[];
  /** Each packet's capture time (ms since the epoch) and verdict, for the drawing over time. */
  times?: { t: number; series: 'block' | 'allow' }[];
  /** Sources (`ip.src`) of the blocked packets, most blocked first (at most 10). */
  topBlocked?: { source: string; count: number }[];
}

/**
 * A capture's bytes through the rules, in the browser: the capture readers stream its records (pcap,
 * pcapng), the compiled ruleset's frame counter decides each one, and the summary comes out.
 */
export async function simulateCapture(source: Uint8Array | ReadableStream<Uint8Array>, rules: Rule[], listsText: string): Promise<CaptureOutcome> {
  const { lists } = parseLists(listsText);
  const compiled = compileRuleset({ rules }, { lists });
  const batches = readCaptureBatches(source, { copyData: false });
  const count = compiled.hasErrors ? undefined : compiled.frameCounter();
  // The deciding rule's verdict (a skip allows), and what the drawings need: times, blocked sources.
  const blocks = rules.map((r) => r.action === 'block');
  const times: { t: number; series: 'block' | 'allow' }[] = [];
  const sources = new Map<string, number>();
  const sourceField = { fields: new Set(['ip.src']), problems: false };
  for (;;) {
    const next = await batches.next();
    if (next.done) {
      if (!count) return { capture: next.value, diagnostics: compiled.diagnostics };
      const topBlocked = [...sources].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10).map(([source, n]) => ({ source, count: n }));
      return { capture: next.value, summary: compiled.summary(), diagnostics: compiled.diagnostics, times, topBlocked };
    }
    if (!count) continue;
    for (const r of next.value) {
      const i = count(r.data, 0, r.data.length, r.linkType, r.index);
      const blocked = i >= 0 && blocks[i] === true;
      times.push({ t: Number(r.timestampNs) / 1e6, series: blocked ? 'block' : 'allow' });
      if (blocked) {
        const src = decodePacket({ linkType: r.linkType, data: r.data }, sourceField).packet['ip.src'];
        const key = typeof src === 'string' ? src : 'no IP source';
        sources.set(key, (sources.get(key) ?? 0) + 1);
      }
    }
  }
}
