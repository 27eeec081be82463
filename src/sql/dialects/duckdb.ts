/**
 * DuckDB: standard SQL strings, `CASE`, list lambdas and `FILTER` aggregates; JSON read with `json_type`
 * and `json_extract_string`; files read with `read_ndjson_objects` and `read_parquet`.
 *
 * Addresses become a family-tagged fixed-width hex key (`4` + 8 hex digits, `6` + 32) computed in SQL after
 * the strict-grammar guard, and ranges compare keys as strings, which orders them as numbers: DuckDB's
 * `inet` extension is downloaded at first use, which is not possible offline nor in a browser bundle's reach.
 * @module
 */
import type { IpAddress, IpRange } from '../../net/index.js';
import type { CanonicalJsonSql, Dialect, JsonValueSql } from '../dialect.js';
import { cachedArray, INLINE_RANGES, ipKey, IPV4_PATTERN, IPV6_PATTERN, v4Number, type IpKeySql, type IpSql } from '../ip.js';

/**
 * A string literal: a quote is doubled, a backslash is an ordinary character. A NUL cannot appear inside a
 * literal (the parser stops at it), so it is spliced in as `chr(0)`.
 */
function string(s: string): string {
  const quoted = (part: string) => `'${part.replace(/'/g, "''")}'`;
  if (!s.includes('\0')) return quoted(s);
  return `(${s.split('\0').map(quoted).join(' || chr(0) || ')})`;
}

/** A quoted identifier: double quotes, a double quote doubled. */
function identifier(name: string): string {
  return `"${name.replace(/\0/g, '').replace(/"/g, '""')}"`;
}

/** A JSON path selecting one member by name (`'$."Key"'`). */
function memberPath(key: string): string {
  return string(`$.${JSON.stringify(key)}`);
}

/** A list literal of file names. */
function fileList(files: readonly string[]): string {
  return `[${files.map(string).join(', ')}]`;
}

const INTEGERS = ['BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT', 'UINTEGER', 'USMALLINT', 'UTINYINT'];
/** The DuckDB types that hold each catalog type's values as a line's JSON reads them (see Dialect.holdsFieldType). */
const FIELD_TYPES: Readonly<Record<string, readonly string[]>> = {
  string: ['VARCHAR'],
  int: INTEGERS,
  int_or_string: INTEGERS,
  float: ['DOUBLE'],
  bool: ['BOOLEAN'],
  array_string: ['VARCHAR[]'],
  array_int: INTEGERS.map((t) => `${t}[]`),
};

function json(col: string, key?: string): JsonValueSql {
  const path = key === undefined ? `'$'` : memberPath(key);
  const type = `json_type(${col}, ${path})`;
  const text = `json_extract_string(${col}, ${path})`;
  return {
    isString: `${type} = 'VARCHAR'`,
    isNumber: `${type} IN ('BIGINT', 'UBIGINT', 'DOUBLE')`,
    isBool: `${type} = 'BOOLEAN'`,
    isArray: `${type} = 'ARRAY'`,
    // json_type is NULL for a member the object lacks and 'NULL' for a JSON null.
    present: `(${type} IS NOT NULL AND ${type} <> 'NULL')`,
    has: `${type} IS NOT NULL`,
    text,
    num: `TRY_CAST(${text} AS DOUBLE)`,
    boolTrue: `(${text} = 'true')`,
    bool: `${text} = 'true'`,
    some: (cond) => `EXISTS (SELECT 1 FROM unnest(TRY_CAST(json_extract(${col}, ${path}) AS JSON[])) AS elements(e) WHERE ${cond(json('e'))})`,
  };
}

/**
 * A JSON value as DuckDB writes it (read_json's JSON columns, to_json): a string with its escapes resolved
 * and written again one way (`"G\u0045T"` reads as `"GET"`), a number in one form (`5e2` as `500.0`), JSON
 * `null` as SQL NULL. A string member is then the literal exactly when its text is the literal's `to_json`,
 * and a number's text casts to DOUBLE where a string's (quoted), a boolean's, an object's or an array's
 * does not: each test is a comparison of short text, not a JSON function call (2.7× faster over 10M lines).
 */
