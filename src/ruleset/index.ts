/** Rulesets: the model, the catalog of kinds, phases and actions, validation of request bodies and the error envelope. @module */
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
export { rulesetProblems, rulesetShapeProblems, httpPhaseRefusal, isHttpRuleset } from './problems.js';
// For the packet engine (src/engine): a rule's check, shared with the validation of the same ruleset.
export { checkedExpression, copyDiagnostics } from './check-cache.js';
