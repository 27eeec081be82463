/** Rulesets: the model, validation of request bodies, the error envelope and simulation. @module */
export * from './model.js';
export { RULESET_CODES, type RulesetCode } from './codes.js';
export {
  PHASE_CATALOG,
  CATALOG_ACTIONS,
  ACTION_CATALOG,
  ACTIONS_SOURCE,
  KIND_CATALOG,
  CATALOG_KINDS,
  SCHEMA_SOURCE,
  PHASES_SOURCE,
  UNPLACED_ACTIONS,
  kindInfo,
  kindsAt,
  phasesAt,
  kindPhaseProblems,
  actionProblem,
  type CatalogProblem,
  type ActionInfo,
  type CatalogAction,
  type KindInfo,
  type RulesetScope,
  type JsonType,
  type Shape,
  actionTerminates,
  RESPONSE_PHASES,
  responseFieldPhases,
  responseFieldDiagnostics,
  phaseInfo,
  phaseExpressionOptions,
  phaseFieldDiagnostics,
  fieldSetScheme,
  type PhaseInfo,
  type FieldSet,
  type CatalogPhase,
} from './phases.js';
export { validateRuleset, rulesetDiagnostic, type RulesetContext } from './validate.js';
export { actionParameterProblems, pathText, type ParameterProblem, type ParameterOptions } from './parameters.js';
export { ruleValueExpressions, checkRuleValueExpression, CREDENTIAL_CHECK, CREDENTIAL_CHECK_SOURCE, type ValueSlot, type ValueExpressionAt } from './value-expressions.js';
export { RuleCache, type RuleScope } from './rule-cache.js';
export { toEnvelope, numericCode, type Envelope, type EnvelopeEntry } from './envelope.js';
export type { RuleRef, PacketVerdict, RuleSummary, SimulationSummary, Verdict } from './summary.js';
export {
  simulate,
  compileRuleset,
  CompiledRuleset,
  rulesetProblems,
  rulesetShapeProblems,
  httpPhaseRefusal,
  isHttpRuleset,
  ValueProblems,
  withGeoIp,
  readsGeoFields,
  MAX_VALUE_DIAGNOSTICS,
  type SimulationOptions,
  type SimulationResult,
} from './simulate.js';
export { checkPacketValues } from './packet-values.js';
export { frameCounter, type FrameCounter, type FrameCounterTarget, type FrameOptions } from './frame-counter.js';
// For worker threads and tests: the compiled ruleset as data, and the generated deciders.
export { PortableCounter, portableConstants, restoreConstants, type PortableRuleset } from './portable.js';
export { generateRuleset, compileRulesetDecider } from './decider-codegen.js';
export { generateSlotsRuleset, slotsDeciderFrom } from './slots-codegen.js';
export type { RulesetDecider, RulesetEntry, SlotsDecider } from './decider.js';
