/**
 * Checks a transformer as the service validates one before saving it (docs: "Validation"): syntax, the
 * dataset of `FROM`, every field against that dataset's schema, function names and argument counts,
 * the kinds of values operators and functions take, and the operations the docs list as not supported.
 * It also says whether this server can run the query (preview), and why not when it cannot.
 * @module
 */
import { suggest, type Diagnostic, type Range } from '../diagnostics/index.js';
import { DATASET_NAMES, DATASET_SCOPES, getDataset, type FieldType } from './datasets/index.js';
import { diag } from './diag.js';
import type { SqlExpr, SqlQuery, SqlSelect } from './transformer-ast.js';
import { AGGREGATE_FUNCTIONS, FUNCTIONS, NOT_RUN_FUNCTIONS, TIMESTAMP_PARTS, type SqlType } from './transformer-functions.js';
import { parseTransformerSql } from './transformer-parse.js';

/** The SQL kind of a catalogued field type (`int_or_string`, a timestamp, is either). */
const FIELD_TYPES: Record<FieldType, SqlType> = {
  string: 'string', int: 'int', bool: 'bool', float: 'float', int_or_string: 'any', array_string: 'array', array_int: 'array', array_object: 'array', object: 'object',
};

/** The columns a table offers: a dataset's fields, or what a `WITH` step delivers; in order. */
export type Columns = Map<string, SqlType>;
export type { Columns as TransformerColumns };

/** A checked transformer. */
export interface CheckedTransformer {
  /** The tree, when the query could be read. */
  query?: SqlQuery;
  /** The dataset of the innermost `FROM` (what the API answers as `dataset`), when it is one. */
  dataset?: string;
  /** The dataset's fields as the query reads them (both scopes' catalogs, for a name of both). */
  fields?: Columns;
  /** What is wrong with the query (errors refuse it). */
  diagnostics: Diagnostic[];
  /** Why the reference server cannot run the query (preview), when it cannot. */
  notRunnable?: { reason: string; range: Range };
}

/** The fields of a dataset by name, over every scope that has a dataset of that name. */
export function datasetColumns(name: string): Columns | undefined {
  const scopes = DATASET_SCOPES.get(name);
  if (!scopes?.length) return undefined;
  const cols: Columns = new Map();
  for (const scope of scopes) for (const f of getDataset(name, scope)!.fields) if (!cols.has(f.name)) cols.set(f.name, FIELD_TYPES[f.type]);
  return cols;
}

const NUMERIC = new Set<SqlType>(['int', 'float', 'any']);
const describeType = (t: SqlType) => ({ string: 'a string', int: 'an integer', float: 'a number', bool: 'a boolean', timestamp: 'a timestamp', array: 'an array', object: 'an object', any: 'a value' })[t];

class Checker {
  readonly diagnostics: Diagnostic[] = [];
  notRunnable?: { reason: string; range: Range };
  constructor(private readonly text: string) {}

  private error(code: Parameters<typeof diag>[0], message: string, range: Range): void {
    this.diagnostics.push(diag(code, message, { range }));
  }

  private cannotRun(reason: string, range: Range): void {
    this.notRunnable ??= { reason, range };
  }

  /** The columns a select delivers, in order (names as the service would deliver them). */
  select(s: SqlSelect, tables: Map<string, Columns>): Columns {
    let source = tables.get(s.from.name);
    if (!source) {
      const s2 = suggest(s.from.name, [...tables.keys(), ...DATASET_NAMES]);
      this.error('transformer-unknown-dataset', `${JSON.stringify(s.from.name)} is not a Logpush dataset${s2 ? `; did you mean "${s2}"?` : ''} FROM names the dataset whose records the transformer reads (http_requests, audit_logs_v2, …)`, s.from.range);
      source = new Map();
    }
    const unknownSource = !tables.has(s.from.name);
    const out: Columns = new Map();
    const add = (name: string, type: SqlType, range: Range) => {
      if (out.has(name)) this.error('transformer-duplicate-column', `two output fields are named ${JSON.stringify(name)}; give one another name with AS`, range);
      out.set(name, type);
    };
    for (const item of s.items) {
      if (item.kind === 'star') { for (const [n, t] of source) add(n, t, item.range); continue; }
      const type = this.expr(item.expr, source, unknownSource);
      if (item.expr.kind === 'call' && item.expr.name === 'unnest') this.cannotRun('UNNEST makes several records of one; the reference server does not run it', item.expr.range);
      add(item.alias ?? (item.expr.kind === 'column' ? item.expr.name : this.text.slice(item.expr.range.start, item.expr.range.end)), type, item.range);
    }
    if (s.where) {
      const t = this.expr(s.where, source, unknownSource);
      if (t !== 'bool' && t !== 'any') this.error('transformer-type', `WHERE needs a condition (true or false), not ${describeType(t)}`, s.where.range);
    }
    return out;
  }

