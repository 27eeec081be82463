/**
 * ClickHouse (a server, a cluster, or chdb embedded): backslash-escaped strings, `if`/`multiIf`, array
 * lambdas and `-If` aggregates; JSON read with `JSONType` and the `JSONExtract*` functions; files read with
 * the `file` table function.
 *
 * Addresses use the engine's own `IPv4`/`IPv6` types after a strict-grammar guard (`match`, RE2), so ranges
 * compare native values (`toUInt32(toIPv4OrNull(x)) BETWEEN …`, `toIPv6OrNull(x) BETWEEN …`).
 *
 * NULL differs in two places: an array column cannot be NULL (a missing array is stored empty), and
 * `JSONType` of a member an object lacks is `'Null'`, as for a JSON null.
 * @module
 */
import { formatIpAddress, type IpAddress, type IpRange } from '../../net/index.js';
import type { Dialect, JsonValueSql } from '../dialect.js';
import { cachedArray, INLINE_RANGES, IPV4_PATTERN, IPV6_PATTERN, v4Number, type IpKeySql, type IpSql } from '../ip.js';

/**
 * A string literal: a backslash and a quote are escaped with a backslash and a NUL is written `\0`; every
 * other character (newlines, `;`, `--`, Unicode) stands as itself.
 */
function string(s: string): string {
  return `'${s.replace(/[\\'\0]/g, (c) => (c === '\0' ? '\\0' : '\\' + c))}'`;
}

