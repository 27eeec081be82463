/**
 * Ruleset analysis: which rules can never decide, and why. Rules are read in order; the packets earlier
 * terminating rules decide (the terminating actions of the phase catalog, `skip` with `ruleset: "current"`;
 * not rate limiting or exposed credentials rules, which apply to part of what they match) are subtracted from what each rule
 * matches, exactly, over the field domains of formula.ts. What is left is empty → the rule is shadowed
 * (or redundant when the rules that cover it have its action); what is left is a set of packets the rule
 * does decide, and one of them is its witness.
 *
 * Claims are sound: a rule whose expression the domains cannot fully express is still analysed, with its
 * opaque parts free either way, so "never decides" holds whatever they are; a rule too large for the
 * bounded normal form is left out, and counts as deciding nothing for the rules after it (which can only
 * hide a finding, never invent one). Each shadowing finding carries a witness packet that the rule
 * matches and the interpreter confirms an earlier rule decides first.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkExpression, doubleBounds, stringDomainOf, interpret, ListCatalog, NETWORK_SCHEME, nodeCost, Scheme, walk, type AnyNode, type CheckedExpression, type ExpressionOptions, type ExprNode, type Packet, type Predicate, type ValuePlan, type VectorPlan } from '../expression/index.js';
import { actionTerminates, phaseExpressionOptions, phaseInfo } from '../ruleset/index.js';
import { ANALYSIS_CODES, type AnalysisCode } from './codes.js';
import { hasValue, type Domain } from './domains.js';
import { firstOutside, keyToIp, meet, Normalizer, satisfiable, TooComplex, transportChoice, transportOf, type Cube } from './formula.js';

/** A rule as the analysis reads it (the service's rule shape; other members are ignored). */
export interface AnalysisRule {
  action?: unknown;
  expression?: unknown;
  enabled?: unknown;
  action_parameters?: unknown;
  /** A rate limiting rule's settings: its action applies only past the rate. */
  ratelimit?: unknown;
  /** An exposed credentials check: the rule matches only when the credentials are known leaked. */
  exposed_credential_check?: unknown;
}

/**
 * Options: the lists and scheme the expressions are checked with, and the ruleset's phase (read from the
 * ruleset's `phase` when not given): an HTTP phase's rules are checked with the HTTP fields.
 */
export type AnalysisOptions = Pick<ExpressionOptions, 'lists' | 'serviceToken' | 'scheme'> & {
  phase?: string;
  /**
   * Most milliseconds the analysis may take (default: no limit). Past it, the rules left are not
   * analysed (status `unknown`) and one `analysis-stopped` note says from which rule: a server answering
   * on one thread gives the analysis of a write a budget instead of holding every other request.
   */
  budgetMs?: number;
};

/** What the analysis found out about one rule. */
export interface RuleAnalysis {
  index: number;
  /**
   * `live`: some packet reaches the rule and it matches (with a witness); `shadowed`: earlier rules decide
   * every packet it matches; `never`: it matches no packet; `disabled`; `invalid`: its expression has
   * errors; `unknown`: too large to analyse, or it reads functions or indexed values (`rule-not-analysed`).
   */
  status: 'live' | 'shadowed' | 'never' | 'disabled' | 'invalid' | 'unknown';
  /** A packet this rule decides (`live`), or one it matches that `decidedBy` decides first (`shadowed`). */
  witness?: Packet;
  /** The earlier rule that decides the witness of a shadowed rule. */
  decidedBy?: number;
  /** The earlier terminating rules that share packets with a shadowed rule. */
  coveredBy?: number[];
  /** Opaque parts of the expression (regexes, functions, …) the witness assumes true or false. */
  assumes?: string[];
  /** What the rule weighs against the service's limits: characters, regexes, and the planner's cost units. */
  complexity?: { length: number; regexes: number; cost: number };
}

/** The service's documented limits (expressions.md): characters and regexes per rule, rules per ruleset. */
export const SERVICE_LIMITS = Object.freeze({ expressionLength: 4096, regexesPerRule: 64, rulesPerRuleset: 200 });

/** Warnings come at this share of a limit, well before the service would refuse the ruleset. */
const NEAR = 0.8;

