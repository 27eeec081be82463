/**
 * A network rule expression as one SQL boolean expression over a flow/packet table whose columns are the
 * fields (named by the field, `"ip.src"`, or through a mapping), with rulekit's semantics, not SQL's:
 * - a missing field (NULL) makes every comparison false, `!=` included, and `not` of it true: each
 *   predicate is `COALESCE(test, FALSE)`, so SQL's three-valued logic never reaches `NOT`;
 * - Int columns are integers, String columns text (compared as UTF-8 bytes: code point order), Ip columns
 *   address text read with rulekit's strict rules (see ip.ts), Bool columns booleans;
 * - an alias field reads its target's column (`ip.geoip.asnum` → `ip.src.asnum`) and an any-of field
 *   holds when one of its fields does (`ip.geoip.country` → source or destination country): a flow
 *   table stores each value once;
 * - where no exact SQL form exists — `matches` (RE2 through RE2JS here, the engines' RE2 builds differ in
 *   flags and Unicode tables), a case-insensitive `wildcard` with cased letters, `bit_slice` (no raw
 *   headers in a flow table) — a `sql-no-exact-form` error, never different SQL. Orderings of strings
 *   need no such care: rulekit and both engines order strings by their UTF-8 bytes.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkExpression, type CheckedExpression, type ExprNode, type ListCatalog, type ListItems, type Predicate, type Scheme, type SchemeLiteral } from '../expression/index.js';
import type { IpAddress, IpRange, IpSet } from '../net/index.js';
import type { Dialect } from './dialect.js';
import { dialectOf, type SqlDialect } from './dialects/index.js';
import { hasLoneSurrogate, sqlInt } from './quote.js';
import type { SqlResult } from './logfilter.js';

/** Options of {@link expressionToSql}. */
export interface ExpressionSqlOptions {
  dialect?: SqlDialect;
  /** Column of each field, when not named by the field itself (`{ 'ip.src': 'src_addr' }`). */
  columns?: Readonly<Record<string, string>>;
  /** Lists by name without `$`, as for the matcher; they become ranges inside the SQL. */
  lists?: ListItems | ListCatalog;
  scheme?: Scheme | SchemeLiteral;
  serviceToken?: string;
  /**
   * The table also has columns for alias and any-of fields (`ip.geoip.country`), used where not NULL before
   * their targets, as the matcher reads a packet that carries them (flows read from NDJSON packet objects).
   */
  aliasColumns?: boolean;
  /**
   * Per address field, the columns holding its keys (the dialect's `ip.keys.of` of its text, computed once
   * a row by the source): tests of the field compare these instead of parsing the text each time.
   */
  ipKeys?: Readonly<Record<string, readonly string[]>>;
}

/** Writes the SQL of one checked expression; problems collect `sql-no-exact-form` errors. */
export class ExpressionWriter {
  readonly problems: Diagnostic[] = [];
  constructor(
    private readonly dialect: Dialect,
    private readonly columns: Readonly<Record<string, string>> = {},
    private readonly aliasColumns = false,
    private readonly ipKeys: Readonly<Record<string, readonly string[]>> = {},
  ) {}

  /** The SQL of a whole checked expression. */
  expression(checked: CheckedExpression): string {
    return this.node(checked, checked.ast);
  }

  private node(c: CheckedExpression, n: ExprNode): string {
    switch (n.kind) {
      case 'logical': {
        const parts = n.operands.map((o) => this.node(c, o));
        // Every part is TRUE or FALSE (never NULL), so XOR is inequality of booleans.
        if (n.op === 'xor') return parts.reduce((a, b) => `(${a} <> ${b})`);
        return `(${parts.join(n.op === 'and' ? ' AND ' : ' OR ')})`;
      }
      case 'not':
        return `(NOT ${this.node(c, n.operand)})`;
      case 'group':
        return this.node(c, n.expr);
      case 'error':
        return 'FALSE';
      default: {
        const p = c.predicates.get(n.id);
        if (!p) return 'FALSE';
        return this.predicate(p, n.kind === 'compare' ? n.op : undefined, n.range);
      }
    }
  }

