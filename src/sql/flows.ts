/**
 * The flow table rulekit's SQL reads: one column per stored field of the scheme, named by the field
 * (aliases and any-of fields read their targets; raw headers are not stored). From NDJSON packet objects
 * the columns are taken as the simulator takes a packet's values: a value of the wrong type, an Int
 * outside its field's range or a whole-number test, text that is not an address — NULL, i.e. missing.
 * @module
 */
import { NETWORK_FIELDS, type FieldDef } from '../expression/index.js';
import type { Dialect, JsonValueSql } from './dialect.js';
import { dialectOf, type SqlDialect } from './dialects/index.js';

/**
 * The stored fields of a flow table; `aliases` adds the alias and any-of fields (for flows read from
 * packet objects, which may carry them: see `aliasColumns` of the SQL options).
 */
export function flowFields(fields: readonly FieldDef[] = NETWORK_FIELDS, options: { aliases?: boolean } = {}): FieldDef[] {
  return fields.filter((f) => !f.rawHeader && (options.aliases || (f.aliasOf === undefined && !f.anyOf?.length)));
}

/** The SQL type of a flow column per dialect (nullable: NULL is missing). */
export function flowColumnType(f: FieldDef, dialect: SqlDialect): string {
  return dialectOf(dialect).flowTypes[f.type];
}

/** The most negative and positive safe integers: an Int field without a range takes JavaScript's. */
const SAFE = [-9007199254740991, 9007199254740991] as const;

/**
 * One typed column from a JSON line column: the select-list item `expr AS "field"`, NULL where the
 * simulator would take the value as missing.
 */
export function flowColumnFromJson(f: FieldDef, json: string, dialect: SqlDialect): string {
  return jsonFlowColumn(dialectOf(dialect), f, json);
}

/** {@link flowColumnFromJson} in a resolved dialect. */
export function jsonFlowColumn(d: Dialect, f: FieldDef, json: string, key: string | null = f.name): string {
  // null: `json` holds the member's value itself.
  return `${d.nullUnless(...jsonValueOf(d, f, d.json(json, key ?? undefined)))} AS ${d.identifier(f.name)}`;
}

/** {@link jsonFlowColumn} over a member already read (a dialect's `lineValues`). */
export function valueFlowColumn(d: Dialect, f: FieldDef, x: JsonValueSql): string {
  return `${d.nullUnless(...jsonValueOf(d, f, x))} AS ${d.identifier(f.name)}`;
}

/** The condition under which the simulator takes a member's JSON value for the field, and the value then. */
function jsonValueOf(d: Dialect, f: FieldDef, x: JsonValueSql): [cond: string, value: string] {
  switch (f.type) {
    case 'Int': {
      const [lo, hi] = f.range ?? SAFE;
      return [`${x.isNumber} AND ${x.num} = floor(${x.num}) AND ${x.num} BETWEEN ${lo} AND ${hi}`, d.toInt64(x.num)];
    }
    case 'Bool':
      return [x.isBool, x.bool];
    case 'String':
      return [x.isString, x.text];
    case 'Ip':
      return [`${x.isString} AND ${d.ip.isAddress(x.text)}`, x.text];
  }
}

/**
 * Typed columns from typed ones (Parquet): an Int out of its range, text that is not an address, NULL,
 * as the simulator takes them. `source` names the column holding each field (default: the field name).
 */
export function flowColumnChecked(f: FieldDef, dialect: SqlDialect, source = f.name): string {
  return checkedFlowColumn(dialectOf(dialect), f, source);
}

/** {@link flowColumnChecked} in a resolved dialect. */
export function checkedFlowColumn(d: Dialect, f: FieldDef, source = f.name): string {
  const col = d.identifier(source);
  const name = d.identifier(f.name);
  if (f.type === 'Int') {
    const [lo, hi] = f.range ?? SAFE;
    return `${d.nullUnless(`${col} BETWEEN ${lo} AND ${hi}`, d.toInt64(col))} AS ${name}`;
  }
  if (f.type === 'Ip') return `${d.nullUnless(d.ip.isAddress(col), col)} AS ${name}`;
  return `${col} AS ${name}`;
}

/** The column holding an address field's text before its keys are taken (see {@link keyedAddresses}). */
export const ipTextColumn = (field: string): string => `${field} text`;

/**
 * Address fields with their keys computed once a row (the dialect's `ip.keys`): `relation`, a parenthesised
 * subquery, holds each Ip field of `fields` as text in {@link ipTextColumn}; the result (aliased `alias`)
 * adds the key columns and the field's own column, its text where it is an address and NULL elsewhere, as
 * the simulator takes it. `ipKeys` is the SQL option that makes rules compare the keys.
 */
export function keyedAddresses(d: Dialect, fields: readonly FieldDef[], relation: string, alias: string): { from: string; ipKeys: Record<string, string[]> } {
  const ips = fields.filter((f) => f.type === 'Ip');
  if (!ips.length) return { from: `${relation} AS ${alias}`, ipKeys: {} };
  const ipKeys: Record<string, string[]> = {};
  const keyItems: string[] = [];
  const fieldItems: string[] = [];
  for (const f of ips) {
    const text = d.identifier(ipTextColumn(f.name));
    const exprs = d.ip.keys.of(text);
    const names = exprs.map((_, i) => `${f.name} key${i}`);
    ipKeys[f.name] = names;
    exprs.forEach((e, i) => keyItems.push(`${e} AS ${d.identifier(names[i]!)}`));
    fieldItems.push(`${d.nullUnless(d.ip.keys.isAddress(names.map((n) => d.identifier(n))), text)} AS ${d.identifier(f.name)}`);
  }
  return { from: `(SELECT *, ${fieldItems.join(', ')} FROM (SELECT *, ${keyItems.join(', ')} FROM ${relation} AS texts) AS keyed) AS ${alias}`, ipKeys };
}
