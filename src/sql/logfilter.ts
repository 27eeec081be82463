/**
 * A Logpush filter as one SQL boolean expression, with rulekit's semantics, not SQL's:
 * - a clause on a member the line lacks, or holds as `null`, is false — negated operators included — and
 *   never NULL: every clause is wrapped so that SQL's three-valued logic cannot leak through `NOT`;
 * - values are compared with their JSON type, as the matcher does (`"500"` is not 500, except that an
 *   `int or string` field's number also equals its decimal text);
 * - `contains` on an array member and `in` on one ask whether some element equals (type included).
 *
 * Two shapes of table:
 * - JSON mode (default): one column holds each line as JSON (NDJSON read as it is). A member's JSON type
 *   is read with the dialect's JSON functions (`json_type` in DuckDB, `JSONType` in ClickHouse); numbers
 *   are read as DOUBLE (what JavaScript reads them as).
 * - Column mode (`columns`): one typed column per dataset field (named by the field, or through a mapping),
 *   NULL where the line lacks it. A column holds its catalog type, so only the value is compared; an
 *   `int or string` column holds the integer form (Unix timestamps).
 * - Member mode (`jsonColumns`): one column per field holding the member's value alone as JSON (what the
 *   dialect's `source.memberColumns` reads from NDJSON), so the line is parsed once and each clause reads
 *   a small value with the same JSON-type tests as JSON mode. Given with `columns`, the fields it names are
 *   read as JSON and the others as typed columns (Parquet columns whose type is not the catalog's). Where
 *   the dialect reads a value's canonical text (`Dialect.canonicalJson`: DuckDB), a scalar clause compares
 *   that text instead — a string with the literal's text as the engine writes it, a number through a cast
 *   of its text — over the column's own text where the engine wrote it (`engineWrittenJson`), else over the
 *   value written again (`json()`: text cast to JSON keeps its spelling); arrays keep the JSON-type tests.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkLogFilter, getDataset, type DatasetScope, type LogFilter } from '../logpush/index.js';
import type { FilterClause, FilterNode, FilterScalar } from '../logpush/index.js';
import { OPERATOR_BY_NAME } from '../logpush/index.js';
import type { CanonicalJsonSql, Dialect } from './dialect.js';
import { dialectOf, type SqlDialect } from './dialects/index.js';
import { hasLoneSurrogate } from './quote.js';

/** Options of {@link logFilterToSql}. */
export interface LogFilterSqlOptions {
  dialect?: SqlDialect;
  /** JSON mode: the JSON (DuckDB) or String (ClickHouse) column that holds each line (default `line`). */
  column?: string;
  /**
   * Column mode: one column per field. `true` names each column by its field; an object maps field names
   * to column names (fields it leaves out keep their own name).
   */
  columns?: true | Readonly<Record<string, string>>;
  /**
   * Member mode: one column per field holding that member's JSON value alone (NULL, or for ClickHouse
   * `''`, where the line lacks it). `true` names each column by its field and reads every field so; an
   * object maps the fields read so to their columns, the others being read as `columns` says.
   */
  jsonColumns?: true | Readonly<Record<string, string>>;
  /**
   * Member mode: the JSON columns hold text the engine wrote (DuckDB's `read_json` JSON columns, `to_json`,
   * `json()`: one spelling per value), so clauses compare that text as it is. Without it, DuckDB writes
   * each value again with `json()` first, which holds for any JSON text (`"G\u0045T"` is `"GET"`) at the
   * cost of a parse.
   */
  engineWrittenJson?: boolean;
  /** Dataset of a filter given as text (default `http_requests`). */
  dataset?: string;
  /**
   * The job's scope, for a dataset both scopes offer with different fields (`firewall_events`: account
   * jobs have fields zone jobs do not): the filter is checked, and column mode typed, with that scope's
   * catalog, as the Logpush checker does. Without it, the zone dataset of the name, else the account one.
   */
  scope?: DatasetScope;
}

/** The SQL, or diagnostics when the input has errors or a part without an exact SQL form. */
export interface SqlResult {
  sql?: string;
  diagnostics: Diagnostic[];
}

