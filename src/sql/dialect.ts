/**
 * Everything that differs between the SQL engines rulekit writes for, as one interface. Each engine is
 * one object in src/sql/dialects/ (listed in the table of src/sql/dialects/index.ts); the generators ask
 * that object and never test an engine's name. What is not here is written once, in SQL every engine
 * reads alike: AND, OR, NOT, COALESCE, comparisons, IN, BETWEEN, `CASE WHEN … ELSE … END`, `IS NULL`.
 *
 * Every member takes and returns SQL text. Arguments named `expr`, `col`, `cond` are SQL expressions
 * (already quoted); only {@link Dialect.string} and {@link Dialect.identifier} take user text.
 * @module
 */
import type { IpSql } from './ip.js';

/** The SQL types of a flow table's columns, one per field type; each nullable (NULL is missing). */
export interface FlowColumnTypes {
  readonly Int: string;
  readonly String: string;
  readonly Ip: string;
  readonly Bool: string;
}

/**
 * One JSON value read from text: a member of a JSON object (a column and a key) or a whole value (an
 * array element). Each member is a SQL expression over that value.
 */
export interface JsonValueSql {
  /** The value is a JSON string. */
  readonly isString: string;
  /** The value is a JSON number. */
  readonly isNumber: string;
  /** The value is `true` or `false`. */
  readonly isBool: string;
  /** The value is a JSON array. */
  readonly isArray: string;
  /** The value is there and not JSON `null`. */
  readonly present: string;
  /** The member is there, JSON `null` included (meaningful for a member, not a whole value). */
  readonly has: string;
  /** A string value's text. */
  readonly text: string;
  /** A number value as a DOUBLE (what JavaScript reads a JSON number as). */
  readonly num: string;
  /** A condition that holds when the value is `true`. */
  readonly boolTrue: string;
  /** A boolean value as a SQL BOOLEAN (a column's value). */
  readonly bool: string;
  /** Some element of an array value satisfies the condition written over the element's own reading. */
  some(cond: (element: JsonValueSql) => string): string;
}

/**
 * One JSON value held alone in a column in the engine's canonical text — one spelling per value, as the
 * engine itself writes JSON (DuckDB's `read_json` columns and `to_json`: escapes resolved, numbers in one
 * form) — so that a test can read the text where {@link JsonValueSql} would call the JSON functions. Each
 * test is FALSE or NULL on a value of another type and on a missing one.
 */
export interface CanonicalJsonSql {
  /** The value is there and not JSON `null`. */
  readonly present: string;
  /** The value's JSON text (a string's with its quotes and escapes). */
  readonly text: string;
  /** The JSON text the engine writes for the string `s` (user text, quoted by the dialect): equal to {@link text} exactly when the value is that string. */
  stringJson(s: string): string;
  /** A number's value as a DOUBLE, NULL for every other type. */
  readonly num: string;
  /**
   * Whether the value is a string that holds (`contains`), starts with or ends with `s` (user text): a
   * dialect reads the text itself where no escape can be involved.
   */
  stringTest(op: 'contains' | 'startsWith' | 'endsWith', s: string): string;
}

/**
 * Files and tables read as a flow table, each row numbered in read order (packet numbers of the
 * in-process simulator). Where an engine would number rows as parallel readers finish, the settings of
 * {@link readInOrder} make it read on one thread.
 */
