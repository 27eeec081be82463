/**
 * Phases: what a phase means for its rules' expressions (field set, response fields, the phase-only
 * fields), whether an action ends a ruleset, and the checks of kind, phase, level and action that
 * validation and Terraform lint share. The tables themselves are data in catalog.ts.
 * @module
 */
import { complexityDiagnostics } from './complexity.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { HTTP_FIELD_PHASES, HTTP_SCHEME, NETWORK_SCHEME, walk, type ExprNode, type Scheme } from '../expression/index.js';
import { RULESET_CODES, type RulesetCode } from './codes.js';
import { ACTION_CATALOG, KIND_CATALOG, PHASE_CATALOG, type ActionInfo, type FieldSet, type PhaseInfo, type KindInfo, type RulesetScope } from './catalog.js';
import { suggest } from '../diagnostics/index.js';

export { ACTION_CATALOG, ACTIONS_SOURCE, KIND_CATALOG, PHASE_CATALOG, PHASES_SOURCE, SCHEMA_SOURCE, UNPLACED_ACTIONS } from './catalog.js';
export type { ActionInfo, CatalogAction, CatalogPhase, FieldSet, JsonType, KindInfo, PhaseInfo, RulesetKind, RulesetScope, Shape } from './catalog.js';

/**
 * Where an HTTP phase runs: on the request, or on the response (the "Response phases" table of the phases
 * list; `http_ratelimit` is in both, as rate limiting rules may use response information). Only response
 * phases read the response fields ({@link RESPONSE_FIELD_PHASES}).
 */
export const RESPONSE_PHASES: readonly string[] = [
  'http_custom_errors',
  'http_response_headers_transform',
  'http_ratelimit',
  'http_response_compression',
  'http_response_cache_settings',
  'http_response_firewall_managed',
  'http_log_custom_fields',
];

/**
 * The response fields and the phases that may read them. `http.response.*` and `raw.http.response.*`:
 * the response phases (the fields reference says their availability "depends on the exact Cloudflare
 * feature"); `cf.response.*`: only Response Header Transform Rules and Custom Errors, as their rows of
 * the fields reference (`src/content/fields/index.yaml` at the revision of `HTTP_FIELDS_SOURCE`) say.
 */
export function responseFieldPhases(field: string): readonly string[] | undefined {
  if (field.startsWith('cf.response.')) return ['http_response_headers_transform', 'http_custom_errors'];
  if (field.startsWith('http.response.') || field.startsWith('raw.http.response.')) return RESPONSE_PHASES;
  return undefined;
}

/**
 * Whether a rule with this action and these action_parameters ends the ruleset's evaluation when it
 * matches: the action's row of {@link ACTION_CATALOG}, and a skip only of the remaining rules
 * (`"ruleset": "current"`). Simulation and analysis read this one function. Unknown actions do not.
 */
export function actionTerminates(action: unknown, parameters?: unknown): boolean {
  if (action === 'skip') return typeof parameters === 'object' && parameters !== null && (parameters as { ruleset?: unknown }).ruleset === 'current';
  return typeof action === 'string' && Object.hasOwn(ACTION_CATALOG, action) && (ACTION_CATALOG as Record<string, ActionInfo>)[action]!.terminating;
}

/** The catalog entry of a phase name, or undefined. */
export function phaseInfo(phase: string): PhaseInfo | undefined {
  return Object.hasOwn(PHASE_CATALOG, phase) ? (PHASE_CATALOG as Record<string, PhaseInfo>)[phase] : undefined;
}

/** The catalog entry of a kind name, or undefined. */
export function kindInfo(kind: string): KindInfo | undefined {
  return Object.hasOwn(KIND_CATALOG, kind) ? (KIND_CATALOG as Record<string, KindInfo>)[kind] : undefined;
}

/** Every kind, in the schema's order. */
export const CATALOG_KINDS: readonly string[] = Object.keys(KIND_CATALOG);

/** The kinds a ruleset can be created with at a level. */
export const kindsAt = (scope: RulesetScope): string[] => CATALOG_KINDS.filter((k) => (kindInfo(k)!.scopes as readonly string[]).includes(scope));

/** The phases rulesets exist in at a level. */
export const phasesAt = (scope: RulesetScope): string[] => Object.entries(PHASE_CATALOG).filter(([, p]) => (p.scopes as readonly string[]).includes(scope)).map(([name]) => name);

/**
 * A problem of a ruleset's kind, phase or level, or of a rule's action: what validation (at a JSON
 * pointer) and Terraform lint (at the HCL value) report, worded once. `at` names the member it is about.
 */
export interface CatalogProblem {
  code: RulesetCode;
  at: 'kind' | 'phase' | 'action';
  message: string;
  /** The value to write instead, when one is clear. */
  replacement?: string;
  data?: Record<string, unknown>;
}


