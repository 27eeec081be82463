/**
 * The compiled ruleset: all enabled rules generated into ONE function that loads each packet field the
 * ruleset reads once, then tests the rules in order and returns the index of the deciding rule (-1: none).
 * Loading fields once per packet instead of once per rule is what lets 50 rules run faster than 50
 * hand-written closures (bench/simulate.ts). Non-terminating matches are pushed into `matched` when given.
 * Without `new Function` (a strict CSP) it falls back to calling each rule's own matcher in turn.
 * @module
 */
import type { CheckedExpression, Matcher, Packet } from '../expression/index.js';
import { EMPTY_PACKET, HELPERS, emitExpression, type EmitContext } from '../expression/compiler.js';
import { jsString } from '../codegen/index.js';
import { IpSet, type IpSetParts } from '../net/ip-set.js';
import type { RuleSummary, SimulationSummary } from './simulate.js';
import type { RuleAction } from './model.js';
import { slotsDeciderFrom, type SlotsDecider } from './slots-codegen.js';

/** One rule as the ruleset compiler sees it. */
export interface RulesetEntry {
  index: number;
  checked: CheckedExpression;
  matcher: Matcher;
  terminating: boolean;
}

/** Decide a packet: the index of the deciding rule, or -1; non-terminating matches go to `matched`. */
export type RulesetDecider = (packet: Packet, matched?: number[]) => number;

/** The fields a checked expression reads, including the sources of derived fields. */
function fieldsOf(checked: CheckedExpression, out: Set<string>): void {
  for (const p of checked.predicates.values()) {
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

/**
 * The counting half of a compiled ruleset: verdict totals, per-rule matched/decided counts and examples.
 * Kept apart from compiling (which needs the expression parser) so that `rulekit simulate`'s worker
 * threads can count with a decider generated elsewhere.
 */
export class RulesetTally {
  packets = 0;
  allow = 0;
  block = 0;
  defaultAllowed = 0;
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
    } else if (this.actions[decided] === 'block') this.block++;
    else this.allow++;
    if (matched === undefined) {
      const s = this.rows[decided]!;
      s.matched++;
      s.decided++;
      if (s.examples.length < this.examplesPerRule) s.examples.push({ index, packet: this.keep(packet) });
      return;
    }
    for (const i of matched) {
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
      verdicts: { allow: this.allow, block: this.block },
      defaultAllowed: this.defaultAllowed,
      rules: this.rows.map((r) => ({ ...r, examples: [...r.examples] })),
    };
  }
}

/**
 * A compiled ruleset as plain data (`CompiledRuleset.portable()`), for a thread that must not load the
 * expression parser: the decider's source and its constants in a structured-clone-safe form.
 */
export interface PortableRuleset {
  source: string;
  constants: unknown[];
  /** The decider on numeric slots (slots-codegen.ts), when every rule reads only slot fields. */
  slots?: { source: string; constants: unknown[] };
  tally: TallyRules;
  anyNonTerminating: boolean;
  fields: string[];
}

const IPSET_TAG = '__rulekitIpSet';
const RE2_TAG = '__rulekitRe2';

/**
 * Constants of a generated decider in a form structured clone keeps: IP sets as their index arrays,
 * RE2JS regexes as pattern and flags; sets, arrays, plain objects and primitives as they are. Undefined
 * when a constant is of another kind (then the ruleset cannot cross threads).
 */
export function portableConstants(constants: readonly unknown[]): unknown[] | undefined {
  const convert = (v: unknown, depth: number): unknown => {
    if (depth > 8) throw new Error('deep');
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function' || typeof v === 'symbol') throw new Error('function');
      return v;
    }
    if (v instanceof IpSet) return { [IPSET_TAG]: v.toParts() };
    const proto = Object.getPrototypeOf(v);
    if (proto?.constructor?.name === 'RE2JS' && typeof (v as { pattern?: unknown }).pattern === 'function') {
      const re = v as { pattern(): string; flags(): number };
      return { [RE2_TAG]: { pattern: re.pattern(), flags: re.flags() } };
    }
    if (Array.isArray(v)) return v.map((x) => convert(x, depth + 1));
    if (v instanceof Set) return new Set([...v].map((x) => convert(x, depth + 1)));
    if (v instanceof Uint8Array) return v;
    if (proto === Object.prototype || proto === null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = convert(x, depth + 1);
      return out;
    }
    throw new Error('class');
  };
  try {
    return constants.map((c) => convert(c, 0));
  } catch {
    return undefined;
  }
}

/** Rebuild the constants {@link portableConstants} made; `re2` compiles a regex (the RE2JS class). */
export function restoreConstants(constants: readonly unknown[], re2: { compile(pattern: string, flags: number): unknown }): unknown[] {
  const restore = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(restore);
    if (v instanceof Set) return new Set([...v].map(restore));
    if (v instanceof Uint8Array) return v;
    const o = v as Record<string, unknown>;
    if (o[IPSET_TAG]) return IpSet.fromParts(o[IPSET_TAG] as IpSetParts);
    if (o[RE2_TAG]) {
      const r = o[RE2_TAG] as { pattern: string; flags: number };
      return re2.compile(r.pattern, r.flags);
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = restore(x);
    return out;
  };
  return constants.map(restore);
}

/** The decider of a portable ruleset (needs `new Function`, as generating it did). */
export function portableDecider(source: string, constants: unknown[]): RulesetDecider {
  return (new Function('k', 'h', 'E', source) as (k: unknown[], h: typeof HELPERS, e: Packet) => RulesetDecider)(constants, HELPERS, EMPTY_PACKET);
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

/** A {@link PortableRuleset} rebuilt in another thread: counts packets like `CompiledRuleset.count`. */
export class PortableCounter {
  readonly fields: ReadonlySet<string>;
  /** The decider on slots, when the ruleset has one (see {@link PortableCounter.countSlots}). */
  readonly slotsDecider: SlotsDecider | undefined;
  private readonly decider: RulesetDecider;
  private readonly anyNonTerminating: boolean;
  private readonly tally: RulesetTally;

  constructor(p: PortableRuleset, re2: { compile(pattern: string, flags: number): unknown }) {
    this.fields = new Set(p.fields);
    this.decider = portableDecider(p.source, restoreConstants(p.constants, re2));
    this.slotsDecider = p.slots ? slotsDeciderFrom(p.slots.source, restoreConstants(p.slots.constants, re2)) : undefined;
    this.anyNonTerminating = p.anyNonTerminating;
    this.tally = new RulesetTally(p.tally);
  }

  /** As `CompiledRuleset.countSlots` (needs {@link PortableCounter.slotsDecider}). */
  countSlots(V: Float64Array, W: Uint32Array, index: number, example: () => Packet): number {
    return countSlots(this.slotsDecider!, this.anyNonTerminating, this.tally, V, W, index, example);
  }

  /** As `CompiledRuleset.count`. */
  count(packet: Packet, index: number, transient = false): number {
    this.tally.transient = transient;
    return countPacket(this.decider, this.anyNonTerminating, this.tally, packet, index);
  }

  /** The summary so far. */
  summary(): SimulationSummary {
    return this.tally.summary();
  }
}