function canonicalJson(column: string, written: boolean): CanonicalJsonSql {
  // Text cast to JSON keeps its spelling: json() writes it again the one way (one parse a reading).
  const col = written ? column : `json(${column})`;
  const text = `CAST(${col} AS VARCHAR)`;
  const value = `json_extract_string(${col}, '$')`;
  const tests = { contains: 'contains', startsWith: 'starts_with', endsWith: 'suffix' } as const;
  return {
    present: `(${col} IS NOT NULL AND ${text} <> 'null')`,
    text,
    // to_json of the literal, not JSON.stringify: the engine's own writer spells it as it spells the member.
    stringJson: (s) => `CAST(to_json(${string(s)}) AS VARCHAR)`,
    num: `TRY_CAST(${text} AS DOUBLE)`,
    stringTest: (op, s) => `(starts_with(${text}, '"') AND ${tests[op]}(${value}, ${string(s)}))`,
  };
}

/**
 * The key of the text `s` as an address of one family, NULL when it is not one. A dotted quad becomes eight
 * hex digits; an IPv6 text has its dotted-quad tail turned into two groups, its `::` expanded, each group padded.
 */
const QUAD_HEX = (t: string) =>
  `list_aggregate(list_transform(string_split(${t}, '.'), o -> lpad(lower(hex(CAST(o AS UTINYINT))), 2, '0')), 'string_agg', '')`;
const V6_GROUPS = (t: string) => `CASE WHEN ${t} = '' THEN []::VARCHAR[] ELSE string_split(${t}, ':') END`;
/** The IPv4 key of text `t`: guarded by the grammar, each octet (no leading zero then) printed as two hex digits. */
const key4 = (t: string) =>
  // One number printed once: printf of four octets cost twice as much (1M texts at 1 thread: 0.8 s against 1.4 s).
  `CASE WHEN regexp_full_match(${t}, ${string(IPV4_PATTERN)}) THEN printf('4%08x', ${[1, 2, 3, 4].map((i) => `(CAST(split_part(${t}, '.', ${i}) AS UINTEGER) << ${24 - 8 * (i - 1)})`).join(' | ')}) END`;
const KEY4 = key4('s');
/** The IPv6 key of text `s` (a column or a lambda's parameter: it is read several times). */
const key6 = (s: string) => [
  `CASE WHEN regexp_full_match(${s}, ${string(IPV6_PATTERN)}) THEN '6' || list_transform([`,
  // t: the text with a dotted-quad tail written as two hex groups.
  `CASE WHEN contains(${s}, '.') THEN regexp_replace(${s}, '[0-9.]+$', '') || list_transform([${QUAD_HEX(`regexp_extract(${s}, '[0-9.]+$')`)}], x -> left(x, 4) || ':' || right(x, 4))[1] ELSE ${s} END`,
  `], t -> list_transform([string_split(t, '::')], p -> list_aggregate(list_transform(`,
  `CASE WHEN len(p) = 1 THEN string_split(t, ':') ELSE ${V6_GROUPS('p[1]')} || list_transform(range(8 - len(${V6_GROUPS('p[1]')}) - len(${V6_GROUPS('p[2]')})), z -> '0') || ${V6_GROUPS('p[2]')} END,`,
  `g -> lpad(lower(g), 4, '0')), 'string_agg', ''))[1])[1]`,
  'END',
].join(' ');
const KEY6 = key6('s');

/**
 * The key of one family, computed once per use through a one-element list_transform (a local binding); a
 * test reads only the family its ranges hold, so an IPv4 range never parses IPv6 text.
 */
const key = (c: string, fam: 4 | 6) =>
  // A quoted column is read as it is; any other expression is computed once through the lambda.
  /^"(?:[^"]|"")*"$/.test(c) ? (fam === 4 ? key4(c) : key6(c)) : `list_transform([${c}], s -> ${fam === 4 ? KEY4 : KEY6})[1]`;

