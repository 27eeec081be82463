/**
 * The packet engine: a ruleset compiled to one generated decider (on packet objects or numeric slots),
 * the tally of verdicts and per-rule counts, the portable form that crosses to worker threads, and
 * {@link simulate} over packets in memory. Below it: the ruleset model and validation (src/ruleset) and
 * the capture decoders (src/capture); above it: the simulation of files, HTTP records and the server.
 * @module
 */
export type { RuleRef, PacketVerdict, RuleSummary, SimulationSummary, Verdict } from './summary.js';
export {
  simulate,
  compileRuleset,
  CompiledRuleset,
  rulesetEntries,
  ValueProblems,
  withGeoIp,
  readsGeoFields,
  MAX_VALUE_DIAGNOSTICS,
  type SimulationOptions,
  type SimulationResult,
} from './simulate.js';
export { checkPacketValues, validValueSource } from './packet-values.js';
export { frameCounter, type FrameCounter, type FrameCounterTarget, type FrameOptions } from './frame-counter.js';
// For worker threads and tests: the compiled ruleset as data, and the generated deciders.
export { PortableCounter, portableConstants, restoreConstants, type PortableRuleset } from './portable.js';
export { generateRuleset, compileRulesetDecider, fieldsOf } from './decider-codegen.js';
export { generateSlotsRuleset, slotsDeciderFrom } from './slots-codegen.js';
export type { RulesetDecider, RulesetEntry, SlotsDecider } from './decider.js';