/** A quoted identifier: backquotes, a backquote or backslash escaped with a backslash. */
function identifier(name: string): string {
  return '`' + name.replace(/\0/g, '').replace(/[\\`]/g, (c) => '\\' + c) + '`';
}

const anyElement = (array: string, cond: (e: string) => string) => `arrayExists(e -> ${cond('e')}, ${array})`;

const INTEGERS = ['Int64', 'Int32', 'Int16', 'Int8', 'UInt32', 'UInt16', 'UInt8'];
/** The ClickHouse types (without Nullable or LowCardinality) that hold each catalog type's values as a line's JSON reads them. */
const FIELD_TYPES: Readonly<Record<string, readonly string[]>> = {
  string: ['String'],
  int: INTEGERS,
  int_or_string: INTEGERS,
  float: ['Float64'],
  bool: ['Bool'],
  array_string: ['Array(String)'],
  array_int: INTEGERS.map((t) => `Array(${t})`),
};

/** A type name without its Nullable and LowCardinality wrappers (`Array(Nullable(Int64))` is `Array(Int64)`). */
function bareType(type: string): string {
  let t = type;
  for (let prev = ''; prev !== t; ) {
    prev = t;
    t = t.replace(/(?:Nullable|LowCardinality)\(([^()]*)\)/, '$1');
  }
  return t;
}

function json(col: string, key?: string): JsonValueSql {
  const args = key === undefined ? col : `${col}, ${string(key)}`;
  const type = `JSONType(${args})`;
  return {
    isString: `${type} = 'String'`,
    isNumber: `${type} IN ('Int64', 'UInt64', 'Double')`,
    isBool: `${type} = 'Bool'`,
    isArray: `${type} = 'Array'`,
    present: `${type} <> 'Null'`,
    has: `JSONHas(${args})`,
    text: `JSONExtractString(${args})`,
    num: `JSONExtractFloat(${args})`,
    boolTrue: `JSONExtractBool(${args})`,
    bool: `JSONExtractBool(${args}) = 1`,
    some: (cond) => anyElement(`JSONExtractArrayRaw(${args})`, (e) => cond(json(e))),
  };
}

/**
 * A member read into a `Dynamic` value `v` (see `lineValues`), NULL where the line lacks it or holds
 * `null`; `has` tells the two apart. JSON numbers are `Int64`, `UInt64` or `Float64`, read as a Float64 as
 * JavaScript reads them (an integer past 2^53 rounded to the nearest double). Arrays are read from the line
 * itself (`fromLine`): a Dynamic array keeps one element type.
 */
function dynamicJson(v: string, has: string, fromLine: JsonValueSql): JsonValueSql {
  const type = `dynamicType(${v})`;
  const as = (t: string) => `dynamicElement(${v}, ${string(t)})`;
  return {
    isString: `${type} = 'String'`,
    isNumber: `${type} IN ('Int64', 'UInt64', 'Float64')`,
    isBool: `${type} = 'Bool'`,
    isArray: `startsWith(${type}, 'Array(')`,
    present: `${type} <> 'None'`,
    has,
    text: as('String'),
    num: `coalesce(toFloat64(${as('Int64')}), toFloat64(${as('UInt64')}), ${as('Float64')})`,
    boolTrue: `coalesce(${as('Bool')}, FALSE)`,
    bool: as('Bool'),
    some: fromLine.some,
  };
}

/**
 * Reading a JSON value into `Dynamic` infers its type, and a string that looks like a date or time would
 * become one (`"1.5"` a DateTime): every string stays a String under these.
 */
const DYNAMIC_SETTINGS = ['input_format_try_infer_dates = 0', 'input_format_try_infer_datetimes = 0', 'input_format_json_try_infer_numbers_from_strings = 0', 'input_format_try_infer_variants = 0'];

const is4 = (c: string) => `match(${c}, ${string(IPV4_PATTERN)})`;
const is6 = (c: string) => `match(${c}, ${string(IPV6_PATTERN)})`;
const n4 = (c: string) => `toUInt32(toIPv4OrNull(${c}))`;
const a6 = (c: string) => `toIPv6OrNull(${c})`;
const lit6 = (a: IpAddress) => `toIPv6(${string(formatIpAddress(a))})`;

/** The test of one family's ranges, `undefined` when the ranges hold none of that family. */
function family(c: string, fam: 4 | 6, ranges: readonly IpRange[]): string | undefined {
  if (ranges.length > INLINE_RANGES) {
    const array = cachedArray(ranges, `clickhouse${fam}`, () => {
      const rs = ranges.filter((r) => r.first.family === fam);
      return rs.length ? `[${rs.map((r) => (fam === 4 ? `(${v4Number(r.first)}, ${v4Number(r.last)})` : `(${lit6(r.first)}, ${lit6(r.last)})`)).join(', ')}]` : '';
    });
    if (!array) return undefined;
    return `(${fam === 4 ? is4(c) : is6(c)} AND arrayExists(r -> ${fam === 4 ? n4(c) : a6(c)} BETWEEN r.1 AND r.2, ${array}))`;
  }
  const rs = ranges.filter((r) => r.first.family === fam);
  if (!rs.length) return undefined;
  const guard = fam === 4 ? is4(c) : is6(c);
  if (fam === 4) return `(${guard} AND (${rs.map((r) => `${n4(c)} BETWEEN ${v4Number(r.first)} AND ${v4Number(r.last)}`).join(' OR ')}))`;
  return `(${guard} AND (${rs.map((r) => `${a6(c)} BETWEEN ${lit6(r.first)} AND ${lit6(r.last)}`).join(' OR ')}))`;
}

/** The range test of one family's key, `undefined` when the ranges hold none of that family. */
function keyFamily(k: string, fam: 4 | 6, ranges: readonly IpRange[]): string | undefined {
  const rs = ranges.filter((r) => r.first.family === fam);
  if (!rs.length) return undefined;
  const lit = (a: IpAddress) => (fam === 4 ? String(v4Number(a)) : lit6(a));
  if (ranges.length > INLINE_RANGES) return `arrayExists(r -> ${k} BETWEEN r.1 AND r.2, [${rs.map((r) => `(${lit(r.first)}, ${lit(r.last)})`).join(', ')}])`;
  return `(${rs.map((r) => `${k} BETWEEN ${lit(r.first)} AND ${lit(r.last)}`).join(' OR ')})`;
}

/** Two keys a row: the address as a UInt32 when IPv4 text, as an IPv6 when IPv6 text (each NULL otherwise). */
const keys: IpKeySql = {
  of: (c) => [`if(${is4(c)}, ${n4(c)}, NULL)`, `if(${is6(c)}, ${a6(c)}, NULL)`],
  isAddress: ([k4, k6]) => `(${k4} IS NOT NULL OR ${k6} IS NOT NULL)`,
  // Each family's test is FALSE, not NULL, on the other family's rows: `!=` negates the whole.
  inRanges: ([k4, k6], ranges) => {
    const parts = [keyFamily(k4!, 4, ranges), keyFamily(k6!, 6, ranges)].filter((p): p is string => p !== undefined);
    return parts.length ? `(${parts.map((p) => `COALESCE(${p}, FALSE)`).join(' OR ')})` : 'FALSE';
  },
  compare: ([k4, k6], op, a) => (a.family === 4 ? `${k4} ${op} ${v4Number(a)}` : `${k6} ${op} ${lit6(a)}`),
};

const ip: IpSql = {
  keys,
  isAddress: (c) => `(${is4(c)} OR ${is6(c)})`,
  inRanges: (c, ranges) => {
    const parts = [family(c, 4, ranges), family(c, 6, ranges)].filter((p): p is string => p !== undefined);
    return parts.length ? `(${parts.join(' OR ')})` : 'FALSE';
  },
  compare: (c, op, a) => (a.family === 4 ? `(${is4(c)} AND ${n4(c)} ${op} ${v4Number(a)})` : `(${is6(c)} AND ${a6(c)} ${op} ${lit6(a)})`),
};

/**
 * A line that is one JSON object. A JSON function given text that does not parse returns its default,
 * `'Null'` for JSONType (as isValidJSON is 0: the same parser), so one parse tells both.
 */
const OBJECT_LINE = `JSONType(line) = 'Object'`;

/** Each NDJSON file's lines, one String column `line`. */
const lines = (files: readonly string[], compression?: string) => files.map((f) => `SELECT line FROM file(${string(f)}, 'LineAsString', 'line String'${compression ? `, ${string(compression)}` : ''})`).join(' UNION ALL ');

export const CLICKHOUSE: Dialect = {
  name: 'clickhouse',
  title: 'ClickHouse',
  string,
  identifier,
  flowTypes: { Int: 'Nullable(Int64)', String: 'Nullable(String)', Ip: 'Nullable(String)', Bool: 'Nullable(Bool)' },
  double: (n) => `toFloat64(${string(String(n))})`,
  toInt64: (expr) => `toInt64(${expr})`,
  holdsFieldType: (sqlType, fieldType) => FIELD_TYPES[fieldType]?.includes(bareType(sqlType)) ?? false,
  nullUnless: (cond, value) => `if(${cond}, ${value}, NULL)`,
  firstOf: (branches, otherwise) => `multiIf(${branches.map(([cond, value]) => `${cond}, ${value}`).join(', ')}, ${otherwise})`,
  // `and` evaluates its arguments lazily (short_circuit_function_evaluation), left to right.
  andThen: (cond, test) => `and(${cond}, ${test})`,
  // Short-circuit evaluation runs each multiIf branch's whole expression chain again on the rows that
  // reach it (the analyzer inlines the subqueries' columns): 49 rules over NDJSON took 28× longer so.
  eagerSettings: ["short_circuit_function_evaluation = 'disable'"],
  querySizeSettings: (length) => (length * 2 > 262_144 ? [`max_query_size = ${length * 2}`] : []),
  bitAnd: (a, b) => `bitAnd(${a}, ${b})`,
  // position is on bytes: in UTF-8, a substring of bytes is a substring of characters.
  contains: (text, part) => `position(${text}, ${part}) > 0`,
  startsWith: (text, prefix) => `startsWith(${text}, ${prefix})`,
  endsWith: (text, suffix) => `endsWith(${text}, ${suffix})`,
  // like's pattern takes backslash escapes without an ESCAPE clause.
  like: (text, pattern) => `like(${text}, ${pattern})`,
  // match() finds the pattern anywhere: anchored here (RE2's \\A and \\z, the text's own ends).
  regexpFullMatch: (text, pattern) => `match(${text}, ${string(`\\A(?:${pattern})\\z`)})`,
  regexpRemoveAll: (text, pattern) => `replaceRegexpAll(${text}, ${string(pattern)}, '')`,
  toText: (expr) => `toString(${expr})`,
  anyElement,
  arrayPresent: (col) => `notEmpty(${col})`,
  nullableArrays: false,
  countIf: (cond) => `countIf(${cond})`,
  lowestIf: (expr, n, cond) => `groupArraySortedIf(${n})(${expr}, ${cond})`,
  mergeLowestIf: (expr, n, cond) => `arraySlice(arraySort(arrayFlatten(groupArrayIf(${expr}, ${cond}))), 1, ${n})`,
  emptyInt64Array: "CAST([], 'Array(Int64)')",
  json,
  jsonHasKeyLower: (col, key, name) => `has(arrayMap(k -> lower(k), JSONExtractKeys(${key === undefined ? col : `${col}, ${string(key)}`})), ${string(name)})`,
  jsonKeys: (col) => `arrayJoin(JSONExtractKeys(${col}))`,
  ip,
  source: {
    lineColumn: 'line',
    lineText: 'line',
    lineHash: 'cityHash64(line)',
    // In a query of its own, so rows are numbered after the filter: rowNumberInAllBlocks is stateful, and
    // nothing is pushed past it.
    // The first lines read by one thread without parallel parsing: readers on every thread would parse
    // blocks past the limit before it stops them (100k of 1M lines: 0.5-0.6 CPU s against 0.14 s).
    objectLines: (files, limit, compression) =>
      `(SELECT line FROM (${lines(files, compression)}) WHERE ${OBJECT_LINE}${limit === undefined ? '' : ` LIMIT ${limit} SETTINGS max_threads = 1, input_format_parallel_parsing = 0`})`,
    // Each member's raw text (`''` when missing, which JSONType reads as 'Null'); the line itself is renamed
    // so that a member named `line` does not shadow it. A line that is not a JSON object is a row without members.
    memberColumns: (files, members) =>
      `(SELECT ${members.map((m) => `JSONExtractRaw(rulekit_line, ${string(m)}) AS ${identifier(m)}`).join(', ')} FROM (SELECT line AS rulekit_line FROM (${lines(files)}) WHERE notEmpty(trimBoth(line))))`,
    // A NULL becomes 'null' and a missing member '', both of JSONType 'Null'.
    columnJson: (col) => (col === undefined ? "''" : `toJSONString(${col})`),
    parquet: (files) => ({ from: `(${files.map((f) => `SELECT * FROM file(${string(f)}, 'Parquet')`).join(' UNION ALL ')})`, rowJson: `formatRowNoNewline('JSONEachRow', *)` }),
    // _row_number is the row's place in its file, whichever thread reads it; a glob's files come in no
    // promised order, so only one plain file is numbered so.
    parquetPositions: (files) =>
      files.length === 1 && !/[*?{]/.test(files[0]!)
        ? { numbered: () => ({ from: `file(${string(files[0]!)}, 'Parquet')`, rowJson: `formatRowNoNewline('JSONEachRow', *)`, rowNumber: '_row_number' }) }
        : undefined,
    linePositions: (files) => {
      if (files.length !== 1 || /[*?{]/.test(files[0]!)) return undefined;
      const lines = `file(${string(files[0]!)}, 'LineAsString', 'line String')`;
      const object = OBJECT_LINE;
      return {
        from: `(SELECT line, _row_number AS rulekit_line FROM ${lines} WHERE ${object})`,
        // The places of the lines before the last example that are not objects (few), each example's count
        // then taken from them: a countIf per example over every line cost 1-2 CPU s at 200k lines.
        readBack: (at) =>
          `SELECT got${at.map((x, i) => `, arrayCount(b -> b < ${x}, before) AS b${i}`).join('')} FROM (SELECT groupArrayIf((_row_number, line), _row_number IN (${at.length ? at.join(', ') : 'NULL'})) AS got, groupArrayIf(_row_number, _row_number < ${Math.max(0, ...at)} AND NOT (${object})) AS before FROM ${lines})`,
      };
    },
    // `file` reads one path (or glob): the first file's columns stand for all.
    describeParquet: (files) => `DESCRIBE file(${string(files[0]!)}, 'Parquet')`,
    rowJson: (columns) => `formatRowNoNewline('JSONEachRow', ${columns.map(identifier).join(', ')})`,
    rowNumber: 'rowNumberInAllBlocks()',
    // rowNumberInAllBlocks numbers blocks as parallel readers finish them: one thread reads in file order.
    readInOrder: (kind) => (kind === 'lines' ? ' SETTINGS max_threads = 1, input_format_parallel_parsing = 0' : ' SETTINGS max_threads = 1'),
    // MergeTree and Memory tables promise no read order.
    readOrderTable: () => undefined,
    // ClickHouse (26.7) pushes a filter on the number below rowNumberInAllBlocks, renumbering the rows it
    // keeps: a LIMIT in between is a barrier the optimizer does not cross.
    keepNumbering: (relation) => `(SELECT * FROM ${relation} LIMIT 9223372036854775807) AS numbered`,
    // An address column of ClickHouse's own types holds valid addresses: its text is what rulekit reads.
    nativeIpText: (col, type) => (/\bIPv[46]\b/.test(type) ? `toString(${col})` : undefined),
    lineMembers: (col, keys) => ({ items: [], member: (i) => [col, keys[i]] }),
    // One parse of the line for every member (each JSON function parses its whole argument again: 30 calls a
    // line for ten fields): the object as a Map of Dynamic values. A Map keeps a key given twice twice and
    // finds its first; the keys are searched reversed, so that the last is read, as JSON.parse keeps it.
    lineValues: (col, keys) => ({
      items: [
        `JSONExtract(${col}, 'Map(String, Dynamic)') AS rulekit_members`,
        'arrayReverse(mapKeys(rulekit_members)) AS rulekit_member_keys',
        ...keys.map((k, i) => `indexOf(rulekit_member_keys, ${string(k)}) AS rulekit_member_at${i}`),
        ...keys.map((_, i) => `if(rulekit_member_at${i} = 0, NULL, mapValues(rulekit_members)[length(rulekit_members) + 1 - rulekit_member_at${i}]) AS rulekit_member${i}`),
      ],
      value: (i) => dynamicJson(`rulekit_member${i}`, `rulekit_member_at${i} > 0`, json(col, keys[i])),
      settings: DYNAMIC_SETTINGS,
    }),
    // Its JSON functions read whole lines fast (lineMembers): no map a line.
    memberMaps: () => undefined,
  },
};