  /** The kind of an expression's value, checking it and everything under it. */
  expr(e: SqlExpr, cols: Columns, unknownSource: boolean): SqlType {
    const sub = (x: SqlExpr) => this.expr(x, cols, unknownSource);
    switch (e.kind) {
      case 'literal':
        return e.value === null ? 'any' : typeof e.value === 'string' ? 'string' : typeof e.value === 'boolean' ? 'bool' : Number.isInteger(e.value) && !e.float ? 'int' : 'float';
      case 'column': {
        const t = cols.get(e.name);
        if (t !== undefined || unknownSource) return t ?? 'any';
        const s = suggest(e.name, cols.keys());
        this.error('transformer-unknown-field', `${JSON.stringify(e.name)} is not a field of this table${s ? `; did you mean "${s}"?` : ''} (field names are case-sensitive)`, e.range);
        return 'any';
      }
      case 'unary': {
        const t = sub(e.operand);
        if (e.op === '-' && !NUMERIC.has(t)) this.error('transformer-type', `"-" takes a number, not ${describeType(t)}`, e.range);
        return e.op === 'NOT' ? 'bool' : t;
      }
      case 'binary': {
        const l = sub(e.left);
        const r = sub(e.right);
        switch (e.op) {
          case 'AND': case 'OR':
            for (const [t, x] of [[l, e.left], [r, e.right]] as const) if (t !== 'bool' && t !== 'any') this.error('transformer-type', `${e.op} joins conditions (true or false), not ${describeType(t)}`, x.range);
            return 'bool';
          case '=': case '!=': case '<': case '<=': case '>': case '>=':
            return 'bool';
          case '+': case '-': case '*': case '/': case '%':
            for (const [t, x] of [[l, e.left], [r, e.right]] as const) if (!NUMERIC.has(t)) this.error('transformer-type', `"${e.op}" takes numbers, not ${describeType(t)}${t === 'string' && e.op === '+' ? '; join strings with ||' : ''}`, x.range);
            return l === 'float' || r === 'float' ? 'float' : l === 'int' && r === 'int' ? 'int' : 'any';
          case '||':
            return 'string';
          case '->': case '->>':
            if (!['object', 'array', 'string', 'any'].includes(l)) this.error('transformer-type', `${e.op} reads a member of an object or array (JSON), not of ${describeType(l)}`, e.left.range);
            if (r !== 'string' && r !== 'int' && r !== 'any') this.error('transformer-type', `${e.op} takes a member name ('Host') or an array position`, e.right.range);
            return e.op === '->>' ? 'string' : 'any';
        }
        return 'any';
      }
      case 'is': sub(e.operand); return 'bool';
      case 'in': sub(e.operand); e.list.forEach(sub); return 'bool';
      case 'between': sub(e.operand); sub(e.low); sub(e.high); return 'bool';
      case 'like': {
        const t = sub(e.operand);
        if (!['string', 'any'].includes(t)) this.error('transformer-type', `LIKE matches strings, not ${describeType(t)}`, e.operand.range);
        sub(e.pattern);
        return 'bool';
      }
      case 'case': {
        if (e.operand) sub(e.operand);
        const types = e.branches.map((b) => { sub(b.when); return sub(b.then); });
        if (e.otherwise) types.push(sub(e.otherwise));
        return types.find((t) => t !== 'any') ?? 'any';
      }
      case 'cast': sub(e.operand); return e.type;
      case 'extract': {
        const t = sub(e.operand);
        if (!(TIMESTAMP_PARTS as readonly string[]).includes(e.field)) this.error('transformer-type', `extract takes one of ${TIMESTAMP_PARTS.join(', ')}, not ${JSON.stringify(e.field)}`, e.range);
        if (!['timestamp', 'string', 'any'].includes(t)) this.error('transformer-type', `extract reads a timestamp, not ${describeType(t)}; convert it with to_timestamp(…)`, e.operand.range);
        return e.field === 'epoch' || e.field === 'second' ? 'float' : 'int';
      }
      case 'array': e.items.forEach(sub); return 'array';
      case 'index': {
        const t = sub(e.operand);
        sub(e.index);
        if (!['array', 'object', 'any'].includes(t)) this.error('transformer-type', `[…] reads an element of an array or a member of an object, not of ${describeType(t)}`, e.operand.range);
        return 'any';
      }
      case 'call': return this.call(e, sub);
    }
  }

