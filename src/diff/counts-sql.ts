/**
 * The traffic counts of a diff as one SQL query over a flow table (DuckDB, ClickHouse): per row both
 * rulesets' deciding rule (each side's SQL from src/sql `rulesetToSql`, a rule both sides hold
 * evaluated once), the region of the diff the row lies in (each region's conjunction written over the
 * flow columns, as cube-contains.ts reads a packet: NULL is missing), and the rows grouped by the two
 * deciding rules and the region, with their count, first row and first few row numbers. Which groups
 * change, and the figures, are {@link DiffCounter.addDecided}'s: the same code as in process. Text
 * only, browser-safe; running it is src/simulation/sql-diff.ts's business.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { keyToIp, type Cube, type Domain } from '../analysis/index.js';
import { parseIpAddress, type IpRange } from '../net/index.js';
import { dialectOf, hasLoneSurrogate, rulesetToSql, type Dialect, type RuleSql, type SqlDialect } from '../sql/index.js';
import type { Rule } from '../ruleset/index.js';
import type { DiffOptions } from './deciders.js';
import type { FieldTypes } from './cube-text.js';
import { regionCube } from './regions.js';
import type { RulesetDiff } from './types.js';

/** Options of {@link diffCountsSql}. */
export interface DiffCountsSqlOptions extends Pick<DiffOptions, 'lists' | 'serviceToken'> {
  dialect?: SqlDialect;
  /** Row numbers kept per group (default 3). */
  examples?: number;
  /** The column holding each row's number in the input (default `rn`). */
  rowNumber?: string;
  /** The rows are HTTP requests, a request table's (src/sql/requests.ts), for HTTP-phase rulesets. */
  requests?: boolean;
}

/** What {@link diffCountsSql} returns. */
export interface DiffCountsSql {
  /**
   * Rows `od`, `nd` (the deciding rules, −1 for none), `reg` (the region's index in the diff, −1 for
   * none), `n`, `first` (the lowest row number) and `ex` (the lowest row numbers, ascending).
   */
  sql?: string;
  /** The fields the query reads (the flow table must have their columns). */
  fields: Set<string>;
  diagnostics: Diagnostic[];
}

/** Where the IPv6 keys start (analysis/formula.ts): an interval is split there, one family each side. */
const V6_BASE = 1n << 33n;

/** The rows of the flow table `from` (a parenthesised subquery with an alias), grouped as {@link DiffCountsSql.sql} says. */
export function diffCountsSql(oldRuleset: { rules: readonly Rule[] }, newRuleset: { rules: readonly Rule[] }, diff: RulesetDiff, from: string, options: DiffCountsSqlOptions = {}): DiffCountsSql {
  const d = dialectOf(options.dialect);
  // A request table holds each field once (aliases read their targets); a flow table may hold aliases too.
  const sqlOptions = { dialect: options.dialect, lists: options.lists, serviceToken: options.serviceToken, aliasColumns: !options.requests, requests: options.requests };
  const sides = [rulesetToSql(oldRuleset, sqlOptions), rulesetToSql(newRuleset, sqlOptions)] as const;
  const diagnostics: Diagnostic[] = sides.flatMap((s, i) => s.diagnostics.map((x) => ({ ...x, data: { ...x.data, side: i ? 'new' : 'old' } })));
  const fields = new Set<string>();
  if (!sides[0].sql || !sides[1].sql) return { fields, diagnostics };
  // Each distinct rule test once, as a column both sides decide from.
  const columns = new Map<string, string>();
  const column = (r: RuleSql) => {
    let c = columns.get(r.sql);
    if (c === undefined) columns.set(r.sql, (c = `m${columns.size}`));
    return c;
  };
  const decide = (rules: readonly RuleSql[]) => {
    const t = rules.filter((r) => r.terminating);
    return t.length ? d.firstOf(t.map((r) => [column(r), String(r.index)] as const), '-1') : '-1';
  };
  const od = decide(sides[0].rules!);
  const nd = decide(sides[1].rules!);
  // The regions of each pair of deciders, in index order (the first that holds a row is its region, as
  // in process); a row's pair is tested first, so a region's conditions are evaluated only on the rows
  // its pair decides (both engines evaluate a branch only where its condition held).
  const byPair = new Map<string, [string, string][]>();
  for (const [i, region] of diff.regions.entries()) {
    const held = regionCube(region);
    if (!held) throw new Error('the diff was not made by diffRulesets: its regions have no cubes');
    const inside = held.cube === null ? 'TRUE' : cubeSql(held.cube, held.types, d, fields);
    if (inside === undefined) {
      diagnostics.push({ code: 'sql-no-exact-form', severity: 'error', message: `region ${i} of the diff (${region.text}) names a string SQL cannot hold (a lone surrogate)`, pointer: '' });
      return { fields, diagnostics };
    }
    const pair = `od = ${region.old.rule?.index ?? -1} AND nd = ${region.new.rule?.index ?? -1}`;
    byPair.set(pair, [...(byPair.get(pair) ?? []), [inside, String(i)]]);
  }
  const branches = [...byPair].map(([pair, regions]) => [pair, d.firstOf(regions, '-1')] as [string, string]);
  const rn = d.identifier(options.rowNumber ?? 'rn');
  const n = Math.max(0, Math.floor(options.examples ?? 3));
  const matches = `SELECT *${[...columns].map(([sql, c]) => `, ${sql} AS ${c}`).join('')} FROM ${from}`;
  const decided = `SELECT *, ${od} AS od, ${nd} AS nd FROM (${matches}) AS matches`;
  const attributed = `SELECT ${rn} AS rn, od, nd, ${branches.length ? d.firstOf(branches, '-1') : '-1'} AS reg FROM (${decided}) AS decided`;
  const ex = n === 0 ? d.emptyInt64Array : d.lowestIf('rn', n, 'TRUE');
  return { sql: `SELECT od, nd, reg, count(*) AS n, min(rn) AS first, ${ex} AS ex FROM (${attributed}) AS attributed GROUP BY od, nd, reg`, fields, diagnostics };
}