function within(c: string, fam: 4 | 6, ranges: readonly IpRange[]): string | undefined {
  const rs = ranges.filter((r) => r.first.family === fam);
  if (!rs.length) return undefined;
  if (ranges.length <= INLINE_RANGES) return `list_transform([${key(c, fam)}], k -> ${rs.map((r) => `k BETWEEN ${string(ipKey(r.first))} AND ${string(ipKey(r.last))}`).join(' OR ')})[1]`;
  const array = cachedArray(ranges, `duckdb${fam}`, () => `[${rs.map((r) => `[${string(ipKey(r.first))}, ${string(ipKey(r.last))}]`).join(', ')}]`);
  return `list_transform([${key(c, fam)}], k -> len(list_filter(${array}, r -> k BETWEEN r[1] AND r[2])) > 0)[1]`;
}

/** The IPv4 address of text `t` as one number (BIGINT), NULL unless `t` is a dotted quad by the grammar. */
const n4 = (t: string) =>
  `CASE WHEN regexp_full_match(${t}, ${string(IPV4_PATTERN)}) THEN ${[1, 2, 3, 4].map((i) => `(CAST(split_part(${t}, '.', ${i}) AS BIGINT) << ${24 - 8 * (i - 1)})`).join(' | ')} END`;

/** One family's test of a range list over its key (`lit` writes a range end as the key's literal). */
function keyFamily(k: string, fam: 4 | 6, ranges: readonly IpRange[], lit: (a: IpAddress) => string): string | undefined {
  const rs = ranges.filter((r) => r.first.family === fam);
  if (!rs.length) return undefined;
  if (rs.length <= INLINE_RANGES) return `(${rs.map((r) => `${k} BETWEEN ${lit(r.first)} AND ${lit(r.last)}`).join(' OR ')})`;
  const array = cachedArray(ranges, `duckdb-keys${fam}`, () => `[${rs.map((r) => `[${lit(r.first)}, ${lit(r.last)}]`).join(', ')}]`);
  return `list_transform([${k}], k -> len(list_filter(${array}, r -> k BETWEEN r[1] AND r[2])) > 0)[1]`;
}
const lit4 = (a: IpAddress) => String(v4Number(a));
const lit6 = (a: IpAddress) => string(ipKey(a));

/**
 * Two keys a row, one a family: an IPv4 address as a number (no text to print: the key's cost was the
 * printing), an IPv6 one as its tagged hex text (`6` + 32 digits, compared as strings, which orders them as
 * numbers). Each is NULL for the other family's rows.
 */
const keys: IpKeySql = {
  // Text with a colon can only be IPv6, and CASE evaluates only the branch a row takes: the long IPv6
  // pattern runs on IPv6 text alone. The column is named, not bound to a lambda's parameter: a lambda
  // around the long IPv6 key made it three times as slow.
  of: (c) => [n4(c), `CASE WHEN contains(${c}, ':') THEN ${key6(c)} END`],
  isAddress: ([k4, k6]) => `(${k4} IS NOT NULL OR ${k6} IS NOT NULL)`,
  // Each family's test is FALSE, not NULL, on the other family's rows: `!=` negates the whole.
  inRanges: ([k4, k6], ranges) => {
    const parts = [keyFamily(k4!, 4, ranges, lit4), keyFamily(k6!, 6, ranges, lit6)].filter((p): p is string => p !== undefined);
    return parts.length ? `(${parts.map((p) => `COALESCE(${p}, FALSE)`).join(' OR ')})` : 'FALSE';
  },
  compare: ([k4, k6], op, a) => (a.family === 4 ? `${k4} ${op} ${lit4(a)}` : `${k6} ${op} ${lit6(a)}`),
};

