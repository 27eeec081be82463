/**
 * The function catalog: one entry per function with its signature, docs, example, parameters, documented
 * restrictions and implementation (cel-go's stdlib idea); the checker, the runtime, completion, hover and
 * the docs page read it. Source: `src/content/docs/ruleset-engine/rules-language/functions.mdx` of
 * cloudflare/cloudflare-docs at {@link FUNCTIONS_SOURCE}'s revision.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import type { ArgNode, CallNode } from './ast.js';
import { expressionDiagnostic } from './diagnostics.js';
import { readIntText } from './literals.js';
import type { FieldDef } from './scheme.js';
import type { LhsPlan } from './predicates.js';
import type { FunctionRun, ValueType } from './values.js';
import * as R from './function-runtime.js';
import { regexEngine } from './deferred.js';

/** Where the catalog comes from. */
export const FUNCTIONS_SOURCE = Object.freeze({
  repo: 'cloudflare/cloudflare-docs',
  path: 'src/content/docs/ruleset-engine/rules-language/functions.mdx',
  revision: '12cd7d04ee8fc78422ffcb0a63ed83f5c2ce8475',
});

/**
 * Where the functions newer than {@link FUNCTIONS_SOURCE}'s revision come from: the newest revision of
 * the functions page readable here predates them (the cloudflare-docs snapshot is over the fetch limit),
 * so encode_base64 and sha256 follow the changelog entry that added them and the published page.
 */
export const NEWER_FUNCTIONS_SOURCE = Object.freeze({
  changelog: 'https://developers.cloudflare.com/changelog/2026-01-22-sha256-base64-encode-functions',
  page: 'https://developers.cloudflare.com/ruleset-engine/rules-language/functions/',
  functions: ['encode_base64', 'sha256'] as readonly string[],
});

/**
 * has_key and has_value follow the changelog entry "Rules – New functions for array and map operations"
 * (January 2026, with split and join), whose examples are `has_key(http.request.headers, "x-custom-header")`
 * and `has_value(split(http.response.headers["x-allow-country"][0], ","), ip.src.country)`.
 */
export const MAP_FUNCTIONS_SOURCE = Object.freeze({
  changelog: 'Rules – New functions for array and map operations (Cloudflare changelog, 2026-01)',
  functions: ['has_key', 'has_value'] as readonly string[],
});

/** What a parameter accepts (`Array` is an array of any items; `Bytes` reads as String). */
export type ParamType = 'String' | 'Int' | 'Bool' | 'Ip' | 'String|Int' | 'String|Array' | 'Int|Bool|Ip' | 'Array<String>' | 'Array<Bool>' | 'Map' | 'Array|Map' | 'Scalar';

/** One parameter. */
export interface Param {
  name: string;
  type: ParamType;
  /** The argument must be a literal (read when checking: a pattern, a key, a bit count). */
  literal?: true;
  /** The argument cannot be a literal ("must be a field" in the docs). */
  notLiteral?: true;
  optional?: true;
  /** This parameter repeats (at least once unless optional). */
  variadic?: true;
}

/** Where a function may be used, as the docs restrict it. */
export interface Restriction {
  /** The docs' words, for the message. */
  where: string;
  /** Only in value (rewrite) expressions, never in a filter. */
  valueOnly?: true;
  /** Only in these phases (when the phase is known). */
  phases?: readonly string[];
}

/** A literal argument's value as the checker read it, with its node (for ranges). */
export interface LiteralArg {
  value: unknown;
  node: ArgNode;
}

