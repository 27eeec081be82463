/** Rulesets: the model, validation of request bodies, the error envelope and simulation. @module */
export * from './model.js';
export { RULESET_CODES, type RulesetCode } from './codes.js';
export { validateRuleset, rulesetDiagnostic, type RulesetContext } from './validate.js';
export { toEnvelope, numericCode, type Envelope, type EnvelopeEntry } from './envelope.js';
export {
  simulate,
  compileRuleset,
  CompiledRuleset,
  type SimulationOptions,
  type SimulationResult,
  type SimulationSummary,
  type RuleSummary,
  type RuleRef,
  type PacketVerdict,
} from './simulate.js';
