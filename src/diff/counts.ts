/**
 * Traffic counts of a diff: packets (or requests) run through both rulesets by the simulator's code (both
 * in one pass, pair-decider.ts), each one whose outcome changes counted per region of the diff and per
 * pair of deciding rules, with the first few as examples. The regions only attribute: which packets
 * change is the two simulations' say.
 * @module
 */
import type { Packet } from '../expression/index.js';
import { compileDeciders, decidersOf, listCatalog, type DiffOptions } from './deciders.js';
import { ruleRefsOf } from './identity.js';
import { compilePairDecider, type PairDecider } from './pair-decider.js';
import { diffRulesets, regionContains, sideProblems } from './regions.js';
import type { Decision, DiffRuleRef, RulesetDiff } from './types.js';

/**
 * An example of changed traffic: its position in the input, the values of the fields the rules of either
 * side read (what a reader needs to see why it changed), and the whole packet or request record.
 */
export interface DiffExample {
  /** 0-based position in the input (the CLI gives a capture's frame or an NDJSON file's line, less one). */
  index: number;
  /** The fields the rules of both sides read that the record holds (header bytes as `aa:bb:…`). */
  fields: Record<string, unknown>;
  /** The whole record, as decided. */
  record: Packet;
}

/** Changed traffic of one pair of deciders (or one region). */
export interface PairCount {
  old: Decision;
  new: Decision;
  count: number;
  examples: DiffExample[];
}

/** What {@link countDiff} returns. */
export interface TrafficDiff {
  /** Packets (or requests) decided on both sides. */
  packets: number;
  /** Those whose verdict or deciding rule changed. */
  changed: number;
  /** Those whose verdict changed. */
  verdictChanged: number;
  /** Per region of the diff (its index in `diff.regions`), the regions that hold changed traffic. */
  regions: { region: number; count: number; examples: DiffExample[] }[];
  /** Per pair of deciding rules, most changed first. */
  pairs: PairCount[];
  /** Changed packets that lie in no region of the diff (always 0 unless the analysis is wrong; kept so it would show). */
  outside: number;
}

/** Options of the counts: those of the diff, the diff when already made, and how many examples to keep. */
export interface CountDiffOptions extends DiffOptions {
  diff?: RulesetDiff;
  /** Examples kept per pair and per region (default 3). */
  examples?: number;
}

/** Counts packets one by one (a capture streamed through it); {@link countDiff} for packets in memory. */
export class DiffCounter {
  readonly diff: RulesetDiff;
  /** Decides a packet on both sides into `decided` (src/diff/pair-decider.ts). */
  private readonly decidePair: PairDecider;
  private readonly decided = new Int32Array(2);
  private readonly refs: { old: DiffRuleRef[]; new: DiffRuleRef[] };
  /** The verdict of each rule by index, each side. */
  private readonly verdicts: { old: string[]; new: string[] };
  /** The new index of each old rule that is the same rule (identity.ts), else -1 (as the default: a rule with no partner whose packets go to the default is no change of rule, as regions.ts has it). */
  private readonly same: Int32Array;
  /** The regions of each pair of deciders (`old new` rule indexes, `-` for none), by index in the diff. */
  private readonly byPair = new Map<string, number[]>();
  private readonly examples: number;
  /** The fields the enabled rules of either side read, in a stable order: an example shows these. */
  readonly readFields: readonly string[];
  private readonly pairs = new Map<string, PairCount>();
  private readonly regions = new Map<number, { region: number; count: number; examples: DiffExample[] }>();
  private packets = 0;
  private changed = 0;
  private verdictChanged = 0;
  private outside = 0;

