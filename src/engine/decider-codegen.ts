/**
 * The compiled ruleset: all enabled rules generated into ONE function that loads each packet field the
 * ruleset reads once, then tests the rules in order and returns the index of the deciding rule (-1: none).
 * Loading fields once per packet instead of once per rule keeps 50 rules close to one pass over the
 * packet's fields (bench/decide.ts). Non-terminating matches are pushed into `matched` when given.
 * Without `new Function` (a strict CSP) it falls back to calling each rule's own matcher in turn.
 * @module
 */
import type { CheckedExpression, Packet } from '../expression/index.js';
import { EMPTY_PACKET, HELPERS, emitExpression, lhsFields, type EmitContext } from '../expression/index.js';
import { jsString } from '../codegen/index.js';
import type { RulesetDecider, RulesetEntry } from './decider.js';

/** The fields a checked expression reads, including the sources of derived fields. */
export function fieldsOf(checked: CheckedExpression, out: Set<string>): void {
  for (const p of checked.predicates.values()) {
    if (p.lhs.kind !== 'field' && p.lhs.kind !== 'bit_slice') {
      lhsFields(p.lhs, out);
      continue;
    }
    const f = p.lhs.field;
    out.add(f.name);
    if (p.lhs.kind === 'field') {
      if (f.aliasOf !== undefined) out.add(f.aliasOf);
      for (const n of f.anyOf ?? []) out.add(n);
    }
  }
}

/**
 * The source of a decider function: `head` (its name and parameters, the last one `m`), prologue lines,
 * the field loads, a scratch variable, then each rule in order — a terminating match returns its index, a
 * non-terminating one is pushed into `m` — and -1 at the end.
 */
export function deciderSource(head: string, prologue: readonly string[], loads: readonly string[], scratch: string, entries: readonly RulesetEntry[], ctx: EmitContext): string {
  const lines = entries.map((e) => {
    const test = emitExpression(e.checked, ctx);
    return e.terminating ? `  if (${test}) return ${e.index};` : `  if (${test} && m !== undefined) m.push(${e.index});`;
  });
  return [
    '"use strict";',
    `return function ${head} {`,
    ...prologue.map((l) => `  ${l}`),
    ...(loads.length ? [`  const ${loads.join(', ')};`] : []),
    `  let ${scratch};`,
    ...lines,
    '  return -1;',
    '};',
  ].join('\n');
}

/** Generate the source of the decider (exposed for tests). */
export function generateRuleset(entries: readonly RulesetEntry[]): { source: string; constants: unknown[] } {
  const constants: unknown[] = [];
  const fields = new Set<string>();
  for (const e of entries) fieldsOf(e.checked, fields);
  const vars = new Map<string, string>();
  [...fields].forEach((name, i) => vars.set(name, `f${i}`));
  const ctx = { constant: (v: unknown) => `k[${constants.push(v) - 1}]`, field: (name: string) => vars.get(name) ?? `p[${jsString(name)}]` };
  const loads = [...vars].map(([name, v]) => `${v} = p[${jsString(name)}]`);
  const source = deciderSource('decide(p, m)', ['if (p === null || typeof p !== "object") p = E;'], loads, 't', entries, ctx);
  return { source, constants };
}

/** Compile the decider (one generated function; per-rule matchers where code generation is not allowed). */
export function compileRulesetDecider(entries: readonly RulesetEntry[], options: { codegen?: boolean; generated?: (g: { source: string; constants: unknown[] }) => void } = {}): RulesetDecider {
  if (options.codegen !== false) {
    try {
      const { source, constants } = generateRuleset(entries);
      const decider = (new Function('k', 'h', 'E', source) as (k: unknown[], h: typeof HELPERS, e: Packet) => RulesetDecider)(constants, HELPERS, EMPTY_PACKET);
      options.generated?.({ source, constants });
      return decider;
    } catch {
      // new Function is blocked: fall back below.
    }
  }
  const list = [...entries];
  return (p, m) => {
    for (const e of list) {
      if (!e.matcher(p)) continue;
      if (e.terminating) return e.index;
      m?.push(e.index);
    }
    return -1;
  };
}

