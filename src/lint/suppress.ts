/**
 * Suppressions, where CI users expect them from ESLint (`eslint-disable-next-line`) and ruff (`noqa`):
 *
 * - a comment line `# rulekit-disable-next-line comma-in-set, octal-literal -- why` (`//` too in
 *   Terraform; `#` in YAML and `.rules` files) suppresses the named codes on the next line: a finding
 *   whose range starts on that line. Without codes it suppresses every code there. Text after ` -- ` is
 *   the reason, for people.
 * - JSON has no comments: the config's `ignore` entries `{ "file": glob, "pointer": "/rules/0/expression",
 *   "code"?: code }` suppress findings at that JSON pointer or below it in the files the glob matches
 *   (relative to the config file; YAML bodies have pointers too).
 *
 * A comment that suppresses nothing is reported (`lint-unused-suppression`, with a fix that removes it or
 * the codes in it that are unused), and so is a code no table has (`lint-unknown-code`, with the nearest
 * code). Suppression comes before per-code severities: a suppression of a code turned `off` still counts
 * as used, so a config change elsewhere does not make comments "unused".
 * @module
 */
import { SourceText, type Range } from '../diagnostics/index.js';
import { SAFE_FIX_CODES, type LintDiagnostic } from './check.js';
import { isKnownCode, nearestCode, unknownCodeMessage } from './code-names.js';
import { lintDiagnostic } from './codes.js';
import type { InputKind } from './types.js';

/** The word of the comment. */
export const DISABLE_NEXT_LINE = 'rulekit-disable-next-line';

/** Comment markers of each input kind (JSON has none: its suppressions are the config's `ignore`). */
const MARKERS: Record<InputKind, readonly string[]> = { terraform: ['#', '//'], yaml: ['#'], rules: ['#'], json: [] };

/** One `rulekit-disable-next-line` comment. */
export interface Directive {
  /** 1-based line of the comment; it covers `line + 1`. */
  line: number;
  /** The whole comment line with its line break (what removing it deletes). */
  lineRange: Range;
  /** The comment from its marker to the end of the line. */
  range: Range;
  /** The codes named, each with its place; empty: every code. */
  codes: { code: string; range: Range }[];
  /** The span of the code list (rewritten when only some codes are unused). */
  listRange: Range;
}

/** An `ignore` entry of the config, its glob already matched against the file. */
export interface PointerIgnore {
  pointer: string;
  code?: string;
  /** Set when it suppressed something (the caller reports entries left unused). */
  used?: boolean;
}

/** The suppression comments of a text. */
export function findDirectives(text: string, kind: InputKind): Directive[] {
  const markers = MARKERS[kind];
  if (!markers.length || !text.includes(DISABLE_NEXT_LINE)) return [];
  const out: Directive[] = [];
  let offset = 0;
  let line = 1;
  for (const raw of text.split('\n')) {
    const next = offset + raw.length + 1;
    const content = raw.replace(/\r$/, '');
    const indent = /^[ \t]*/.exec(content)![0].length;
    const marker = markers.find((m) => content.startsWith(m, indent));
    if (marker) {
      const m = new RegExp(`^[ \\t]*${DISABLE_NEXT_LINE}(?=[\\s,]|$)`).exec(content.slice(indent + marker.length));
      if (m) {
        const listStart = indent + marker.length + m[0].length;
        // ` -- reason` ends the code list (ESLint's description separator).
        const rest = content.slice(listStart);
        const reason = /(?:^|\s)--(?:\s|$)/.exec(rest);
        const list = reason ? rest.slice(0, reason.index) : rest;
        const codes = [...list.matchAll(/[^\s,]+/g)].map((c) => ({ code: c[0], range: { start: offset + listStart + c.index, end: offset + listStart + c.index + c[0].length } }));
        const listRange = codes.length ? { start: codes[0]!.range.start, end: codes[codes.length - 1]!.range.end } : { start: offset + listStart, end: offset + listStart };
        out.push({ line, lineRange: { start: offset, end: Math.min(next, text.length) }, range: { start: offset + indent, end: offset + content.length }, codes, listRange });
      }
    }
    offset = next;
    line++;
  }
  return out;
}

