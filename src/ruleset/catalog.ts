/**
 * The catalog of the Rulesets API as data: ruleset kinds, phases (levels, field set, actions) and rule
 * actions (terminating or not, and the members of their `action_parameters` with their JSON types).
 * Validation (`validateRuleset`, `rulekit validate`, JSON/YAML lint, the server's create and update) and
 * Terraform lint read these tables and nothing else; test/ruleset/catalog.test.ts holds them against the
 * enums recorded from the schema (test/fixtures/rulesets-schema.json) and the readers against each other.
 *
 * Sources:
 * - Cloudflare's OpenAPI schema, {@link SCHEMA_SOURCE}: `rulesets_RulesetKind` (the kinds),
 *   `rulesets_RulesetPhase` (the phases), the discriminator of `rulesets_RequestRule` (the actions) and
 *   each `rulesets_<Action>Rule`'s `action_parameters` (members, JSON types, `required`).
 * - The schema says nothing of which phase takes which action. The phases' levels and actions follow the
 *   Ruleset Engine "Phases list" (`ruleset-engine/reference/phases-list.mdx` at {@link PHASES_SOURCE}), the
 *   Actions reference ({@link ACTIONS_SOURCE}) and the product pages those link to. Where the docs are
 *   silent the table is generous: refusing a ruleset the API accepts (a false red) is the bug this table
 *   exists to avoid; accepting an action that a phase cannot run (a false green) is the lesser evil, and
 *   each such choice says so beside its row.
 * @module
 */

/** Where the kinds, phases, actions and parameter shapes come from. */
export const SCHEMA_SOURCE = Object.freeze({
  repo: 'cloudflare/api-schemas',
  path: 'openapi.yaml',
  revision: '004e306af7836c7edd2b39d286c8cdd3d0508702',
});

/** Where the phases' levels come from. */
export const PHASES_SOURCE = Object.freeze({
  repo: 'cloudflare/cloudflare-docs',
  path: 'src/content/docs/ruleset-engine/reference/phases-list.mdx',
  revision: '046f5f9e5fdf226151e76964294d856025c97ce6',
});

/** Where the actions' "terminating" column comes from. */
export const ACTIONS_SOURCE = Object.freeze({
  repo: 'cloudflare/cloudflare-docs',
  path: 'src/content/docs/ruleset-engine/rules-language/actions.mdx',
  revision: '0309c8bed23afe438f28fd5026b5a7999e653081',
});

/** A level rulesets live at. */
export type RulesetScope = 'account' | 'zone';

/** One ruleset kind. */
export interface KindInfo {
  /** Levels a ruleset of this kind can be created at. */
  scopes: readonly RulesetScope[];
  /** An entry point ruleset: one per phase and level (the store keeps them unique). */
  entryPoint: boolean;
  doc: string;
}

/**
 * The ruleset kinds of `rulesets_RulesetKind`. `custom` exists at both levels ("At the zone level, all
 * customers can create and deploy custom rulesets", waf/custom-rulesets); `managed` rulesets are
 * Cloudflare's: the schema has the kind, so a body with it is not refused here (the service may answer a
 * customer's create with a permission error, which is not a question of the body's shape).
 */
export const KIND_CATALOG = {
  root: { scopes: ['account'], entryPoint: true, doc: 'The entry point ruleset of a phase at the account level.' },
  zone: { scopes: ['zone'], entryPoint: true, doc: 'The entry point ruleset of a phase at the zone level.' },
  custom: { scopes: ['account', 'zone'], entryPoint: false, doc: 'A ruleset of your own, run from an entry point by an execute rule; many per phase.' },
  managed: { scopes: ['account', 'zone'], entryPoint: false, doc: 'A ruleset Cloudflare maintains (WAF, DDoS), run by an execute rule.' },
} as const satisfies Record<string, KindInfo>;

/** A ruleset kind. */
export type RulesetKind = keyof typeof KIND_CATALOG;