/** The analysis of a ruleset: findings as diagnostics, and the per-rule verdicts behind them. */
export interface RulesetAnalysis {
  diagnostics: Diagnostic[];
  rules: RuleAnalysis[];
}

function finding(code: AnalysisCode, message: string, index: number, extra: { range?: { start: number; end: number }; data?: Record<string, unknown> } = {}): Diagnostic {
  const d: Diagnostic = { code, severity: ANALYSIS_CODES[code].severity, message, pointer: `/rules/${index}/expression` };
  if (extra.range) {
    d.range = extra.range;
    d.rangeIn = 'value';
  }
  if (extra.data) d.data = extra.data;
  return d;
}

/** Most skip-overlap notes per skip rule (the first later block rules it opens a hole in). */
const MAX_OVERLAPS_PER_SKIP = 3;

/** Most decided pieces carried from rule to rule. */
const MAX_DECIDED = 16_384;

/**
 * Whether a rule decides every request or packet its expression matches: its action ends the evaluation
 * (the catalog's terminating actions, a skip of the current ruleset), and nothing beyond the expression
 * narrows when it applies — a rate limit acts only past its rate, an exposed credentials check only on
 * leaked credentials, so such rules decide an unknown part of what they match and nothing for the rules
 * after them. Log, rewrite, skip of other rulesets or products, execute… never decide.
 */
const terminates = (r: AnalysisRule): boolean => actionTerminates(r.action, r.action_parameters) && r.ratelimit === undefined && r.exposed_credential_check === undefined;

/**
 * A value that is in the domain (domains here always have one when asked). A String field with a table of
 * values (string-domains.ts: protocols, countries, methods…) gets one of the table's, `ip.proto` the
 * transport the packet was given when it can; an arbitrary string only for free text, or when the region
 * excludes every value of the table.
 */
function valueOf(field: string, d: Domain, scheme: Scheme, transport?: string): unknown {
  const def = scheme.get(field);
  if (d.kind === 'string') {
    const table = stringDomainOf(def, field)?.values ?? [];
    if (!d.cofinite) return table.find((s) => d.items.has(s)) ?? [...d.items].sort()[0];
    const pool = field === 'ip.proto' && transport ? [transport, ...table] : table.length ? table : ['x', 'example', 'other'];
    const free = pool.find((s) => !d.items.has(s));
    if (free !== undefined) return free;
    for (let i = 0; ; i++) if (!d.items.has(`x${i}`)) return `x${i}`;
  }
  const k = d.values[0]![0];
  if (def?.type === 'Ip') return keyToIp(k);
  if (def?.type === 'Bool') return k === 1n;
  // A number the record can hold: the first double in one of the domain's intervals (beyond ±2^53 not
  // every integer is one).
  for (const [lo, hi] of d.values) {
    const v = doubleBounds(lo).atLeast;
    if (BigInt(v) <= hi) return v;
  }
  return Number(k);
}

/** A packet in the cube: transport chosen, each constrained field given a value or left missing. */
export function witnessOf(c: Cube, scheme: Scheme): { packet: Packet; assumes: string[] } {
  const t = transportChoice(c);
  const packet: Record<string, unknown> = {};
  const assumes: string[] = [];
  for (const [k, d] of c) {
    if (k.startsWith('#')) {
      const truth = d.kind === 'ordered' && d.values.length === 1 && d.values[0]![0] === 1n;
      assumes.push(`${k.slice(1)} is ${truth ? 'true' : 'false'}`);
      continue;
    }
    const own = transportOf(k);
    if (own && own !== t) continue;
    if (hasValue(d)) packet[k] = valueOf(k, d, scheme, t === 'none' ? undefined : t);
  }
  return { packet, assumes };
}

/** "blocks", "skip", "decide (challenge)": what covering rules with this action do to a request. */
const decides = (action: unknown, one: boolean) => (action === 'block' || action === 'skip' ? `${action}${one ? 's' : ''}` : `decide${one ? 's' : ''} (${String(action)})`);
const describeRule = (i: number, r: AnalysisRule) => `rule ${i} (${String(r.action)})`;
const show = (p: Packet) => JSON.stringify(p);