/**
 * How a value is read: its type tests, text and number, as SQL expressions over one value. JSON mode reads
 * a member through the dialect's {@link JsonValueSql}; column mode a typed column ({@link columnAccess}).
 */
interface Access {
  isString: string;
  isNumber: string;
  isBool: string;
  isArray: string;
  present: string;
  text: string;
  num: string;
  /** The boolean as a condition. */
  boolTrue: string;
  /** `EXISTS`-like: some element satisfies the condition written over an element's access. */
  some(cond: (e: Access) => string): string;
  /** Member mode where the dialect reads the value's canonical text: the cheaper exact tests. */
  canonical?: CanonicalJsonSql;
}

/** Typed-column access: the column holds the catalog type, so type tests are constant. */
function columnAccess(dialect: Dialect, col: string, type: string): Access {
  const array = type === 'array_string' || type === 'array_int';
  const isString = type === 'string' ? 'TRUE' : 'FALSE';
  const isNumber = type === 'int' || type === 'float' || type === 'int_or_string' ? 'TRUE' : 'FALSE';
  return {
    isString,
    isNumber,
    isBool: type === 'bool' ? 'TRUE' : 'FALSE',
    isArray: array ? 'TRUE' : 'FALSE',
    present: array ? dialect.arrayPresent(col) : `${col} IS NOT NULL`,
    text: col,
    num: col,
    boolTrue: col,
    some: (cond) => dialect.anyElement(col, (e) => cond({ ...columnAccess(dialect, e, type === 'array_int' ? 'int' : 'string'), present: `${e} IS NOT NULL` })),
  };
}

/** Negated clauses on array columns of a dialect without NULL arrays, where an empty array is a missing one. */
function emptyArrays(dialect: Dialect, n: FilterNode, out: Diagnostic[]): void {
  if (n.kind === 'and' || n.kind === 'or') return n.children.forEach((c) => emptyArrays(dialect, c, out));
  const c = n as FilterClause;
  if ((c.fieldType === 'array_string' || c.fieldType === 'array_int') && OPERATOR_BY_NAME.get(c.operator)?.negates) {
    out.push({ code: 'sql-empty-array-missing', severity: 'warning', message: `${dialect.title} array columns cannot be NULL, so an empty ${c.key} reads as missing and ${c.operator} is false on it, where a line holding [] would match`, pointer: c.pointer });
  }
}

/**
 * `type AND test`, leaving the test out when the type is known not to hold: a typed column compared with a
 * value of another type would be a type error in ClickHouse, not FALSE.
 */
function when(type: string, test: () => string): string {
  if (type === 'FALSE') return 'FALSE';
  return type === 'TRUE' ? `(${test()})` : `(${type} AND ${test()})`;
}

class Writer {
  readonly problems: Diagnostic[] = [];
  constructor(
    private readonly dialect: Dialect,
    private readonly access: (key: string, type: string, pointer: string) => Access | undefined,
  ) {}

  /** User text a clause compares, refused (with a problem) where it has no UTF-8 form. */
  private checked(s: string, pointer: string): string {
    if (hasLoneSurrogate(s)) {
      this.problems.push({ code: 'sql-no-exact-form', severity: 'error', message: `the value ${JSON.stringify(s)} holds an unpaired UTF-16 surrogate, which has no UTF-8 form: an engine would compare U+FFFD instead`, pointer });
    }
    return s;
  }

  private str(s: string, pointer: string): string {
    return this.dialect.string(this.checked(s, pointer));
  }