const ip: IpSql = {
  keys,
  isAddress: (c) => `(regexp_full_match(${c}, ${string(IPV4_PATTERN)}) OR regexp_full_match(${c}, ${string(IPV6_PATTERN)}))`,
  inRanges: (c, ranges) => {
    const parts = [within(c, 4, ranges), within(c, 6, ranges)].filter((p): p is string => p !== undefined);
    // Never NULL (text of the other family has no key): `!=` negates this.
    return parts.length ? `(${parts.map((p) => `COALESCE(${p}, FALSE)`).join(' OR ')})` : 'FALSE';
  },
  compare: (c, op, a: IpAddress) => `list_transform([${key(c, a.family)}], k -> k ${op} ${string(ipKey(a))})[1]`,
};

export const DUCKDB: Dialect = {
  name: 'duckdb',
  title: 'DuckDB',
  string,
  identifier,
  flowTypes: { Int: 'BIGINT', String: 'VARCHAR', Ip: 'VARCHAR', Bool: 'BOOLEAN' },
  double: (n) => `CAST(${string(String(n))} AS DOUBLE)`,
  toInt64: (expr) => `CAST(${expr} AS BIGINT)`,
  holdsFieldType: (sqlType, fieldType) => FIELD_TYPES[fieldType]?.includes(sqlType.toUpperCase()) ?? false,
  nullUnless: (cond, value) => `CASE WHEN ${cond} THEN ${value} END`,
  firstOf: (branches, otherwise) => `CASE ${branches.map(([cond, value]) => `WHEN ${cond} THEN ${value}`).join(' ')} ELSE ${otherwise} END`,
  andThen: (cond, test) => `CASE WHEN ${cond} THEN ${test} ELSE FALSE END`,
  eagerSettings: [],
  querySizeSettings: () => [],
  bitAnd: (a, b) => `(${a} & ${b})`,
  contains: (text, part) => `contains(${text}, ${part})`,
  startsWith: (text, prefix) => `starts_with(${text}, ${prefix})`,
  endsWith: (text, suffix) => `suffix(${text}, ${suffix})`,
  like: (text, pattern) => `${text} LIKE ${pattern} ESCAPE '\\'`,
  regexpFullMatch: (text, pattern) => `regexp_full_match(${text}, ${string(pattern)})`,
  regexpRemoveAll: (text, pattern) => `regexp_replace(${text}, ${string(pattern)}, '', 'g')`,
  toText: (expr) => `CAST(${expr} AS VARCHAR)`,
  anyElement: (array, cond) => `len(list_filter(${array}, e -> ${cond('e')})) > 0`,
  arrayPresent: (col) => `${col} IS NOT NULL`,
  nullableArrays: true,
  countIf: (cond) => `count(*) FILTER (WHERE ${cond})`,
  lowestIf: (expr, n, cond) => `COALESCE(min(${expr}, ${n}) FILTER (WHERE ${cond}), [])`,
  mergeLowestIf: (expr, n, cond) => `COALESCE(list_slice(list_sort(flatten(list(${expr}) FILTER (WHERE ${cond}))), 1, ${n}), [])`,
  emptyInt64Array: '[]::BIGINT[]',
  json,
  canonicalJson,
  jsonHasKeyLower: (col, key, name) => `list_contains(list_transform(json_keys(${col}${key === undefined ? '' : `, ${memberPath(key)}`}), k -> lower(k)), ${string(name)})`,
  jsonKeys: (col) => `unnest(json_keys(${col}))`,
  ip,
  source: {
    lineColumn: 'json',
    lineText: 'CAST(json AS VARCHAR)',
    lineHash: 'hash(json)',
    // ignore_errors: a line that is not JSON is not a packet (the simulator says so and goes on).
    objectLines: (files, limit, compression) => {
      const lines = `read_ndjson_objects(${fileList(files)}, ignore_errors = true${compression ? `, compression = ${string(compression)}` : ''}) WHERE json_type(json) = 'OBJECT'`;
      return limit === undefined ? lines : `(SELECT json FROM ${lines} LIMIT ${limit})`;
    },
    // Each member as a column of type JSON: the line is parsed once and only the members are kept. read_json
    // raises on a line that is not an object and on a key given twice, where JSON.parse keeps the last.
    memberColumns: (files, members) => `read_json(${fileList(files)}, format = 'newline_delimited', records = true, columns = {${members.map((m) => `${string(m)}: 'JSON'`).join(', ')}})`,
    columnJson: (col) => (col === undefined ? 'CAST(NULL AS JSON)' : `to_json(${col})`),
    parquet: (files) => ({ from: `read_parquet(${fileList(files)}) AS p`, rowJson: 'CAST(to_json(p) AS VARCHAR)' }),
    // file_row_number and file_index are read_parquet's own columns (not part of the row's JSON); a glob
    // is expanded in name order, the order read_parquet reads in.
    parquetPositions: (files) => ({
      counts: files.length === 1 && !/[*?[{]/.test(files[0]!) ? undefined : `SELECT file_index AS i, count(*) AS n FROM read_parquet(${fileList(files)}) GROUP BY file_index`,
      numbered: (counts) => {
        const offsets = counts.map((_, i) => counts.slice(0, i).reduce((a, b) => a + b, 0));
        return { from: `read_parquet(${fileList(files)}) AS p`, rowJson: 'CAST(to_json(p) AS VARCHAR)', rowNumber: offsets.length > 1 ? `(file_row_number + list_extract(CAST([${offsets.join(', ')}] AS BIGINT[]), CAST(file_index AS BIGINT) + 1))` : 'file_row_number' };
      },
    }),
    // read_json and read_ndjson_objects give no line numbers: NDJSON rows are numbered in read order.
    linePositions: () => undefined,
    describeParquet: (files) => `DESCRIBE SELECT * FROM read_parquet(${fileList(files)})`,
    rowJson: (columns) => `CAST(json_object(${columns.map((c) => `${string(c)}, ${identifier(c)}`).join(', ')}) AS VARCHAR)`,
    // DuckDB keeps the order rows are read in (preserve_insertion_order), threads or not.
    rowNumber: 'row_number() OVER () - 1',
    readInOrder: () => '',
    // CREATE TABLE AS keeps read order (preserve_insertion_order) with every thread reading: the readers
    // number their batches and the table is assembled in batch order (BATCH_CREATE_TABLE_AS), so a row's
    // rowid is its place in read order.
    readOrderTable: (name) => ({ create: (query) => `CREATE OR REPLACE TEMP TABLE ${identifier(name)} AS ${query}`, numbered: `(SELECT rowid AS rn, * FROM ${identifier(name)}) AS stored`, drop: `DROP TABLE IF EXISTS ${identifier(name)}` }),
    keepNumbering: (relation) => relation,
    // Addresses are text here (no inet extension): no column holds an address type.
    nativeIpText: () => undefined,
    // Each object line cast to one MAP: every member kept as JSON with one parse a line for all of them
    // (json_extract of a list of paths costs more), a JSON null kept as a key with a NULL value. The line
    // itself stays beside it: its text and hash are the whole-line reader's, so the example lines are read
    // back with no map and as written (read_json's own MAP columns write numbers back as DuckDB prints
    // them: -0 as 0, 2e1 as 20.0, and hashing a map costs more than hashing the line).
    memberMaps: (files, compression) => ({
      from: `(SELECT json, CAST(json AS MAP(VARCHAR, JSON)) AS rulekit_map FROM read_ndjson_objects(${fileList(files)}, ignore_errors = true${compression ? `, compression = ${string(compression)}` : ''}) WHERE json_type(json) = 'OBJECT') AS maps`,
      member: (key) => `rulekit_map[${string(key)}]`,
      has: (key) => `map_contains(rulekit_map, ${string(key)})`,
      text: 'CAST(json AS VARCHAR)',
      hash: 'hash(json)',
    }),
    lineMembers: (col, keys) => ({ items: keys.length ? [`json_extract(${col}, [${keys.map(memberPath).join(', ')}]) AS rulekit_members`] : [], member: (i) => [`rulekit_members[${i + 1}]`] }),
    // json_extract of every member (lineMembers) is one parse already.
    lineValues: () => undefined,
  },
};