/**
 * Analyse a ruleset's rules in order. Never throws; a rule whose expression has errors is skipped (its
 * errors are the validator's to report).
 *
 * ```ts
 * analyzeRuleset({ rules: [
 *   { action: 'block', expression: 'tcp.dstport in {1..1024}' },
 *   { action: 'block', expression: 'tcp.dstport == 22' },
 * ] }).diagnostics; // [{ code: 'rule-redundant', pointer: '/rules/1/expression', ... }]
 * ```
 */
export function analyzeRuleset(ruleset: { rules?: unknown; phase?: unknown }, options: AnalysisOptions = {}): RulesetAnalysis {
  const rules = Array.isArray(ruleset?.rules) ? (ruleset.rules as AnalysisRule[]) : [];
  const { exprOptions, scheme, unit, knownList } = analysisSetting(ruleset, options);
  const normalizer = new Normalizer(scheme, true, knownList);
  const diagnostics: Diagnostic[] = [];
  const out: RuleAnalysis[] = [];
  // What earlier terminating rules decide: their cubes (for who covers whom) and the union left so far.
  const earlier: { index: number; rule: AnalysisRule; cubes: Cube[]; checked: CheckedExpression }[] = [];
  let decided: Cube[] = [];
  const complexities = new Map<number, { length: number; regexes: number; cost: number }>();
  const overlapCount = new Map<number, number>();

  const started = options.budgetMs === undefined ? 0 : performance.now();
  for (let index = 0; index < rules.length; index++) {
    // At least one rule is analysed; the clock is read between rules.
    if (index > 0 && options.budgetMs !== undefined && performance.now() - started > options.budgetMs) {
      diagnostics.push(finding('analysis-stopped', `the analysis stopped at rule ${index} after ${options.budgetMs} ms, its time budget: rules ${index} to ${rules.length - 1} were not analysed (\`rulekit analyze\` analyses every rule)`, index, { data: { analysed: index, rules: rules.length, budgetMs: options.budgetMs } }));
      for (let rest = index; rest < rules.length; rest++) out.push({ index: rest, status: 'unknown' });
      break;
    }
    analyzeRule(rules[index]!, index);
  }
  if (rules.length > NEAR * SERVICE_LIMITS.rulesPerRuleset) diagnostics.push(tooManyRules(rules));
  for (const r of out) {
    const c = complexities.get(r.index);
    if (c) r.complexity = c;
  }
  return { diagnostics, rules: out };

  /** One rule's claim and findings, in order: the earlier terminating rules are in `earlier` and `decided`. */
  function analyzeRule(rule: AnalysisRule, index: number): void {
    if (rule === null || typeof rule !== 'object') return void out.push({ index, status: 'invalid' });
    if (rule.enabled === false) return void out.push({ index, status: 'disabled' });
    const text = typeof rule.expression === 'string' ? rule.expression : undefined;
    const checkedResult = text === undefined ? undefined : checkExpression(text, exprOptions);
    if (!text || !checkedResult?.checked || checkedResult.diagnostics.some((d) => d.severity === 'error')) return void out.push({ index, status: 'invalid' });
    const checked = checkedResult.checked;
    const complexity = ruleComplexity(text, checked);
    const near = nearLimits(complexity);
    complexities.set(index, complexity);
    if (near.length) diagnostics.push(finding('rule-complexity', `${describeRule(index, rule)} is near the service's limits: ${near.join(', ')}`, index, { data: complexity }));
    const beyond = beyondDomains(checked);
    if (beyond.length) {
      // Left out: it gets no claim, and decides nothing for the rules after it (which can only hide a
      // finding about them, never invent one).
      diagnostics.push(finding('rule-not-analysed', `${describeRule(index, rule)} is not analysed for shadowing: it reads ${beyond.join(', ')}, which the analysis does not reason about; it neither gets a finding nor counts as deciding any ${unit} for the rules after it`, index, { range: { start: 0, end: text.length }, data: { reads: beyond } }));
      return void out.push({ index, status: 'unknown' });
    }
    let cubes: Cube[];
    try {
      cubes = normalizer.cubes(checked);
    } catch (e) {
      if (!(e instanceof TooComplex)) throw e;
      return void out.push({ index, status: 'unknown' });
    }
    const whole = { start: 0, end: text.length };
    subExpressionFindings(normalizer, checked, text, index, diagnostics);
    if (!cubes.length) {
      out.push({ index, status: 'never' });
      diagnostics.push(finding('rule-never-matches', `${describeRule(index, rule)} matches no ${unit}: ${whyNeverMatches(checked, scheme, knownList)}`, index, { range: whole }));
      return;
    }
    let live: Cube | undefined;
    try {
      live = firstOutside(cubes, decided);
    } catch (e) {
      if (!(e instanceof TooComplex)) throw e;
      // Too many pieces to tell: no claim about this rule; it still decides for the rules after it.
      out.push({ index, status: 'unknown' });
      if (terminates(rule)) earlier.push({ index, rule, cubes, checked });
      return;
    }
    if (!live) out.push(shadowed(rule, index, cubes, whole));
    else {
      const w = witnessOf(live, scheme);
      out.push({ index, status: 'live', witness: w.packet, ...(w.assumes.length ? { assumes: w.assumes } : {}) });
    }
    if (rule.action !== 'skip' && terminates(rule) && live) overlapsWithSkips(index, rule, cubes);
    if (terminates(rule)) {
      earlier.push({ index, rule, cubes, checked });
      // The packets decided so far, as the rules' own cubes: the same union as the pieces left after
      // each subtraction, in far fewer cubes. Past the bound some are dropped, which can only hide a
      // finding about a later rule, never invent one.
      decided = [...decided, ...cubes].slice(0, MAX_DECIDED);
    }
  }

  /**
   * Earlier skips that let through packets this terminating rule (block, challenge, redirect…) would decide: information, since that is what a
   * skip is for, but a skip wider than meant shows up here (a port range that covers a blocked port).
   */
  function overlapsWithSkips(index: number, rule: AnalysisRule, cubes: Cube[]): void {
    for (const e of earlier) {
      if (e.rule.action !== 'skip' || (overlapCount.get(e.index) ?? 0) >= MAX_OVERLAPS_PER_SKIP) continue;
      let shared: Cube | undefined;
      for (const x of e.cubes) {
        for (const y of cubes) {
          const m = meet(x, y);
          if (m && satisfiable(m)) {
            shared = m;
            break;
          }
        }
        if (shared) break;
      }
      if (!shared) continue;
      const w = witnessOf(shared, scheme);
      overlapCount.set(e.index, (overlapCount.get(e.index) ?? 0) + 1);
      const example = w.assumes.length ? '' : `, for example ${show(w.packet)}`;
      diagnostics.push(finding('rule-skip-overlap', `${describeRule(e.index, e.rule)} lets through ${unit}s that ${describeRule(index, rule)} would ${rule.action === 'block' ? 'block' : `decide (${String(rule.action)})`}${example}: check that the skip is no wider than meant`, e.index, {
        range: { start: 0, end: typeof e.rule.expression === 'string' ? e.rule.expression.length : 0 },
        data: { blockedBy: index, ...(w.assumes.length ? { assumes: w.assumes } : { witness: w.packet }) },
      }));
    }
  }

  function shadowed(rule: AnalysisRule, index: number, cubes: Cube[], whole: { start: number; end: number }): RuleAnalysis {
    // The earlier rules that share packets with this one, then only those needed to cover it: each is
    // dropped in turn, latest first, when the others still cover the rule without it.
    let cover = earlier.filter((e) => e.cubes.some((x) => cubes.some((y) => { const m = meet(x, y); return m !== undefined && satisfiable(m); })));
    // (Past 16 candidates the set is reported as found: each drop costs a search.)
    for (const e of cover.length <= 16 ? [...cover].reverse() : []) {
      const others = cover.filter((f) => f !== e);
      try {
        if (!firstOutside(cubes, others.flatMap((f) => f.cubes))) cover = others;
      } catch {
        // Keep it: the covering set stays correct, only less small.
      }
    }
    const coveredBy = cover.map((e) => e.index);
    let witness: Packet | undefined;
    let decidedBy: number | undefined;
    let assumes: string[] = [];
    // A packet of this rule inside the first covering rule, confirmed by the interpreter: the first
    // earlier terminating rule it matches is the one that decides it.
    search: for (const e of earlier) {
      if (!coveredBy.includes(e.index)) continue;
      for (const x of e.cubes) for (const y of cubes) {
        const m = meet(x, y);
        if (!m || !satisfiable(m)) continue;
        const w = witnessOf(m, scheme);
        witness = w.packet;
        assumes = w.assumes;
        decidedBy = assumes.length ? e.index : earlier.find((f) => interpret(f.checked, w.packet))?.index;
        break search;
      }
    }
    const sameAction = coveredBy.length > 0 && coveredBy.every((i) => rules[i]!.action === rule.action);
    const by = coveredBy.map((i) => describeRule(i, rules[i]!)).join(', ');
    const example = witness ? `; for example ${show(witness)}${assumes.length ? ` (assuming ${assumes.join(', ')})` : ''} is decided by rule ${decidedBy} first` : '';
    const data: Record<string, unknown> = { coveredBy, ...(witness ? { witness, decidedBy } : {}), ...(assumes.length ? { assumes } : {}) };
    diagnostics.push(sameAction
      ? finding('rule-redundant', `${describeRule(index, rule)} is redundant: ${by} already ${decides(rule.action, coveredBy.length === 1)} every ${unit} it matches${example}`, index, { range: whole, data })
      : finding('rule-unreachable', `${describeRule(index, rule)} can never decide: every ${unit} it matches is decided earlier by ${by}${example}`, index, { range: whole, data }));
    return { index, status: 'shadowed', coveredBy, ...(witness ? { witness, decidedBy } : {}), ...(assumes.length ? { assumes } : {}) };
  }
}