/** `an account-level`, `a zone-level`, `an account- and zone-level`. */
const levelsOf = (ss: readonly RulesetScope[]) => (ss.length > 1 ? 'an account- and zone-level' : ss[0] === 'account' ? 'an account-level' : 'a zone-level');
const words = (xs: readonly string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}` : xs.join(''));

/**
 * The problems of a ruleset's `kind` and `phase` (each a string, or undefined when absent or not a
 * string) at a level (undefined: not known, as in a file). An unknown phase is reported; an unknown kind
 * is reported with the kinds of the level; a kind and a phase without a common level, or either of them
 * not at the level, are reported once.
 */
export function kindPhaseProblems(kind: string | undefined, phase: string | undefined, scope?: RulesetScope): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  const phases = Object.keys(PHASE_CATALOG);
  const info = phase === undefined ? undefined : phaseInfo(phase);
  if (phase !== undefined && !info) {
    const guess = suggest(phase, phases);
    out.push({ code: 'ruleset-unknown-phase', at: 'phase', message: `unknown phase "${phase}"; phases are ${words(phases)}${guess ? ` (did you mean ${guess}?)` : ''}`, replacement: guess, data: { phase } });
  }
  const kinds = scope ? kindsAt(scope) : CATALOG_KINDS;
  const k = kind === undefined ? undefined : kindInfo(kind);
  if (kind !== undefined && !k) {
    const guess = suggest(kind, kinds);
    out.push({ code: 'ruleset-unknown-kind', at: 'kind', message: `unknown kind "${kind}"; kinds are ${words(kinds)}${scope ? ` at the ${scope} level` : ''}${guess ? ` (did you mean ${guess}?)` : ''}`, replacement: guess, data: { kind } });
  }
  if (scope && info && !(info.scopes as readonly string[]).includes(scope)) {
    out.push({ code: 'ruleset-scope', at: 'phase', message: `phase ${phase} is ${levelsOf(info.scopes)} phase; it cannot be created at the ${scope} level`, data: { phase, scope } });
    return out;
  }
  if (scope && k && !(k.scopes as readonly string[]).includes(scope)) {
    const want = kindsAt(scope);
    out.push({ code: 'ruleset-scope', at: 'kind', message: `kind ${kind} is for ${k.scopes.join('- and ')}-level rulesets; at the ${scope} level the kinds are ${words(want)}`, replacement: want[0], data: { kind, scope } });
    return out;
  }
  if (k && info && !k.scopes.some((s) => (info.scopes as readonly string[]).includes(s))) {
    // Only the entry point kinds are tied to one level: root and zone.
    const want = CATALOG_KINDS.filter((x) => kindInfo(x)!.entryPoint && kindInfo(x)!.scopes.some((s) => (info.scopes as readonly string[]).includes(s)));
    out.push({ code: 'ruleset-phase-kind', at: 'kind', message: `phase ${phase} goes with kind ${words(want.map((w) => `"${w}"`))}, not "${kind}"`, replacement: want[0], data: { kind, phase } });
  }
  return out;
}

/**
 * The problem of a rule's action in a phase (undefined: not known): an action the catalog does not have,
 * or one its phase does not take. Undefined when the action is fine.
 */
export function actionProblem(action: string, phase: string | undefined): CatalogProblem | undefined {
  const info = phase === undefined ? undefined : phaseInfo(phase);
  if (!Object.hasOwn(ACTION_CATALOG, action)) {
    // Named among the phase's actions when the phase is known: the list a fix would choose from.
    const all = info ? info.actions : CATALOG_ACTIONS;
    const guess = suggest(action, all);
    return { code: 'rule-unknown-action', at: 'action', message: `unknown action "${action}"; ${info ? `the ${phase} phase's actions` : 'actions'} are ${all.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`, replacement: guess, data: { action } };
  }
  if (!info || info.actions.includes(action)) return undefined;
  const guess = suggest(action, info.actions);
  return { code: 'rule-action-phase', at: 'action', message: `action ${action} is not an action of the ${phase} phase; its actions are ${info.actions.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`, replacement: guess, data: { action, phase } };
}

/** Every action of some phase, sorted. */
export const CATALOG_ACTIONS: readonly string[] = Object.keys(ACTION_CATALOG).sort();

/** The scheme of a field set. */
export function fieldSetScheme(fields: FieldSet): Scheme {
  return fields === 'http' ? HTTP_SCHEME : NETWORK_SCHEME;
}

/**
 * The expression options for a phase: HTTP phases read {@link HTTP_SCHEME}; network phases keep the
 * caller's scheme (the network scheme by default). Unknown phases leave the options as they are.
 */
export function phaseExpressionOptions<T extends { scheme?: unknown }>(phase: string | undefined, options: T): T {
  const info = phase === undefined ? undefined : phaseInfo(phase);
  // The phase goes along: some functions are documented for some phases only, and the managed lists'
  // prefix is the phase's (`$cf.` in Magic Transit, the deployment's token in network_transit).
  if (!info) return options;
  return info.fields === 'http' ? { ...options, scheme: HTTP_SCHEME, phase } : { ...options, phase };
}

/**
 * `unknown-field` diagnostics of an expression checked for `phase` whose name is a field of the other
 * field set become `rule-field-phase` errors that name the phase (an HTTP field in magic_transit). The
 * name is read from the expression text at the diagnostic's range. With the expression's `ast`, the
 * response fields a request phase reads are errors too ({@link responseFieldDiagnostics}).
 */
export function phaseFieldDiagnostics(text: string, diagnostics: Diagnostic[], phase: string | undefined, ast?: ExprNode): Diagnostic[] {
  const info = phase === undefined ? undefined : phaseInfo(phase);
  if (phase === undefined) return diagnostics.map((d) => noPhaseHttpField(text, d));
  if (!info) return diagnostics;
  if (ast) diagnostics = [...diagnostics, ...responseFieldDiagnostics(ast, phase), ...complexityDiagnostics(ast, phase)];
  const other: FieldSet = info.fields === 'http' ? 'network' : 'http';
  return diagnostics.map((d) => {
    if (d.code !== 'unknown-field' || !d.range) return d;
    const name = text.slice(d.range.start, d.range.end);
    if (!fieldSetScheme(other).get(name) || fieldSetScheme(info.fields).get(name)) return d;
    const what = other === 'http' ? 'a field of HTTP requests (the http_* phases)' : 'a packet field (the network phases)';
    const reads = info.fields === 'http' ? 'HTTP request fields' : 'packet fields';
    // The did-you-mean fix of unknown-field would rename the field into a wrong one: it is dropped.
    const { fix: _fix, ...rest } = d;
    return { ...rest, code: 'rule-field-phase', severity: RULESET_CODES['rule-field-phase'].severity, message: `${name} is ${what}; the ${phase} phase reads ${reads}`, data: { field: name, phase, fieldSet: other } };
  });
}

/**
 * An HTTP field in a ruleset that names no phase (a bare array of rules, a PUT body) is read with the
 * packet fields of the default phase: its `unknown-field` says so and how to read it as HTTP rules, in
 * place of a did-you-mean towards a packet field.
 */
function noPhaseHttpField(text: string, d: Diagnostic): Diagnostic {
  if (d.code !== 'unknown-field' || !d.range) return d;
  const name = text.slice(d.range.start, d.range.end);
  if (!fieldSetScheme('http').get(name) || fieldSetScheme('network').get(name)) return d;
  const { fix: _fix, ...rest } = d;
  return { ...rest, message: `${name} is a field of HTTP requests, but this ruleset names no phase, so its rules are read as network_transit's (packet fields); give the ruleset its phase ("phase": "http_request_firewall_custom", or lint --phase / validate --phase)`, data: { ...d.data, field: name, fieldSet: 'http' } };
}

/**
 * `rule-field-phase` errors for the response fields an expression of a request phase reads (an
 * `http.response.code` in `http_request_firewall_custom`), and for the fields the reference keeps to some
 * phases (`HTTP_FIELD_PHASES`: `http.request.accepted_languages` outside Transform Rules), naming the phase
 * and the phases that may read them; `ast` is the checked expression's tree (its field nodes carry their ranges).
 */
export function responseFieldDiagnostics(ast: ExprNode | undefined, phase: string | undefined): Diagnostic[] {
  const info = phase === undefined ? undefined : phaseInfo(phase);
  if (!ast || info?.fields !== 'http') return [];
  const out: Diagnostic[] = [];
  walk(ast, (n) => {
    if (n.kind !== 'field') return;
    const only = Object.hasOwn(HTTP_FIELD_PHASES, n.name) ? HTTP_FIELD_PHASES[n.name]! : undefined;
    if (only && !only.phases.includes(phase!)) {
      const message = `${n.name} is only available in ${only.where} (the ${only.phases.join(', ')} phases), not in ${phase}`;
      out.push({ code: 'rule-field-phase', severity: RULESET_CODES['rule-field-phase'].severity, message, range: { ...n.range }, data: { field: n.name, phase, phases: [...only.phases] } });
      return;
    }
    const phases = responseFieldPhases(n.name);
    if (!phases || phases.includes(phase!)) return;
    const message = `${n.name} is a response field, read only in the ${phases.join(', ')} phase${phases.length > 1 ? 's' : ''}; ${phase} runs ${RESPONSE_PHASES.includes(phase!) ? 'on responses without it' : 'before the response exists'}`;
    out.push({ code: 'rule-field-phase', severity: RULESET_CODES['rule-field-phase'].severity, message, range: { ...n.range }, data: { field: n.name, phase, phases: [...phases] } });
  });
  return out;
}
