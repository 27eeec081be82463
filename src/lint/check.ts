/**
 * Checking what the extractors found: expressions with the expression checker, filters with the Logpush
 * filter checker, bodies with the ruleset and job validators; every diagnostic is then brought into the
 * file's coordinates through the item's {@link OffsetMap}, and every fix into edits of the file, its new
 * text re-encoded for the literal it lands in. Terraform interpolations are stood in for by a placeholder
 * of a fitting type (the first of a few candidates that the checker accepts at that place).
 * Pure (no I/O); runs in a browser.
 * @module
 */
import type { Diagnostic, Range, TextEdit } from '../diagnostics/index.js';
import { checkExpression, ListCatalog, type ExpressionOptions } from '../expression/index.js';
import { checkLogFilter, validateLogpushJob } from '../logpush/index.js';
import { checkRuleValueExpression, phaseExpressionOptions, phaseFieldDiagnostics, phaseInfo, validateRuleset, type RulesetPhase } from '../ruleset/index.js';
import { analyzeRuleset } from '../analysis/index.js';
import { lintDiagnostic } from './codes.js';
import type { Interpolation } from './hcl.js';
import { OffsetMap } from './offset-map.js';
import type { BodyItem, Extracted, LintDiagnostic, TextItem } from './types.js';

export type { LintDiagnostic } from './types.js';


/** Options of the checks. */
export interface LintCheckOptions {
  expression?: ExpressionOptions;
  /**
   * Run ruleset analysis on bodies without errors (default true). An editor checking as the user types
   * leaves it out of the keystroke path: it costs far more than validation (bench/lsp.ts).
   */
  analysis?: boolean;
}

/**
 * Codes whose fix keeps the rule's meaning (what was meant is unambiguous): `--fix` applies these. The
 * did-you-mean fixes (unknown fields, lists, datasets) are shown but never applied.
 */
export const SAFE_FIX_CODES: ReadonlySet<string> = new Set([
  'tab-whitespace', 'comma-in-set', 'uppercase-keyword', 'cidr-outside-set', 'range-outside-set', 'duplicate-set-item',
  'lowercase-country-code', 'uppercase-protocol',
  'filter-misspelt-operator', 'filter-value-string', 'filter-value-not-array', 'destination-date-placeholder',
  // Removing a suppression that suppresses nothing changes no finding.
  'lint-unused-suppression',
]);

/** Check everything extracted from one file; diagnostics are in the file's coordinates, sorted. */
export function checkExtracted(ex: Extracted, options: LintCheckOptions = {}): LintDiagnostic[] {
  // Lists the file declares join the caller's (the caller's win: they are what the run was given).
  const given = options.expression?.lists;
  const expr = prepared(ex.lists && !(given instanceof ListCatalog) ? { ...options.expression, lists: { ...ex.lists, ...given } } : options.expression);
  const out: LintDiagnostic[] = [...ex.diagnostics];
  for (const item of ex.items) {
    if ('value' in item) out.push(...checkBody(item, expr, options.analysis !== false));
    else out.push(...checkText(item, expr));
  }
  return out.sort((a, b) => (a.range?.start ?? 0) - (b.range?.start ?? 0) || (a.range?.end ?? 0) - (b.range?.end ?? 0));
}

/** Lists are turned into a catalog once per run, not once per expression. */
function prepared(o: ExpressionOptions | undefined): ExpressionOptions {
  if (!o?.lists || o.lists instanceof ListCatalog) return o ?? {};
  return { ...o, lists: ListCatalog.from(o.lists, { serviceToken: o.serviceToken }) };
}

/** Text with stand-ins in the holes, and the map of the result. */
function fill(map: OffsetMap, holes: readonly Interpolation[], fills: readonly string[]): { map: OffsetMap; spans: Range[] } {
  if (!holes.length) return { map, spans: [] };
  const m = new OffsetMap();
  const spans: Range[] = [];
  let h = 0;
  for (let i = 0; i <= map.length; i++) {
    while (h < holes.length && holes[h]!.at === i) {
      const at = m.length;
      m.push(fills[h]!, holes[h]!.range.start, holes[h]!.range.end);
      spans.push({ start: at, end: m.length });
      h++;
    }
    if (i < map.length) {
      const s = map.span(i);
      m.push(map.text[i]!, s.start, s.end);
    }
  }
  m.after = map.after;
  return { map: m, spans };
}

/** Inside a string of the text at offset `at` (an expression's "…" or a JSON string)? */
function insideString(text: string, at: number): boolean {
  let inside = false;
  for (let i = 0; i < at; i++) {
    const c = text[i];
    if (c === '\\' && inside) i++;
    else if (c === '"') inside = !inside;
  }
  return inside;
}

const overlaps = (a: Range, b: Range) => a.start < b.end && b.start < a.end;
const within = (a: Range, b: Range) => a.start >= b.start && a.end <= b.end;

function runText(item: TextItem, text: string, expr: ExpressionOptions): Diagnostic[] {
  if (item.kind === 'expression' && item.slot) return checkRuleValueExpression(text, item.slot, item.phase, expr);
  if (item.kind === 'expression') {
    const r = checkExpression(text, phaseExpressionOptions(item.phase, expr));
    return phaseFieldDiagnostics(text, r.diagnostics, item.phase, r.ast);
  }
  return checkLogFilter(text, { dataset: item.dataset ?? '', scope: item.scope }).diagnostics.filter((d) => d.code !== 'filter-unknown-dataset');
}

