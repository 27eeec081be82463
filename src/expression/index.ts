/**
 * Network rule expressions: text → tokens → AST (with ranges) → checked AST → compiled matcher.
 * The facade here never throws; everything it finds is a {@link Diagnostic}.
 * @module
 */
import type { Diagnostic, Fix, Range } from '../diagnostics/index.js';
import { hasErrors, sortDiagnostics } from '../diagnostics/index.js';
import { walk, type ExprNode } from './ast.js';
import { lex } from './lexer.js';
import * as T from './tokens.js';
import type { IToken, TokenType } from '@chevrotain/types';
import { grammarParser } from './deferred.js';
import { fastParse } from './fast-parser.js';
import { check, checkValue, type CheckedExpression, type CheckOptions } from './checker.js';
import { evaluateValue, typeText, type ValuePlan } from './values.js';
import { compile, type Matcher } from './compiler.js';
import { interpret, type Packet } from './interpreter.js';
import { expressionDiagnostic } from './diagnostics.js';
import { NETWORK_SCHEME, Scheme, type SchemeLiteral } from './scheme.js';
import { ListCatalog, type ListItems } from './lists.js';

export * from './ast.js';
export { EXPRESSION_CODES, type ExpressionCode } from './codes.js';
export { Scheme, NETWORK_SCHEME, NETWORK_FIELDS, HTTP_SCHEME, HTTP_FIELDS, type FieldDef, type FieldType, type SchemeLiteral, type SchemeOptions } from './scheme.js';
export { INT_FIELD_DOMAINS, domainBounds, domainText, type IntDomain, type IntDomainRow } from './field-domains.js';
export { STRING_FIELD_DOMAINS, stringDomainOf, type StringDomain } from './string-domains.js';
export { HTTP_FIELD_ROWS, HTTP_EXTRA_FIELD_ROWS, HTTP_FIELD_PHASES, HTTP_FIELDS_SOURCE, HTTP_DEPRECATED_ALIASES } from './http-fields.js';
export { ListCatalog, LIST_KINDS, LIST_KIND_NAMES, HostnameSet, RedirectSet, MANAGED_LISTS, MANAGED_LIST_CATALOG, MANAGED_LISTS_SOURCE, managedListsFor, type ManagedListInfo, type ListItems, type ListKind, type BuiltList, type StringList } from './lists.js';
export { COMPARE_OPERATORS, LOGICAL_OPERATORS, NOT_OPERATOR, IN_OPERATOR, IN_SET_TYPES, IN_LIST_TYPES, type CompareOperatorInfo, type LogicalOperatorInfo } from './operators.js';
export { FUNCTIONS, FUNCTIONS_SOURCE, NEWER_FUNCTIONS_SOURCE, type FunctionInfo, type Param, type ParamType, type Restriction } from './functions.js';
export type { ExpressionContext } from './value-checker.js';
export { COUNTRY_CODES } from './countries.js';
export { print, shape } from './printer.js';
export { interpret, evaluatePredicate, lhsValues, type Packet } from './interpreter.js';
export { compile, generate, type Matcher, type CompileOptions, type GeneratedMatcher } from './compiler.js';
export { evaluationOrder, nodeCost, predicateCost } from './cost.js';
export type { CheckedExpression } from './checker.js';
export type { Predicate, LhsPlan, VectorPlan } from './predicates.js';
export { lhsFields } from './predicates.js';
export type { ValuePlan, ValueType } from './values.js';
export { lex } from './lexer.js';
// For the code generators of other folders (the ruleset deciders): not part of the public API.
export { emitExpression, condition, HELPERS, EMPTY_PACKET, type EmitContext } from './compiler.js';
export { INLINE_SET_MAX } from './cost.js';
export { expressionDiagnostic } from './diagnostics.js';
export { readIntText, doubleBounds } from './literals.js';

/** Configurable limits (defaults from expressions.md). */
export interface ExpressionLimits {
  /** Longest expression, in characters (default 4096). */
  maxLength?: number;
  /** Deepest nesting of parentheses and `not` (default 128; at most {@link MAX_SUPPORTED_DEPTH}). */
  maxDepth?: number;
}

/** Default limits. */
export const DEFAULT_LIMITS: Required<ExpressionLimits> = Object.freeze({ maxLength: 4096, maxDepth: 128 });

/**
 * The deepest nesting any `maxDepth` setting allows: the parsers, the checker and the printer recurse
 * once per level, and beyond this a small stack (a browser worker's) could overflow. A larger setting is
 * clamped to it, so no setting makes an entry point throw.
 */