/**
 * A cube as a condition over the flow columns (NULL: the field is missing), as cube-contains.ts reads a
 * packet; the opaque parts are not looked at. Undefined when a string cannot be written in SQL.
 */
function cubeSql(cube: Cube, types: FieldTypes, d: Dialect, fields: Set<string>): string | undefined {
  const parts: string[] = [];
  for (const [field, domain] of cube) {
    if (field.startsWith('#')) continue;
    fields.add(field);
    const col = d.identifier(field);
    const inside = domainSql(col, domain, types(field), d);
    if (inside === undefined) return undefined;
    parts.push(domain.missing ? `(${col} IS NULL OR COALESCE(${inside}, FALSE))` : `COALESCE(${inside}, FALSE)`);
  }
  return parts.length ? `(${parts.join(' AND ')})` : 'TRUE';
}

/** Whether a present value of the column lies in the domain. */
function domainSql(col: string, domain: Domain, type: ReturnType<FieldTypes>, d: Dialect): string | undefined {
  if (domain.kind === 'string') {
    const items = [...domain.items];
    if (items.some(hasLoneSurrogate)) return undefined;
    if (!items.length) return domain.cofinite ? 'TRUE' : 'FALSE';
    return `${col} ${domain.cofinite ? 'NOT IN' : 'IN'} (${items.map((s) => d.string(s)).join(', ')})`;
  }
  if (!domain.values.length) return 'FALSE';
  if (type === 'Bool') {
    const has = (k: bigint) => domain.values.some(([a, b]) => a <= k && k <= b);
    return has(1n) && has(0n) ? 'TRUE' : has(1n) ? col : `NOT ${col}`;
  }
  if (type === 'Ip') {
    const ranges: IpRange[] = [];
    const range = (a: bigint, b: bigint) => ranges.push({ first: parseIpAddress(keyToIp(a))!, last: parseIpAddress(keyToIp(b))! });
    for (const [a, b] of domain.values) {
      if (a < V6_BASE && b >= V6_BASE) {
        range(a, (1n << 32n) - 1n);
        range(V6_BASE, b);
      } else range(a, b);
    }
    return d.ip.inRanges(col, ranges);
  }
  return `(${domain.values.map(([a, b]) => (a === b ? `${col} = ${a}` : `${col} BETWEEN ${a} AND ${b}`)).join(' OR ')})`;
}