/**
 * What the analysis reads a ruleset's expressions with: the options of the checker (the phase picks the
 * field set, as validation does: an HTTP phase reads HTTP request fields), their scheme, what a finding
 * calls what the rules match (packets or requests) and which lists are known.
 */
function analysisSetting(ruleset: { phase?: unknown }, options: AnalysisOptions): { exprOptions: ExpressionOptions; scheme: Scheme; unit: 'packet' | 'request'; knownList: (name: string) => boolean } {
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const phase = options.phase ?? (typeof ruleset?.phase === 'string' ? ruleset.phase : undefined);
  const given = options.scheme === undefined ? NETWORK_SCHEME : options.scheme instanceof Scheme ? options.scheme : Scheme.fromLiteral(options.scheme).scheme;
  const exprOptions: ExpressionOptions = phaseExpressionOptions(phase, { lists, serviceToken: options.serviceToken, scheme: given });
  return {
    exprOptions,
    scheme: exprOptions.scheme as Scheme,
    unit: phase !== undefined && phaseInfo(phase)?.fields === 'http' ? 'request' : 'packet',
    knownList: (name: string) => lists?.get(name) !== undefined,
  };
}

/** A rule's size against the service's limits, and the cost of evaluating it. */
function ruleComplexity(text: string, checked: CheckedExpression): { length: number; regexes: number; cost: number } {
  return { length: text.length, regexes: [...checked.predicates.values()].filter((p) => p.kind === 'regex').length, cost: Math.round(nodeCost(checked, checked.ast) * 10) / 10 };
}

