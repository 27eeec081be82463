/**
 * The flow table rulekit's SQL reads: one column per stored field of the scheme, named by the field
 * (aliases and any-of fields read their targets; raw headers are not stored). From NDJSON packet objects
 * the columns are taken as the simulator takes a packet's values: a value of the wrong type, an Int
 * outside its field's range or a whole-number test, text that is not an address — NULL, i.e. missing.
 * @module
 */
import { NETWORK_FIELDS, type FieldDef } from '../expression/index.js';
import { ipSql } from './ip.js';
import { jsonMemberPath, sqlIdentifier, sqlString, type SqlDialect } from './quote.js';

/**
 * The stored fields of a flow table; `aliases` adds the alias and any-of fields (for flows read from
 * packet objects, which may carry them: see `aliasColumns` of the SQL options).
 */
export function flowFields(fields: readonly FieldDef[] = NETWORK_FIELDS, options: { aliases?: boolean } = {}): FieldDef[] {
  return fields.filter((f) => !f.rawHeader && (options.aliases || (f.aliasOf === undefined && !f.anyOf?.length)));
}

/** The SQL type of a flow column per dialect (nullable: NULL is missing). */
export function flowColumnType(f: FieldDef, dialect: SqlDialect): string {
  const t = { Int: ['BIGINT', 'Nullable(Int64)'], String: ['VARCHAR', 'Nullable(String)'], Ip: ['VARCHAR', 'Nullable(String)'], Bool: ['BOOLEAN', 'Nullable(Bool)'] }[f.type];
  return t[dialect === 'clickhouse' ? 1 : 0]!;
}

/** The most negative and positive safe integers: an Int field without a range takes JavaScript's. */
const SAFE = [-9007199254740991, 9007199254740991] as const;

/**
 * One typed column from a JSON line column: the select-list item `expr AS "field"`, NULL where the
 * simulator would take the value as missing.
 */
export function flowColumnFromJson(f: FieldDef, json: string, dialect: SqlDialect): string {
  const [lo, hi] = f.range ?? SAFE;
  const name = sqlIdentifier(f.name, dialect);
  if (dialect === 'clickhouse') {
    const args = `${json}, ${sqlString(f.name, dialect)}`;
    const type = `JSONType(${args})`;
    switch (f.type) {
      case 'Int': {
        const d = `JSONExtractFloat(${args})`;
        return `if(${type} IN ('Int64', 'UInt64', 'Double') AND ${d} = floor(${d}) AND ${d} BETWEEN ${lo} AND ${hi}, toInt64(${d}), NULL) AS ${name}`;
      }
      case 'Bool':
        return `if(${type} = 'Bool', JSONExtractBool(${args}) = 1, NULL) AS ${name}`;
      case 'String':
        return `if(${type} = 'String', JSONExtractString(${args}), NULL) AS ${name}`;
      case 'Ip': {
        const s = `JSONExtractString(${args})`;
        return `if(${type} = 'String' AND ${ipSql(dialect).isAddress(s)}, ${s}, NULL) AS ${name}`;
      }
    }
  }
  const path = jsonMemberPath(f.name, dialect);
  const type = `json_type(${json}, ${path})`;
  const text = `json_extract_string(${json}, ${path})`;
  switch (f.type) {
    case 'Int': {
      const d = `TRY_CAST(${text} AS DOUBLE)`;
      return `CASE WHEN ${type} IN ('BIGINT', 'UBIGINT', 'DOUBLE') AND ${d} = floor(${d}) AND ${d} BETWEEN ${lo} AND ${hi} THEN CAST(${d} AS BIGINT) END AS ${name}`;
    }
    case 'Bool':
      return `CASE WHEN ${type} = 'BOOLEAN' THEN ${text} = 'true' END AS ${name}`;
    case 'String':
      return `CASE WHEN ${type} = 'VARCHAR' THEN ${text} END AS ${name}`;
    case 'Ip':
      return `CASE WHEN ${type} = 'VARCHAR' AND ${ipSql(dialect).isAddress(text)} THEN ${text} END AS ${name}`;
  }
}

/**
 * Typed columns from typed ones (Parquet): an Int out of its range, text that is not an address, NULL,
 * as the simulator takes them. `source` names the column holding each field (default: the field name).
 */
export function flowColumnChecked(f: FieldDef, dialect: SqlDialect, source = f.name): string {
  const col = sqlIdentifier(source, dialect);
  const name = sqlIdentifier(f.name, dialect);
  if (f.type === 'Int') {
    const [lo, hi] = f.range ?? SAFE;
    return dialect === 'clickhouse' ? `if(${col} BETWEEN ${lo} AND ${hi}, toInt64(${col}), NULL) AS ${name}` : `CASE WHEN ${col} BETWEEN ${lo} AND ${hi} THEN CAST(${col} AS BIGINT) END AS ${name}`;
  }
  if (f.type === 'Ip') return dialect === 'clickhouse' ? `if(${ipSql(dialect).isAddress(col)}, ${col}, NULL) AS ${name}` : `CASE WHEN ${ipSql(dialect).isAddress(col)} THEN ${col} END AS ${name}`;
  return `${col} AS ${name}`;
}