/** The JSON pointer a finding is at, when it has one (a body member, an item of an array of expressions). */
function pointerOf(d: LintDiagnostic): string | undefined {
  if (d.pointer !== undefined) return d.pointer;
  return d.where?.startsWith('/') ? d.where : undefined;
}

const under = (pointer: string, base: string) => base === '' || pointer === base || pointer.startsWith(base + '/');

/** Options of {@link applySuppressions}. */
export interface SuppressOptions {
  /** The config's `ignore` entries that match this file. */
  ignores?: readonly PointerIgnore[];
  /**
   * Report unused and unknown suppressions (default true). An editor's quick check leaves it off: it
   * runs without ruleset analysis, whose findings a comment may be there for.
   */
  report?: boolean;
}

/** Drop the suppressed findings of a file and report the suppressions that are unused or name unknown codes. */
export function applySuppressions(diagnostics: readonly LintDiagnostic[], text: string, kind: InputKind, options: SuppressOptions = {}): LintDiagnostic[] {
  const directives = findDirectives(text, kind);
  const ignores = options.ignores ?? [];
  if (!directives.length && !ignores.length) return [...diagnostics];
  const byLine = new Map<number, Directive>();
  for (const d of directives) byLine.set(d.line + 1, d);
  const used = new Map<Directive, Set<string>>();
  const src = new SourceText(text);
  const kept: LintDiagnostic[] = [];
  for (const d of diagnostics) {
    const directive = byLine.get(src.position(d.range?.start ?? 0).line);
    if (directive && (!directive.codes.length || directive.codes.some((c) => c.code === d.code))) {
      if (!used.has(directive)) used.set(directive, new Set());
      used.get(directive)!.add(d.code);
      continue;
    }
    const pointer = pointerOf(d);
    const ignore = pointer === undefined ? undefined : ignores.find((i) => under(pointer, i.pointer) && (i.code === undefined || i.code === d.code));
    if (ignore) {
      ignore.used = true;
      continue;
    }
    kept.push(d);
  }
  if (options.report === false) return kept;
  for (const directive of directives) {
    const hit = used.get(directive);
    const unknown = directive.codes.filter((c) => !isKnownCode(c.code));
    for (const c of unknown) {
      const near = nearestCode(c.code);
      kept.push(lintDiagnostic('lint-unknown-code', `${DISABLE_NEXT_LINE} names an ${unknownCodeMessage(c.code)}`, c.range, near ? { fix: { title: `replace with ${near}`, edits: [{ range: c.range, newText: near }] } } : {}));
    }
    const line = directive.line + 1;
    if (!directive.codes.length) {
      if (!hit) kept.push(unusedDiagnostic(directive, `nothing is reported on line ${line}; this suppression is unused`, directive.range, undefined));
      continue;
    }
    const unused = directive.codes.filter((c) => isKnownCode(c.code) && !hit?.has(c.code));
    if (!unused.length) continue;
    const keep = directive.codes.filter((c) => !unused.includes(c));
    const named = unused.map((c) => c.code);
    const message = `${named.join(', ')} ${named.length > 1 ? 'are' : 'is'} not reported on line ${line}; this suppression is unused`;
    // Every code unused: the comment line goes; else only the unused codes.
    kept.push(unusedDiagnostic(directive, message, keep.length ? { start: unused[0]!.range.start, end: unused[unused.length - 1]!.range.end } : directive.range, keep.length ? keep : undefined));
  }
  return kept.sort((a, b) => (a.range?.start ?? 0) - (b.range?.start ?? 0) || (a.range?.end ?? 0) - (b.range?.end ?? 0));
}

/** A `lint-unused-suppression` whose fix removes the comment line, or rewrites its list to the codes in `keep`. */
function unusedDiagnostic(directive: Directive, message: string, range: Range, keep: Directive['codes'] | undefined): LintDiagnostic {
  const fix = keep
    ? { title: `keep only ${keep.map((c) => c.code).join(', ')} in the comment`, edits: [{ range: directive.listRange, newText: keep.map((c) => c.code).join(', ') }] }
    : { title: 'remove the suppression comment', edits: [{ range: directive.lineRange, newText: '' }] };
  return { ...lintDiagnostic('lint-unused-suppression', message, range, { fix }), autofix: SAFE_FIX_CODES.has('lint-unused-suppression') };
}