/** The service's limits a rule is near (past {@link NEAR} of them), said for a message. */
function nearLimits(complexity: { length: number; regexes: number }): string[] {
  const near: string[] = [];
  if (complexity.length > NEAR * SERVICE_LIMITS.expressionLength) near.push(`${complexity.length} of ${SERVICE_LIMITS.expressionLength} characters`);
  if (complexity.regexes > NEAR * SERVICE_LIMITS.regexesPerRule) near.push(`${complexity.regexes} of ${SERVICE_LIMITS.regexesPerRule} regular expressions`);
  return near;
}

/**
 * Why an expression with no cube matches nothing: contradicting conditions, unless it has cubes once
 * packets may carry two transports (then it asks for tcp.* and udp.* fields on one packet).
 */
function whyNeverMatches(checked: CheckedExpression, scheme: Scheme, knownList: (name: string) => boolean): string {
  try {
    if (new Normalizer(scheme, false, knownList).cubes(checked).length) return 'it needs fields of two transports (tcp.*, udp.*, icmp.*) on one packet, which has one';
  } catch {
    // Keep the general reason.
  }
  return 'its conditions contradict each other';
}

/** The ruleset-complexity finding of a ruleset near the service's rule limit. */
function tooManyRules(rules: readonly AnalysisRule[]): Diagnostic {
  const enabled = rules.filter((r) => r !== null && typeof r === 'object' && r.enabled !== false).length;
  return { code: 'ruleset-complexity', severity: ANALYSIS_CODES['ruleset-complexity'].severity, message: `the ruleset has ${rules.length} rules (${enabled} enabled); the service takes at most ${SERVICE_LIMITS.rulesPerRuleset}`, pointer: '/rules' };
}

