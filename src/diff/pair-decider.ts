/**
 * Both rulesets of a diff decided in one pass over a packet, for the counts: one generated function that
 * loads each field the two read once, then tests the rules of both in one order that keeps each
 * ruleset's (a rule on both sides, the same checked expression, is tested once for both), until both
 * sides are decided.
 *
 * The rules are the compiled simulators' own (src/engine `rulesetEntries`: enabled, checked without
 * errors, in order; only the terminating ones decide), and each test is the code the simulator
 * generates for it (`emitExpression`), so each side decides exactly as its simulation. Deciding the two
 * sides apart tests every rule the edit leaves alone twice (the bench's 200-rule pair: 376 tests a
 * packet against 194 in one pass, one simulation 184).
 * @module
 */
import type { CheckedExpression, Packet, Scheme } from '../expression/index.js';
import { jsString } from '../codegen/index.js';
import { EMPTY_PACKET, emitExpression, HELPERS, lhsFields } from '../expression/index.js';
import { fieldsOf, rulesetEntries, validValueSource, type CompiledRuleset, type RulesetEntry } from '../engine/index.js';

/**
 * Decide a packet on both sides: both deciding rule indexes in one small integer, read with
 * {@link oldRuleOf} and {@link newRuleOf} (a number returned, not an array filled: one call less a packet).
 */
export type PairDecider = (packet: Packet) => number;

/** Both rule indexes + 1 in one small integer V8 keeps unboxed: {@link BITS} bits each. */
export const BITS = 15;
export const MASK = (1 << BITS) - 1;

/** The old side's deciding rule index in a pair decider's result (-1: none). */
export const oldRuleOf = (code: number): number => (code >>> BITS) - 1;
/** The new side's deciding rule index in a pair decider's result (-1: none). */
export const newRuleOf = (code: number): number => (code & MASK) - 1;
/** The result of a pair decider whose sides are decided by `oldRule` and `newRule` (-1: none). */
export const pairCode = (oldRule: number, newRule: number): number => ((oldRule + 1) << BITS) | (newRule + 1);

/** One test of the pass: a rule, on one side or both. */
interface Step {
  entry: RulesetEntry;
  old?: number;
  new?: number;
}

/**
 * The values a pair decider checks before deciding, as the simulator checks packets given as objects:
 * `fields` read with `scheme`, and `check` the packet with the bad values taken out (checkPacketValues of
 * src/engine), called only when one of them is bad.
 */
export interface PairValueCheck {
  fields: readonly string[];
  scheme: Scheme;
  check: (packet: Packet) => Packet;
}

/**
 * The pair decider of two compiled rulesets; undefined where code cannot be generated (a strict CSP) or
 * past 32,766 rules (the result holds both indexes in a small integer). With `values`, it decides on the
 * packet its check returns, as the simulator would.
 */
export function compilePairDecider(old: CompiledRuleset, neu: CompiledRuleset, values?: PairValueCheck): PairDecider | undefined {
  const steps = mergedSteps(deciding(old), deciding(neu));
  if (steps.some((s) => (s.old ?? 0) >= MASK || (s.new ?? 0) >= MASK)) return undefined;
  const constants: unknown[] = [];
  const fields = new Set<string>();
  for (const s of steps) fieldsOf(s.entry.checked, fields);
  const vars = new Map([...fields].map((name, i) => [name, `f${i}`]));
  const ctx = { constant: (v: unknown) => `k[${constants.push(v) - 1}]`, field: (name: string) => vars.get(name) ?? `p[${jsString(name)}]` };
  // `od`/`nd`: the old/new side is decided, by rule `oc`/`nc`. Inside a rule's branch only booleans are
  // tested and constants stored (no operation V8 keeps type feedback for), and the result is computed
  // once, at the end every call reaches: code that compared or stored in a branch seldom taken had V8
  // throw the optimized function away the first time each branch was taken, and optimizing 200 rules
  // again took it 0.5 to 1.6 s on the loaded machine.
  const lines = steps.map((s) => {
    const test = emitExpression(s.entry.checked, ctx);
    if (s.old !== undefined && s.new !== undefined) return `    if (${test}) { if (!od) oc = ${s.old}; if (!nd) nc = ${s.new}; break decide; }`;
    if (s.old !== undefined) return `    if (!od && ${test}) { od = true; oc = ${s.old}; if (nd) break decide; }`;
    return `    if (!nd && ${test}) { nd = true; nc = ${s.new}; if (od) break decide; }`;
  });
  const loads = [...vars].map(([name, v]) => `${v} = p[${jsString(name)}]`);
  const source = [
    '"use strict";',
    'return function decidePair(p) {',
    '  if (p === null || typeof p !== "object") p = E;',
    ...(vars.size ? [`  ${values ? 'let' : 'const'} ${loads.join(', ')};`] : []),
    '  let t;',
    ...(values ? valueCheck(values, vars, ctx.constant, loads, setOnlyFields(steps)) : []),
    '  let od = false, nd = false, oc = -1, nc = -1;',
    '  decide: {',
    ...lines,
    '  }',
    `  return ((oc + 1) << ${BITS}) | (nc + 1);`,
    '};',
  ].join('\n');
  try {
    return (new Function('k', 'h', 'E', source) as (k: unknown[], h: typeof HELPERS, e: Packet) => PairDecider)(constants, HELPERS, EMPTY_PACKET);
  } catch {
    return undefined;
  }
}

