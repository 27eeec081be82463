/**
 * The counting half of a compiled ruleset: verdict totals, per-rule matched/decided counts and examples.
 * Kept apart from compiling (which needs the expression parser) so that worker threads can count with a
 * decider generated elsewhere (portable.ts).
 * @module
 */
import type { Packet } from '../expression/index.js';
import type { RuleAction } from '../ruleset/index.js';
import type { RuleSummary, SimulationSummary } from './summary.js';
import type { RulesetDecider, SlotsDecider } from './decider.js';

/** What a {@link RulesetTally} needs to know about the rules (plain data: it crosses to worker threads). */
export interface TallyRules {
  /** The summary rows, counts at 0 (one per rule of the ruleset, by index). */
  rules: RuleSummary[];
  /** Action of each rule that can decide, by index. */
  actions: (RuleAction | undefined)[];
  /** Whether the rule at each index terminates (for the examples). */
  terminatingAt: boolean[];
  examplesPerRule: number;
}

/** Verdict totals, per-rule counts and the first examples of each rule. */
export class RulesetTally {
  packets = 0;
  allow = 0;
  block = 0;
  defaultAllowed = 0;
  /** Counts of the verdicts other than allow and block (the terminating actions of HTTP phases). */
  private readonly others: Record<string, number> = {};
  private readonly rows: RuleSummary[];
  private readonly actions: (RuleAction | undefined)[];
  private readonly terminatingAt: boolean[];
  private readonly examplesPerRule: number;
  /** Whether the packet being recorded is reused by the caller: examples are then copies. */
  transient = false;

  constructor(rules: TallyRules) {
    this.rows = rules.rules.map((r) => ({ ...r, examples: [...r.examples] }));
    this.actions = rules.actions;
    this.terminatingAt = rules.terminatingAt;
    this.examplesPerRule = rules.examplesPerRule;
  }

  /**
   * Count a decision; `matched` undefined means "only the deciding rule". `packet` may be a function that
   * builds the packet: it is called only when the packet is kept as an example (the slots path decodes
   * no packet object otherwise).
   */
  record(decided: number, matched: readonly number[] | undefined, packet: Packet | (() => Packet), index: number): void {
    this.packets++;
    if (decided < 0) {
      this.allow++;
      this.defaultAllowed++;
    } else {
      const action = this.actions[decided];
      if (action === 'block') this.block++;
      else if (action === 'skip' || action === undefined) this.allow++;
      else this.others[action] = (this.others[action] ?? 0) + 1;
    }
    if (matched === undefined) {
      const s = this.rows[decided]!;
      s.matched++;
      s.decided++;
      if (s.examples.length < this.examplesPerRule) s.examples.push({ index, packet: this.keep(packet) });
      return;
    }
    // An index loop: for-of made an iterator per packet (on the default-allowed packets, over an empty
    // list), garbage that showed as a scavenge every ~60k packets.
    for (let k = 0; k < matched.length; k++) {
      const i = matched[k]!;
      const s = this.rows[i]!;
      s.matched++;
      const isDecider = decided === i;
      if (isDecider) s.decided++;
      if (s.examples.length < this.examplesPerRule && (isDecider || !this.terminatingAt[i])) s.examples.push({ index, packet: this.keep(packet) });
    }
  }

  /** Keep an example: a copy when the caller reuses the packet object (raw byte views copied too). */
  private keep(packet: Packet | (() => Packet)): Packet {
    if (typeof packet === 'function') return packet();
    if (!this.transient) return packet;
    const copy: Record<string, unknown> = {};
    for (const k in packet) {
      const v = packet[k];
      if (v !== undefined) copy[k] = v instanceof Uint8Array ? v.slice() : v;
    }
    return copy;
  }

  /**
   * Add the figures of another summary of the SAME ruleset over other packets (a worker's share of a
   * capture): counts add up, and each rule keeps the examples with the lowest indexes. Each summary's
   * examples must be the first ones of its own packets (as counting keeps them).
   */
  merge(other: SimulationSummary): void {
    this.packets += other.packets;
    this.allow += other.verdicts.allow;
    this.block += other.verdicts.block;
    for (const [k, n] of Object.entries(other.verdicts)) if (k !== 'allow' && k !== 'block' && n) this.others[k] = (this.others[k] ?? 0) + n;
    this.defaultAllowed += other.defaultAllowed;
    other.rules.forEach((r, i) => {
      const s = this.rows[i];
      if (!s) return;
      s.matched += r.matched;
      s.decided += r.decided;
      if (r.examples.length) s.examples = [...s.examples, ...r.examples].sort((a, b) => a.index - b.index).slice(0, this.examplesPerRule);
    });
  }

  /** The summary so far. */
  summary(): SimulationSummary {
    return {
      packets: this.packets,
      verdicts: { allow: this.allow, block: this.block, ...this.others },
      defaultAllowed: this.defaultAllowed,
      rules: this.rows.map((r) => ({ ...r, examples: [...r.examples] })),
    };
  }
}

const NONE: readonly number[] = Object.freeze([]);

/** Decide and record one packet (shared by `CompiledRuleset.count` and {@link PortableCounter}). */
export function countPacket(decider: RulesetDecider, anyNonTerminating: boolean, tally: RulesetTally, packet: Packet, index: number): number {
  if (!anyNonTerminating) {
    const i = decider(packet);
    tally.record(i, i < 0 ? NONE : undefined, packet, index);
    return i;
  }
  const matched: number[] = [];
  const i = decider(packet, matched);
  if (i >= 0) matched.push(i);
  tally.record(i, matched, packet, index);
  return i;
}

/**
 * Decide and record one packet held in slots (src/capture/slots.ts). `example` builds the packet object,
 * called only when the summary keeps this packet as an example.
 */
export function countSlots(decider: SlotsDecider, anyNonTerminating: boolean, tally: RulesetTally, V: Float64Array, W: Uint32Array, index: number, example: () => Packet): number {
  if (!anyNonTerminating) {
    const i = decider(V, W);
    tally.record(i, i < 0 ? NONE : undefined, example, index);
    return i;
  }
  const matched: number[] = [];
  const i = decider(V, W, matched);
  if (i >= 0) matched.push(i);
  tally.record(i, matched, example, index);
  return i;
}

