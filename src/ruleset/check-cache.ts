/**
 * Checked expressions cached by expression text, per scheme and list catalog (by identity: both are
 * immutable) and per the options that change a check's outcome (service token, limits, parser); shared by
 * the validator and the simulation's compiled ruleset.
 *
 * Checking the expressions was two thirds of validating a 50-rule ruleset (~0.5 ms of ~0.75 ms), and a
 * PUT replaces all rules, most of them usually the same text as before: a server validating PUT after PUT
 * checks each distinct expression once. A simulation validates the ruleset and then compiles it: the
 * compile step takes the checked expressions the validation left here instead of parsing and checking
 * every expression again (rulekit simulate, bench ruleset: ~8 ms of a cold start).
 *
 * `checkExpression` is a pure function of these inputs. The cached diagnostics, AST and checked
 * expression are shared: callers hand out only copies of the diagnostics ({@link copyDiagnostics}) and
 * never change the AST or the checked expression. Options that cannot be keyed (a plain-object scheme,
 * lists as items, which build a new catalog per call) are not cached. At most {@link CHECK_CACHE_ENTRIES}
 * texts per scheme and catalog; the oldest go first.
 *
 * A long-running caller whose texts may each come once (a server validating rulesets of expressions it
 * has never seen) asks for `secondSight`: such a text's check is kept from its second time on, and the
 * first time only the text is remembered (among the {@link SEEN_ONCE_ENTRIES} most recent). A check kept
 * on first sight stays reachable until 2,000 more texts push it out, so V8 copies it through the young
 * generation and promotes it: in the server's bench of PUTs of 50 new expressions, keeping them was ~0.8
 * ms of a PUT's ~4.6 ms of CPU (GC, in process).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkExpression, ListCatalog, Scheme, type CheckedExpression, type ExprNode, type ExpressionOptions } from '../expression/index.js';

/** What {@link checkedExpression} returns: `checkExpression`'s result, shared (do not change it). */
export interface CheckResult {
  readonly diagnostics: readonly Diagnostic[];
  readonly ast?: ExprNode;
  readonly checked?: CheckedExpression;
}

const CHECK_CACHE_ENTRIES = 2000;
const SEEN_ONCE_ENTRIES = 2000;
const NO_KEY = {};
/** Per scheme, per list catalog: the kept checks and the keys of texts seen once (see `secondSight`). */
const checkCache = new WeakMap<object, WeakMap<object, { kept: Map<string, CheckResult>; seen: Set<string> }>>();

/**
 * What a cached answer for `options` is kept under: the scheme and list catalog (by identity) and a string
 * of the other options that change a check's outcome; undefined when the options cannot be keyed.
 */
export function optionsKey(options: ExpressionOptions): { scheme: object; lists: object; key: string } | undefined {
  const { scheme, lists, serviceToken, limits, parser, phase, context } = options;
  const plainLimits = limits === undefined || (typeof limits === 'object' && limits !== null && Object.getPrototypeOf(limits) === Object.prototype &&
    ['undefined', 'number'].includes(typeof limits.maxLength) && ['undefined', 'number'].includes(typeof limits.maxDepth));
  const cacheable = (scheme === undefined || scheme instanceof Scheme) && (lists === undefined || lists instanceof ListCatalog) &&
    (serviceToken === undefined || typeof serviceToken === 'string') && plainLimits && (parser === undefined || typeof parser === 'string') &&
    (phase === undefined || typeof phase === 'string') && (context === undefined || typeof context === 'string');
  if (!cacheable) return undefined;
  // The phase and context decide which functions are allowed, so they are part of the key.
  return { scheme: scheme ?? NO_KEY, lists: lists ?? NO_KEY, key: `${serviceToken ?? ''}\u0000${limits?.maxLength}\u0000${limits?.maxDepth}\u0000${parser ?? ''}\u0000${phase ?? ''}\u0000${context ?? ''}` };
}

/**
 * `checkExpression(text, options)`, from the cache when the options can be keyed; with `secondSight`, a
 * text seen for the first time is checked without keeping its check.
 */
export function checkedExpression(text: string, options: ExpressionOptions, secondSight = false): CheckResult {
  const scope = typeof text === 'string' ? optionsKey(options) : undefined;
  if (!scope) return checkExpression(text, options);
  let byLists = checkCache.get(scope.scheme);
  if (!byLists) checkCache.set(scope.scheme, (byLists = new WeakMap()));
  let texts = byLists.get(scope.lists);
  if (!texts) byLists.set(scope.lists, (texts = { kept: new Map(), seen: new Set() }));
  const key = `${scope.key}\u0000${text}`;
  let cached = texts.kept.get(key);
  if (!cached) {
    cached = checkExpression(text, options);
    if (secondSight && !texts.seen.delete(key)) {
      if (texts.seen.size >= SEEN_ONCE_ENTRIES) texts.seen.delete(texts.seen.values().next().value!);
      texts.seen.add(key);
      return cached;
    }
    if (texts.kept.size >= CHECK_CACHE_ENTRIES) texts.kept.delete(texts.kept.keys().next().value!);
    texts.kept.set(key, cached);
  }
  return cached;
}

/** Deep copies of cached diagnostics, for a caller that may change them. */
export function copyDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.length ? (copy(diagnostics) as Diagnostic[]) : [];
}

/** A deep copy of plain data (arrays and objects; other values as they are). */
function copy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copy);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = copy(x);
  return out;
}