/** One function of the language. */
export interface FunctionInfo {
  signature: string;
  doc: string;
  example: string;
  /** Parameters, checked generically; absent for functions with their own `check` (bit_slice). */
  params?: readonly Param[];
  /** Result type, or a function of the argument types (concat); undefined: the types do not go together. */
  returns?: ValueType | ((args: readonly ValueType[]) => ValueType | undefined);
  /** What the types must be when `returns` gives undefined (default: concat's rule). */
  mismatch?: string;
  restriction?: Restriction;
  /**
   * At most one call of this family per expression (regex_replace and wildcard_replace, not nested in each
   * other); `concat`: once per rewrite expression (the URL rewrite reference: "concat() and regex_replace()
   * can appear only once in a rewrite expression").
   */
  once?: 'replace' | 'concat';
  /** `any` / `all`: reduce an array of booleans. */
  quantifier?: 'any' | 'all';
  /** Implementation (arguments in parameter order). */
  run?: FunctionRun;
  /**
   * Check literal arguments beyond their type (ranges, patterns); may replace a value with what the
   * implementation takes (a compiled regex). Returns false after pushing diagnostics.
   */
  literals?(args: (LiteralArg | undefined)[], node: CallNode, out: Diagnostic[]): boolean;
  /** A check of its own (bit_slice); returns the plan of the value it reads, or undefined (with diagnostics). */
  check?(node: CallNode, field: (name: string, range: Range) => FieldDef | undefined, out: Diagnostic[]): LhsPlan | undefined;
}

/** Most bits one bit_slice reads. */
export const BIT_SLICE_MAX_BITS = 32;
/** Highest bit offset bit_slice may reach. */
export const BIT_SLICE_MAX_OFFSET = 2040;

const TRANSFORM_ONLY: Restriction = {
  where: 'rewrite expressions of Transform Rules and target URL expressions of dynamic URL redirects',
  valueOnly: true,
};
const WAF_ONLY: Restriction = { where: 'custom rules and rate limiting rules', phases: ['http_request_firewall_custom', 'http_ratelimit'] };
const TRANSFORM_PHASES = ['http_request_transform', 'http_request_late_transform', 'http_response_headers_transform'];

function bad(out: Diagnostic[], message: string, node: ArgNode | CallNode, data?: Record<string, unknown>): false {
  out.push(expressionDiagnostic('function-arguments', message, node.range, data ? { data } : {}));
  return false;
}

/** An integer literal argument within [min, max]. */
function intIn(name: string, arg: LiteralArg | undefined, min: number, max: number, what: string, out: Diagnostic[]): boolean {
  if (!arg) return true;
  const v = arg.value as number;
  return v >= min && v <= max ? true : bad(out, `${what} of ${name} must be between ${min} and ${max} (found ${v})`, arg.node, { min, max, value: v });
}

/** Compile a regex literal for regex_replace; its replacement may reference at most 8 groups. */
function compileRegex(arg: LiteralArg | undefined, out: Diagnostic[]): boolean {
  if (!arg) return true;
  try {
    arg.value = regexEngine().compile(arg.value as string);
    return true;
  } catch (e) {
    out.push(expressionDiagnostic('invalid-regex', `invalid regular expression: ${(e as Error).message}`, arg.node.range));
    return false;
  }
}

function replacementRefs(name: string, arg: LiteralArg | undefined, out: Diagnostic[]): boolean {
  if (!arg) return true;
  const text = arg.value as string;
  const refs = text.replace(/\$\$/g, '').match(/\$\{?[0-9]*\}?/g) ?? [];
  for (const r of refs) {
    if (!/^\$\{[1-8]\}$/.test(r)) return bad(out, `the replacement of ${name} references capture groups as \${1} … \${8} and writes $ as $$; ${r} is neither`, arg.node);
  }
  return true;
}

