/**
 * Which rule of the new ruleset is which rule of the old one, so that a packet still decided by "the
 * same rule" after an edit or a move is not reported as a change of deciding rule. Rules are the same
 * when their ids are equal, else their refs, else their action and expression text (duplicates in
 * order: a moved rule is the same rule). The rules left over are edits: each is paired, in order, with
 * a left-over rule of the other side that follows the same matched rule (like a changed line in a text
 * diff).
 * @module
 */
import type { DiffRuleRef } from './types.js';

/** Refs of every rule of a body, by index (what is not an object gets an empty ref). */
export function ruleRefsOf(ruleset: { rules?: unknown }): DiffRuleRef[] {
  const list = Array.isArray(ruleset?.rules) ? (ruleset.rules as unknown[]) : [];
  return list.map((raw, index) => {
    const rule = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const ref: DiffRuleRef = { index, action: String(rule['action'] ?? ''), expression: typeof rule['expression'] === 'string' ? rule['expression'] : '' };
    for (const k of ['id', 'ref', 'description'] as const) if (typeof rule[k] === 'string') ref[k] = rule[k];
    return ref;
  });
}

/** The pairs (old index → new index) of the same rule, in old order. */
export function matchRules(olds: readonly DiffRuleRef[], news: readonly DiffRuleRef[]): Map<number, number> {
  const match = new Map<number, number>();
  const taken = new Set<number>();
  const keys: ((r: DiffRuleRef) => string | undefined)[] = [(r) => r.id, (r) => r.ref, (r) => `${r.action}\u0000${r.expression}`];
  for (const key of keys) {
    const byKey = new Map<string, number[]>();
    for (const n of news) {
      const k = key(n);
      if (k !== undefined && !taken.has(n.index)) byKey.set(k, [...(byKey.get(k) ?? []), n.index]);
    }
    for (const o of olds) {
      const k = key(o);
      if (k === undefined || match.has(o.index)) continue;
      const n = byKey.get(k)?.shift();
      if (n === undefined) continue;
      match.set(o.index, n);
      taken.add(n);
    }
  }
  // Left-over rules, grouped by the matched rule before them (as its new index; -1: none).
  const after = (rules: readonly DiffRuleRef[], matched: (i: number) => number | undefined) => {
    const groups = new Map<number, number[]>();
    let anchor = -1;
    for (const r of rules) {
      const m = matched(r.index);
      if (m !== undefined) anchor = m;
      else groups.set(anchor, [...(groups.get(anchor) ?? []), r.index]);
    }
    return groups;
  };
  const oldGroups = after(olds, (i) => match.get(i));
  const newGroups = after(news, (i) => (taken.has(i) ? i : undefined));
  for (const [anchor, left] of oldGroups) {
    const right = newGroups.get(anchor) ?? [];
    for (let k = 0; k < Math.min(left.length, right.length); k++) match.set(left[k]!, right[k]!);
  }
  return new Map([...match].sort((x, y) => x[0] - y[0]));
}