/**
 * Lines that test the checked fields' values where they are loaded (a field the rules read only through
 * a helper is read from the packet) and, when one is bad, decide on the checked copy instead: its fields
 * loaded again. HAND-WRITTEN FAST PATH: checkPacketValues on each packet (a loop over the fields, a scheme
 * lookup each) was most of what DiffCounter paid beyond one simulation; checked here, with
 * {@link setOnlyFields}, the bench's 1M packets (`npm run bench -- diff`) went from 2.37x to 1.45x one
 * simulation in the same run (load about 8 on 2 cores; docs/diff.md).
 */
function valueCheck(values: PairValueCheck, vars: ReadonlyMap<string, string>, constant: (v: unknown) => string, loads: readonly string[], setOnly: ReadonlySet<string>): string[] {
  const tests: string[] = [];
  for (const name of values.fields) {
    const def = values.scheme.get(name);
    if (!def || (def.type === 'Ip' && setOnly.has(name))) continue;
    const v = vars.get(name);
    tests.push(v !== undefined ? `(${v} === undefined || ${validValueSource(def, v, constant)})` : `(t = p[${jsString(name)}], t === undefined || ${validValueSource(def, 't', constant)})`);
  }
  if (!tests.length) return [];
  return [
    `  if (!(${tests.join(' && ')})) {`,
    `    p = ${constant(values.check)}(p);`,
    ...(loads.length ? [`    ${loads.join(', ')};`] : []),
    '  }',
  ];
}

/** The rules that decide (a non-terminating rule's match changes no verdict). */
function deciding(compiled: CompiledRuleset): RulesetEntry[] {
  return rulesetEntries(compiled).filter((e) => e.terminating);
}

/**
 * The fields the rules read only as `field in {addresses}`, `field == address` or `field != address`:
 * tested by `typeof t === "string" && set.has(t)` (or `h.ipNe`, which checks the text itself), false for
 * text that is no address as for a missing field, so every rule decides alike whether a bad value is
 * taken out or not. Their values are not checked before deciding: checking them parsed both addresses
 * of every packet, where the rules parse one only when a packet's ports or protocol match (about 0.3 µs
 * a packet on the bench's 1M, bench/diff.ts).
 */
function setOnlyFields(steps: readonly Step[]): Set<string> {
  const only = new Set<string>();
  const other = new Set<string>();
  for (const s of steps) {
    for (const p of s.entry.checked.predicates.values()) {
      const lhs = p.lhs;
      if (lhs.kind === 'field' && lhs.field.aliasOf === undefined && !lhs.field.anyOf?.length && (p.kind === 'ip-set' || (p.kind === 'ip' && (p.op === 'eq' || p.op === 'ne')))) only.add(lhs.field.name);
      else if (lhs.kind === 'field' || lhs.kind === 'bit_slice') {
        other.add(lhs.field.name);
        if (lhs.kind === 'field' && lhs.field.aliasOf !== undefined) other.add(lhs.field.aliasOf);
        for (const n of (lhs.kind === 'field' && lhs.field.anyOf) || []) other.add(n);
      } else lhsFields(lhs, other);
    }
  }
  for (const f of other) only.delete(f);
  return only;
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
      steps.push({ entry: a, old: a.index, new: b.index });
      i++;
      j++;
    } else if (a && (!b || (lastNew.get(a.checked) ?? -1) < j)) {
      // No partner ahead on the new side: the old rule's own step.
      steps.push({ entry: a, old: a.index });
      i++;
    } else {
      steps.push({ entry: b!, new: b!.index });
      j++;
    }
  }
  return steps;
}