  private call(e: SqlExpr & { kind: 'call' }, sub: (x: SqlExpr) => SqlType): SqlType {
    const isStar = e.args.length === 1 && e.args[0]!.kind === 'column' && e.args[0]!.name === '*';
    if (AGGREGATE_FUNCTIONS.has(e.name)) {
      this.error('transformer-unsupported', `transformers do not support aggregate or window functions (${e.name}): each record is transformed on its own`, e.range);
      return 'any';
    }
    const args = isStar ? [] : e.args.map(sub);
    if (NOT_RUN_FUNCTIONS.has(e.name)) {
      this.cannotRun(`the reference server does not run ${e.name}()`, e.range);
      return 'any';
    }
    const fn = FUNCTIONS[e.name];
    if (!fn) {
      const s = suggest(e.name, [...Object.keys(FUNCTIONS), ...NOT_RUN_FUNCTIONS]);
      this.error('transformer-unknown-function', `${e.name}() is not a function of transformer SQL${s ? `; did you mean ${s}()?` : ''}`, e.range);
      return 'any';
    }
    if (isStar || args.length < fn.min || args.length > fn.max) {
      const want = fn.min === fn.max ? `${fn.min}` : fn.max >= 64 ? `at least ${fn.min}` : `${fn.min} to ${fn.max}`;
      this.error('transformer-type', `${e.name}() takes ${want} argument${want === '1' ? '' : 's'}, not ${isStar ? '*' : args.length}`, e.range);
      return typeof fn.returns === 'string' ? fn.returns : 'any';
    }
    args.forEach((t, i) => {
      if (fn.refuses?.includes(t)) this.error('transformer-type', `${e.name}() does not take ${describeType(t)}${t !== 'string' && fn.refuses!.includes('int') ? '; CAST(… AS VARCHAR) makes one a string' : ''}`, e.args[i]!.range);
    });
    if (e.name === 'named_struct') {
      if (args.length % 2) this.error('transformer-type', 'named_struct() takes pairs of a name and a value', e.range);
      for (let i = 0; i < e.args.length; i += 2) {
        const k = e.args[i]!;
        if (k.kind !== 'literal' || typeof k.value !== 'string') this.error('transformer-type', 'a member name of named_struct() is a string literal (\'name\')', k.range);
      }
    }
    return typeof fn.returns === 'string' ? fn.returns : fn.returns(args);
  }
}

/** Check a transformer's SQL (see the module comment). */
export function checkTransformerSql(text: string): CheckedTransformer {
  const parsed = parseTransformerSql(text);
  if ('diagnostic' in parsed) return { diagnostics: [parsed.diagnostic] };
  const { query } = parsed;
  const checker = new Checker(text);
  const tables = new Map<string, Columns>();
  const datasetOf = new Map<string, string>();
  let dataset: string | undefined;
  let fields: Columns | undefined;
  const resolve = (s: SqlSelect) => {
    const name = s.from.name;
    if (tables.has(name)) return datasetOf.get(name);
    const cols = datasetColumns(name);
    if (cols) {
      tables.set(name, cols);
      datasetOf.set(name, name);
      if (!dataset) { dataset = name; fields = cols; }
      return name;
    }
    return undefined;
  };
  for (const cte of query.ctes) {
    const ds = resolve(cte.select);
    const cols = checker.select(cte.select, tables);
    tables.set(cte.name, cols);
    if (ds) datasetOf.set(cte.name, ds);
  }
  const final = resolve(query.select);
  checker.select(query.select, tables);
  return {
    query,
    ...(final ?? dataset ? { dataset: final ?? dataset } : {}),
    ...(fields ? { fields } : {}),
    diagnostics: checker.diagnostics,
    ...(checker.notRunnable ? { notRunnable: checker.notRunnable } : {}),
  };
}