  private problem(message: string, range: { start: number; end: number }): string {
    this.problems.push({ code: 'sql-no-exact-form', severity: 'error', message, range });
    return 'FALSE';
  }

  private column(name: string): string {
    return this.dialect.identifier(Object.prototype.hasOwnProperty.call(this.columns, name) ? this.columns[name]! : name);
  }

  private str(s: string, range: { start: number; end: number }): string {
    if (hasLoneSurrogate(s)) this.problem(`the text ${JSON.stringify(s)} holds an unpaired UTF-16 surrogate, which has no UTF-8 form`, range);
    return this.dialect.string(s);
  }

  /** A predicate: true when some column the field reads holds a value that satisfies it; never NULL. */
  predicate(p: Predicate, op: string | undefined, range: { start: number; end: number }): string {
    if (p.lhs.kind === 'bit_slice') return this.problem('bit_slice reads raw header bytes, which a flow table does not hold', range);
    if (p.lhs.kind === 'value' && p.lhs.plan.kind === 'literal' && p.lhs.plan.value === true) return 'TRUE';
    if (p.lhs.kind === 'value' || p.lhs.kind === 'quantifier') return this.problem('functions, [ ] / [*] indexing and any() / all() have no SQL form here', range);
    const f = p.lhs.field;
    const names = f.aliasOf !== undefined ? [f.aliasOf] : f.anyOf?.length ? f.anyOf : [f.name];
    const tests = names.map((name) => `COALESCE(${this.test(p, op, this.column(name), range, name)}, FALSE)`);
    const targets = tests.length === 1 ? tests[0]! : `(${tests.join(' OR ')})`;
    if (!this.aliasColumns || names[0] === f.name) return targets;
    const own = this.column(f.name);
    return `(CASE WHEN ${own} IS NOT NULL THEN COALESCE(${this.test(p, op, own, range)}, FALSE) ELSE ${targets} END)`;
  }

  private test(p: Predicate, op: string | undefined, col: string, range: { start: number; end: number }, field?: string): string {
    switch (p.kind) {
      case 'bare':
        return `${col} = TRUE`;
      case 'int': {
        const v = sqlInt(p.big ?? p.value);
        switch (p.op) {
          case 'bitwise_and':
            return `${this.dialect.bitAnd(col, v)} <> 0`;
          default:
            return `${col} ${SQL_OP[p.op]} ${v}`;
        }
      }
      case 'int-set': {
        const parts: string[] = [];
        // Columns hold 64-bit integers: the set as written (`exact`) when it has items beyond ±2^53.
        const set = p.exact ?? p;
        if (set.values.length) parts.push(`${col} IN (${set.values.map((v) => sqlInt(v)).join(', ')})`);
        for (const [lo, hi] of set.ranges) parts.push(`${col} BETWEEN ${sqlInt(lo)} AND ${sqlInt(hi)}`);
        return parts.length ? `(${parts.join(' OR ')})` : 'FALSE';
      }
      case 'string': {
        const v = this.str(p.value, range);
        if (p.op === 'contains') return this.dialect.contains(col, v);
        return `${col} ${SQL_OP[p.op]} ${v}`;
      }
      case 'string-set':
        return p.values.size ? `${col} IN (${[...p.values].map((s) => this.str(s, range)).join(', ')})` : 'FALSE';
      case 'regex':
        return this.pattern(p.source, op, col, range);
      case 'ip': {
        const ip = this.ipOf(col, field);
        if (p.op === 'eq') return ip.inRanges([{ first: p.value, last: p.value }]);
        if (p.op === 'ne') return `(${ip.isAddress()} AND NOT ${ip.inRanges([{ first: p.value, last: p.value }])})`;
        return ip.compare(SQL_OP[p.op] as '<' | '<=' | '>' | '>=', p.value);
      }
      case 'ip-set':
        return this.ipOf(col, field).inRanges(rangesOf(p.set));
      case 'string-list':
        return this.problem(`$${p.list} is a ${p.listKind} list: its matching (subdomain wildcards, URL parts) has no SQL form here`, range);
    }
  }