function checkText(item: TextItem, expr: ExpressionOptions): LintDiagnostic[] {
  const base = item.map.text;
  if (item.kind === 'expression' && item.phase === 'http_log_custom_fields' && base.trim() === 'true') return [];
  // Stand-ins: for each hole in turn, the first candidate with no diagnostic on it.
  const fills: string[] = [];
  const candidates = item.holes.map((h) => {
    if (insideString(base, h.at)) return ['x', '0'];
    if (item.kind !== 'expression') return ['0', '"x"', 'true'];
    return ['0', '192.0.2.1', item.phase !== undefined && phaseInfo(item.phase)?.fields === 'http' ? 'ssl' : 'tcp.flags.syn', '"x"'];
  });
  candidates.forEach((c) => fills.push(c[0]!));
  for (let i = 0; i < item.holes.length; i++) {
    let best = { fill: candidates[i]![0]!, score: Infinity };
    for (const c of candidates[i]!) {
      fills[i] = c;
      const f = fill(item.map, item.holes, fills);
      const score = runText(item, f.map.text, expr).filter((d) => d.severity === 'error' && (!d.range || overlaps(d.range, f.spans[i]!) || d.range.start === f.spans[i]!.start)).length;
      if (score < best.score) best = { fill: c, score };
      if (score === 0) break;
    }
    fills[i] = best.fill;
  }
  const { map, spans } = fill(item.map, item.holes, fills);
  const out: LintDiagnostic[] = item.holes.map((h, i) =>
    lintDiagnostic('lint-interpolation', `${h.text.length > 60 ? h.text.slice(0, 57) + '…' : h.text} is known only when Terraform applies; ${item.label} was checked with ${fills[i]} in its place`, h.range, { where: item.label } as Partial<Diagnostic>),
  );
  for (const d of runText(item, map.text, expr)) {
    // About the stand-in itself: not the user's text.
    if (d.range && spans.some((s) => within(d.range!, s))) continue;
    const r: LintDiagnostic = { ...d, range: d.range ? map.toSource(d.range) : item.range, where: item.label };
    delete r.rangeIn;
    if (item.kind === 'filter' && d.pointer !== undefined) r.data = { ...d.data, filterPointer: d.pointer };
    delete r.pointer;
    mapFix(r, d, (e) => {
      if (item.synthetic) return item.synthetic.replace(e.range, e.newText);
      const range = map.editRange(e.range);
      if (!range || item.holes.some((h) => overlaps(h.range, range) || (range.start === range.end && range.start > h.range.start && range.start < h.range.end))) return undefined;
      const newText = item.encoder?.(e.newText);
      return newText === undefined ? undefined : { range, newText };
    });
    out.push(r);
  }
  return out;
}

/** Bring a diagnostic's fix into the file: all edits map, or the fix is shown without edits. */
function mapFix(r: LintDiagnostic, d: Diagnostic, edit: (e: TextEdit) => TextEdit | undefined): void {
  if (!d.fix) return;
  const edits: TextEdit[] = [];
  for (const e of d.fix.edits) {
    const m = edit(e);
    if (!m) {
      r.fix = { title: d.fix.title, edits: [] };
      return;
    }
    edits.push(m);
  }
  r.fix = { title: d.fix.title, edits };
  if (edits.length && SAFE_FIX_CODES.has(d.code)) r.autofix = true;
}

/**
 * A ruleset body's validation, and when it has no errors and is of a known phase, the findings of ruleset
 * analysis (rules that can never decide, expressions never true) at the same pointers.
 */
function rulesetFindings(value: unknown, operation: 'create' | 'update' | undefined, expr: ExpressionOptions, analysis: boolean, phase?: string): Diagnostic[] {
  const found = validateRuleset(value, { operation, expression: expr, ...(phase ? { phase: phase as RulesetPhase } : {}) });
  if (!analysis) return found;
  const body = value as { phase?: unknown; rules?: unknown } | null;
  if (found.some((d) => d.severity === 'error') || body === null || typeof body !== 'object') return found;
  // Analysis reads the phase from the body (its field set); a phase it does not know is left alone.
  if (body.phase !== undefined && (typeof body.phase !== 'string' || !phaseInfo(body.phase))) return found;
  return [...found, ...analyzeRuleset(body, { lists: expr.lists, serviceToken: expr.serviceToken, scheme: expr.scheme }).diagnostics];
}

const KEY_CODES = new Set(['ruleset-unknown-member', 'ruleset-read-only-member', 'job-unknown-member', 'rule-action-parameters']);

function checkBody(item: BodyItem, expr: ExpressionOptions, analysis: boolean): LintDiagnostic[] {
  const found =
    item.kind === 'ruleset'
      ? rulesetFindings(item.value, item.operation, expr, analysis, item.phase)
      : validateLogpushJob(item.value, { operation: item.operation });
  const out: LintDiagnostic[] = [...(item.textDiagnostics ?? [])];
  for (const d of found) {
    const pointer = d.pointer ?? '';
    const shown = item.showPointer ? item.showPointer(pointer) : item.pointerPrefix && pointer.startsWith(item.pointerPrefix) ? pointer.slice(item.pointerPrefix.length) : pointer;
    const r: LintDiagnostic = { ...d, pointer: shown, where: shown || '/' };
    delete r.rangeIn;
    const s = d.rangeIn === 'value' && d.range ? item.stringAt(pointer) : undefined;
    if (s && d.range) {
      r.range = s.map.toSource(d.range);
      mapFix(r, d, (e) => {
        const range = s.map.editRange(e.range);
        const newText = range && s.encoder?.(e.newText);
        return range && newText !== undefined ? { range, newText } : undefined;
      });
    } else {
      const key = KEY_CODES.has(d.code) && d.message.includes('has no');
      r.range = item.locate(pointer, key ? 'key' : 'value') ?? item.locate(pointer, 'value');
      if (!r.range) delete r.range;
      if (d.fix) r.fix = { title: d.fix.title, edits: [] };
    }
    out.push(r);
  }
  return out;
}