export interface SourceSql {
  /** The column holding each line of {@link objectLines} as JSON. */
  readonly lineColumn: string;
  /** That column as text (the line as read, for an example packet). */
  readonly lineText: string;
  /**
   * A 64-bit hash of that column's text (a select-list expression): a line stored by its hash is found
   * again by a scan on every thread, with no numbering (equal hashes of different texts are told apart by
   * reading the texts).
   */
  readonly lineHash: string;
  /**
   * What follows `FROM` to read NDJSON files' lines that are JSON objects (blank lines, other JSON values
   * and text that is not JSON dropped; gzip by the name's extension, or all of them when `compression` is
   * `'gzip'`): a table expression that may end in a `WHERE` clause, so only `) AS name` may follow it. With
   * `limit`, a subquery of the first lines.
   */
  objectLines(files: readonly string[], limit?: number, compression?: 'gzip'): string;
  /**
   * What follows `FROM` to read NDJSON files' lines with one column per member the caller names: each
   * column, named by its member, holds that member's value alone as one JSON value, read with
   * {@link Dialect.json} without a key. A line is parsed once for its members; the type tests, text and
   * number then read the small value, not the whole line again. A member the line lacks or holds as `null`
   * is not present. Blank lines are not rows. A table expression (`) AS name` may follow).
   *
   * The engine may refuse files it cannot read so (DuckDB: a line that is not an object, a key twice in one
   * object): the query then fails, and the caller reads whole lines ({@link objectLines}) instead.
   */
  memberColumns(files: readonly string[], members: readonly string[]): string;
  /**
   * A column's value as one JSON value, held as {@link memberColumns} holds a member (a NULL value not
   * present); without a column, a member no row has.
   */
  columnJson(col?: string): string;
  /** Parquet files' rows: what follows `FROM`, and each row as JSON text over it. */
  parquet(files: readonly string[]): { from: string; rowJson: string };
  /**
   * Parquet files' rows numbered from their positions in the files (the engine's row number within a file
   * plus the rows of the files before it), so that no ordered reading is needed; `undefined` where the
   * engine cannot (ClickHouse: several inputs or a glob, whose files' order it does not promise).
   * `counts`, when there are several files, is a query of each file's rows (`n`) by its place in the read
   * order (`i`, from 0); `numbered` takes the counts so found (in that order) and gives what follows
   * `FROM`, each row as JSON text over it, and the row's number as a select-list expression.
   */
  parquetPositions(files: readonly string[]): { counts?: string; numbered: (counts: readonly number[]) => { from: string; rowJson: string; rowNumber: string } } | undefined;
  /**
   * NDJSON files' lines that are JSON objects with each one's place among the file's lines (column
   * `rulekit_line`, from 0, blank and other lines counted), read on every thread: a table expression
   * (`) AS name` may follow) holding {@link lineColumn}. `undefined` where the engine gives no line
   * positions (DuckDB) or gives them in no promised order (ClickHouse: several inputs or a glob).
   * `readBack(lines)` (places of object lines) is a query of one row, one scan of the lines: `got`, the
   * pairs [place, line text] of those lines, and per line `bI`, the count of lines before `lines[I]` that
   * are not objects — a packet's number is its line's place less that count.
   */
  linePositions(files: readonly string[]): { from: string; readBack: (lines: readonly number[]) => string } | undefined;
  /** A query whose rows name the Parquet files' columns (in `column_name` or `name`). */
  describeParquet(files: readonly string[]): string;
  /** Named columns of a row as one JSON object's text, members named by the columns. */
  rowJson(columns: readonly string[]): string;
  /** The row's number in read order, from 0: a select-list expression. */
  readonly rowNumber: string;
  /** What ends a query that numbers rows of `lines` (NDJSON) or `rows` (Parquet, a table) in read order. */
  readInOrder(kind: 'lines' | 'rows'): string;
  /**
   * A temporary table `name` that stores a query's rows in the order the query reads them, written by
   * every thread, each row then numbered by its place in the table (from 0): so that the heavy work over
   * rows read in order (deciding them) runs in parallel and only the stored result is numbered.
   * `create(query)` makes the table; `numbered`, a relation for `FROM` (aliased), reads it back with each
   * row's place in column `rn`; `drop` removes it. `undefined` where the engine's tables keep no read order (ClickHouse's MergeTree
   * and Memory tables promise none).
   */
  readOrderTable(name: string): { create: (query: string) => string; numbered: string; drop: string } | undefined;
  /** A numbered relation whose numbers stay as read when a later filter is on the number. */
  keepNumbering(relation: string): string;
  /** The text of an address column of the engine's own address type, `undefined` for other types. */
  nativeIpText(col: string, type: string): string | undefined;
  /**
   * The members `keys` of the JSON object in the line column `col`, to read each with {@link Dialect.json}:
   * select items computed once a row beside the line (`items`), and the column and key that then read
   * member `i` (`member(i)`). DuckDB extracts every member with one parse of the line (each JSON function
   * call would parse the whole line again; a member the line lacks is NULL, a JSON null stays `null`);
   * ClickHouse reads the line itself (flows read {@link lineValues} instead).
   */
  lineMembers(col: string, keys: readonly string[]): { items: string[]; member: (i: number) => [col: string, key?: string] };
  /**
   * Where the engine reads every member of the JSON object in the line column `col` with one parse into
   * values that keep their JSON type: select items computed once a row beside the line (`items`), each
   * member's reading (`value(i)`, as {@link Dialect.json} reads a member: a key given twice read at its
   * last value, as `JSON.parse` keeps it) and the query settings the reading needs (`settings`, items of
   * the `SETTINGS` clause of every query over them). `undefined` where {@link lineMembers} is the better
   * reading (DuckDB).
   */
  lineValues(col: string, keys: readonly string[]): { items: string[]; value: (i: number) => JsonValueSql; settings: readonly string[] } | undefined;
  /**
   * NDJSON packet objects read with one map a line, member name to the member's value as JSON, where the
   * engine reads them so faster than {@link objectLines} + {@link lineMembers} (`undefined`: it does not). The
   * same lines are rows (blank lines, other JSON values and text that is not JSON are not), the same member
   * of a key given twice is read (the first), and a JSON `null` is a key whose value is NULL, so `has` tells
   * a `null` member from a missing one. A line the engine cannot read so makes the query fail; the caller
   * then reads whole lines. `from` follows `FROM` (only `) AS name` may follow it); `member(key)` is the
   * member's value (NULL when missing or `null`), read with {@link Dialect.json} without a key; `text` and
   * `hash` stand for {@link lineText} and {@link lineHash}.
   */
  memberMaps(files: readonly string[], compression?: 'gzip'): { from: string; member: (key: string) => string; has: (key: string) => string; text: string; hash: string } | undefined;
}

/** One SQL engine's dialect. */
export interface Dialect {
  /** The name options give (`'duckdb'`). */
  readonly name: string;
  /** The engine's name in messages (`'DuckDB'`). */
  readonly title: string;