/** The JSON types a member of `action_parameters` can have (`integer`: a number without a fraction). */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/**
 * The shape of a JSON value, the part of a JSON Schema the checks read: its type; for an object its
 * members (`members`, the `required` ones, how many at least) or, for a map, the shape of every value (`values`); for an array
 * the shape of its items. An object with neither `members` nor `values` is open (any members).
 */
export interface Shape {
  type: JsonType;
  members?: Readonly<Record<string, Shape>>;
  required?: readonly string[];
  /** At least this many members (the schema's `minProperties`: rewrite needs something to rewrite). */
  minMembers?: number;
  values?: Shape;
  items?: Shape;
}

const str: Shape = { type: 'string' };
const int: Shape = { type: 'integer' };
const bool: Shape = { type: 'boolean' };
const open: Shape = { type: 'object' };
const obj = (members: Record<string, Shape>, required?: string[]): Shape => (required ? { type: 'object', members, required } : { type: 'object', members });
/** An object of which at least one member is given (`minProperties: 1`). */
const some = (members: Record<string, Shape>): Shape => ({ type: 'object', members, minMembers: 1 });
const arr = (items: Shape): Shape => ({ type: 'array', items });
const map = (values: Shape): Shape => ({ type: 'object', values });

/** The `action_parameters` of an action the schema gives none (`rulesets_LogRule`, the challenges…). */
const NONE = obj({});

/** `{expression}` or `{value}`: a URI part, a redirect target. */
const valueOrExpression = obj({ expression: str, value: str });
/** A cache-control directive (`rulesets_SetCacheControlDirective*`, the union of their members). */
const directive = obj({ operation: str, cloudflare_only: bool, value: int, qualifiers: arr(str) }, ['operation']);
/** A field of a log_custom_field array. */
const logField = obj({ name: str }, ['name']);
const logResponseField = obj({ name: str, preserve_duplicates: bool }, ['name']);

/** One rule action. */
export interface ActionInfo {
  /** Ends the evaluation of the ruleset when it matches (the Actions reference's "Terminating action?"). */
  terminating: boolean;
  /** The shape of its `action_parameters` (`rulesets_<Action>Rule` of the schema). */
  parameters: Shape;
  doc: string;
}

/**
 * The actions of the schema (`rulesets_RequestRule`'s discriminator), each with whether it ends the
 * evaluation of the ruleset ({@link ACTIONS_SOURCE}) and its `action_parameters`. `skip` is not terminating
 * there, but a skip of the remaining rules (`"ruleset": "current"`) ends this ruleset's evaluation: the
 * simulation treats it so. The six actions the Actions reference does not list (ddos_dynamic,
 * force_connection_close, score, set_cache_control, set_cache_tags, transform_response_html) are taken as
 * not terminating: analysis then claims no rule after them is shadowed, which is the safe side.
 * Where the schema gives a union (`oneOf`: serve_error's content or asset_name, set_cache_tags' values or
 * expression), the members of all its branches are listed; the choice between them is not checked.
 */