export const MAX_SUPPORTED_DEPTH = 256;

/** Options shared by the expression entry points. */
export interface ExpressionOptions {
  /** Field scheme: a {@link Scheme} or a plain `{name: type}` object (default: the network scheme). */
  scheme?: Scheme | SchemeLiteral;
  /** Lists by name without `$` (`'svc.anonymizer'`, `'my_list'`), or a prebuilt {@link ListCatalog}. */
  lists?: ListItems | ListCatalog;
  /** Service token of the managed lists (default `svc`: `$svc.anonymizer`). */
  serviceToken?: string;
  limits?: ExpressionLimits;
  /** Generate code for the matcher (default true); false uses closures. */
  codegen?: boolean;
  /**
   * `auto` (default): well-formed input takes the hand-written fast path, anything else the Chevrotain
   * parser (recovery, messages); `chevrotain`: always the Chevrotain parser.
   */
  parser?: 'auto' | 'chevrotain';
  /**
   * `filter` (default): a rule's condition. `value`: the expression of a rewrite (`action_parameters`),
   * where the rewrite-only functions (regex_replace, wildcard_replace, to_string, …) are allowed.
   */
  context?: 'filter' | 'value';
  /** The ruleset phase, when known: functions the docs allow in some phases only are refused elsewhere. */
  phase?: string;
}

/** What {@link parseExpression} returns. */
export interface ParseResult {
  /** The AST; with errors it may hold `error` nodes where recovery filled holes. */
  ast: ExprNode | undefined;
  diagnostics: Diagnostic[];
}

/** What {@link compileExpression} returns. */
export interface CompileResult {
  /** Every diagnostic, sorted by position. Any error means no matcher. */
  diagnostics: Diagnostic[];
  ast?: ExprNode;
  /** The checked expression (AST + resolved predicates); absent when parsing failed. */
  checked?: CheckedExpression;
  /** The compiled matcher; absent when there are errors. */
  matcher?: Matcher;
}

const MAX_DIAGNOSTICS = 100;

/**
 * The fix of a comma in a set, written where the text is known (the parser sees tokens, not the spaces
 * between them): the items keep exactly one space between them. `{80,443}` → `{80 443}`,
 * `{80, 443}` → `{80 443}`, `{80 , 443}` → `{80 443}`; next to a brace or a line break the comma just goes.
 */
function commaFix(text: string, comma: Range): Fix {
  const blank = (c: string | undefined) => c === ' ' || c === '\t';
  const before = text[comma.start - 1];
  let end = comma.end;
  // A space before the comma already separates the items: the blanks after it go with the comma.
  if (blank(before)) while (blank(text[end])) end++;
  const after = text[end];
  const separated = blank(before) || blank(after) || before === '{' || after === '}' || after === '\n' || after === '\r' || after === undefined;
  return { title: 'remove the comma', edits: [{ range: { start: comma.start, end }, newText: separated ? '' : ' ' }] };
}

