/**
 * The catalog of phases: for each ruleset phase, the levels it exists at, the fields its expressions read
 * and the actions its rules may take. Validation, lint (JSON/YAML bodies, Terraform) and the language
 * server read this one table.
 *
 * Sources: the phase names and their layers are the public "Phases list" of the Ruleset Engine docs
 * (cloudflare/cloudflare-docs, `src/content/docs/ruleset-engine/reference/phases-list.mdx` at
 * 046f5f9e5fdf226151e76964294d856025c97ce6); the actions of each phase and the levels follow the product
 * pages that list links to and the `action` enum of the Terraform provider's `cloudflare_ruleset` (v5),
 * and are the part of this table least checked against a source. `network_transit` is this project's name of the network
 * firewall phase (service.md). Phases of the public list without a documented action set of their own
 * (`http_request_sanitize`, `http_request_api_gateway_*`, `http_request_snippets`,
 * `http_request_cloud_connector`) are not in the catalog: their rulesets are reported as not checked.
 * @module
 */
import { complexityDiagnostics } from './complexity.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { HTTP_FIELD_PHASES, HTTP_SCHEME, NETWORK_SCHEME, walk, type ExprNode, type Scheme } from '../expression/index.js';
import { RULESET_CODES } from './codes.js';

/** The fields a phase's expressions read: the packet fields or the HTTP request/response fields. */
export type FieldSet = 'network' | 'http';

/** One phase of the catalog. */
export interface PhaseInfo {
  /** Levels the phase's entry point rulesets exist at (account: kind `root`; zone: kind `zone`). */
  scopes: readonly ('account' | 'zone')[];
  fields: FieldSet;
  /** Actions its rules may take. */
  actions: readonly string[];
  doc: string;
}

const FIREWALL = ['block', 'challenge', 'js_challenge', 'managed_challenge', 'log', 'skip'] as const;

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

/** Where {@link ACTION_CATALOG} comes from. */
export const ACTIONS_SOURCE = Object.freeze({
  repo: 'cloudflare/cloudflare-docs',
  path: 'src/content/docs/ruleset-engine/rules-language/actions.mdx',
  revision: '0309c8bed23afe438f28fd5026b5a7999e653081',
});

/**
 * Every action of the catalog's phases, with whether it ends the evaluation of the ruleset (the
 * "Terminating action?" column of the Actions reference, {@link ACTIONS_SOURCE}). `skip` is not
 * terminating there, but a skip of the remaining rules (`"ruleset": "current"`) ends this ruleset's
 * evaluation: the simulation treats it so. A test holds this table and the phases' actions in agreement.
 */
export const ACTION_CATALOG: Readonly<Record<string, { terminating: boolean; doc: string }>> = {
  block: { terminating: true, doc: 'Denies the request (the packet is dropped).' },
  challenge: { terminating: true, doc: 'Interactive challenge.' },
  js_challenge: { terminating: true, doc: 'Non-interactive challenge.' },
  managed_challenge: { terminating: true, doc: 'Managed challenge.' },
  redirect: { terminating: true, doc: 'Replies with an HTTP redirect.' },
  serve_error: { terminating: true, doc: 'Serves custom error content.' },
  log_custom_field: { terminating: true, doc: 'Configures custom fields of Logpush jobs.' },
  skip: { terminating: false, doc: 'Skips rules, rulesets, phases or products; "ruleset": "current" ends this ruleset.' },
  log: { terminating: false, doc: 'Records the request in the logs.' },
  execute: { terminating: false, doc: 'Executes another ruleset (not simulated: its rules are not known here).' },
  rewrite: { terminating: false, doc: 'Rewrites the URI or headers.' },
  route: { terminating: false, doc: 'Changes the Host header, SNI, resolved host or port.' },
  set_config: { terminating: false, doc: 'Changes product settings.' },
  set_cache_settings: { terminating: false, doc: 'Changes cache settings.' },
  compress_response: { terminating: false, doc: 'Chooses the response compression.' },
};

/**
 * Whether a rule with this action and these action_parameters ends the ruleset's evaluation when it
 * matches: the action's row of {@link ACTION_CATALOG}, and a skip only of the remaining rules
 * (`"ruleset": "current"`). Simulation and analysis read this one function. Unknown actions do not.
 */
export function actionTerminates(action: unknown, parameters?: unknown): boolean {
  if (action === 'skip') return typeof parameters === 'object' && parameters !== null && (parameters as { ruleset?: unknown }).ruleset === 'current';
  return typeof action === 'string' && Object.hasOwn(ACTION_CATALOG, action) && ACTION_CATALOG[action]!.terminating;
}