export const ACTION_CATALOG = {
  block: {
    terminating: true,
    doc: 'Denies the request (the packet is dropped).',
    parameters: obj({ response: obj({ content: str, content_type: str, status_code: int }, ['status_code', 'content', 'content_type']) }),
  },
  challenge: { terminating: true, doc: 'Interactive challenge.', parameters: NONE },
  js_challenge: { terminating: true, doc: 'Non-interactive challenge.', parameters: NONE },
  managed_challenge: { terminating: true, doc: 'Managed challenge.', parameters: NONE },
  redirect: {
    terminating: true,
    doc: 'Replies with an HTTP redirect.',
    parameters: some({
      from_list: obj({ name: str, key: str }, ['name', 'key']),
      from_value: obj({ preserve_query_string: bool, status_code: int, target_url: valueOrExpression }, ['target_url']),
    }),
  },
  serve_error: {
    terminating: true,
    doc: 'Serves custom error content.',
    parameters: obj({ content_type: str, status_code: int, content: str, asset_name: str }, ['content_type']),
  },
  log_custom_field: {
    terminating: true,
    doc: 'Configures custom fields of Logpush jobs.',
    parameters: some({
      cookie_fields: arr(logField),
      raw_response_fields: arr(logResponseField),
      request_fields: arr(logField),
      response_fields: arr(logResponseField),
      transformed_request_fields: arr(logField),
    }),
  },
  skip: {
    terminating: false,
    doc: 'Skips rules, rulesets, phases or products; "ruleset": "current" ends this ruleset.',
    parameters: some({ phase: str, phases: arr(str), products: arr(str), rules: map(arr(str)), ruleset: str, rulesets: arr(str) }),
  },
  log: { terminating: false, doc: 'Records the request in the logs.', parameters: NONE },
  execute: {
    terminating: false,
    doc: 'Executes another ruleset (not simulated: its rules are not known here).',
    parameters: obj(
      {
        id: str,
        matched_data: obj({ public_key: str }, ['public_key']),
        overrides: obj({
          action: str,
          categories: arr(obj({ action: str, category: str, enabled: bool, sensitivity_level: str }, ['category'])),
          enabled: bool,
          rules: arr(obj({ action: str, enabled: bool, id: str, score_threshold: int, sensitivity_level: str }, ['id'])),
          sensitivity_level: str,
        }),
      },
      ['id'],
    ),
  },
  rewrite: {
    terminating: false,
    doc: 'Rewrites the URI or headers.',
    parameters: some({
      headers: map(obj({ operation: str, value: str, expression: str }, ['operation'])),
      uri: obj({ path: valueOrExpression, query: valueOrExpression, origin: bool }),
    }),
  },
  route: {
    terminating: false,
    doc: 'Changes the Host header, SNI, resolved host or port.',
    parameters: some({ host_header: str, origin: obj({ host: str, port: int }), sni: obj({ value: str }, ['value']) }),
  },
  set_config: {
    terminating: false,
    doc: 'Changes product settings.',
    parameters: some({
      automatic_https_rewrites: bool,
      autominify: obj({ css: bool, html: bool, js: bool }),
      bic: bool,
      content_converter: bool,
      disable_apps: bool,
      disable_pay_per_crawl: bool,
      disable_rum: bool,
      disable_zaraz: bool,
      email_obfuscation: bool,
      fonts: bool,
      hotlink_protection: bool,
      mirage: bool,
      opportunistic_encryption: bool,
      polish: str,
      redirects_for_ai_training: bool,
      request_body_buffering: str,
      response_body_buffering: str,
      rocket_loader: bool,
      security_level: str,
      server_side_excludes: bool,
      ssl: str,
      sxg: bool,
    }),
  },
  set_cache_settings: {
    terminating: false,
    doc: 'Changes cache settings.',
    parameters: some({
      additional_cacheable_ports: arr(int),
      browser_ttl: obj({ default: int, mode: str }, ['mode']),
      cache: bool,
      cache_key: obj({ cache_by_device_type: bool, cache_deception_armor: bool, custom_key: open, ignore_query_strings_order: bool }),
      cache_reserve: obj({ eligible: bool, minimum_file_size: int }, ['eligible']),
      edge_ttl: obj({ default: int, mode: str, status_code_ttl: arr(open) }, ['mode']),
      origin_cache_control: bool,
      origin_error_page_passthru: bool,
      read_timeout: int,
      respect_strong_etags: bool,
      serve_stale: obj({ disable_stale_while_updating: bool }),
      shared_dictionary: obj({ match_pattern: str }, ['match_pattern']),
      strip_etags: bool,
      strip_last_modified: bool,
      strip_set_cookie: bool,
      vary: open,
    }),
  },
  compress_response: {
    terminating: false,
    doc: 'Chooses the response compression.',
    parameters: obj({ algorithms: arr(obj({ name: str })) }, ['algorithms']),
  },
  ddos_dynamic: { terminating: false, doc: 'DDoS protection decides the action by Cloudflare\'s own guidelines (DDoS managed rules).', parameters: NONE },
  force_connection_close: { terminating: false, doc: 'Closes the HTTP connection; the request is not blocked, the client reconnects.', parameters: NONE },
  score: { terminating: false, doc: 'Adds to the request\'s cumulative score (OWASP managed rules).', parameters: obj({ increment: int }, ['increment']) },
  set_cache_control: {
    terminating: false,
    doc: 'Sets or removes Cache-Control directives of the origin response.',
    parameters: some(Object.fromEntries(['immutable', 'max-age', 'must-revalidate', 'must-understand', 'no-cache', 'no-store', 'no-transform', 'private', 'proxy-revalidate', 'public', 's-maxage', 'stale-if-error', 'stale-while-revalidate'].map((d) => [d, directive]))),
  },
  set_cache_tags: {
    terminating: false,
    doc: 'Adds, removes or sets the cache tags of the response.',
    parameters: obj({ operation: str, values: arr(str), expression: str }, ['operation']),
  },
  transform_response_html: {
    terminating: false,
    doc: 'Transforms the HTML of the response (link_maze).',
    parameters: obj({ link_maze: open }, ['link_maze']),
  },
} as const satisfies Record<string, ActionInfo>;