  // Quoting: the one way user text enters generated SQL.
  /** A string literal holding exactly `s` (a NUL included; callers refuse lone surrogates first). */
  string(s: string): string;
  /** A quoted identifier naming `name` (a NUL, which no name can hold, dropped). */
  identifier(name: string): string;

  // Types and casts.
  /** The types of a flow table's columns. */
  readonly flowTypes: FlowColumnTypes;
  /** A finite number as a DOUBLE, through its decimal text (which every engine reads back exactly). */
  double(n: number): string;
  /** A numeric expression as a 64-bit integer. */
  toInt64(expr: string): string;
  /**
   * Whether a column of the engine's type `sqlType` (as DESCRIBE names it) holds exactly the values a
   * dataset field of catalog type `fieldType` reads as in a line, so that column mode compares it as the
   * matcher compares the line's value: a 32-bit float or an unsigned 64-bit integer does not (JavaScript
   * reads the line's text as a double), nor text for a number field.
   */
  holdsFieldType(sqlType: string, fieldType: string): boolean;

  // Conditional expressions.
  /** `value` where `cond` holds, else NULL. */
  nullUnless(cond: string, value: string): string;
  /**
   * The value of the first branch (one or more) whose condition holds, else `otherwise`; the branches after
   * it are not evaluated.
   */
  firstOf(branches: readonly (readonly [cond: string, value: string])[], otherwise: string): string;
  /** `cond AND test`, with `test` evaluated only on the rows where `cond` holds. */
  andThen(cond: string, test: string): string;
  /**
   * The query settings (items of one `SETTINGS` clause, none where the engine takes none) under which
   * {@link firstOf} and the boolean operators compute every argument over the whole block instead of
   * evaluating them lazily, branch by branch: for a summary that computes each rule's match as a column
   * (eager), where lazy evaluation would recompute each branch's inputs on the rows it reaches.
   */
  readonly eagerSettings: readonly string[];
  /**
   * The query settings that let the engine parse a query of `length` characters (ClickHouse parses at
   * most 256 KiB by default; a ruleset writes an expression per rule, a diff an address test per region).
   */
  querySizeSettings(length: number): readonly string[];

  // Functions of values.
  /** The bitwise AND of two integers. */
  bitAnd(a: string, b: string): string;
  /** Whether the text holds `part` (bytes of UTF-8: the same as characters). */
  contains(text: string, part: string): string;
  startsWith(text: string, prefix: string): string;
  endsWith(text: string, suffix: string): string;
  /** LIKE with a backslash escaping `%`, `_` and itself in the pattern. */
  like(text: string, pattern: string): string;
  /** Whether the whole text matches an RE2 pattern (`pattern`: its source, which the dialect quotes). */
  regexpFullMatch(text: string, pattern: string): string;
  /** Every match of an RE2 pattern (its source) removed from the text. */
  regexpRemoveAll(text: string, pattern: string): string;
  /** A number (an integer) as its decimal text. */
  toText(expr: string): string;

  // Arrays, and the NULL rules that differ.
  /** Some element `e` of the array satisfies `cond(e)`. */
  anyElement(array: string, cond: (e: string) => string): string;
  /** Whether an array column holds a value (see {@link nullableArrays}). */
  arrayPresent(col: string): string;
  /** Whether an array column can be NULL; where not, a missing array is stored empty and read as missing. */
  readonly nullableArrays: boolean;

  // Aggregates.
  /** The number of rows where `cond` holds. */
  countIf(cond: string): string;
  /** The `n` lowest values of `expr` over the rows where `cond` holds, ascending, as an array (`[]` for none). */
  lowestIf(expr: string, n: number, cond: string): string;
  /** The `n` lowest values of the arrays `expr` (each ascending) over the rows where `cond` holds, as {@link lowestIf} gives them. */
  mergeLowestIf(expr: string, n: number, cond: string): string;
  /** An empty array of 64-bit integers. */
  readonly emptyInt64Array: string;

  // JSON text.
  /** The member `key` of the JSON object in `col`, or (no key) the JSON value `col` itself. */
  json(col: string, key?: string): JsonValueSql;
  /**
   * A column holding one JSON value read through its canonical text: the column's own text where the engine
   * wrote it (`written`: what {@link SourceSql.memberColumns} and {@link SourceSql.columnJson} give), else
   * the value written again; `undefined` where the engine has no such reading (member mode then tests the
   * value with {@link json}).
   */
  canonicalJson?(col: string, written: boolean): CanonicalJsonSql;
  /**
   * Whether the JSON object in `col` (its member `key`) has a member whose name, ASCII letters lower-cased,
   * is `name` (lower-case ASCII, which the dialect quotes).
   */
  jsonHasKeyLower(col: string, key: string | undefined, name: string): string;
  /** One row per member name of the JSON object in `col` (a set-returning select-list expression). */
  jsonKeys(col: string): string;

  // Addresses, read with rulekit's strict rules (see ip.ts).
  readonly ip: IpSql;

  // Reading files and tables.
  readonly source: SourceSql;
}