/**
 * What an expression reads that the field domains cannot hold, named for the user: functions (`lower()`),
 * indexing (`[ ]`, `[*]`) and `any()`/`all()`. Empty when every predicate compares a plain field.
 */
function beyondDomains(checked: CheckedExpression): string[] {
  const found = new Set<string>();
  const plan = (v: ValuePlan): void => {
    switch (v.kind) {
      case 'call':
        found.add(`${v.name}()`);
        v.args.forEach(plan);
        break;
      case 'key':
      case 'at':
        found.add('indexing [ ]');
        plan(v.target);
        break;
      case 'star':
        found.add('indexing [*]');
        plan(v.target);
        break;
    }
  };
  const vector = (v: VectorPlan): void => {
    if (v.kind === 'test' || v.kind === 'scalar') predicate(v.predicate);
    else if (v.kind === 'not') vector(v.item);
    else v.items.forEach(vector);
  };
  const predicate = (p: Predicate): void => {
    if (p.lhs.kind === 'value') plan(p.lhs.plan);
    else if (p.lhs.kind === 'quantifier') {
      found.add(`${p.lhs.op}()`);
      vector(p.lhs.arg);
    }
  };
  for (const p of checked.predicates.values()) predicate(p);
  return [...found].sort();
}

/**
 * Parts of an expression that can never be true or never be false, reported at their smallest: a part is
 * named only when none of its own operands already is.
 */
function subExpressionFindings(normalizer: Normalizer, checked: CheckedExpression, text: string, index: number, out: Diagnostic[]): void {
  const empty = new Map<ExprNode, { never: boolean; always: boolean }>();
  const nodes: ExprNode[] = [];
  walk(checked.ast, (n: AnyNode) => {
    if (n.kind === 'logical' || n.kind === 'compare' || n.kind === 'in' || n.kind === 'bare') nodes.push(n);
  });
  if (nodes.length > 200) return;
  for (const n of nodes) {
    try {
      empty.set(n, { never: normalizer.node(checked, n, true).length === 0, always: normalizer.node(checked, n, false).length === 0 });
    } catch {
      empty.set(n, { never: false, always: false });
    }
  }
  const children = (n: ExprNode): ExprNode[] => {
    const kids: ExprNode[] = [];
    const strip = (x: ExprNode): ExprNode => (x.kind === 'group' ? strip(x.expr) : x.kind === 'not' ? strip(x.operand) : x);
    if (n.kind === 'logical') for (const o of n.operands) kids.push(strip(o));
    return kids;
  };
  for (const n of nodes) {
    if (n === checked.ast || (checked.ast.kind === 'group' && n === checked.ast.expr)) continue;
    const e = empty.get(n)!;
    const kids = children(n);
    const src = text.slice(n.range.start, n.range.end);
    if (e.never && !kids.some((k) => empty.get(k)?.never || empty.get(k)?.always)) {
      out.push(finding('expression-never-true', `\`${src}\` is never true${n.kind === 'logical' && n.op === 'and' ? ': its conditions contradict each other' : ''}`, index, { range: n.range }));
    } else if (e.always && !kids.some((k) => empty.get(k)?.never || empty.get(k)?.always)) {
      out.push(finding('expression-always-true', `\`${src}\` is always true: it does not narrow what the rule matches`, index, { range: n.range }));
    }
  }
}
