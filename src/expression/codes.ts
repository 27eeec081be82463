/**
 * Diagnostic codes of network rule expressions. One row per code: default severity and documented meaning.
 * The lexer, parser and checker only emit codes from this table (a test pins that).
 * @module
 */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the expression pipeline, each with its default severity and meaning. */
export const EXPRESSION_CODES = {
  // --- lexical ---
  'empty-expression': { severity: 'error', doc: 'The expression is empty (or only whitespace).' },
  'expression-too-long': { severity: 'error', doc: 'The expression is longer than the configured limit (4096 characters by default).' },
  'unexpected-character': { severity: 'error', doc: 'A character that starts no token of the language.' },
  'tab-whitespace': { severity: 'error', doc: 'A TAB between tokens; the reference engine rejects it. Fix: replace with a space.' },
  'unterminated-string': { severity: 'error', doc: 'A string or raw string literal has no closing quote.' },
  'invalid-escape': { severity: 'error', doc: 'A string escape other than \\", \\\\, \\xHH or \\OOO (three octal digits).' },
  'invalid-integer': { severity: 'error', doc: 'An integer literal that does not parse (e.g. 08 as octal) or is out of the 64-bit range.' },
  'octal-literal': { severity: 'warning', doc: 'An integer with a leading 0 is octal (0123 is 83); probably a decimal port or number was meant.' },
  'invalid-ip': { severity: 'error', doc: 'An IP address, CIDR or IP range literal that does not parse.' },
  'invalid-byte-string': { severity: 'error', doc: 'A byte string (aa:bb:cc, separators :, - or .) with a byte that is not two hex digits.' },
  'invalid-raw-string': { severity: 'error', doc: 'A raw string r#"…"# with more than 255 #.' },
  'uppercase-keyword': { severity: 'error', doc: 'Keywords and word operators are lower case only (AND → and).' },
  'invalid-list-name': { severity: 'error', doc: 'A $list name with characters outside [a-z0-9_.] or a leading/trailing dot.' },
  // --- syntax ---
  'syntax-error': { severity: 'error', doc: 'A token where the grammar expects something else.' },
  'unexpected-end': { severity: 'error', doc: 'The expression ends where more was expected.' },
  'comma-in-set': { severity: 'error', doc: 'Set items are separated by whitespace only; a comma is not allowed. Fix: remove it.' },
  'cidr-outside-set': { severity: 'error', doc: 'A CIDR or address range compared with ==; only sets hold them. Fix: use `in {…}`.' },
  'range-outside-set': { severity: 'error', doc: 'An integer range low..high outside a set. Fix: use `in {low..high}`.' },
  'nesting-too-deep': { severity: 'error', doc: 'Parentheses/not nested deeper than the limit (128 by default).' },
  'missing-operator': { severity: 'error', doc: 'Two operands follow each other without a logical operator between them.' },
  // --- names ---
  'unknown-field': { severity: 'error', doc: 'A field the scheme does not have; the message suggests the closest known field.' },
  'container-field': { severity: 'error', doc: 'An Array or Map value (http.request.headers, http.request.uri.args.names, split(…)…) compared as a whole; its items are read with `[ ]` / `[*]`, e.g. any(http.request.headers.names[*] == "x").' },
  'function-phase-unknown': { severity: 'info', doc: 'A function allowed only in some phases (cidr(), decode_base64(), join(), split()…) in an expression checked without a phase: the message names the phases where it is allowed; given the phase, a use outside them is `function-context`.' },
  'unknown-function': { severity: 'error', doc: 'A function the language does not have (the function catalog lists them).' },
  'function-context': { severity: 'error', doc: 'A function used where the docs do not allow it: a rewrite-only function (regex_replace, wildcard_replace, to_string, remove_query_args, uuidv4) in a filter, a phase-restricted one (cidr, join, split…) in another phase, or regex_replace / wildcard_replace twice or nested.' },
  'function-literal-argument': { severity: 'error', doc: 'A function argument that must be a literal is not (a regex_replace pattern, a lookup_json_* key, cidr bit counts…), or one that must be a field is a literal (the source of url_decode, starts_with…).' },
  'index-type-mismatch': { severity: 'error', doc: '`[ ]` on a value that is not an array or map, a map key that is not a quoted string, or an array position that is not a non-negative integer.' },
  'uppercase-map-key': { severity: 'warning', doc: 'A key with upper-case letters into a map whose keys are lower case (http.request.headers["Host"]): it never matches. Fix: write it in lower case.' },
  'array-needs-quantifier': { severity: 'error', doc: 'A comparison on items unpacked with `[*]` gives one boolean per item; it is a condition only inside any(…) or all(…).' },
  'quantifier-argument': { severity: 'error', doc: 'The argument of any() / all() is not an array of booleans (a comparison on `[*]` items, or an Array<Boolean> value).' },
  'value-expression-type': { severity: 'error', doc: 'A value expression (a rewrite\'s `expression` in action_parameters) that gives another type than the parameter takes (a String for a URI path or header value), or a condition where a value is expected.' },
  'matches-everything': { severity: 'info', doc: 'The whole expression is `true`: the rule matches every request or packet.' },
  'unknown-list': { severity: 'error', doc: 'A $list that is neither a managed list nor in the given list catalog.' },
  'too-many-regexes': { severity: 'error', doc: 'An expression with more than 64 regular expressions (matches): the docs\' "Maximum regular expressions per rule", which applies to every rule type of the Rules language.' },
  'list-kind-mismatch': { severity: 'error', doc: 'A $list of one kind tested with a field that takes another (a hostname list with ip.src; IP lists go with IP fields, ASN lists with ip.src.asnum, hostname lists with http.host, redirect lists with http.request.full_uri in http_request_redirect).' },
  'list-not-provided': { severity: 'info', doc: 'A $list was referenced but no list catalog was given, or a managed list the given catalog does not carry: membership is false for every packet.' },
  'list-name-too-long': { severity: 'error', doc: 'An account list name longer than 50 characters.' },
  'boolean-literal': { severity: 'error', doc: 'true/false are not literals inside an expression (`true` is valid only as the whole expression).' },
  'deprecated-field': { severity: 'info', doc: 'A field that still works but is deprecated (ip.geoip.country matches source OR destination).' },
  // --- types ---
  'not-boolean': { severity: 'error', doc: 'A non-Bool value where a condition is expected (the whole expression, an operand of and/or/not).' },
  'operator-type-mismatch': { severity: 'error', doc: 'The operator does not apply to the field’s type (e.g. contains on an Int).' },
  'literal-type-mismatch': { severity: 'error', doc: 'A literal of the wrong type for the field (e.g. a string for an Int field).' },
  'value-out-of-range': { severity: 'error', doc: 'A literal outside the field’s range (ports 0..65535, TTL 0..255...).' },
  'empty-range': { severity: 'error', doc: 'A range whose low end is greater than its high end.' },
  'ip-family-mismatch': { severity: 'error', doc: 'An IP range or ordering whose two ends are of different families.' },
  'cidr-host-bits': { severity: 'warning', doc: 'A CIDR with host bits set (10.0.0.1/8); it is read as its network (10.0.0.0/8).' },
  'invalid-country-code': { severity: 'error', doc: 'Not an ISO 3166-1 alpha-2 code.' },
  'lowercase-country-code': { severity: 'warning', doc: 'A known country code in lower case; values are upper case ("br" → "BR"), so it never matches.' },
  'invalid-wildcard': { severity: 'error', doc: 'A wildcard pattern with ** or a backslash before anything but * or \\ (the only wildcard escapes).' },
  'invalid-regex': { severity: 'error', doc: 'A `matches` pattern the linear-time regex engine rejects.' },
  'function-arguments': { severity: 'error', doc: 'Wrong arguments to a function: their number or types, or a value outside the documented range (cidr bits 1–32 / 1–128, split limit 1–128, bit_slice ≤ 32 bits and offsets ≤ 2040).' },
  'duplicate-set-item': { severity: 'warning', doc: 'A set item that is already in the set, or inside (or overlapping) another of its ranges/CIDRs. Fix: remove it (or merge the two ranges).' },
  'unknown-protocol': { severity: 'warning', doc: 'An ip.proto value that names no IP protocol, so it never matches (names are the IANA keywords in lower case: "tcp", "udp", "icmp", "ipv6-icmp"...).' },
  'uppercase-protocol': { severity: 'warning', doc: 'An ip.proto name not in lower case ("TCP"); values are lower case, so it never matches. Fix: write it in lower case.' },
  'lone-surrogate': { severity: 'error', doc: 'A UTF-16 surrogate without its pair in a string (an expression, or a \\uD800 escape in a JSON body); it cannot be encoded as UTF-8.' },
  'invalid-utf8': { severity: 'error', doc: 'Bytes that are not UTF-8 in an expression file or a JSON body; they are read as U+FFFD, at the position given.' },
  'invalid-scheme': { severity: 'error', doc: 'A custom scheme entry with an unknown type or an invalid field name.' },
  // --- list catalogs ---
  'invalid-list-item': { severity: 'error', doc: 'An item of a list catalog that is not an IP address, CIDR or range.' },
  'invalid-list-file': { severity: 'error', doc: 'A lists file that is not a JSON object of arrays of strings ({"name": ["192.0.2.0/24", ...]}); its position in the file is given.' },
  'ipv6-in-account-list': { severity: 'warning', doc: 'Account IP lists hold IPv4 items only in the public service; an IPv6 item may be rejected on upload.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A code of the expression pipeline. */
export type ExpressionCode = keyof typeof EXPRESSION_CODES;
