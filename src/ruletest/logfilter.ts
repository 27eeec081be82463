/**
 * A Logpush filter run over log lines as the service would: each line kept (pushed) or dropped, and why —
 * the clause that decided. For a false `and` that is its first false member, for a true `or` its first
 * true one; a true `and` (a false `or`) is decided by all of its members together. Used by
 * `rulekit logfilter` and by the filter cases of `rulekit test`.
 * @module
 */
import { explainLogFilter, type FilterExplanation, type LogFilter, type LogLineMatcher } from '../logpush/index.js';

/** The outcome for one log line. */
export interface LineDecision {
  kept: boolean;
  /** The clauses that decided (readable, with the line's value), for a reader. */
  decidedBy: FilterExplanation[];
  /** The whole explanation (every clause evaluated). */
  explanation: FilterExplanation;
}

/** The clauses that decided a node's result (see the module comment). */
export function decidingClauses(e: FilterExplanation): FilterExplanation[] {
  if (!e.children) return [e];
  if (e.expression === 'and') {
    const failed = e.children.find((c) => !c.result);
    return failed ? decidingClauses(failed) : e.children.flatMap(decidingClauses);
  }
  const held = e.children.find((c) => c.result);
  return held ? decidingClauses(held) : e.children.flatMap(decidingClauses);
}

/** Decide one line. `filter` undefined: a job without a filter keeps every line. */
export function decideLine(filter: LogFilter | undefined, matcher: LogLineMatcher | undefined, line: Record<string, unknown>): LineDecision {
  if (!filter || !matcher) {
    const explanation: FilterExplanation = { expression: 'no filter: every line is pushed', result: true, pointer: '' };
    return { kept: true, decidedBy: [explanation], explanation };
  }
  const explanation = explainLogFilter(filter, line);
  const kept = matcher(line);
  return { kept, decidedBy: decidingClauses(explanation), explanation };
}

function shown(v: unknown): string {
  if (v === undefined) return 'absent';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/** One clause as a reader sees it: `EdgeResponseStatus >= 500 held (line: 503)`. */
export function clauseText(e: FilterExplanation): string {
  if (e.children || e.pointer === '') return e.expression;
  return `${e.expression} ${e.result ? 'held' : 'failed'} (line: ${shown(e.value)})${e.note ? ` — ${e.note}` : ''}`;
}

/** Why a line was kept or dropped, in one sentence. */
export function reasonText(d: LineDecision): string {
  const [first] = d.decidedBy;
  if (d.decidedBy.length === 1 && first) return clauseText(first);
  const all = d.decidedBy.map((e) => `${e.expression} (line: ${shown(e.value)})`);
  return d.kept ? `every one held: ${all.join('; ')}` : `none held: ${all.join('; ')}`;
}
