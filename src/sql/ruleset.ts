/**
 * A ruleset as SQL: per row the deciding rule's index (−1 when none decides) and the verdict, with the
 * simulator's order (src/engine/simulate.ts): rules in order; disabled rules, rules of other actions and
 * rules whose expression has errors left out; `block` and `skip` with `ruleset: "current"` end
 * evaluation at the first match; other `skip`s only count as matched: the dialect's first-of (`CASE` in
 * DuckDB, `multiIf` in ClickHouse). {@link rulesetSummarySql} adds the simulator's per-rule summary as one aggregate query.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkExpression, HTTP_SCHEME, ListCatalog } from '../expression/index.js';
import type { Rule, RuleAction, Ruleset } from '../ruleset/index.js';
import { actionTerminates, httpPhaseRefusal, rulesetShapeProblems } from '../ruleset/index.js';
import { ExpressionWriter, type ExpressionSqlOptions } from './expression.js';
import type { Dialect } from './dialect.js';
import { dialectOf } from './dialects/index.js';

/** Options of {@link rulesetToSql}: those of an expression, since each rule's expression is written with them. */
export interface RulesetSqlOptions extends ExpressionSqlOptions {
  /**
   * The rows are HTTP requests (a request table: src/sql/requests.ts): an HTTP-phase ruleset is written
   * over them, its rules read with the HTTP fields. Without, HTTP phases are refused (flows hold packets).
   */
  requests?: boolean;
}

/** One rule the SQL decides with. */
export interface RuleSql {
  index: number;
  action: RuleAction;
  /** Ends evaluation when it matches (`block`, `skip` of the current ruleset). */
  terminating: boolean;
  /** Whether the rule matches the row (never NULL). */
  sql: string;
}

/** What {@link rulesetToSql} returns. */
export interface RulesetSqlResult {
  /** The deciding rule's index, −1 when no terminating rule matches (allowed by default). */
  sql?: string;
  /** `'block'` or `'allow'`. */
  verdict?: string;
  /** The rules taking part, in order. */
  rules?: RuleSql[];
  diagnostics: Diagnostic[];
}

/**
 * The first terminating rule that matches, as `value(rule)` (its index, or its verdict), else `none`: the
 * dialect's first-of over the given match expressions.
 */
function firstMatch(rules: readonly RuleSql[] | readonly { index: number; terminating: boolean; action: RuleAction }[], match: (i: number) => string, dialect: Dialect, value: (r: { index: number; action: RuleAction }) => string, none: string): string {
  const t = rules.filter((r) => r.terminating);
  if (!t.length) return none;
  return dialect.firstOf(t.map((r) => [match(r.index), value(r)] as const), none);
}
const indexOf = (r: { index: number }) => String(r.index);
const verdictOf = (r: { action: RuleAction }) => (r.action === 'block' ? `'block'` : `'allow'`);

/**
 * A ruleset as SQL over a flow table: the deciding rule's index and the verdict per row.
 *
 * ```ts
 * rulesetToSql({ rules: [{ action: 'block', expression: 'tcp.dstport == 23' }] }, { dialect: 'clickhouse' }).sql
 * // multiIf(COALESCE(`tcp.dstport` = 23, FALSE), 0, -1)
 * ```
 */
export function rulesetToSql(ruleset: Ruleset | { rules: readonly Rule[] }, options: RulesetSqlOptions = {}): RulesetSqlResult {
  const http = options.requests ? [] : httpPhaseRefusal(ruleset, 'SQL is written for network-phase rulesets over flows');
  if (http.length) return { diagnostics: http };
  const shape = rulesetShapeProblems(ruleset);
  if (shape.length) return { diagnostics: shape };
  const dialect = dialectOf(options.dialect);
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const diagnostics: Diagnostic[] = [];
  const rules: RuleSql[] = [];
  const w = new ExpressionWriter(dialect, options.columns, options.aliasColumns, options.ipKeys);
  ruleset.rules.forEach((rule, index) => {
    // Network phases act by block and skip only; HTTP phases by every action of the catalog (a log counts as matched).
    if (rule.enabled === false || (!options.requests && rule.action !== 'skip' && rule.action !== 'block')) return;
    const checked = checkExpression(rule.expression, { lists, scheme: options.scheme ?? (options.requests ? HTTP_SCHEME : undefined), serviceToken: options.serviceToken });
    const at = (d: Diagnostic): Diagnostic => ({ ...d, pointer: `/rules/${index}/expression`, rangeIn: 'value' });
    diagnostics.push(...checked.diagnostics.map(at));
    // As the simulator: a rule whose expression has errors takes no part.
    if (!checked.checked || checked.diagnostics.some((d) => d.severity === 'error')) return;
    const before = w.problems.length;
    const sql = w.expression(checked.checked);
    diagnostics.push(...w.problems.slice(before).map(at));
    const terminating = options.requests ? actionTerminates(rule.action, rule.action_parameters) : rule.action === 'block' || (rule.action_parameters as { ruleset?: unknown } | undefined)?.ruleset === 'current';
    rules.push({ index, action: rule.action, terminating, sql });
  });
  if (w.problems.length) return { diagnostics };
  const byIndex = new Map(rules.map((r) => [r.index, r.sql]));
  const match = (i: number) => byIndex.get(i)!;
  return { sql: firstMatch(rules, match, dialect, indexOf, '-1'), verdict: firstMatch(rules, match, dialect, verdictOf, `'allow'`), rules, diagnostics };
}