/** An action of the catalog. */
export type CatalogAction = keyof typeof ACTION_CATALOG;

/** The fields a phase's expressions read: the packet fields or the HTTP request/response fields. */
export type FieldSet = 'network' | 'http';

/** One phase of the catalog. */
export interface PhaseInfo {
  /** Levels the phase's rulesets exist at. */
  scopes: readonly RulesetScope[];
  fields: FieldSet;
  /** Actions its rules may take. */
  actions: readonly string[];
  doc: string;
}

const CHALLENGES = ['challenge', 'js_challenge', 'managed_challenge'] as const;
const FIREWALL = ['block', ...CHALLENGES, 'log', 'skip'] as const;

/**
 * Every phase rulekit knows, by name: the phases of `rulesets_RulesetPhase` and `network_transit`, this
 * project's name of the network firewall phase (packet rules, docs/spec/expressions.md). The docs' phases that the schema does not
 * have (`http_request_api_gateway_*`, `http_request_snippets`, `http_request_cloud_connector`: products
 * with APIs of their own) are not here; their rulesets are reported as not checked.
 *
 * Generous rows, where the docs name no action for a phase or only its entry point's: the DDoS and
 * Magic Firewall managed phases take the actions of their managed rulesets' rules too (a `managed`
 * ruleset of the phase holds them: ddos_dynamic, block, log…); `execute` is taken wherever a ruleset of the
 * phase can be deployed from an entry point (account-level rate limiting, Super Bot Fight Mode);
 * `http_request_sanitize` (URL normalization: the docs give it no rules of its own) takes every action.
 */
