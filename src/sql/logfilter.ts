/**
 * A Logpush filter as one SQL boolean expression over a JSON column holding each log line (NDJSON read as
 * it is), with rulekit's semantics, not SQL's:
 * - a clause on a member the line lacks, or holds as `null`, is false — negated operators included — and
 *   never NULL: every clause is wrapped so that SQL's three-valued logic cannot leak through `NOT`;
 * - values are compared with their JSON type, as the matcher does (`"500"` is not 500, except that an
 *   `int or string` field's number also equals its decimal text);
 * - `contains` on an array member and `in` on one ask whether some element equals (type included).
 * The member's JSON type comes from `json_type`, its text from `json_extract_string`, numbers as DOUBLE
 * (what JavaScript reads them as).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkLogFilter, type LogFilter } from '../logpush/index.js';
import type { FilterClause, FilterNode, FilterScalar } from '../logpush/index.js';
import { OPERATOR_BY_NAME } from '../logpush/index.js';
import { hasLoneSurrogate, jsonMemberPath, sqlDouble, sqlIdentifier, sqlString, type SqlDialect } from './quote.js';

/** Options of {@link logFilterToSql}. */
export interface LogFilterSqlOptions {
  dialect?: SqlDialect;
  /** The JSON column that holds each line (default `line`). */
  column?: string;
  /** Dataset of a filter given as text (default `http_requests`). */
  dataset?: string;
}

/** The SQL, or diagnostics when the filter has errors or a part without an exact SQL form. */
export interface SqlResult {
  sql?: string;
  diagnostics: Diagnostic[];
}

const NUMERIC = `('BIGINT', 'UBIGINT', 'DOUBLE')`;

class Writer {
  readonly problems: Diagnostic[] = [];
  constructor(private readonly dialect: SqlDialect, private readonly column: string) {}

  private str(s: string, pointer: string): string {
    if (hasLoneSurrogate(s)) {
      this.problems.push({ code: 'sql-no-exact-form', severity: 'error', message: `the value ${JSON.stringify(s)} holds an unpaired UTF-16 surrogate, which has no UTF-8 form: an engine would compare U+FFFD instead`, pointer });
    }
    return sqlString(s, this.dialect);
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
    const path = jsonMemberPath(c.key, this.dialect);
    const col = this.column;
    const type = `json_type(${col}, ${path})`;
    const text = `json_extract_string(${col}, ${path})`;
    const num = `TRY_CAST(${text} AS DOUBLE)`;
    const info = OPERATOR_BY_NAME.get(c.operator)!;
    const op = info.negates ?? c.operator;
    const test = this.positive(op, c, { type, text, num, value: `json_extract(${col}, ${path})` });
    const present = `(${type} IS NOT NULL AND ${type} <> 'NULL')`;
    return `COALESCE(${present} AND ${info.negates ? `NOT COALESCE(${test}, FALSE)` : `COALESCE(${test}, FALSE)`}, FALSE)`;
  }

  /** Scalar equality with the matcher's typing: strings with strings, numbers with numbers, booleans with booleans. */
  private equals(x: { type: string; text: string; num: string }, o: FilterScalar, c: FilterClause): string {
    if (typeof o === 'number') {
      const asNumber = `(${x.type} IN ${NUMERIC} AND ${x.num} = ${sqlDouble(o, this.dialect)})`;
      return c.fieldType === 'int_or_string' ? `(${asNumber} OR (${x.type} = 'VARCHAR' AND ${x.text} = ${this.str(String(o), c.pointer)}))` : asNumber;
    }
    if (typeof o === 'boolean') return `(${x.type} = 'BOOLEAN' AND ${x.text} = '${o}')`;
    return `(${x.type} = 'VARCHAR' AND ${x.text} = ${this.str(o, c.pointer)})`;
  }

  /** Some element of the array member equals one of `values` (strictly: type and value). */
  private someElement(x: { type: string; value: string }, values: readonly FilterScalar[], c: FilterClause): string {
    if (!values.length) return 'FALSE';
    const e = { type: 'json_type(e)', text: `json_extract_string(e, '$')`, num: `TRY_CAST(json_extract_string(e, '$') AS DOUBLE)` };
    const strict = { ...c, fieldType: 'array_string' as const };
    const any = values.map((v) => this.equals(e, v, strict)).join(' OR ');
    return `(${x.type} = 'ARRAY' AND EXISTS (SELECT 1 FROM unnest(TRY_CAST(${x.value} AS JSON[])) AS elements(e) WHERE ${any}))`;
  }

  private positive(op: string, c: FilterClause, x: { type: string; text: string; num: string; value: string }): string {
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
        return `(${x.type} IN ${NUMERIC} AND ${x.num} ${cmp} ${sqlDouble(o as number, this.dialect)})`;
      }
      case 'startsWith':
        return `(${x.type} = 'VARCHAR' AND starts_with(${x.text}, ${this.str(o as string, c.pointer)}))`;
      case 'endsWith':
        return `(${x.type} = 'VARCHAR' AND suffix(${x.text}, ${this.str(o as string, c.pointer)}))`;
      case 'contains':
        if (array) return this.someElement(x, [o as FilterScalar], c);
        return `(${x.type} = 'VARCHAR' AND contains(${x.text}, ${this.str(o as string, c.pointer)}))`;
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
 * A Logpush filter (its text, or a checked filter) as a DuckDB boolean expression over a JSON column.
 *
 * ```ts
 * logFilterToSql('{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}').sql
 * // COALESCE((json_type(line, '$."EdgeResponseStatus"') IS NOT NULL AND …) AND COALESCE(…, FALSE), FALSE)
 * ```
 */
export function logFilterToSql(filter: string | LogFilter, options: LogFilterSqlOptions = {}): SqlResult {
  let checked: LogFilter | undefined;
  const diagnostics: Diagnostic[] = [];
  if (typeof filter === 'string') {
    const r = checkLogFilter(filter, { dataset: options.dataset ?? 'http_requests' });
    diagnostics.push(...r.diagnostics);
    checked = r.filter;
  } else checked = filter;
  if (!checked || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const w = new Writer(options.dialect ?? 'duckdb', sqlIdentifier(options.column ?? 'line', options.dialect ?? 'duckdb'));
  const sql = w.node(checked.where);
  diagnostics.push(...w.problems);
  return w.problems.some((d) => d.severity === 'error') ? { diagnostics } : { sql, diagnostics };
}