/** Options of {@link rulesetSummarySql}. */
export interface SummarySqlOptions extends RulesetSqlOptions {
  /** Example rows per rule (default 3): their row numbers, lowest first. */
  examplesPerRule?: number;
  /**
   * The column holding each row's number in the input (0-based), for examples (default `rn`); `null`: the
   * input has none, and the per-row query of `steps` carries no number (the relation given to `fold` does).
   */
  rowNumber?: string | null;
  /**
   * `eager` (default): every rule's match computed for every row as a column of its own, then the
   * deciding rule from those columns. `lazy`: only the rules a row reaches are evaluated on it (the
   * deciding `CASE`/`multiIf` straight over the expressions, which both engines evaluate lazily). The
   * answers are the same — no expression has a side effect or can fail — and eager was measured faster on
   * both engines for the bench's 49 rules (`npm run bench -- sql`): computing a cheap test over a whole
   * column beats filtering the columns down per rule. Lazy pays off when rules are costly and most rows
   * are decided early.
   */
  evaluation?: 'eager' | 'lazy';
  /**
   * Conditions over the input's columns to count besides the rules (say, values the input holds but could
   * not take): the result has `counted_I`, the rows where the I-th holds.
   */
  counts?: readonly string[];
  /** Columns of the input the per-row query of `steps` carries as they are (for a caller's own use). */
  carry?: readonly string[];
}

/** What {@link rulesetSummarySql} returns. */
export interface SummarySql {
  /**
   * One row: `packets`, `blocked`, `default_allowed`, per rule taking part `matched_I`, `decided_I` and
   * `examples_I` (a list of row numbers), and `counted_I` per condition of `counts`.
   */
  sql?: string;
  /**
   * The same summary in two steps, for an engine that numbers rows after deciding them (say, by their
   * place in a table the decisions were stored in, in read order): `rows`, the per-row query (`d`, the
   * deciding rule; `cI` per condition of `counts`; `mI` per rule that does not end evaluation; `rn` unless
   * `rowNumber` is `null`), and `fold(relation)`, the one-row summary over a relation holding those
   * columns and `rn` (a table or a parenthesised subquery with an alias). `sql` is `fold` over `rows`.
   */
  steps?: { rows: string; fold: (relation: string) => string };
  rules?: RuleSql[];
  diagnostics: Diagnostic[];
}

/** One rule's figures in the row {@link rulesetSummarySql} answers. */
export interface SummaryRuleFigures {
  index: number;
  matched: number;
  decided: number;
  /** Row numbers of its first examples, ascending. */
  examples: number[];
}

/** Each rule's figures read from the row {@link rulesetSummarySql} answers (its columns are named there). */
export function summaryRuleFigures(rules: readonly Pick<RuleSql, 'index'>[], row: Readonly<Record<string, unknown>> | undefined): SummaryRuleFigures[] {
  return rules.map(({ index }) => ({
    index,
    matched: Number(row?.[`matched_${index}`] ?? 0),
    decided: Number(row?.[`decided_${index}`] ?? 0),
    examples: ((row?.[`examples_${index}`] as unknown[] | undefined) ?? []).map(Number),
  }));
}

/**
 * The simulator's summary as one aggregate query over `from` (a table or a parenthesised subquery with an
 * alias). A rule counts as matched where it matched and was reached (no earlier terminating rule
 * matched), as in the simulator; see {@link SummarySqlOptions.evaluation} for which rules are evaluated
 * on which rows.
 */
