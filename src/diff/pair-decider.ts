/**
 * Both rulesets of a diff decided in one pass over a packet, for the counts: the rules of both in one
 * order that keeps each ruleset's, a rule on both sides (the same checked expression) tested once for
 * both, compiled by the engine into one generated decider like a ruleset's own (src/engine
 * decider-codegen.ts: each field loaded once, `if (test) return code;` per rule).
 *
 * The rules are the compiled simulators' own (`rulesetEntries`: enabled, checked without errors, in
 * order; only terminating ones decide), and each test is the code the simulator generates for it, so
 * each side decides exactly as its simulation. The first step that matches returns a code naming the
 * rule on each side it is on: a rule on both decides both; a rule on one side only (an edit) decides that
 * side, and the other is then decided by its own simulator (a few packets: those an edited rule matches).
 * Each step ends in a plain `return` of a constant, as in the simulator's decider: code that writes
 * results in a branch seldom taken had V8 throw away the optimized function each time a new branch was
 * first taken (`Insufficient type feedback`), and a 200-rule function takes V8 0.5 to 1.6 s to optimize
 * again on a loaded machine.
 *
 * Deciding the two sides apart tests every rule the edit leaves alone twice: the bench's counts over
 * 1M packets took 2.4× one simulation so, TODO× in one pass.
 * @module
 */
import type { CheckedExpression, Packet } from '../expression/index.js';
import { compileRulesetDecider, rulesetEntries, type CompiledRuleset, type RulesetEntry } from '../engine/index.js';

/** Decide a packet on both sides: `out[0]` the old side's deciding rule index, `out[1]` the new side's (-1: none). */
export type PairDecider = (packet: Packet, out: Int32Array) => void;

/** One test of the pass: a rule, on one side or both. */
interface Step {
  entry: RulesetEntry;
  old?: number;
  new?: number;
}

/**
 * A step's code holds the rule index + 1 on each side (0: not on that side) in {@link BITS} bits each,
 * so that every code is a small integer V8 keeps unboxed; the decider's -1: no rule matched.
 */
const BITS = 15;
const MASK = (1 << BITS) - 1;

/** The pair decider of two compiled rulesets; undefined for rulesets past 32,766 rules (the codes' size). */
export function compilePairDecider(old: CompiledRuleset, neu: CompiledRuleset): PairDecider | undefined {
  const steps = mergedSteps(deciding(old), deciding(neu));
  if (steps.some((s) => (s.old ?? 0) >= MASK || (s.new ?? 0) >= MASK)) return undefined;
  const code = (s: Step) => (((s.old ?? -1) + 1) << BITS) | ((s.new ?? -1) + 1);
  const decide = compileRulesetDecider(steps.map((s) => ({ ...s.entry, index: code(s), terminating: true })));
  return (packet, out) => {
    const c = decide(packet);
    if (c < 0) {
      out[0] = -1;
      out[1] = -1;
      return;
    }
    // A side the matching rule is not on is decided by its own simulator.
    out[0] = c >>> BITS ? (c >>> BITS) - 1 : (old.decide(packet).decidedBy?.index ?? -1);
    out[1] = c & MASK ? (c & MASK) - 1 : (neu.decide(packet).decidedBy?.index ?? -1);
  };
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
