/**
 * A compiled ruleset as plain data that crosses to worker threads (structured clone), and the counter
 * rebuilt from it there without the expression parser.
 * @module
 */
import type { Packet } from '../expression/index.js';
import { EMPTY_PACKET, HELPERS } from '../expression/index.js';
import { IpSet, type IpSetParts } from '../net/index.js';
import type { SimulationSummary } from './summary.js';
import type { RulesetDecider, SlotsDecider } from './decider.js';
import { RulesetTally, countPacket, countSlots, type TallyRules } from './tally.js';
import { slotsDeciderFrom } from './slots-codegen.js';
import { frameCounter, type FrameCounter, type FrameOptions } from './frame-counter.js';

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

  /** As `CompiledRuleset.frameCounter`. */
  frameCounter(options: FrameOptions = {}): FrameCounter {
    return frameCounter(this, options);
  }

  /** The summary so far. */
  summary(): SimulationSummary {
    return this.tally.summary();
  }
}
