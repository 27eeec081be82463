/** The shapes of a semantic diff: who decides on each side, and the regions where that changes. @module */
import type { Diagnostic } from '../diagnostics/index.js';
import type { Packet } from '../expression/index.js';

/** A rule as the diff names it: its place and what people know it by. */
export interface DiffRuleRef {
  index: number;
  action: string;
  expression: string;
  id?: string;
  ref?: string;
  description?: string;
  /** The rule's 1-based line in its file, for a match set's line (match-sets.ts). */
  line?: number;
}

/** What one side does with a packet: its verdict, and the rule that decides it (none: no rule matched). */
export interface Decision {
  /**
   * `allow`, `block`, or an HTTP phase's terminating action (`challenge`, `redirect`, …); for a match set
   * (a `.rules` file, match-sets.ts), `matched` (by `rule`) or `unmatched`.
   */
  verdict: string;
  rule?: DiffRuleRef;
}

/** One field's part of a region's conjunction, as text (`tcp.dstport 443`, `ip.src outside {10.0.0.0/8}`). */
export interface RegionCondition {
  field: string;
  text: string;
}

/**
 * A set of packets (or requests) that one pair of deciders decides on the two sides, the outcome
 * differing: a conjunction of field conditions.
 *
 * `exact`: every packet of the region is decided by `old` on the old side and `new` on the new side, and
 * the simulator confirmed it on `witness`. `unknown`: the analysis cannot tell which packets of the
 * region change (it depends on regexes, functions, lists not given…, or the pair is too large to split,
 * or the simulator did not confirm the witness); `reason` says which and names the rules.
 */
export interface DiffRegion {
  kind: 'exact' | 'unknown';
  /** `verdict`: the verdicts differ; `rule`: same verdict, another rule decides. */
  change: 'verdict' | 'rule';
  old: Decision;
  new: Decision;
  /** The conjunction (empty: no condition on the fields, or unknown because too large to split). */
  conditions: RegionCondition[];
  /** The region in one line: `tcp.dstport 443: allow → block by rule 0 "web"`. */
  text: string;
  /** A packet of the region (exact: the simulator decides it as `old` and `new` say). */
  witness?: Packet;
  /** The parts the analysis cannot decide that the region assumes true or false (unknown regions). */
  assumes?: string[];
  /** Why the region is unknown. */
  reason?: string;
}

/** The semantic diff of two rulesets. */
export interface RulesetDiff {
  /** What is decided: packets (network phases) or requests (HTTP phases). */
  unit: 'packet' | 'request';
  /** Exact regions first (verdict changes before rule changes), then unknown ones. */
  regions: DiffRegion[];
  /** Which rule of the new side is which rule of the old one (by id, ref, else by position and text). */
  matches: { old: number; new: number }[];
  /** Rules left out of either side (expression errors, actions the phase does not run), with `data.side`. */
  diagnostics: Diagnostic[];
}