  /** The address tests of a column: over its keys when the source computed them, else over its text. */
  private ipOf(col: string, field: string | undefined) {
    const ip = this.dialect.ip;
    const keys = field !== undefined && Object.prototype.hasOwnProperty.call(this.ipKeys, field) ? this.ipKeys[field]!.map((k) => this.dialect.identifier(k)) : undefined;
    return keys
      ? { isAddress: () => ip.keys.isAddress(keys), inRanges: (rs: readonly IpRange[]) => ip.keys.inRanges(keys, rs), compare: (o: '<' | '<=' | '>' | '>=', a: IpAddress) => ip.keys.compare(keys, o, a) }
      : { isAddress: () => ip.isAddress(col), inRanges: (rs: readonly IpRange[]) => ip.inRanges(col, rs), compare: (o: '<' | '<=' | '>' | '>=', a: IpAddress) => ip.compare(col, o, a) };
  }

  /** `strict wildcard` (and a `wildcard` without cased characters) as LIKE; `matches` has no exact form. */
  private pattern(source: string, op: string | undefined, col: string, range: { start: number; end: number }): string {
    if (op !== 'wildcard' && op !== 'strict_wildcard') {
      return this.problem('matches is an RE2 regular expression: the engines’ regex dialects differ from RE2JS in flags and Unicode tables, so no SQL is given', range);
    }
    const parts: string[] = [''];
    for (let i = 0; i < source.length; i++) {
      const c = source[i]!;
      if (c === '\\') parts[parts.length - 1] += source[++i] ?? '';
      else if (c === '*') parts.push('');
      else parts[parts.length - 1] += c;
    }
    if (op === 'wildcard' && [...parts.join('')].some((ch) => ch.toLowerCase() !== ch || ch.toUpperCase() !== ch)) {
      return this.problem('a case-insensitive wildcard with cased letters: RE2 folds case by Unicode orbits (k, K and the Kelvin sign), SQL’s lower/ILIKE do not, so no SQL is given; use strict wildcard or lower-case data', range);
    }
    const like = parts.map((s) => s.replace(/[\\%_]/g, (x) => '\\' + x)).join('%');
    return this.dialect.like(col, this.str(like, range));
  }
}

/** A set's ranges, computed once per set: a list's 10k ranges are read again by every rule and compile. */
const RANGES = new WeakMap<IpSet, IpRange[]>();
function rangesOf(set: IpSet): IpRange[] {
  let r = RANGES.get(set);
  if (!r) RANGES.set(set, (r = set.ranges()));
  return r;
}

const SQL_OP: Record<string, string> = { eq: '=', ne: '<>', lt: '<', le: '<=', gt: '>', ge: '>=' };

/**
 * A network rule expression (text, or a checked expression) as a SQL boolean expression over a flow
 * table.
 *
 * ```ts
 * expressionToSql('tcp.dstport in {80 443} and not ip.src in {10.0.0.0/8}', { dialect: 'clickhouse' }).sql
 * ```
 */
export function expressionToSql(input: string | CheckedExpression, options: ExpressionSqlOptions = {}): SqlResult {
  const diagnostics: Diagnostic[] = [];
  let checked: CheckedExpression | undefined;
  if (typeof input === 'string') {
    const r = checkExpression(input, { lists: options.lists, scheme: options.scheme, serviceToken: options.serviceToken });
    diagnostics.push(...r.diagnostics);
    checked = r.checked;
  } else checked = input;
  if (!checked || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const w = new ExpressionWriter(dialectOf(options.dialect), options.columns, options.aliasColumns, options.ipKeys);
  const sql = w.expression(checked);
  diagnostics.push(...w.problems);
  return w.problems.length ? { diagnostics } : { sql, diagnostics };
}
