/**
 * What a simulation reports: per-packet verdicts and the per-rule summary (plain data: summaries cross
 * from worker threads and are merged).
 * @module
 */
import type { Packet } from '../expression/index.js';
import type { RuleAction } from '../ruleset/index.js';

/** A rule as the simulation reports it. */
export interface RuleRef {
  index: number;
  id?: string;
  ref?: string;
  description?: string;
  action: RuleAction;
}

/**
 * What happened to a packet or request: `allow` (no terminating rule matched, or a skip of the rest of
 * the ruleset did), or the terminating action of the deciding rule (network phases: `block` only).
 */
export type Verdict = 'allow' | 'block' | 'challenge' | 'js_challenge' | 'managed_challenge' | 'redirect' | 'serve_error' | 'log_custom_field';

/** The outcome for one packet (or HTTP request). */
export interface PacketVerdict {
  verdict: Verdict;
  /** The terminating rule, or undefined when none matched (allowed by default). */
  decidedBy?: RuleRef;
  /** Indexes of every rule that matched, in evaluation order (the deciding rule last). */
  matched: number[];
}

/** Per-rule figures of a summary. */
export interface RuleSummary extends RuleRef {
  enabled: boolean;
  expression: string;
  /** Packets the rule matched. */
  matched: number;
  /** Packets the rule decided. */
  decided: number;
  /** Indexes (and the packets) of the first packets it decided, or matched if it never decided. */
  examples: { index: number; packet: Packet }[];
}

/** Totals of a simulation. */
export interface SimulationSummary {
  /** Packets (or HTTP requests) simulated. */
  packets: number;
  /** Packets by verdict; verdicts other than allow and block appear once counted (HTTP phases). */
  verdicts: { allow: number; block: number } & { [V in Exclude<Verdict, 'allow' | 'block'>]?: number };
  /** Packets allowed because no terminating rule matched. */
  defaultAllowed: number;
  rules: RuleSummary[];
}
