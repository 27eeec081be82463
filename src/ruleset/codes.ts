/** Diagnostic codes of ruleset bodies and simulation input. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the ruleset module, each with its default severity and meaning. */
export const RULESET_CODES = {
  'ruleset-invalid-json': { severity: 'error', doc: 'The ruleset body given as text is not valid JSON.' },
  'ruleset-not-object': { severity: 'error', doc: 'The ruleset body, or one of its rules, is not a JSON object.' },
  'ruleset-missing-member': { severity: 'error', doc: 'A required member is missing (`name`, `kind`, `phase` on create; `rules` on update; `action`, `expression` of a rule; `username_expression`, `password_expression` of an `exposed_credential_check`).' },
  'ruleset-member-type': { severity: 'error', doc: 'A member has the wrong JSON type (e.g. `enabled` is not a boolean).' },
  'ruleset-unknown-member': { severity: 'error', doc: 'A member the ruleset or rule does not have; the closest member is suggested.' },
  'ruleset-read-only-member': { severity: 'info', doc: 'A member the service assigns (`id`, `version`, `last_updated`); it is ignored in a request.' },
  'ruleset-unknown-phase': { severity: 'error', doc: 'A `phase` that is not in the catalog of phases (docs/fields.md lists them); the closest is suggested.' },
  'ruleset-unknown-kind': { severity: 'error', doc: 'A `kind` the API does not have (its kinds are managed, custom, root and zone: `KIND_CATALOG`); the closest is suggested.' },
  'ruleset-phase-kind': { severity: 'error', doc: 'An entry point kind and a phase of the other level (account-level phases such as network_transit go with root, zone-level ones such as http_log_custom_fields with zone; custom and managed go with either).' },
  'ruleset-scope': { severity: 'error', doc: 'A ruleset created at a level its phase or kind does not exist at: a zone phase or kind `zone` at the account level, or the reverse.' },
  'ruleset-too-many-rules': { severity: 'error', doc: 'More rules than the limit (200 by default).' },
  'ruleset-duplicate-ref': { severity: 'error', doc: 'Two rules with the same `ref`.' },
  'ruleset-duplicate-member': { severity: 'error', doc: 'The same JSON key twice in one object; only the last would count.' },
  'rule-unknown-action': { severity: 'error', doc: 'An `action` the API does not have (`ACTION_CATALOG`, from the schema); the closest is suggested.' },
  'rule-action-phase': { severity: 'error', doc: 'An action that does not belong to the ruleset’s phase (log_custom_field outside http_log_custom_fields, rewrite in http_request_firewall_custom…).' },
  'rule-complexity-limit': { severity: 'error', doc: 'A Network Firewall (magic_transit) expression whose and/or nesting multiplies out to at least as many alternatives as the docs’ example that the service refuses with 400 "ruleset exceeds complexity constraints" (512).' },
  'rule-field-phase': { severity: 'error', doc: 'A field of the other field set than the ruleset’s phase reads: an HTTP field (http.host) in a network phase (magic_transit), or a packet field (tcp.dstport) in an HTTP phase, or a response field (http.response.code) in a phase that runs before the response.' },
  'rule-action-parameters-not-checked': { severity: 'info', doc: 'Once per ruleset: the `action_parameters` of an action other than a network phase’s skip and block are checked for their members and JSON types (`ACTION_CATALOG`) and their value expressions (uri.path / uri.query / headers.<name> / target_url `expression`), not yet for their values.' },
  'rule-action-parameters': { severity: 'error', doc: '`action_parameters` that do not fit the action’s shape: a member of the wrong JSON type, a required member missing (execute needs `id`; in network phases skip needs `ruleset`, block takes none), at the member’s pointer.' },
  'rule-action-parameter-unknown': { severity: 'warning', doc: 'A member of `action_parameters` that the action’s shape in rulekit’s catalog does not have; the closest member is suggested. A warning: the API may be ahead of rulekit’s schema.' },
  'rule-credential-check-action': { severity: 'error', doc: 'An `exposed_credential_check` on a rule whose action is not one of rewrite, log, block, challenge, js_challenge (the actions the exposed credentials check docs allow).' },
  'rule-credential-expression': { severity: 'error', doc: 'A `username_expression` / `password_expression` of `exposed_credential_check` that breaks its documented rules: longer than 1024 characters, a function other than upper(), lower(), url_decode(), lookup_json_string(), or one of those nested in another. (It must also give a String: `value-expression-type`.)' },
  'rule-skip-target': { severity: 'warning', doc: 'A skip `ruleset` other than `current`: only `current` (skip the rest of this ruleset) is described; the simulator treats others as not terminating.' },
  'rule-expression': { severity: 'error', doc: 'The rule’s expression has errors; the expression diagnostic follows with its own code.' },
  'simulation-invalid-packet': { severity: 'error', doc: 'A packet of the simulation input that is not a JSON object (NDJSON line number given).' },
  'simulation-unknown-input': { severity: 'error', doc: 'The simulation input is neither a pcap/pcapng capture (by its magic number) nor NDJSON text: it holds binary data.' },
  'simulation-unreadable-input': { severity: 'error', doc: 'The simulation input cannot be read: a file that is missing, a directory or unreadable, or a value that is not a path, bytes or a stream of bytes.' },
  'simulation-bad-geoip': { severity: 'error', doc: 'The country/ASN table given for a simulation is not one: no line of it is an entry, or the file could not be read.' },
  'simulation-unknown-field': { severity: 'warning', doc: 'A packet object names a field the network scheme does not have (a misspelling such as tcp.dst_port); every rule reads that field as missing. Reported once per field name, with the nearest field.' },
  'simulation-invalid-value': { severity: 'warning', doc: 'A packet field holds a value of the wrong type for the field (a string for a port, a number for an address, …); the field is taken as missing for that packet.' },
  'simulation-execute-not-run': { severity: 'info', doc: 'A rule executes another ruleset, which is not known and not simulated: in an HTTP phase the rule\'s matches are counted; in a network phase the rule is left out (it never matches).' },
  'simulation-rule-left-out': { severity: 'warning', doc: 'A rule whose expression uses a construct rulekit cannot evaluate yet (an HTTP function or indexing) is left out of the simulation: it never matches there.' },
  'simulation-http-phase': { severity: 'error', doc: 'A ruleset and an input of different layers: an HTTP-phase ruleset given a capture (it reads HTTP requests: HAR or NDJSON request objects) or given to the SQL back end (network rulesets over flows), or a network-phase ruleset given HTTP requests.' },
  'simulation-invalid-ruleset': { severity: 'error', doc: 'The ruleset given to a simulation has errors (listed beside this one); nothing was simulated.' },
  'simulation-no-geoip': { severity: 'warning', doc: 'The ruleset reads country or ASN fields but no geo/ASN table was given: those fields are missing for every packet.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A code of the ruleset module. */
export type RulesetCode = keyof typeof RULESET_CODES;