  node(n: FilterNode): string {
    if (n.kind === 'and' || n.kind === 'or') {
      if (!n.children.length) return n.kind === 'and' ? 'TRUE' : 'FALSE';
      return `(${n.children.map((c) => this.node(c)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    return this.clause(n as FilterClause);
  }

  /** One clause: FALSE when the member is missing or null, else the (possibly negated) test; never NULL. */
  clause(c: FilterClause): string {
    const x = this.access(c.key, c.fieldType, c.pointer);
    if (!x) return 'FALSE';
    const info = OPERATOR_BY_NAME.get(c.operator)!;
    const op = info.negates ?? c.operator;
    const fast = x.canonical && this.canonical(op, c, x.canonical);
    if (fast) {
      // The test is FALSE or NULL on a missing member, so only a negated one needs the presence test.
      return info.negates ? `COALESCE(${x.canonical!.present} AND NOT COALESCE(${fast}, FALSE), FALSE)` : `COALESCE(${fast}, FALSE)`;
    }
    const test = this.positive(op, c, x);
    return `COALESCE(${x.present} AND ${info.negates ? `NOT COALESCE(${test}, FALSE)` : `COALESCE(${test}, FALSE)`}, FALSE)`;
  }

  /**
   * The positive test over a value's canonical text, where one is exact: scalars compared by their text or
   * number, strings searched (`undefined` for arrays, whose elements keep the JSON-function tests).
   */
  private canonical(op: string, c: FilterClause, k: CanonicalJsonSql): string | undefined {
    if (c.fieldType === 'array_string' || c.fieldType === 'array_int') return undefined;
    const o = c.operand;
    switch (op) {
      case 'eq':
        return this.canonicalIn(k, [o as FilterScalar], c);
      case 'in':
        return this.canonicalIn(k, o as FilterScalar[], c);
      case 'lt':
      case 'leq':
      case 'gt':
      case 'geq':
        return `${k.num} ${{ lt: '<', leq: '<=', gt: '>', geq: '>=' }[op]} ${this.dialect.double(o as number)}`;
      case 'startsWith':
      case 'endsWith':
      case 'contains':
        return k.stringTest(op, this.checked(o as string, c.pointer));
      default:
        return undefined;
    }
  }

  /**
   * The value equals one of `values` with the matcher's typing ({@link equals}): numbers by their DOUBLE,
   * strings and booleans by their JSON text.
   */
  private canonicalIn(k: CanonicalJsonSql, values: readonly FilterScalar[], c: FilterClause): string {
    const numbers = new Set<number>();
    const texts = new Set<string>();
    for (const v of values) {
      if (typeof v === 'number') {
        numbers.add(v);
        if (c.fieldType === 'int_or_string') texts.add(k.stringJson(this.checked(String(v), c.pointer)));
      } else if (typeof v === 'boolean') texts.add(this.dialect.string(String(v)));
      else texts.add(k.stringJson(this.checked(v, c.pointer)));
    }
    const oneOf = (expr: string, set: Set<string>) => (set.size === 1 ? `${expr} = ${[...set][0]}` : `${expr} IN (${[...set].join(', ')})`);
    const parts = [
      ...(numbers.size ? [oneOf(k.num, new Set([...numbers].map((n) => this.dialect.double(n))))] : []),
      ...(texts.size ? [oneOf(k.text, texts)] : []),
    ];
    if (!parts.length) return 'FALSE';
    return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
  }

  /** Scalar equality with the matcher's typing: strings with strings, numbers with numbers, booleans with booleans. */
  private equals(x: Access, o: FilterScalar, c: FilterClause): string {
    if (typeof o === 'number') {
      const asNumber = when(x.isNumber, () => `${x.num} = ${this.dialect.double(o)}`);
      return c.fieldType === 'int_or_string' ? `(${asNumber} OR ${when(x.isString, () => `${x.text} = ${this.str(String(o), c.pointer)}`)})` : asNumber;
    }
    if (typeof o === 'boolean') return when(x.isBool, () => `${o ? '' : 'NOT '}${x.boolTrue}`);
    return when(x.isString, () => `${x.text} = ${this.str(o, c.pointer)}`);
  }

  /** Some element of the array member equals one of `values` (strictly: type and value). */
  private someElement(x: Access, values: readonly FilterScalar[], c: FilterClause): string {
    if (!values.length) return 'FALSE';
    const strict = { ...c, fieldType: 'array_string' as const };
    return when(x.isArray, () => x.some((e) => `(${values.map((v) => this.equals(e, v, strict)).join(' OR ')})`));
  }

  private positive(op: string, c: FilterClause, x: Access): string {
    const o = c.operand;
    const array = c.fieldType === 'array_string' || c.fieldType === 'array_int';
    switch (op) {
      case 'eq':
        return this.equals(x, o as FilterScalar, c);
      case 'lt':
      case 'leq':
      case 'gt':
      case 'geq': {
        const cmp = { lt: '<', leq: '<=', gt: '>', geq: '>=' }[op];
        return when(x.isNumber, () => `${x.num} ${cmp} ${this.dialect.double(o as number)}`);
      }
      case 'startsWith':
        return when(x.isString, () => this.dialect.startsWith(x.text, this.str(o as string, c.pointer)));
      case 'endsWith':
        return when(x.isString, () => this.dialect.endsWith(x.text, this.str(o as string, c.pointer)));
      case 'contains':
        if (array) return this.someElement(x, [o as FilterScalar], c);
        return when(x.isString, () => this.dialect.contains(x.text, this.str(o as string, c.pointer)));
      case 'in': {
        const set = o as FilterScalar[];
        if (array) return this.someElement(x, set, c);
        return set.length ? `(${set.map((s) => this.equals(x, s, c)).join(' OR ')})` : 'FALSE';
      }
      default:
        this.problems.push({ code: 'sql-no-exact-form', severity: 'error', message: `the operator ${c.operator} has no SQL form here`, pointer: c.pointer });
        return 'FALSE';
    }
  }
}

/**
 * A Logpush filter (its text, or a checked filter) as a boolean expression over a JSON column (default) or
 * over one typed column per field (`columns`).
 *
 * ```ts
 * logFilterToSql('{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}').sql
 * // COALESCE((json_type(line, '$."EdgeResponseStatus"') IS NOT NULL AND …) AND COALESCE(…, FALSE), FALSE)
 * logFilterToSql(filter, { dialect: 'clickhouse', columns: true }).sql
 * // COALESCE(`EdgeResponseStatus` IS NOT NULL AND COALESCE((TRUE AND `EdgeResponseStatus` >= toFloat64('500')), FALSE), FALSE)
 * ```
 */
export function logFilterToSql(filter: string | LogFilter, options: LogFilterSqlOptions = {}): SqlResult {
  let checked: LogFilter | undefined;
  const diagnostics: Diagnostic[] = [];
  if (typeof filter === 'string') {
    const r = checkLogFilter(filter, { dataset: options.dataset ?? 'http_requests', scope: options.scope });
    diagnostics.push(...r.diagnostics);
    checked = r.filter;
  } else checked = filter;
  if (!checked || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const dialect = dialectOf(options.dialect);
  const problems: Diagnostic[] = [];
  let access: (key: string, type: string, pointer: string) => Access | undefined;
  const members = options.jsonColumns;
  const memberColumn = (key: string) => (members === true ? key : members && Object.hasOwn(members, key) ? members[key]! : undefined);
  const member = (col: string): Access => ({ ...dialect.json(col), canonical: dialect.canonicalJson?.(col, options.engineWrittenJson === true) });
  if (members === true || (members && !options.columns)) {
    access = (key) => member(dialect.identifier(memberColumn(key) ?? key));
  } else if (options.columns) {
    const mapping = options.columns === true ? {} : options.columns;
    const dataset = getDataset(checked.dataset, options.scope) ?? getDataset(checked.dataset);
    access = (key, type, pointer) => {
      const named = memberColumn(key);
      if (named !== undefined) return member(dialect.identifier(named));
      const column = Object.prototype.hasOwnProperty.call(mapping, key) ? mapping[key]! : key;
      const catalogued = dataset?.byName.get(key)?.type ?? type;
      if (catalogued === 'object') {
        problems.push({ code: 'sql-no-exact-form', severity: 'error', message: `${key} is an object field: column mode has no typed column for it (use JSON mode)`, pointer });
        return undefined;
      }
      return columnAccess(dialect, dialect.identifier(column), catalogued);
    };
    if (!dialect.nullableArrays) emptyArrays(dialect, checked.where, problems);
  } else {
    const col = dialect.identifier(options.column ?? 'line');
    access = (key) => dialect.json(col, key);
  }
  const w = new Writer(dialect, access);
  const sql = w.node(checked.where);
  problems.push(...w.problems);
  diagnostics.push(...problems);
  return problems.some((d) => d.severity === 'error') ? { diagnostics } : { sql, diagnostics };
}