/** Parse an expression into an AST with ranges. Never throws. */
export function parseExpression(text: string, options: Pick<ExpressionOptions, 'limits' | 'parser'> = {}): ParseResult {
  options = optionsOf(options);
  const limits = { ...DEFAULT_LIMITS, ...(isPlainObject(options.limits) ? options.limits : {}) };
  limits.maxDepth = Math.min(Number.isFinite(limits.maxDepth) && limits.maxDepth >= 0 ? limits.maxDepth : DEFAULT_LIMITS.maxDepth, MAX_SUPPORTED_DEPTH);
  // A limit that is not a non-negative number (a caller's typo, a string from a config file) is the default.
  limits.maxLength = typeof limits.maxLength === 'number' && limits.maxLength >= 0 ? Math.floor(limits.maxLength) : DEFAULT_LIMITS.maxLength;
  if (typeof text !== 'string') {
    return { ast: undefined, diagnostics: [expressionDiagnostic('empty-expression', `an expression must be a string, not ${text === null ? 'null' : typeof text}`, { start: 0, end: 0 })] };
  }
  const diagnostics: Diagnostic[] = [];
  if (isBlank(text)) {
    return { ast: undefined, diagnostics: [expressionDiagnostic('empty-expression', 'the expression is empty', { start: 0, end: text.length })] };
  }
  if (text.length > limits.maxLength) {
    diagnostics.push(
      expressionDiagnostic('expression-too-long', `the expression has ${text.length} characters; the limit is ${limits.maxLength}`, { start: limits.maxLength, end: text.length }, {
        data: { limit: limits.maxLength, length: text.length },
      }),
    );
    // Far beyond the limit, report only that: nobody wants 10,000 syntax errors of a pasted file.
    if (text.length > limits.maxLength * 16) return { ast: undefined, diagnostics };
  }
  // A byte order mark pasted at the start is whitespace here (same length, so every range stays put).
  if (text.charCodeAt(0) === 0xfeff) text = ' ' + text.slice(1);
  for (const d of loneSurrogates(text)) diagnostics.push(d);
  let lexed = lex(text, limits.maxDepth);
  const bracketed = text.includes('[') ? bracketSets(text, lexed.tokens) : undefined;
  if (bracketed) {
    // `in [80 443]`: one diagnostic with the fix, then read the set as if written in braces.
    lexed = lex(bracketed.text, limits.maxDepth);
    lexed.diagnostics.push(...bracketed.diagnostics);
  }
  diagnostics.push(...lexed.diagnostics);
  if (lexed.maxDepth > limits.maxDepth) return { ast: undefined, diagnostics: finish(diagnostics) };
  if (options.parser !== 'chevrotain' && !bracketed && lexed.diagnostics.length === 0) {
    const fast = fastParse(lexed.tokens);
    if (fast) return { ast: fast, diagnostics: finish(diagnostics) };
  }
  const parsed = grammarParser().parseTokens(lexed.tokens, text.length);
  diagnostics.push(...parsed.diagnostics.map((d) => (d.code === 'comma-in-set' && d.range ? { ...d, fix: commaFix(text, d.range) } : d)));
  dropRegexEscapeErrors(parsed.ast, diagnostics);
  if (bracketed) {
    // The bracket diagnostic's fix already writes the set without commas: one answer per set.
    const spans = bracketed.diagnostics.map((d) => d.range!);
    for (let i = diagnostics.length - 1; i >= 0; i--) {
      const d = diagnostics[i]!;
      if (d.code === 'comma-in-set' && d.range && spans.some((r) => d.range!.start > r.start && d.range!.end < r.end)) diagnostics.splice(i, 1);
    }
  }
  return { ast: parsed.ast, diagnostics: finish(diagnostics) };
}

/** With the u flag, only unpaired surrogates match. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const LONE_SURROGATES = /[\uD800-\uDFFF]/gu;

/** A lone UTF-16 surrogate anywhere in the text: it has no UTF-8 encoding, so no service would read it as written. */
function loneSurrogates(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  // Every parse asks this, so the common answer comes from the engine's native check (Node 20 has it).
  const wellFormed = (text as { isWellFormed?: () => boolean }).isWellFormed;
  if (wellFormed ? wellFormed.call(text) : !LONE_SURROGATE.test(text)) return out;
  for (const m of text.matchAll(LONE_SURROGATES)) {
    const at = m.index;
    out.push(
      expressionDiagnostic('lone-surrogate', `U+${text.charCodeAt(at).toString(16).toUpperCase()} is half of a surrogate pair without its other half; it cannot be encoded as UTF-8`, { start: at, end: at + 1 }),
    );
    if (out.length >= 10) break;
  }
  return out;
}

/**
 * Sets written in brackets after `in` (`in [80 443]`, as in Python or JSON): the text with those brackets
 * as braces, and one diagnostic per set whose fix writes the braces. Undefined when there is none.
 */
function bracketSets(text: string, tokens: readonly IToken[]): { text: string; diagnostics: Diagnostic[] } | undefined {
  let patched: string | undefined;
  const diagnostics: Diagnostic[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (tokens[i]!.tokenType !== T.In || tokens[i + 1]!.tokenType !== T.LBracket) continue;
    let j = i + 2;
    while (j < tokens.length && (AnyValueTypes.has(tokens[j]!.tokenType) || tokens[j]!.tokenType === T.Comma || tokens[j]!.tokenType === T.DotDot)) j++;
    if (j >= tokens.length || tokens[j]!.tokenType !== T.RBracket) continue;
    const open = tokens[i + 1]!.startOffset;
    const close = tokens[j]!.startOffset;
    const items = text.slice(open + 1, close).trim().replace(/\s*,\s*|\s+/g, ' ');
    patched = (patched ?? text).slice(0, open) + '{' + (patched ?? text).slice(open + 1, close) + '}' + (patched ?? text).slice(close + 1);
    diagnostics.push(
      expressionDiagnostic('syntax-error', `a set is written in braces, not brackets: in {${items}}`, { start: open, end: close + 1 }, {
        fix: { title: `write {${items}}`, edits: [{ range: { start: open, end: close + 1 }, newText: `{${items}}` }] },
      }),
    );
  }
  return patched === undefined ? undefined : { text: patched, diagnostics };
}

