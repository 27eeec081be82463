/**
 * The one way user text enters generated SQL, by dialect name: string literals and identifiers, each the
 * dialect's one escaping function (src/sql/dialects/). Nothing else in src/sql writes a quote character
 * around user text; a property test feeds these hostile strings (quotes, backslashes, NUL, `;`, comments,
 * Unicode) and reads them back through each engine.
 * @module
 */
import { dialectOf, type SqlDialect } from './dialects/index.js';

/**
 * A string literal.
 * - DuckDB strings are standard SQL: a quote is doubled, a backslash is an ordinary character. A NUL
 *   cannot appear inside a literal (the parser stops at it), so it is spliced in as `chr(0)`.
 * - ClickHouse strings take backslash escapes: a backslash and a quote are escaped with a backslash and a
 *   NUL is written `\0`; every other character (newlines, `;`, `--`, Unicode) stands as itself.
 * Lone UTF-16 surrogates have no UTF-8 form: callers refuse them first ({@link hasLoneSurrogate}).
 */
export function sqlString(s: string, dialect: SqlDialect = 'duckdb'): string {
  return dialectOf(dialect).string(s);
}

/**
 * A quoted identifier (a column name). DuckDB: double quotes, a double quote doubled. ClickHouse:
 * backquotes, a backquote or backslash escaped with a backslash. A NUL cannot be part of a name: dropped.
 */
export function sqlIdentifier(name: string, dialect: SqlDialect = 'duckdb'): string {
  return dialectOf(dialect).identifier(name);
}

/** A JSON path selecting one member by name, as a string literal (`'$."Key"'`), for DuckDB's JSON functions. */
export function jsonMemberPath(key: string, dialect: SqlDialect = 'duckdb'): string {
  return sqlString(`$.${JSON.stringify(key)}`, dialect);
}

/** Whether a string holds an unpaired surrogate (no UTF-8 form: an engine would see U+FFFD instead). */
export function hasLoneSurrogate(s: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** A finite number as a DOUBLE: through its decimal text, which every engine reads back exactly. */
export function sqlDouble(n: number, dialect: SqlDialect = 'duckdb'): string {
  return dialectOf(dialect).double(n);
}

/** A safe integer as a literal: digits only, no user text. */
export function sqlInt(n: number | bigint): string {
  // A bigint is a 64-bit literal of the expression (beyond ±2^53), written exactly.
  if (typeof n === 'bigint') {
    if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new RangeError(`not a 64-bit integer: ${n}`);
    return String(n);
  }
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
  return String(n);
}