/** Every phase rulekit knows, by name. */
export const PHASE_CATALOG = {
  network_transit: { scopes: ['account'], fields: 'network', actions: ['skip', 'block'], doc: 'The network firewall of service.md (packets).' },
  magic_transit: { scopes: ['account'], fields: 'network', actions: ['skip', 'block'], doc: 'Magic Firewall custom rules (packets).' },
  magic_transit_managed: { scopes: ['account'], fields: 'network', actions: ['execute', 'skip'], doc: 'Magic Firewall managed rules (packets).' },
  magic_transit_ids_managed: { scopes: ['account'], fields: 'network', actions: ['execute'], doc: 'Magic Firewall intrusion detection (packets).' },
  magic_transit_ratelimit: { scopes: ['account'], fields: 'network', actions: ['skip', 'block'], doc: 'Magic Firewall rate limiting (packets).' },
  ddos_l4: { scopes: ['account'], fields: 'network', actions: ['execute'], doc: 'Network-layer DDoS Attack Protection (packets).' },
  ddos_l7: { scopes: ['account', 'zone'], fields: 'http', actions: ['execute'], doc: 'HTTP DDoS Attack Protection.' },
  http_request_dynamic_redirect: { scopes: ['zone'], fields: 'http', actions: ['redirect'], doc: 'Single Redirects.' },
  http_request_redirect: { scopes: ['account'], fields: 'http', actions: ['redirect'], doc: 'Bulk Redirects.' },
  http_request_transform: { scopes: ['zone'], fields: 'http', actions: ['rewrite'], doc: 'URL rewrite rules.' },
  http_request_late_transform: { scopes: ['zone'], fields: 'http', actions: ['rewrite'], doc: 'Request header modification rules.' },
  http_request_origin: { scopes: ['zone'], fields: 'http', actions: ['route'], doc: 'Origin rules.' },
  http_request_cache_settings: { scopes: ['zone'], fields: 'http', actions: ['set_cache_settings'], doc: 'Cache rules.' },
  http_config_settings: { scopes: ['zone'], fields: 'http', actions: ['set_config'], doc: 'Configuration rules.' },
  http_request_firewall_custom: { scopes: ['account', 'zone'], fields: 'http', actions: [...FIREWALL, 'execute'], doc: 'WAF custom rules.' },
  http_ratelimit: { scopes: ['account', 'zone'], fields: 'http', actions: ['block', 'challenge', 'js_challenge', 'managed_challenge', 'log'], doc: 'Rate limiting rules.' },
  http_request_firewall_managed: { scopes: ['account', 'zone'], fields: 'http', actions: ['execute', ...FIREWALL], doc: 'WAF managed rules.' },
  http_request_sbfm: { scopes: ['zone'], fields: 'http', actions: ['block', 'managed_challenge', 'js_challenge', 'log', 'skip'], doc: 'Super Bot Fight Mode.' },
  http_response_headers_transform: { scopes: ['zone'], fields: 'http', actions: ['rewrite'], doc: 'Response header modification rules.' },
  http_response_compression: { scopes: ['zone'], fields: 'http', actions: ['compress_response'], doc: 'Compression rules.' },
  http_response_firewall_managed: { scopes: ['account', 'zone'], fields: 'http', actions: ['execute', 'skip', 'log'], doc: 'Sensitive Data Detection (response).' },
  http_custom_errors: { scopes: ['account', 'zone'], fields: 'http', actions: ['serve_error'], doc: 'Custom error rules.' },
  http_log_custom_fields: { scopes: ['zone'], fields: 'http', actions: ['log_custom_field'], doc: 'Logpush custom fields.' },
} as const satisfies Record<string, PhaseInfo>;

/** A phase of the catalog. */
export type CatalogPhase = keyof typeof PHASE_CATALOG;

/** The catalog entry of a phase name, or undefined. */
export function phaseInfo(phase: string): PhaseInfo | undefined {
  return Object.hasOwn(PHASE_CATALOG, phase) ? (PHASE_CATALOG as Record<string, PhaseInfo>)[phase] : undefined;
}

/** Every action of some phase, sorted. */
export const CATALOG_ACTIONS: readonly string[] = [...new Set(Object.values(PHASE_CATALOG).flatMap((p) => p.actions as readonly string[]))].sort();

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