export const PHASE_CATALOG = {
  network_transit: { scopes: ['account'], fields: 'network', actions: ['skip', 'block'], doc: 'rulekit’s own network firewall phase: account-level rules over packets.' },
  magic_transit: { scopes: ['account'], fields: 'network', actions: ['skip', 'block'], doc: 'Magic Firewall custom rules (packets).' },
  magic_transit_managed: { scopes: ['account'], fields: 'network', actions: ['execute', 'skip', 'block', 'log'], doc: 'Magic Firewall managed rules (packets).' },
  magic_transit_ids_managed: { scopes: ['account'], fields: 'network', actions: ['execute', 'log'], doc: 'Magic Firewall intrusion detection (packets).' },
  magic_transit_ratelimit: { scopes: ['account'], fields: 'network', actions: ['skip', 'block'], doc: 'Magic Firewall rate limiting (packets).' },
  ddos_l4: { scopes: ['account'], fields: 'network', actions: ['execute', 'ddos_dynamic', 'block', 'log'], doc: 'Network-layer DDoS Attack Protection (packets).' },
  ddos_l7: { scopes: ['account', 'zone'], fields: 'http', actions: ['execute', 'ddos_dynamic', 'block', ...CHALLENGES, 'log', 'force_connection_close'], doc: 'HTTP DDoS Attack Protection.' },
  http_request_sanitize: { scopes: ['zone'], fields: 'http', actions: Object.keys(ACTION_CATALOG) as CatalogAction[], doc: 'URL normalization (no actions documented: every action is taken).' },
  http_request_dynamic_redirect: { scopes: ['zone'], fields: 'http', actions: ['redirect'], doc: 'Single Redirects.' },
  http_request_redirect: { scopes: ['account'], fields: 'http', actions: ['redirect'], doc: 'Bulk Redirects.' },
  http_request_transform: { scopes: ['zone'], fields: 'http', actions: ['rewrite'], doc: 'URL rewrite rules.' },
  http_request_late_transform: { scopes: ['zone'], fields: 'http', actions: ['rewrite'], doc: 'Request header modification rules.' },
  http_request_origin: { scopes: ['zone'], fields: 'http', actions: ['route'], doc: 'Origin rules.' },
  http_request_cache_settings: { scopes: ['zone'], fields: 'http', actions: ['set_cache_settings'], doc: 'Cache rules.' },
  http_config_settings: { scopes: ['zone'], fields: 'http', actions: ['set_config'], doc: 'Configuration rules.' },
  // rewrite: the exposed credentials check's "Exposed-Credential-Check Header" (Actions reference).
  http_request_firewall_custom: { scopes: ['account', 'zone'], fields: 'http', actions: [...FIREWALL, 'execute', 'rewrite'], doc: 'WAF custom rules.' },
  http_ratelimit: { scopes: ['account', 'zone'], fields: 'http', actions: ['block', ...CHALLENGES, 'log', 'execute'], doc: 'Rate limiting rules.' },
  // rewrite and score: the rules of the Exposed Credentials Check and OWASP managed rulesets.
  http_request_firewall_managed: { scopes: ['account', 'zone'], fields: 'http', actions: ['execute', ...FIREWALL, 'rewrite', 'score'], doc: 'WAF managed rules.' },
  http_request_sbfm: { scopes: ['zone'], fields: 'http', actions: [...FIREWALL, 'execute'], doc: 'Super Bot Fight Mode.' },
  http_response_headers_transform: { scopes: ['zone'], fields: 'http', actions: ['rewrite'], doc: 'Response header modification rules.' },
  http_response_compression: { scopes: ['zone'], fields: 'http', actions: ['compress_response'], doc: 'Compression rules.' },
  // Not in the phases list at PHASES_SOURCE: the schema's set_cache_control and set_cache_tags act on the origin response.
  http_response_cache_settings: { scopes: ['zone'], fields: 'http', actions: ['set_cache_control', 'set_cache_tags'], doc: 'Cache response rules (Cache-Control directives, cache tags).' },
  http_response_firewall_managed: { scopes: ['account', 'zone'], fields: 'http', actions: ['execute', 'skip', 'log'], doc: 'Sensitive Data Detection (response).' },
  http_custom_errors: { scopes: ['account', 'zone'], fields: 'http', actions: ['serve_error'], doc: 'Custom error rules.' },
  http_log_custom_fields: { scopes: ['zone'], fields: 'http', actions: ['log_custom_field'], doc: 'Logpush custom fields.' },
} as const satisfies Record<string, PhaseInfo>;

/** A phase of the catalog. */
export type CatalogPhase = keyof typeof PHASE_CATALOG;

/**
 * Actions of the schema that no phase's docs name, with why: they are in {@link ACTION_CATALOG} (a rule
 * with one is not an unknown action) and only the phases that take every action take them.
 */
export const UNPLACED_ACTIONS: Readonly<Record<string, string>> = {
  transform_response_html: 'The schema has it (link_maze, the AI Labyrinth); no phase of the docs names it.',
};