/** Token types of set items. */
const AnyValueTypes: ReadonlySet<TokenType> = new Set([T.IntLiteral, T.WordLiteral, T.Identifier, T.StringLiteral, T.RawStringLiteral]);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Options as given, or none when they are not an object (null from a JSON config is "no options"). */
export function optionsOf<T extends object>(options: T | null | undefined): T {
  if (!isPlainObject(options)) return {} as T;
  // A service token that is not a string (a number, a Symbol) would throw in a template string.
  const token = (options as { serviceToken?: unknown }).serviceToken;
  if (token !== undefined && typeof token !== 'string') return { ...options, serviceToken: undefined } as T;
  return options;
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/**
 * After `matches`, a quoted string keeps backslash escapes for the regex engine (`"\\d+"`), so the
 * lexer's invalid-escape errors inside such strings are withdrawn.
 */
function dropRegexEscapeErrors(ast: ExprNode, diagnostics: Diagnostic[]): void {
  if (!diagnostics.some((d) => d.code === 'invalid-escape')) return;
  const spans: { start: number; end: number }[] = [];
  walk(ast, (n) => {
    if (n.kind === 'compare' && n.op === 'matches' && n.rhs.form === 'string') spans.push(n.rhs.range);
  });
  if (!spans.length) return;
  for (let i = diagnostics.length - 1; i >= 0; i--) {
    const d = diagnostics[i]!;
    if (d.code === 'invalid-escape' && spans.some((s) => d.range!.start >= s.start && d.range!.end <= s.end)) diagnostics.splice(i, 1);
  }
}

/** Resolve the scheme option. */
function resolveScheme(s: ExpressionOptions['scheme'], out: Diagnostic[]): Scheme {
  if (s === undefined) return NETWORK_SCHEME;
  if (s instanceof Scheme) return s;
  if (s === null || typeof s !== 'object') {
    out.push(expressionDiagnostic('invalid-scheme', 'the scheme must be a Scheme or a {name: type} object', { start: 0, end: 0 }));
    return NETWORK_SCHEME;
  }
  const { scheme, problems } = Scheme.fromLiteral(s);
  for (const p of problems) out.push(expressionDiagnostic('invalid-scheme', p, { start: 0, end: 0 }));
  return scheme;
}

/** Resolve the lists option into a catalog (built once per call; pass a ListCatalog to share it). */
function resolveLists(l: ExpressionOptions['lists'], token: string | undefined): ListCatalog | undefined {
  if (l === undefined || l === null) return undefined;
  if (l instanceof ListCatalog) return l;
  if (!isPlainObject(l)) return ListCatalog.from({}, { serviceToken: token });
  return ListCatalog.from(l, { serviceToken: token });
}

/**
 * Parse, check and compile an expression. Errors (in `diagnostics`) mean no matcher; warnings do not.
 *
 * ```ts
 * const r = compileExpression('tcp.dstport in {80 443} and not ip.src in $svc.anonymizer', {
 *   lists: { 'svc.anonymizer': ['198.51.100.0/24'] },
 * });
 * r.matcher?.({ 'tcp.dstport': 443, 'ip.src': '192.0.2.1' }); // true
 * ```
 */
export function compileExpression(text: string, options: ExpressionOptions = {}): CompileResult {
  options = optionsOf(options);
  const parsed = parseExpression(text, options);
  const diagnostics = [...parsed.diagnostics];
  if (!parsed.ast) return { diagnostics };
  const scheme = resolveScheme(options.scheme, diagnostics);
  const checked = check(parsed.ast, checkOptions(scheme, options), diagnostics);
  const sorted = finish(diagnostics);
  if (hasErrors(sorted)) return { diagnostics: sorted, ast: parsed.ast, checked };
  return { diagnostics: sorted, ast: parsed.ast, checked, matcher: compile(checked, { codegen: options.codegen }) };
}

/** Check an expression without compiling it (an editor's diagnostics as you type). */
export function checkExpression(text: string, options: ExpressionOptions = {}): { diagnostics: Diagnostic[]; ast?: ExprNode; checked?: CheckedExpression } {
  options = optionsOf(options);
  const parsed = parseExpression(text, options);
  const diagnostics = [...parsed.diagnostics];
  if (!parsed.ast) return { diagnostics };
  const scheme = resolveScheme(options.scheme, diagnostics);
  const checked = check(parsed.ast, checkOptions(scheme, options), diagnostics);
  return { diagnostics: finish(diagnostics), ast: parsed.ast, checked };
}

function checkOptions(scheme: Scheme, options: ExpressionOptions): CheckOptions {
  return {
    scheme,
    lists: resolveLists(options.lists, options.serviceToken),
    serviceToken: options.serviceToken,
    context: options.context === 'value' ? 'value' : 'filter',
    phase: typeof options.phase === 'string' ? options.phase : undefined,
  };
}

/** What {@link checkValueExpression} returns. */
export interface ValueCheckResult {
  diagnostics: Diagnostic[];
  /** The plan of the value (absent with errors, or when the expression is a condition). */
  plan?: ValuePlan;
  /** The type the expression gives (`Bool` for a condition). */
  type?: string;
  /** The AST (absent when parsing failed). */
  ast?: ExprNode;
}

/**
 * Check a value expression: the `expression` of a rewrite in `action_parameters` (`uri.path.expression`,
 * `headers.<name>.expression`, a redirect's `target_url.expression`), where the rewrite-only functions
 * (regex_replace, wildcard_replace, to_string, …) are allowed. It must give `type` (default String); with
 * `Bool` it is a condition, checked as a filter is (a rate limit's `counting_expression`).
 *
 * ```ts
 * checkValueExpression('regex_replace(http.request.uri.path, "^/old/(.*)$", "/new/${1}")', { scheme: HTTP_SCHEME }).diagnostics; // []
 * ```
 */
export function checkValueExpression(text: string, options: ExpressionOptions & { type?: 'String' | 'Int' | 'Bool' | 'Ip' } = {}): ValueCheckResult {
  options = optionsOf(options);
  const want = options.type ?? 'String';
  const withContext = { ...options, context: 'value' as const };
  if (want === 'Bool') {
    const r = checkExpression(text, withContext);
    return { diagnostics: r.diagnostics, type: 'Bool', ...(r.ast ? { ast: r.ast } : {}) };
  }
  const parsed = parseExpression(text, options);
  const diagnostics = [...parsed.diagnostics];
  if (!parsed.ast || hasErrors(diagnostics)) return { diagnostics: finish(diagnostics) };
  const scheme = resolveScheme(options.scheme, diagnostics);
  const ast = parsed.ast;
  if (ast.kind !== 'bare') {
    diagnostics.push(expressionDiagnostic('value-expression-type', `${article(want)} ${want} is expected here, not a condition`, ast.range, { data: { expected: want, actual: 'Bool' } }));
    return { diagnostics: finish(diagnostics) };
  }
  const plan = checkValue(ast.lhs, checkOptions(scheme, withContext), diagnostics);
  if (plan && typeText(plan.type) !== want) {
    diagnostics.push(expressionDiagnostic('value-expression-type', `this expression gives ${article(typeText(plan.type))} ${typeText(plan.type)}; ${article(want)} ${want} is expected here`, ast.range, { data: { expected: want, actual: typeText(plan.type) } }));
    return { diagnostics: finish(diagnostics), type: typeText(plan.type), ast };
  }
  const sorted = finish(diagnostics);
  return hasErrors(sorted) || !plan ? { diagnostics: sorted, ast } : { diagnostics: sorted, plan, type: want, ast };
}

/** `an Int`, `a String`. */
function article(type: string): string {
  return /^[AEIOU]/.test(type) ? 'an' : 'a';
}

/** Evaluate a checked value expression on a record: its value, or undefined when missing. */
export function evaluateValueExpression(plan: ValuePlan, record: Packet): unknown {
  return evaluateValue(plan, record !== null && typeof record === 'object' ? record : {});
}

/** Evaluate with the interpreter (reference semantics; slower than a compiled matcher). */
export function evaluateExpression(checked: CheckedExpression, packet: Packet): boolean {
  return interpret(checked, packet);
}

function finish(diagnostics: Diagnostic[]): Diagnostic[] {
  if (diagnostics.length <= 1) return diagnostics;
  const sorted = sortDiagnostics(dedupe(diagnostics));
  return sorted.length > MAX_DIAGNOSTICS ? sorted.slice(0, MAX_DIAGNOSTICS) : sorted;
}

/** Drop exact duplicates (same code and range), which recovery can produce. */
function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}:${d.range?.start}:${d.range?.end}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