/** Every function, by name. */
export const FUNCTIONS: Readonly<Record<string, FunctionInfo>> = {
  any: {
    signature: 'any(Array<Boolean>) -> Boolean',
    doc: 'true when the comparison in the argument is true for any item of the array ([*] unpacks an array or map).',
    example: 'any(url_decode(http.request.body.form.values[*])[*] contains "an xss attack")',
    quantifier: 'any',
  },
  all: {
    signature: 'all(Array<Boolean>) -> Boolean',
    doc: 'true when the comparison in the argument is true for every item of the array (also when it has none).',
    example: 'all(http.request.headers["content-type"][*] == "application/json")',
    quantifier: 'all',
  },
  cidr: {
    signature: 'cidr(address: IP address, ipv4_network_bits: Integer, ipv6_network_bits: Integer) -> IP address',
    doc: 'The network address of an IP address for the given IPv4 / IPv6 network bits. The address must be a field; bits are literals, 1–32 and 1–128. Only in custom rules and rate limiting rules.',
    example: 'cidr(ip.src, 24, 24) == 113.10.0.0',
    params: [
      { name: 'address', type: 'Ip', notLiteral: true },
      { name: 'ipv4_network_bits', type: 'Int', literal: true },
      { name: 'ipv6_network_bits', type: 'Int', literal: true },
    ],
    returns: 'Ip',
    restriction: WAF_ONLY,
    run: R.cidr as FunctionRun,
    literals: ([, v4, v6], _node, out) => intIn('cidr', v4, 1, 32, 'ipv4_network_bits', out) && intIn('cidr', v6, 1, 128, 'ipv6_network_bits', out),
  },
  cidr6: {
    signature: 'cidr6(address: IP address, ipv6_network_bits: Integer) -> IP address',
    doc: 'The IPv6 network address for the given network bits; an IPv4 address is returned unchanged. The address must be a field; bits are a literal 1–128. Only in custom rules and rate limiting rules.',
    example: 'cidr6(ip.src, 24) == 2001::',
    params: [
      { name: 'address', type: 'Ip', notLiteral: true },
      { name: 'ipv6_network_bits', type: 'Int', literal: true },
    ],
    returns: 'Ip',
    restriction: WAF_ONLY,
    run: R.cidr6 as FunctionRun,
    literals: ([, v6], _node, out) => intIn('cidr6', v6, 1, 128, 'ipv6_network_bits', out),
  },
  concat: {
    signature: 'concat(String | Bytes | Array, ...) -> String | Array',
    doc: 'Concatenates its arguments: strings into a string, arrays into an array.',
    example: 'concat("String1", " ", "String", "2") == "String1 String2"',
    params: [{ name: 'value', type: 'String|Array', variadic: true }],
    returns: (args) => {
      if (args.every((t) => t === 'String')) return 'String';
      const first = args[0];
      if (first !== undefined && typeof first !== 'string' && 'array' in first && args.every((t) => typeof t !== 'string' && 'array' in t && JSON.stringify(t) === JSON.stringify(first))) return first;
      return undefined;
    },
    run: R.concat,
    once: 'concat',
  },
  decode_base64: {
    signature: 'decode_base64(source: String) -> String',
    doc: 'Decodes a Base64-encoded string. The source must be a field. Only in Transform Rules, custom rules and rate limiting rules.',
    example: 'any(decode_base64(http.request.headers["client_id"][*])[*] eq "123abc")',
    params: [{ name: 'source', type: 'String', notLiteral: true }],
    returns: 'String',
    restriction: { where: 'Transform Rules, custom rules and rate limiting rules', phases: [...TRANSFORM_PHASES, 'http_request_firewall_custom', 'http_ratelimit'] },
    run: R.decodeBase64 as FunctionRun,
  },
  encode_base64: {
    signature: 'encode_base64(input: String | Bytes, flags: String (optional)) -> String',
    doc: 'The input in Base64: standard alphabet without padding; flags "u" for the URL-safe alphabet, "p" to pad with = (e.g. "up"). Only in header transform rules.',
    example: 'encode_base64("hello world", "p") == "aGVsbG8gd29ybGQ="',
    params: [
      { name: 'input', type: 'String' },
      { name: 'flags', type: 'String', literal: true, optional: true },
    ],
    returns: 'String',
    restriction: { where: 'header transform rules', phases: ['http_request_late_transform', 'http_response_headers_transform'] },
    run: R.encodeBase64 as FunctionRun,
    literals: ([, flags], _node, out) =>
      flags === undefined || /^[up]*$/.test(flags.value as string) || bad(out, `the flags of encode_base64 are "u" (URL-safe) and "p" (padding), e.g. "up"; ${JSON.stringify(flags.value)} is not`, flags.node),
  },
  ends_with: {
    signature: 'ends_with(source: String, substring: String) -> Boolean',
    doc: 'true when the source ends with the substring. The source cannot be a literal.',
    example: 'ends_with(http.request.uri.path, ".html")',
    params: [
      { name: 'source', type: 'String', notLiteral: true },
      { name: 'substring', type: 'String' },
    ],
    returns: 'Bool',
    run: R.endsWith as FunctionRun,
  },
  has_key: {
    signature: 'has_key(map: Map, key: String) -> Boolean',
    doc: 'Whether the map has the key (header and cookie names are lower case).',
    example: 'has_key(http.request.headers, "x-custom-header")',
    params: [
      { name: 'map', type: 'Map' },
      { name: 'key', type: 'String' },
    ],
    returns: 'Bool',
    run: R.hasKey,
  },
  has_value: {
    signature: 'has_value(items: Array | Map, value) -> Boolean',
    doc: 'Whether the array, or a value of the map, equals the value (of the items\' type).',
    example: 'has_value(split(http.response.headers["x-allow-country"][0], ",", 64), ip.src.country)',
    params: [
      { name: 'items', type: 'Array|Map' },
      { name: 'value', type: 'Scalar' },
    ],
    returns: (args) => {
      const [items, value] = args;
      const inner = items !== undefined && typeof items !== 'string' ? ('array' in items ? items.array : items.map) : undefined;
      return inner !== undefined && typeof inner === 'string' && value === inner ? 'Bool' : undefined;
    },
    mismatch: 'the value has the type of the items: has_value(Array<T> | Map<T>, T)',
    run: R.hasValue,
  },
  join: {
    signature: 'join(items: Array<String>, separator: String) -> String',
    doc: 'The items joined with the separator between them. Only in Transform Rules, custom rules and custom error rules.',
    example: 'join(http.request.headers.names, ",") contains "x-debug"',
    params: [
      { name: 'items', type: 'Array<String>' },
      { name: 'separator', type: 'String' },
    ],
    returns: 'String',
    restriction: { where: 'Transform Rules, custom rules and custom error rules', phases: [...TRANSFORM_PHASES, 'http_request_firewall_custom', 'http_custom_errors'] },
    run: R.join,
  },
  len: {
    signature: 'len(String | Bytes | Array) -> Integer',
    doc: 'The byte length of a string, or the number of items of an array.',
    example: 'len(http.host) == 11',
    params: [{ name: 'value', type: 'String|Array' }],
    returns: 'Int',
    run: R.len,
  },
  lookup_json_integer: {
    signature: 'lookup_json_integer(field: String, key: String | Integer, ...) -> Integer',
    doc: 'The integer at the path of keys (attribute names, array positions) in a JSON document; plain integers only.',
    example: 'lookup_json_integer(http.request.body.raw, "product", "id") == 356',
    params: [
      { name: 'field', type: 'String' },
      { name: 'key', type: 'String|Int', literal: true, variadic: true },
    ],
    returns: 'Int',
    run: R.lookupJsonInteger as FunctionRun,
  },
  lookup_json_string: {
    signature: 'lookup_json_string(field: String, key: String | Integer, ...) -> String',
    doc: 'The string at the path of keys (attribute names, array positions) in a JSON document.',
    example: 'lookup_json_string(http.request.body.raw, "network", "name") == "cloudflare"',
    params: [
      { name: 'field', type: 'String' },
      { name: 'key', type: 'String|Int', literal: true, variadic: true },
    ],
    returns: 'String',
    run: R.lookupJsonString as FunctionRun,
  },
  lower: {
    signature: 'lower(String) -> String',
    doc: 'Converts ASCII upper-case letters to lower case; other bytes are unchanged.',
    example: 'lower(http.host) == "www.cloudflare.com"',
    params: [{ name: 'value', type: 'String' }],
    returns: 'String',
    run: R.lower as FunctionRun,
  },
  regex_replace: {
    signature: 'regex_replace(source: String, regular_expression: String, replacement: String) -> String',
    doc: 'The source with the first match of the regular expression replaced (${1}…${8} are capture groups, $$ is $). Once per expression, not nested with wildcard_replace; only in rewrite expressions of Transform Rules and target URLs of dynamic redirects.',
    example: 'regex_replace(http.request.uri.path, "^/foo/([^/]*)/(.*)$", "/bar/${2}/${1}")',
    params: [
      { name: 'source', type: 'String' },
      { name: 'regular_expression', type: 'String', literal: true },
      { name: 'replacement', type: 'String', literal: true },
    ],
    returns: 'String',
    restriction: TRANSFORM_ONLY,
    once: 'replace',
    run: R.regexReplace as FunctionRun,
    literals: ([, re, repl], _node, out) => compileRegex(re, out) && replacementRefs('regex_replace', repl, out),
  },
  remove_bytes: {
    signature: 'remove_bytes(source: Bytes, bytes: Bytes) -> Bytes',
    doc: 'The source with every occurrence of the given bytes removed.',
    example: 'remove_bytes(http.host, "\\x2e\\x77") == "cloudflarecom"',
    params: [
      { name: 'source', type: 'String' },
      { name: 'bytes', type: 'String', literal: true },
    ],
    returns: 'String',
    run: R.removeBytes as FunctionRun,
  },
  remove_query_args: {
    signature: 'remove_query_args(field: String, query_param: String, ...) -> String',
    doc: 'The query string without the named parameters (every occurrence). The field is http.request.uri.query or raw.http.request.uri.query; only in rewrite expressions of Transform Rules.',
    example: 'remove_query_args(http.request.uri.query, "country")',
    params: [
      { name: 'field', type: 'String', notLiteral: true },
      { name: 'query_param', type: 'String', literal: true, variadic: true },
    ],
    returns: 'String',
    restriction: { where: 'rewrite expressions of Transform Rules', valueOnly: true },
    run: (query: unknown, ...names: unknown[]) =>
      (query as string)
        .split('&')
        .filter((kv) => kv !== '' && !names.includes(kv.split('=')[0]))
        .join('&'),
  },
  sha256: {
    signature: 'sha256(input: String | Bytes) -> Bytes',
    doc: 'The SHA-256 digest of the input, 32 raw bytes; encode_base64(sha256(…)) writes it as text. Requires enablement for the account.',
    example: 'encode_base64(sha256("my-token")) == "/s5Q0ih/ckWupYGbdfle6L7ClaFPjvHnox8X8drp30Q"',
    params: [{ name: 'input', type: 'String' }],
    returns: 'String',
    run: R.sha256Digest as FunctionRun,
  },
  split: {
    signature: 'split(input: String, separator: String, limit: Integer) -> Array<String>',
    doc: 'The input split at each separator into at most limit items (the last holds the rest). The separator is a non-empty literal, the limit a literal 1–128. Only in response header transform rules and custom error rules.',
    example: 'split(http.request.headers["x-categories"][0], ",", 64)[0] == "groceries"',
    params: [
      { name: 'input', type: 'String' },
      { name: 'separator', type: 'String', literal: true },
      { name: 'limit', type: 'Int', literal: true },
    ],
    returns: { array: 'String' },
    restriction: { where: 'response header transform rules and custom error rules', phases: ['http_response_headers_transform', 'http_custom_errors'] },
    run: R.split as FunctionRun,
    literals: ([, sep, limit], _node, out) =>
      (sep === undefined || sep.value !== '' || bad(out, 'the separator of split is a non-empty string', sep.node)) && intIn('split', limit, 1, 128, 'the limit', out),
  },
  starts_with: {
    signature: 'starts_with(source: String, substring: String) -> Boolean',
    doc: 'true when the source starts with the substring. The source cannot be a literal.',
    example: 'starts_with(http.request.uri.path, "/blog")',
    params: [
      { name: 'source', type: 'String', notLiteral: true },
      { name: 'substring', type: 'String' },
    ],
    returns: 'Bool',
    run: R.startsWith as FunctionRun,
  },
  substring: {
    signature: 'substring(field: String | Bytes, start: Integer, end: Integer (optional)) -> String',
    doc: 'Bytes [start, end) of the value; negative indexes count from the end; without end, to the end.',
    example: 'substring(http.request.body.raw, 2, 5) == "dfg"',
    params: [
      { name: 'field', type: 'String' },
      { name: 'start', type: 'Int' },
      { name: 'end', type: 'Int', optional: true },
    ],
    returns: 'String',
    run: R.substring as FunctionRun,
  },
  to_string: {
    signature: 'to_string(Integer | Boolean | IP address) -> String',
    doc: 'The string form of an integer, boolean or IP address. Only in rewrite expressions of Transform Rules and target URLs of dynamic redirects.',
    example: 'to_string(cf.bot_management.score)',
    params: [{ name: 'value', type: 'Int|Bool|Ip' }],
    returns: 'String',
    restriction: TRANSFORM_ONLY,
    run: R.toString,
  },
  upper: {
    signature: 'upper(String) -> String',
    doc: 'Converts ASCII lower-case letters to upper case; other bytes are unchanged.',
    example: 'upper(http.host) == "WWW.CLOUDFLARE.COM"',
    params: [{ name: 'value', type: 'String' }],
    returns: 'String',
    run: R.upper as FunctionRun,
  },
  url_decode: {
    signature: 'url_decode(source: String, options: String (optional)) -> String',
    doc: 'Decodes %XX and + in a URL-encoded string; options "r" (recursive) and "u" (%uXXXX). The source must be a field.',
    example: 'url_decode(http.request.uri.path) matches "(?u)\\p{Hangul}+"',
    params: [
      { name: 'source', type: 'String', notLiteral: true },
      { name: 'options', type: 'String', literal: true, optional: true },
    ],
    returns: 'String',
    run: R.urlDecode as FunctionRun,
    literals: ([, options], _node, out) =>
      options === undefined || /^[ru]*$/.test(options.value as string) || bad(out, `the options of url_decode are "r" (recursive) and "u" (%uXXXX), e.g. "ur"; ${JSON.stringify(options.value)} is not`, options.node),
  },
  uuidv4: {
    signature: 'uuidv4(source: Bytes) -> String',
    doc: 'A random UUIDv4 from a source of randomness (cf.random_seed). Only in rewrite expressions of Transform Rules.',
    example: 'uuidv4(cf.random_seed)',
    params: [{ name: 'source', type: 'String' }],
    returns: 'String',
    restriction: { where: 'rewrite expressions of Transform Rules', valueOnly: true },
    run: R.uuidv4 as FunctionRun,
  },
  wildcard_replace: {
    signature: 'wildcard_replace(source: Bytes, wildcard_pattern: Bytes, replacement: Bytes, flags: Bytes (optional)) -> String',
    doc: 'The source rewritten when the whole of it matches the wildcard pattern (${1}… are the * captures, lazy; case-insensitive unless flags is "s"). The source must be a field; once per expression, not nested with regex_replace; only in rewrite expressions of URL rewrites and target URLs of dynamic redirects.',
    example: 'wildcard_replace(http.request.uri.path, "/apps/*/login", "/${1}/login")',
    params: [
      { name: 'source', type: 'String', notLiteral: true },
      { name: 'wildcard_pattern', type: 'String', literal: true },
      { name: 'replacement', type: 'String', literal: true },
      { name: 'flags', type: 'String', literal: true, optional: true },
    ],
    returns: 'String',
    restriction: TRANSFORM_ONLY,
    once: 'replace',
    // The pattern is compiled with the flags: the runtime takes (source, compiled, replacement).
    run: ((s: string, re: unknown, repl: string) => R.wildcardReplace(s, re as never, repl)) as FunctionRun,
    literals: (args, _node, out) => {
      const [, pattern, repl, flags] = args;
      if (flags && flags.value !== 's') return bad(out, `the flags of wildcard_replace are "s" (case-sensitive) or nothing; ${JSON.stringify(flags.value)} is not`, flags.node);
      if (pattern) {
        const re = R.wildcardReplacePattern(pattern.value as string, flags !== undefined);
        if ('problem' in re) {
          out.push(expressionDiagnostic('invalid-wildcard', `invalid wildcard pattern: ${re.problem}`, pattern.node.range));
          return false;
        }
        pattern.value = re;
      }
      // The flags were used to compile the pattern; the runtime does not take them.
      if (flags) flags.value = undefined;
      return replacementRefs('wildcard_replace', repl, out);
    },
  },
  is_timed_hmac_valid_v0: {
    signature:
      'is_timed_hmac_valid_v0(key: String literal, messageMAC: String, ttl: Integer literal, currentTimeStamp: Integer, lengthOfSeparator: Integer literal (optional), flags: String literal (optional)) -> Boolean',
    doc: 'true when messageMAC (message, separator, 10-digit UNIX time, "-", Base64 HMAC-SHA256 of message + time) carries a valid MAC under key and is at most ttl seconds old at currentTimeStamp. flags "s": URL-safe Base64 without padding.',
    example: 'is_timed_hmac_valid_v0("mysecretkey", http.request.uri, 100000, http.request.timestamp.sec, 8)',
    params: [
      { name: 'key', type: 'String', literal: true },
      { name: 'messageMAC', type: 'String' },
      { name: 'ttl', type: 'Int', literal: true },
      { name: 'currentTimeStamp', type: 'Int' },
      { name: 'lengthOfSeparator', type: 'Int', literal: true, optional: true },
      { name: 'flags', type: 'String', literal: true, optional: true },
    ],
    returns: 'Bool',
    run: R.isTimedHmacValid as FunctionRun,
    literals: ([key, , ttl, , sep, flags], _node, out) =>
      (key === undefined || key.value !== '' || bad(out, 'the key of is_timed_hmac_valid_v0 is a non-empty string literal', key.node)) &&
      intIn('is_timed_hmac_valid_v0', ttl, 0, Number.MAX_SAFE_INTEGER, 'the ttl', out) &&
      intIn('is_timed_hmac_valid_v0', sep, 0, 255, 'lengthOfSeparator', out) &&
      (flags === undefined || flags.value === 's' || bad(out, `the flags of is_timed_hmac_valid_v0 are "s" (URL-safe Base64) or nothing; ${JSON.stringify(flags.value)} is not`, flags.node)),
  },
  bit_slice: {
    signature: 'bit_slice(field: raw header, start_bit: Int, end_bit: Int) -> Int',
    doc: `Bits [start_bit, end_bit) of a raw header (ip, tcp, udp, icmp), most significant first; at most ${BIT_SLICE_MAX_BITS} bits, offsets at most ${BIT_SLICE_MAX_OFFSET}. Missing when the header is shorter.`,
    example: 'bit_slice(tcp, 104, 108) == 5',
    check(node, field, out) {
      const usage = `use bit_slice(field, start_bit, end_bit), e.g. ${this.example}`;
      if (node.args.length !== 3) {
        out.push(expressionDiagnostic('function-arguments', `bit_slice takes 3 arguments, not ${node.args.length}; ${usage}`, node.range));
        return undefined;
      }
      const [f, s, e] = node.args as [ArgNode, ArgNode, ArgNode];
      if (f.kind !== 'field') {
        out.push(expressionDiagnostic('function-arguments', `the first argument of bit_slice is a raw header field (ip, tcp, udp, icmp)`, f.range));
        return undefined;
      }
      const def = field(f.name, f.range);
      if (!def) return undefined;
      if (!def.rawHeader) {
        out.push(expressionDiagnostic('function-arguments', `bit_slice reads raw headers (ip, tcp, udp, icmp); ${f.name} is not one`, f.range));
        return undefined;
      }
      const nums: number[] = [];
      for (const a of [s, e]) {
        const r = a.kind === 'literal' && a.form === 'int' ? readIntText(a.text) : undefined;
        if (!r || !r.ok) {
          out.push(expressionDiagnostic('function-arguments', `bit offsets of bit_slice are integers; ${usage}`, a.range));
          return undefined;
        }
        nums.push(r.value);
      }
      const [start, end] = nums as [number, number];
      if (start < 0 || end > BIT_SLICE_MAX_OFFSET || start >= end || end - start > BIT_SLICE_MAX_BITS) {
        out.push(
          expressionDiagnostic(
            'function-arguments',
            `bit_slice(${f.name}, ${start}, ${end}) must have 0 <= start < end, at most ${BIT_SLICE_MAX_BITS} bits (has ${Math.max(0, end - start)}) and end at most ${BIT_SLICE_MAX_OFFSET}`,
            { start: s.range.start, end: e.range.end },
            { data: { start, end, maxBits: BIT_SLICE_MAX_BITS, maxOffset: BIT_SLICE_MAX_OFFSET } },
          ),
        );
        return undefined;
      }
      return { kind: 'bit_slice', field: def, start, end };
    },
  },
};