export function rulesetSummarySql(ruleset: Ruleset | { rules: readonly Rule[] }, from: string, options: SummarySqlOptions = {}): SummarySql {
  const r = rulesetToSql(ruleset, options);
  if (!r.rules) return { diagnostics: r.diagnostics };
  const dialect = dialectOf(options.dialect);
  const rn = options.rowNumber === null ? undefined : dialect.identifier(options.rowNumber ?? 'rn');
  const rnItem = rn === undefined ? [] : [`${rn} AS rn`];
  const n = Math.max(0, Math.floor(options.examplesPerRule ?? 3));
  const m = (i: number) => `m${i}`;
  const count = (cond: string) => dialect.countIf(cond);
  const examples = (cond: string) => (n === 0 ? dialect.emptyInt64Array : dialect.lowestIf('rn', n, cond));
  // The extra conditions, carried to the aggregate as columns c0, c1, …
  const counts = options.counts ?? [];
  const carried = counts.map((c, i) => `COALESCE(${c}, FALSE) AS c${i}`);
  const kept = (options.carry ?? []).map((c) => dialect.identifier(c));
  // Per row: the deciding rule `d`, and the match of each rule that does not end evaluation (`mI`, where reached).
  let rows: string;
  const reachedNonTerminating = (x: RuleSql) => `${m(x.index)} AND (d = -1 OR d > ${x.index})`;
  if (options.evaluation === 'lazy') {
    const byIndex = new Map(r.rules.map((x) => [x.index, x.sql]));
    const decided = `SELECT *, ${firstMatch(r.rules, (i) => byIndex.get(i)!, dialect, indexOf, '-1')} AS d FROM ${from}`;
    // A rule that does not end evaluation (a skip of other phases) is evaluated only where it was reached.
    const reached = (x: RuleSql) => dialect.andThen(`d = -1 OR d > ${x.index}`, x.sql);
    rows = `SELECT ${[...rnItem, ...kept, 'd', ...carried, ...r.rules.filter((x) => !x.terminating).map((x) => `${reached(x)} AS ${m(x.index)}`)].join(', ')} FROM (${decided}) AS decided`;
  } else {
    const inner = `SELECT ${[...rnItem, ...kept, ...carried, ...r.rules.map((x) => `${x.sql} AS ${m(x.index)}`)].join(', ') || 'TRUE AS t'} FROM ${from}`;
    // Only the columns the fold reads: a stored per-row result keeps no terminating rule's match.
    const keep = [...(rn === undefined ? [] : ['rn']), ...kept, ...counts.map((_, i) => `c${i}`), ...r.rules.filter((x) => !x.terminating).map((x) => m(x.index))];
    rows = `SELECT ${[...keep, `${firstMatch(r.rules, m, dialect, indexOf, '-1')} AS d`].join(', ')} FROM (${inner}) AS matches`;
  }
  // Two stages: the rows grouped by their deciding rule (a few groups, a few aggregates each: far cheaper
  // than an aggregate per rule over every row), then the groups folded into the one summary row. A
  // terminating rule's matches where reached are exactly its group; a non-terminating rule is counted
  // in every group, as it matches where no earlier rule decided.
  const groupCols = [`d`, `count(*) AS n`, `${examples('TRUE')} AS ex`];
  counts.forEach((_, i) => groupCols.push(`${count(`c${i}`)} AS cc${i}`));
  for (const x of r.rules.filter((y) => !y.terminating)) {
    const reached = options.evaluation === 'lazy' ? m(x.index) : reachedNonTerminating(x);
    groupCols.push(`${count(reached)} AS mm${x.index}`, `${examples(reached)} AS ex${x.index}`);
  }
  const sumIf = (cond: string, v = 'n') => `COALESCE(sum(CASE WHEN ${cond} THEN ${v} ELSE 0 END), 0)`;
  const lowest = (list: string, cond: string) => (n === 0 ? dialect.emptyInt64Array : dialect.mergeLowestIf(list, n, cond));
  const blocks = r.rules.filter((x) => x.terminating && x.action === 'block').map((x) => x.index);
  const cols = [`${sumIf('TRUE')} AS packets`, `${blocks.length ? sumIf(`d IN (${blocks.join(', ')})`) : '0'} AS blocked`, `${sumIf('d = -1')} AS default_allowed`];
  // The other terminating actions of HTTP phases (challenges…) are verdicts of their own: `verdict ACTION`.
  const others = new Map<string, number[]>();
  for (const x of r.rules) if (x.terminating && x.action !== 'block' && x.action !== 'skip') others.set(x.action, [...(others.get(x.action) ?? []), x.index]);
  for (const [action, indexes] of others) cols.push(`${sumIf(`d IN (${indexes.join(', ')})`)} AS ${dialect.identifier(`verdict ${action}`)}`);
  counts.forEach((_, i) => cols.push(`${sumIf('TRUE', `cc${i}`)} AS counted_${i}`));
  for (const x of r.rules) {
    if (x.terminating) cols.push(`${sumIf(`d = ${x.index}`)} AS matched_${x.index}`, `${sumIf(`d = ${x.index}`)} AS decided_${x.index}`, `${lowest('ex', `d = ${x.index}`)} AS examples_${x.index}`);
    else cols.push(`${sumIf('TRUE', `mm${x.index}`)} AS matched_${x.index}`, `0 AS decided_${x.index}`, `${lowest(`ex${x.index}`, 'TRUE')} AS examples_${x.index}`);
  }
  const fold = (relation: string) => `SELECT ${cols.join(', ')} FROM (SELECT ${groupCols.join(', ')} FROM ${relation} GROUP BY d) AS groups`;
  return { sql: fold(`(${rows}) AS decided`), steps: { rows, fold }, rules: r.rules, diagnostics: r.diagnostics };
}