  constructor(oldRuleset: { rules?: unknown; phase?: unknown }, newRuleset: { rules?: unknown; phase?: unknown }, options: CountDiffOptions = {}) {
    this.diff = options.diff ?? diffRulesets(oldRuleset, newRuleset, options);
    const problems = [...sideProblems('old', oldRuleset), ...sideProblems('new', newRuleset)];
    const lists = listCatalog(options);
    const valid = problems.length === 0;
    const rulesOf = (r: { rules?: unknown; phase?: unknown }) => (valid ? r : { rules: [] });
    // The rules' cubes are not needed (the diff holds the regions), nor each side's generated code: the
    // pair decider generates both in one (each side's closures decide only where code cannot be generated).
    const simulated = { decoder: 'objects', codegen: false } as const;
    const sides = {
      old: compileDeciders(rulesOf(oldRuleset), decidersOf(rulesOf(oldRuleset), options, lists, new Map(), false), simulated),
      new: compileDeciders(rulesOf(newRuleset), decidersOf(rulesOf(newRuleset), options, lists, new Map(), false), simulated),
    };
    this.decidePair = compilePairDecider(sides.old, sides.new) ?? ((packet, out) => {
      // No code generation: each side's own decider.
      out[0] = sides.old.decide(packet).decidedBy?.index ?? -1;
      out[1] = sides.new.decide(packet).decidedBy?.index ?? -1;
    });
    this.readFields = [...new Set([...sides.old.fields, ...sides.new.fields])].sort();
    this.refs = { old: ruleRefsOf(rulesOf(oldRuleset)), new: ruleRefsOf(rulesOf(newRuleset)) };
    const verdicts = (refs: DiffRuleRef[]) => refs.map((r) => (r.action === 'skip' ? 'allow' : r.action));
    this.verdicts = { old: verdicts(this.refs.old), new: verdicts(this.refs.new) };
    this.same = new Int32Array(this.refs.old.length).fill(-1);
    for (const m of this.diff.matches) if (m.old < this.same.length) this.same[m.old] = m.new;
    this.examples = options.examples ?? 3;
    this.diff.regions.forEach((r, i) => {
      const key = `${r.old.rule?.index ?? '-'} ${r.new.rule?.index ?? '-'}`;
      this.byPair.set(key, [...(this.byPair.get(key) ?? []), i]);
    });
  }

  /** Decide one packet on both sides and count it when its outcome changes. */
  add(packet: Packet, index = this.packets): void {
    this.packets++;
    this.decidePair(packet, this.decided);
    const oldRule = this.decided[0]!;
    const newRule = this.decided[1]!;
    const oldVerdict = oldRule < 0 ? 'allow' : this.verdicts.old[oldRule]!;
    const newVerdict = newRule < 0 ? 'allow' : this.verdicts.new[newRule]!;
    const ruleChanged = oldRule >= 0 ? this.same[oldRule] !== newRule : newRule >= 0;
    if (oldVerdict === newVerdict && !ruleChanged) return;
    this.changed++;
    if (oldVerdict !== newVerdict) this.verdictChanged++;
    const key = `${oldRule < 0 ? '-' : oldRule} ${newRule < 0 ? '-' : newRule}`;
    let pair = this.pairs.get(key);
    if (!pair) {
      pair = { old: this.decision(oldVerdict, oldRule, this.refs.old), new: this.decision(newVerdict, newRule, this.refs.new), count: 0, examples: [] };
      this.pairs.set(key, pair);
    }
    pair.count++;
    if (pair.examples.length < this.examples) pair.examples.push(this.example(index, packet));
    const at = this.byPair.get(key)?.find((i) => regionContains(this.diff.regions[i]!, packet));
    if (at === undefined) return void this.outside++;
    let region = this.regions.get(at);
    if (!region) this.regions.set(at, (region = { region: at, count: 0, examples: [] }));
    region.count++;
    if (region.examples.length < this.examples) region.examples.push(this.example(index, packet));
  }

  /** The counts so far. */
  result(): TrafficDiff {
    return {
      packets: this.packets,
      changed: this.changed,
      verdictChanged: this.verdictChanged,
      regions: [...this.regions.values()].sort((x, y) => x.region - y.region),
      pairs: [...this.pairs.values()].sort((x, y) => y.count - x.count),
      outside: this.outside,
    };
  }

  private example(index: number, record: Packet): DiffExample {
    const fields: Record<string, unknown> = {};
    for (const f of this.readFields) {
      const v = (record as Record<string, unknown>)[f];
      if (v !== undefined) fields[f] = v instanceof Uint8Array ? [...v].map((b) => b.toString(16).padStart(2, '0')).join(':') : v;
    }
    return { index, fields, record };
  }

  private decision(verdict: string, index: number, refs: DiffRuleRef[]): Decision {
    return index < 0 ? { verdict } : { verdict, rule: refs[index]! };
  }
}

/**
 * Count the packets (or requests) whose outcome changes between two rulesets, per region of their diff
 * and per pair of deciding rules.
 *
 * ```ts
 * countDiff(oldRuleset, newRuleset, packets).changed; // packets decided differently
 * ```
 */
export function countDiff(oldRuleset: { rules?: unknown; phase?: unknown }, newRuleset: { rules?: unknown; phase?: unknown }, packets: Iterable<Packet>, options: CountDiffOptions = {}): TrafficDiff {
  const counter = new DiffCounter(oldRuleset, newRuleset, options);
  let index = 0;
  for (const p of packets) counter.add(p, index++);
  return counter.result();
}
