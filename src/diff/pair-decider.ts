/**
 * Both rulesets of a diff decided in one pass over a packet, for the counts: one generated function that
 * loads each field the two read once, then tests the rules of both in one order that keeps each
 * ruleset's (a rule on both sides, the same checked expression, is tested once for both), until both
 * sides are decided.
 *
 * The rules are the compiled simulators' own (src/engine `rulesetEntries`: enabled, checked without
 * errors, in order; only the terminating ones decide), and each test is the code the simulator
 * generates for it, so each side decides exactly as its simulation. Deciding the two sides apart costs
 * two passes over the rules the edit leaves alone; the bench's counts over 1M packets took 2.4× one
 * simulation so, TODO× in one pass.
 * @module
 */
import { jsString } from '../codegen/index.js';
import { EMPTY_PACKET, emitExpression, HELPERS, type CheckedExpression, type Packet } from '../expression/index.js';
import { fieldsOf, rulesetEntries, type CompiledRuleset, type RulesetEntry } from '../engine/index.js';

/** Decide a packet on both sides: `out[0]` the old side's deciding rule index, `out[1]` the new side's (-1: none). */
export type PairDecider = (packet: Packet, out: Int32Array) => void;

/** One test of the pass: a checked expression, and the rule it is on each side that has it. */
interface Step {
  checked: CheckedExpression;
  old?: number;
  new?: number;
}

/** The pair decider of two compiled rulesets; undefined where code cannot be generated (a strict CSP). */
export function compilePairDecider(old: CompiledRuleset, neu: CompiledRuleset): PairDecider | undefined {
  const steps = mergedSteps(deciding(old), deciding(neu));
  const constants: unknown[] = [];
  const fields = new Set<string>();
  for (const s of steps) fieldsOf(s.checked, fields);
  const vars = new Map([...fields].map((name, i) => [name, `f${i}`]));
  const ctx = { constant: (v: unknown) => `k[${constants.push(v) - 1}]`, field: (name: string) => vars.get(name) ?? `p[${jsString(name)}]` };
  const done = 'r[0] = o; r[1] = n; return;';
  const lines = steps.map((s) => {
    const test = emitExpression(s.checked, ctx);
    if (s.old !== undefined && s.new !== undefined) return `  if (${test}) { if (o < 0) o = ${s.old}; if (n < 0) n = ${s.new}; if (o >= 0 && n >= 0) { ${done} } }`;
    if (s.old !== undefined) return `  if (o < 0 && ${test}) { o = ${s.old}; if (n >= 0) { ${done} } }`;
    return `  if (n < 0 && ${test}) { n = ${s.new}; if (o >= 0) { ${done} } }`;
  });
  const source = [
    '"use strict";',
    'return function decidePair(p, r) {',
    '  if (p === null || typeof p !== "object") p = E;',
    ...(vars.size ? [`  const ${[...vars].map(([name, v]) => `${v} = p[${jsString(name)}]`).join(', ')};`] : []),
    '  let t;',
    '  let o = -1, n = -1;',
    ...lines,
    `  ${done}`,
    '};',
  ].join('\n');
  try {
    return (new Function('k', 'h', 'E', source) as (k: unknown[], h: typeof HELPERS, e: Packet) => PairDecider)(constants, HELPERS, EMPTY_PACKET);
  } catch {
    return undefined;
  }
}

/** The rules that decide (a non-terminating rule's match changes no verdict). */
function deciding(compiled: CompiledRuleset): RulesetEntry[] {
  return rulesetEntries(compiled).filter((e) => e.terminating);
}

/**
 * One order of the two sides' rules that keeps each side's: a rule on both (the same checked
 * expression: the check cache gives one object per text and options) is one step, while the rules
 * around the edits are steps of one side. A rule moved far is a step on each side: tested twice, still
 * in order on both.
 */
function mergedSteps(olds: readonly RulesetEntry[], news: readonly RulesetEntry[]): Step[] {
  // The last place of each expression on the new side: whether an old rule can still meet its partner.
  const lastNew = new Map<CheckedExpression, number>();
  news.forEach((e, j) => lastNew.set(e.checked, j));
  const steps: Step[] = [];
  let i = 0;
  let j = 0;
  while (i < olds.length || j < news.length) {
    const a = olds[i];
    const b = news[j];
    if (a && b && a.checked === b.checked) {
      steps.push({ checked: a.checked, old: a.index, new: b.index });
      i++;
      j++;
    } else if (a && (!b || (lastNew.get(a.checked) ?? -1) < j)) {
      // No partner ahead on the new side: the old rule's own step.
      steps.push({ checked: a.checked, old: a.index });
      i++;
    } else {
      steps.push({ checked: b!.checked, new: b!.index });
      j++;
    }
  }
  return steps;
}
