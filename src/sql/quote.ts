/**
 * The one way user text enters generated SQL, per dialect: string literals and identifiers. Nothing else
 * in src/sql writes a quote character around user text; a property test feeds these hostile strings
 * (quotes, backslashes, NUL, `;`, comments, Unicode) and reads them back through the engine.
 * @module
 */

/** SQL dialects rulekit writes. */
export type SqlDialect = 'duckdb';

/**
 * A string literal. DuckDB strings are standard SQL: a quote is doubled, a backslash is an ordinary
 * character. A NUL cannot appear inside a literal (the parser stops at it), so it is spliced in as `chr(0)`.
 * Lone UTF-16 surrogates have no UTF-8 form: callers refuse them first ({@link hasLoneSurrogate}).
 */
export function sqlString(s: string, _dialect: SqlDialect = 'duckdb'): string {
  const quoted = (part: string) => `'${part.replace(/'/g, "''")}'`;
  if (!s.includes('\0')) return quoted(s);
  return `(${s.split('\0').map(quoted).join(' || chr(0) || ')})`;
}

/** A quoted identifier (a column name): double quotes, a double quote doubled. */
export function sqlIdentifier(name: string, _dialect: SqlDialect = 'duckdb'): string {
  return `"${name.replace(/"/g, '""').replace(/\0/g, '')}"`;
}

/** A JSON path selecting one member by name, as a string literal (`'$."Key"'`). */
export function jsonMemberPath(key: string, dialect: SqlDialect = 'duckdb'): string {
  return sqlString(`$.${JSON.stringify(key)}`, dialect);
}

/** Whether a string holds an unpaired surrogate (no UTF-8 form: an engine would see U+FFFD instead). */
export function hasLoneSurrogate(s: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** A finite number as a DOUBLE: through its decimal text, which every engine reads back exactly. */
export function sqlDouble(n: number, dialect: SqlDialect = 'duckdb'): string {
  return `CAST(${sqlString(String(n), dialect)} AS DOUBLE)`;
}
