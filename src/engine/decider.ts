/**
 * What a compiled ruleset decides with: the types shared by the generators (decider-codegen.ts,
 * slots-codegen.ts), the tally and the portable form.
 * @module
 */
import type { CheckedExpression, Matcher, Packet } from '../expression/index.js';

/** One rule as the ruleset compiler sees it. */
export interface RulesetEntry {
  index: number;
  checked: CheckedExpression;
  matcher: Matcher;
  terminating: boolean;
}

/** Decide a packet: the index of the deciding rule, or -1; non-terminating matches go to `matched`. */
export type RulesetDecider = (packet: Packet, matched?: number[]) => number;

/** Decide a packet held in slots: the index of the deciding rule or -1; non-terminating matches go to `matched`. */
export type SlotsDecider = (V: Float64Array, W: Uint32Array, matched?: number[]) => number;
