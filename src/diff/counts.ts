/**
 * Traffic counts of a diff: packets (or requests) run through both rulesets by the simulator's code (both
 * in one pass, pair-decider.ts), each one whose outcome changes counted per region of the diff and per
 * pair of deciding rules, with the first few as examples. The regions only attribute: which packets
 * change is the two simulations' say.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { Packet, Scheme } from '../expression/index.js';
import { checkPacketValues } from '../engine/index.js';
import { compileDeciders, decidersOf, listCatalog, type DiffOptions } from './deciders.js';
import { ruleRefsOf } from './identity.js';
import { BITS, compilePairDecider, MASK, newRuleOf, oldRuleOf, pairCode, type PairDecider } from './pair-decider.js';
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

/** A changed packet that may become an example: the record, or a function that makes it (called once kept). */
type ExampleSource = { index: number; packet: Packet | (() => Packet) };

/** Options of the counts: those of the diff, the diff when already made, and how many examples to keep. */
export interface CountDiffOptions extends DiffOptions {
  diff?: RulesetDiff;
  /** Examples kept per pair and per region (default 3). */
  examples?: number;
}

/** Counts packets one by one (a capture streamed through it); {@link countDiff} for packets in memory. */
export class DiffCounter {
  readonly diff: RulesetDiff;
  /** Decides a packet on both sides (src/diff/pair-decider.ts); made on the first packet (an engine's grouped counts need none). */
  private decidePairMade?: PairDecider;
  private readonly makeDecider: () => PairDecider;
  /** The fields either side reads: their values are checked before deciding. */
  private fields: string[] = [];
  private readonly problems: Diagnostic[] = [];
  /** The scheme the packets' values are read with (a value of the wrong type is missing, as the simulator has it). */
  private readonly scheme: Scheme;
  /**
   * By old deciding rule + 1 (0: none), the new deciding rule + 1 that leaves a packet unchanged (-1:
   * none does): one lookup tells the packets that do not change (most of them) from those {@link changes}
   * is asked about.
   */
  private readonly unchanged: Int32Array;
  private readonly refs: { old: DiffRuleRef[]; new: DiffRuleRef[] };
  /** The verdict of each rule by index, each side. */
  private readonly verdicts: { old: string[]; new: string[] };
  /** The new index of each old rule that is the same rule (identity.ts), else -1 (as the default: a rule with no partner whose packets go to the default is no change of rule, as regions.ts has it). */
  private readonly same: Int32Array;
  /** The regions of each pair of deciders (`old new` rule indexes, `-` for none), by index in the diff. */
  private readonly byPair = new Map<string, number[]>();
  private readonly examples: number;
  private sortedFields: readonly string[] = [];
  /** The fields the enabled rules of either side read, in a stable order: an example shows these. */
  get readFields(): readonly string[] {
    this.decidePairMade ??= this.makeDecider();
    return this.sortedFields;
  }
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
    const deciders = { old: decidersOf(rulesOf(oldRuleset), options, lists, new Map(), false), new: decidersOf(rulesOf(newRuleset), options, lists, new Map(), false) };
    this.scheme = deciders.old.scheme;
    this.makeDecider = () => {
      const sides = { old: compileDeciders(rulesOf(oldRuleset), deciders.old, simulated), new: compileDeciders(rulesOf(newRuleset), deciders.new, simulated) };
      this.fields = [...new Set([...sides.old.fields, ...sides.new.fields])];
      this.sortedFields = [...this.fields].sort();
      const generated = compilePairDecider(sides.old, sides.new, { fields: this.fields, scheme: this.scheme, check: (p) => this.checked(p) });
      if (generated) return generated;
      // No code generation: the values checked here, then each side's own decider.
      return (packet) => {
        const seen = this.checked(packet);
        return pairCode(sides.old.decide(seen).decidedBy?.index ?? -1, sides.new.decide(seen).decidedBy?.index ?? -1);
      };
    };
    this.refs = { old: ruleRefsOf(rulesOf(oldRuleset)), new: ruleRefsOf(rulesOf(newRuleset)) };
    const verdicts = (refs: DiffRuleRef[]) => refs.map((r) => (r.action === 'skip' ? 'allow' : r.action));
    this.verdicts = { old: verdicts(this.refs.old), new: verdicts(this.refs.new) };
    this.same = new Int32Array(this.refs.old.length).fill(-1);
    for (const m of this.diff.matches) if (m.old < this.same.length) this.same[m.old] = m.new;
    this.unchanged = new Int32Array(this.refs.old.length + 1).fill(-1);
    this.unchanged[0] = 0;
    this.same.forEach((n, o) => {
      if (!this.changes(o, n)) this.unchanged[o + 1] = n + 1;
    });
    this.examples = options.examples ?? 3;
    this.diff.regions.forEach((r, i) => {
      const key = `${r.old.rule?.index ?? '-'} ${r.new.rule?.index ?? '-'}`;
      this.byPair.set(key, [...(this.byPair.get(key) ?? []), i]);
    });
  }

  /**
   * Decide one packet on both sides and count it when its outcome changes. `whole`: the record to keep
   * as an example, when `packet` holds only the fields the rules read and is refilled for the next one
   * (a capture's frames, src/simulation/traffic-file.ts); called only for a packet kept.
   */
  add(packet: Packet, index = this.packets, whole?: () => Packet): void {
    const decide = (this.decidePairMade ??= this.makeDecider());
    // As the simulator: a value of the wrong type (a string port, an Int out of range, text that is not an
    // address) is a missing field, to the rules and to the regions. The decider checks the values it reads
    // (pair-decider.ts); the regions are tested on the checked packet, made only for a changed one.
    const code = decide(packet);
    if (this.unchanged[code >>> BITS] === (code & MASK)) return void this.packets++;
    const oldRule = oldRuleOf(code);
    const newRule = newRuleOf(code);
    if (!this.changes(oldRule, newRule)) return void this.packets++;
    const seen = this.checked(packet);
    const key = `${oldRule < 0 ? '-' : oldRule} ${newRule < 0 ? '-' : newRule}`;
    const at = this.byPair.get(key)?.find((i) => regionContains(this.diff.regions[i]!, seen)) ?? -1;
    let kept: Packet | undefined;
    this.count(oldRule, newRule, 1, at, [{ index, packet: whole ? () => (kept ??= whole()) : packet }]);
  }

  /**
   * Count `count` packets decided by rule `oldRule` of the old side and `newRule` of the new one (−1:
   * none), that lie in region `region` (−1: none), their first few `examples` in input order: the counts
   * of an engine that decided and grouped them (src/simulation/sql-diff.ts). Groups are given in the order
   * of their first packet, as one by one they would have come.
   */
  addDecided(oldRule: number, newRule: number, count: number, region: number, examples: readonly { index: number; packet: Packet }[]): void {
    this.count(oldRule, newRule, count, region, examples);
  }

  /** {@link addDecided}, an example's packet given or made when kept. */
  private count(oldRule: number, newRule: number, count: number, region: number, examples: readonly ExampleSource[]): void {
    this.packets += count;
    if (!this.changes(oldRule, newRule)) return;
    const oldVerdict = this.verdictOf('old', oldRule);
    const newVerdict = this.verdictOf('new', newRule);
    this.changed += count;
    if (oldVerdict !== newVerdict) this.verdictChanged += count;
    const key = `${oldRule < 0 ? '-' : oldRule} ${newRule < 0 ? '-' : newRule}`;
    let pair = this.pairs.get(key);
    if (!pair) {
      pair = { old: this.decision(oldVerdict, oldRule, this.refs.old), new: this.decision(newVerdict, newRule, this.refs.new), count: 0, examples: [] };
      this.pairs.set(key, pair);
    }
    pair.count += count;
    this.keepFirst(pair.examples, examples);
    if (region < 0) return void (this.outside += count);
    let r = this.regions.get(region);
    if (!r) this.regions.set(region, (r = { region, count: 0, examples: [] }));
    r.count += count;
    this.keepFirst(r.examples, examples);
  }

  /** The packet with its values of the wrong type taken out (the packet itself when there are none). */
  private checked(packet: Packet): Packet {
    const seen = checkPacketValues(packet, this.fields, { text: '', pointer: '' }, this.problems, this.scheme);
    this.problems.length = 0;
    return seen;
  }

  /** Whether a packet decided so changes: its verdict, or its deciding rule is not the same rule (identity.ts). */
  changes(oldRule: number, newRule: number): boolean {
    if (this.verdictOf('old', oldRule) !== this.verdictOf('new', newRule)) return true;
    return oldRule >= 0 ? this.same[oldRule] !== newRule : newRule >= 0;
  }

  private verdictOf(side: 'old' | 'new', rule: number): string {
    return rule < 0 ? 'allow' : this.verdicts[side][rule]!;
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

  /** Add `more` examples to `kept`, keeping the first few in input order (made into examples only when kept). */
  private keepFirst(kept: DiffExample[], more: readonly ExampleSource[]): void {
    const n = this.examples;
    if (!more.length || (kept.length >= n && more[0]!.index > kept[kept.length - 1]!.index)) return;
    kept.push(...more.slice(0, n).map((m) => this.example(m.index, typeof m.packet === 'function' ? m.packet() : m.packet)));
    kept.sort((x, y) => x.index - y.index);
    kept.length = Math.min(kept.length, n);
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
