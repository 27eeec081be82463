/**
 * Runs a checked transformer on one record, as the service's preview does: each `WITH` step, then the
 * final select; a record the `WHERE` of any step drops is `null`. SQL's rules: NULL (a missing field)
 * makes comparisons and most functions NULL, AND/OR/NOT are three-valued, only a true `WHERE` keeps the
 * record; integer division truncates; a failure (a cast of text that is not a number, division by zero)
 * is a {@link SqlRuntimeError}, as it fails the batch on the service.
 * @module
 */
import type { SqlExpr, SqlQuery, SqlSelect } from './transformer-ast.js';
import { FUNCTIONS, timestampPart } from './transformer-functions.js';
import { asText, isStruct, parseTimestamp, setOwn, SqlRuntimeError, SqlTimestamp, toJson, type SqlValue } from './transformer-values.js';

type Row = Map<string, SqlValue>;

/** Compare two non-null values: numbers as numbers (a numeric string too), timestamps in time, else text. */
function compare(a: SqlValue, b: SqlValue): number {
  if (a instanceof SqlTimestamp || b instanceof SqlTimestamp) {
    const ta = a instanceof SqlTimestamp ? a : parseTimestamp(String(a));
    const tb = b instanceof SqlTimestamp ? b : parseTimestamp(String(b));
    return ta.ns < tb.ns ? -1 : ta.ns > tb.ns ? 1 : 0;
  }
  if (typeof a === 'number' || typeof b === 'number') {
    const na = typeof a === 'number' ? a : Number(a);
    const nb = typeof b === 'number' ? b : Number(b);
    if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = asText(a)!;
  const sb = asText(b)!;
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** A LIKE pattern as a regular expression: `%` any run, `_` one character, `\` escapes the next. */
function likePattern(p: string, caseless: boolean): RegExp {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < p.length) re += p[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, caseless ? 'iu' : 'u');
}

function cast(v: SqlValue, type: string): SqlValue {
  if (v === null) return null;
  switch (type) {
    case 'string': return asText(v);
    case 'int': case 'float': {
      if (typeof v === 'boolean') return Number(v);
      if (v instanceof SqlTimestamp) return Number(v.ns);
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v.trim()) : NaN;
      if (Number.isNaN(n)) throw new SqlRuntimeError(`cannot cast ${JSON.stringify(asText(v)?.slice(0, 40))} to ${type === 'int' ? 'an integer' : 'a number'}`);
      if (type === 'int' && typeof v === 'string' && !Number.isInteger(n)) throw new SqlRuntimeError(`cannot cast ${JSON.stringify(v.slice(0, 40))} to an integer`);
      return type === 'int' ? Math.trunc(n) : n;
    }
    case 'bool': {
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number') return v !== 0;
      const s = String(asText(v)).trim().toLowerCase();
      if (['true', 't', 'yes', 'y', '1', 'on'].includes(s)) return true;
      if (['false', 'f', 'no', 'n', '0', 'off'].includes(s)) return false;
      throw new SqlRuntimeError(`cannot cast ${JSON.stringify(s.slice(0, 40))} to a boolean`);
    }
    default: // timestamp: text as RFC 3339, a number as nanoseconds (Arrow's cast of Int64 to Timestamp(ns))
      if (v instanceof SqlTimestamp) return v;
      if (typeof v === 'number') return new SqlTimestamp(BigInt(Math.trunc(v)));
      if (typeof v === 'string') return parseTimestamp(v);
      throw new SqlRuntimeError(`cannot cast ${describe(v)} to a timestamp`);
  }
}

const describe = (v: SqlValue) => (Array.isArray(v) ? 'an array' : isStruct(v) ? 'an object' : JSON.stringify(v));

/** `->`/`->>`: a member of an object (a JSON text is read first), or an array element (from 0, as JSON paths count). */
function member(v: SqlValue, key: SqlValue): SqlValue {
  if (v === null || key === null) return null;
  let o: SqlValue = v;
  if (typeof o === 'string') {
    try { o = JSON.parse(o) as SqlValue; } catch { return null; }
  }
  if (Array.isArray(o) && typeof key === 'number') return o[key] ?? null;
  if (isStruct(o) && typeof key === 'string') return Object.prototype.hasOwnProperty.call(o, key) ? o[key]! : null;
  return null;
}

function arith(op: string, a: SqlValue, b: SqlValue, floats = false): SqlValue {
  if (a === null || b === null) return null;
  const x = typeof a === 'number' ? a : Number(a);
  const y = typeof b === 'number' ? b : Number(b);
  if (Number.isNaN(x) || Number.isNaN(y) || typeof a === 'boolean' || typeof b === 'boolean') throw new SqlRuntimeError(`"${op}" takes numbers, not ${describe(Number.isNaN(x) ? a : b)}`);
  const ints = !floats && Number.isInteger(x) && Number.isInteger(y);
  switch (op) {
    case '+': return x + y;
    case '-': return x - y;
    case '*': return x * y;
    case '/':
      if (y === 0) throw new SqlRuntimeError('division by zero');
      return ints ? Math.trunc(x / y) : x / y;
    default:
      if (y === 0) throw new SqlRuntimeError('division by zero');
      return x % y;
  }
}

/**
 * Whether an operand is a Float64 whatever its value: JSON and JavaScript write 100.0 as 100, so integer
 * division (DataFusion's for two integers) is told from the expression: a float literal, a cast to a
 * float, or arithmetic over one.
 */
function isFloat(e: SqlExpr): boolean {
  if (e.kind === 'literal') return e.float === true;
  if (e.kind === 'cast') return e.type === 'float';
  if (e.kind === 'unary') return isFloat(e.operand);
  if (e.kind === 'binary' && ['+', '-', '*', '/', '%'].includes(e.op)) return isFloat(e.left) || isFloat(e.right);
  if (e.kind === 'extract') return e.field === 'epoch' || e.field === 'second';
  return false;
}

function evaluate(e: SqlExpr, row: Row): SqlValue {
  const ev = (x: SqlExpr) => evaluate(x, row);
  switch (e.kind) {
    case 'literal': return e.value;
    case 'column': return row.get(e.name) ?? null;
    case 'unary': {
      const v = ev(e.operand);
      if (v === null) return null;
      return e.op === 'NOT' ? !v : arith('-', 0, v);
    }
    case 'binary': {
      if (e.op === 'AND' || e.op === 'OR') {
        const l = ev(e.left);
        const r = ev(e.right);
        const stop = e.op === 'OR';
        if (l === stop || r === stop) return stop;
        return l === null || r === null ? null : !stop;
      }
      const l = ev(e.left);
      const r = ev(e.right);
      switch (e.op) {
        case '->': return member(l, r);
        case '->>': return asText(member(l, r));
        case '||': return l === null || r === null ? null : asText(l)! + asText(r)!;
        case '+': case '-': case '*': case '/': case '%': return arith(e.op, l, r, isFloat(e.left) || isFloat(e.right));
        default: {
          if (l === null || r === null) return null;
          const c = compare(l, r);
          return { '=': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[e.op];
        }
      }
    }
    case 'is': {
      const v = ev(e.operand);
      const hit = e.test === 'NULL' ? v === null : v === (e.test === 'TRUE');
      return e.negated ? !hit : hit;
    }
    case 'in': {
      const v = ev(e.operand);
      if (v === null) return null;
      let sawNull = false;
      for (const x of e.list) {
        const w = ev(x);
        if (w === null) sawNull = true;
        else if (compare(v, w) === 0) return !e.negated;
      }
      return sawNull ? null : e.negated;
    }
    case 'like': {
      const v = ev(e.operand);
      const p = ev(e.pattern);
      if (v === null || p === null) return null;
      const hit = likePattern(asText(p)!, e.caseless).test(asText(v)!);
      return e.negated ? !hit : hit;
    }
    case 'between': {
      const v = ev(e.operand);
      const lo = ev(e.low);
      const hi = ev(e.high);
      if (v === null || lo === null || hi === null) return null;
      const hit = compare(v, lo) >= 0 && compare(v, hi) <= 0;
      return e.negated ? !hit : hit;
    }
    case 'case': {
      const subject = e.operand ? ev(e.operand) : undefined;
      for (const b of e.branches) {
        const w = ev(b.when);
        const hit = e.operand ? subject !== null && w !== null && compare(subject!, w) === 0 : w === true;
        if (hit) return ev(b.then);
      }
      return e.otherwise ? ev(e.otherwise) : null;
    }
    case 'cast': return cast(ev(e.operand), e.type);
    case 'extract': return timestampPart(e.field, ev(e.operand));
    case 'array': return e.items.map(ev);
    case 'index': {
      const v = ev(e.operand);
      const i = ev(e.index);
      if (v === null || i === null) return null;
      // SQL arrays count from 1 (DataFusion's array[1] is the first element).
      if (Array.isArray(v) && typeof i === 'number') return v[i - 1] ?? null;
      if (isStruct(v) && typeof i === 'string') return Object.prototype.hasOwnProperty.call(v, i) ? v[i]! : null;
      return null;
    }
    case 'call': return FUNCTIONS[e.name]!.run(e.args.map(ev));
  }
}

function runSelect(s: SqlSelect, source: Row, text: string): Row | null {
  if (s.where && evaluate(s.where, source) !== true) return null;
  const out: Row = new Map();
  for (const item of s.items) {
    if (item.kind === 'star') for (const [k, v] of source) out.set(k, v);
    else out.set(item.alias ?? (item.expr.kind === 'column' ? item.expr.name : text.slice(item.expr.range.start, item.expr.range.end)), evaluate(item.expr, source));
  }
  return out;
}

/**
 * The record a checked, runnable query delivers for one input row (the dataset's fields, each read as
 * its type), or null when a `WHERE` drops it. Throws {@link SqlRuntimeError} when the query fails.
 */
export function runTransformerQuery(query: SqlQuery, text: string, input: Map<string, SqlValue>): Record<string, unknown> | null {
  const tables = new Map<string, Row | null>();
  const sourceOf = (name: string): Row | null => (tables.has(name) ? tables.get(name)! : input);
  for (const cte of query.ctes) {
    const src = sourceOf(cte.select.from.name);
    tables.set(cte.name, src === null ? null : runSelect(cte.select, src, text));
  }
  const src = sourceOf(query.select.from.name);
  const out = src === null ? null : runSelect(query.select, src, text);
  if (out === null) return null;
  const record: Record<string, SqlValue> = {};
  for (const [k, v] of out) setOwn(record, k, v);
  return toJson(record) as Record<string, unknown>;
}
