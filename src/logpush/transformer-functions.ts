/**
 * The scalar functions of transformer SQL, one row each: arity, the argument kinds it refuses, what it
 * returns and how it runs. Names the dialect has that the reference server does not run (regular
 * expressions in Rust's syntax, clocks, hashes: the module stays browser-safe…) are listed apart: a query naming one is
 * stored, and its preview answers that it cannot be run here. Aggregates and window functions are what
 * the docs list as not supported.
 * @module
 */
import { asText, isStruct, parseTimestamp, setOwn, SqlRuntimeError, SqlTimestamp, type SqlValue } from './transformer-values.js';

/** What an expression's value is known to be before it runs (`any`: unknown, a JSON member). */
export type SqlType = 'string' | 'int' | 'float' | 'bool' | 'timestamp' | 'array' | 'object' | 'any';
export type { SqlType as TransformerValueKind };

export interface SqlFunction {
  min: number;
  max: number;
  /** The argument kinds the function refuses (checked when an argument's kind is known). */
  refuses?: readonly SqlType[];
  returns: SqlType | ((args: SqlType[]) => SqlType);
  run: (args: SqlValue[]) => SqlValue;
}

const NOT_TEXT: readonly SqlType[] = ['int', 'float', 'bool', 'array', 'object', 'timestamp'];
const NOT_NUMBER: readonly SqlType[] = ['string', 'bool', 'array', 'object', 'timestamp'];

/** The function on its arguments, NULL when any is NULL (SQL's rule for most scalar functions). */
const strict = (fn: (args: SqlValue[]) => SqlValue) => (args: SqlValue[]) => (args.some((a) => a === null) ? null : fn(args));
const text = (v: SqlValue): string => asText(v) ?? '';
const num = (v: SqlValue): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isNaN(n)) throw new SqlRuntimeError(`${JSON.stringify(v)} is not a number`);
  return n;
};
const string1 = (fn: (s: string) => SqlValue): SqlFunction => ({ min: 1, max: 1, refuses: NOT_TEXT, returns: 'string', run: strict(([s]) => fn(text(s!))) });
const number1 = (fn: (n: number) => number): SqlFunction => ({ min: 1, max: 1, refuses: NOT_NUMBER, returns: (a) => (a[0] === 'int' ? 'int' : 'float'), run: strict(([n]) => fn(num(n!))) });
const chars = (s: string) => [...s];

/** A timestamp from a string (RFC 3339) or a number of `unit` since the epoch (to_timestamp's seconds). */
function timestampOf(v: SqlValue, unitNs: bigint): SqlTimestamp {
  if (v instanceof SqlTimestamp) return v;
  if (typeof v === 'string') return parseTimestamp(v);
  if (typeof v === 'number') return new SqlTimestamp(Number.isInteger(v) ? BigInt(v) * unitNs : BigInt(Math.round(v * Number(unitNs))));
  throw new SqlRuntimeError(`${JSON.stringify(v)} is not a timestamp`);
}
const toTimestamp = (unitNs: bigint): SqlFunction => ({ min: 1, max: 1, refuses: ['bool', 'array', 'object'], returns: 'timestamp', run: strict(([v]) => timestampOf(v!, unitNs)) });

/** A part of a timestamp, as `extract(part FROM ts)` and `date_part('part', ts)` answer it. */
export function timestampPart(part: string, v: SqlValue): SqlValue {
  if (v === null) return null;
  const ts = timestampOf(v, 1_000_000_000n);
  const d = new Date(Number(ts.ns / 1_000_000n));
  const frac = Number(((ts.ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n);
  switch (part) {
    case 'epoch': return Number(ts.ns) / 1e9;
    case 'year': return d.getUTCFullYear();
    case 'quarter': return Math.floor(d.getUTCMonth() / 3) + 1;
    case 'month': return d.getUTCMonth() + 1;
    case 'day': return d.getUTCDate();
    case 'hour': return d.getUTCHours();
    case 'minute': return d.getUTCMinutes();
    case 'second': return d.getUTCSeconds() + frac / 1e9;
    case 'millisecond': return d.getUTCSeconds() * 1e3 + frac / 1e6;
    case 'microsecond': return d.getUTCSeconds() * 1e6 + frac / 1e3;
    case 'nanosecond': return d.getUTCSeconds() * 1e9 + frac;
    case 'dow': return d.getUTCDay();
    case 'doy': return Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
    default: throw new SqlRuntimeError(`extract does not know the part ${JSON.stringify(part)}`);
  }
}

/** The parts `extract` takes. */
export const TIMESTAMP_PARTS = ['epoch', 'year', 'quarter', 'month', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond', 'dow', 'doy'] as const;

/** Compare for greatest/least: numbers as numbers, the rest as text. */
const order = (a: SqlValue, b: SqlValue) => (typeof a === 'number' && typeof b === 'number' ? a - b : text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0);

export const FUNCTIONS: Readonly<Record<string, SqlFunction>> = {
  upper: string1((s) => s.toUpperCase()),
  lower: string1((s) => s.toLowerCase()),
  initcap: string1((s) => s.toLowerCase().replace(/(^|[^A-Za-z0-9])([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase())),
  trim: string1((s) => s.trim()),
  btrim: string1((s) => s.trim()),
  ltrim: string1((s) => s.trimStart()),
  rtrim: string1((s) => s.trimEnd()),
  reverse: string1((s) => chars(s).reverse().join('')),
  length: { min: 1, max: 1, refuses: NOT_TEXT, returns: 'int', run: strict(([s]) => chars(text(s!)).length) },
  char_length: { min: 1, max: 1, refuses: NOT_TEXT, returns: 'int', run: strict(([s]) => chars(text(s!)).length) },
  character_length: { min: 1, max: 1, refuses: NOT_TEXT, returns: 'int', run: strict(([s]) => chars(text(s!)).length) },
  concat: { min: 1, max: 64, returns: 'string', run: (args) => args.map((a) => asText(a) ?? '').join('') },
  concat_ws: { min: 2, max: 64, returns: 'string', run: ([sep, ...rest]) => (sep === null ? null : rest.filter((a) => a !== null).map(text).join(text(sep!))) },
  coalesce: { min: 1, max: 64, returns: (a) => a.find((t) => t !== 'any') ?? 'any', run: (args) => args.find((a) => a !== null) ?? null },
  nvl: { min: 2, max: 2, returns: (a) => a[0]!, run: ([a, b]) => (a !== null ? a! : b!) },
  ifnull: { min: 2, max: 2, returns: (a) => a[0]!, run: ([a, b]) => (a !== null ? a! : b!) },
  nullif: { min: 2, max: 2, returns: (a) => a[0]!, run: ([a, b]) => (a !== null && b !== null && asText(a) === asText(b) ? null : a!) },
  greatest: { min: 1, max: 64, returns: (a) => a[0]!, run: (args) => args.filter((a) => a !== null).reduce<SqlValue>((m, a) => (m === null || order(a, m) > 0 ? a : m), null) },
  least: { min: 1, max: 64, returns: (a) => a[0]!, run: (args) => args.filter((a) => a !== null).reduce<SqlValue>((m, a) => (m === null || order(a, m) < 0 ? a : m), null) },
  substr: { min: 2, max: 3, refuses: ['array', 'object'], returns: 'string', run: strict(([s, start, len]) => substr(text(s!), num(start!), len === undefined ? undefined : num(len))) },
  substring: { min: 2, max: 3, refuses: ['array', 'object'], returns: 'string', run: strict(([s, start, len]) => substr(text(s!), num(start!), len === undefined ? undefined : num(len))) },
  left: { min: 2, max: 2, returns: 'string', run: strict(([s, n]) => { const c = chars(text(s!)); const k = num(n!); return (k < 0 ? c.slice(0, k) : c.slice(0, k)).join(''); }) },
  right: { min: 2, max: 2, returns: 'string', run: strict(([s, n]) => { const c = chars(text(s!)); const k = num(n!); return (k < 0 ? c.slice(-k) : c.slice(Math.max(0, c.length - k))).join(''); }) },
  replace: { min: 3, max: 3, refuses: NOT_TEXT, returns: 'string', run: strict(([s, from, to]) => text(s!).split(text(from!)).join(text(to!))) },
  repeat: { min: 2, max: 2, returns: 'string', run: strict(([s, n]) => text(s!).repeat(Math.max(0, Math.min(num(n!), 10_000)))) },
  split_part: { min: 3, max: 3, returns: 'string', run: strict(([s, d, n]) => { const parts = text(s!).split(text(d!)); const k = num(n!); if (k === 0) throw new SqlRuntimeError('split_part: the position must not be zero'); return (k > 0 ? parts[k - 1] : parts[parts.length + k]) ?? ''; }) },
  strpos: { min: 2, max: 2, returns: 'int', run: strict(([s, sub]) => { const i = text(s!).indexOf(text(sub!)); return i < 0 ? 0 : chars(text(s!).slice(0, i)).length + 1; }) },
  starts_with: { min: 2, max: 2, refuses: NOT_TEXT, returns: 'bool', run: strict(([s, p]) => text(s!).startsWith(text(p!))) },
  ends_with: { min: 2, max: 2, refuses: NOT_TEXT, returns: 'bool', run: strict(([s, p]) => text(s!).endsWith(text(p!))) },
  abs: number1(Math.abs),
  floor: number1(Math.floor),
  ceil: number1(Math.ceil),
  round: { min: 1, max: 2, refuses: NOT_NUMBER, returns: 'float', run: strict(([n, d]) => { const p = 10 ** (d === undefined ? 0 : num(d)); return Math.sign(num(n!)) * Math.round(Math.abs(num(n!)) * p) / p; }) },
  to_timestamp: toTimestamp(1_000_000_000n),
  to_timestamp_seconds: toTimestamp(1_000_000_000n),
  to_timestamp_millis: toTimestamp(1_000_000n),
  to_timestamp_micros: toTimestamp(1_000n),
  to_timestamp_nanos: toTimestamp(1n),
  to_unixtime: { min: 1, max: 1, refuses: ['bool', 'array', 'object'], returns: 'int', run: strict(([v]) => Number(timestampOf(v!, 1_000_000_000n).ns / 1_000_000_000n)) },
  date_part: { min: 2, max: 2, returns: 'float', run: strict(([p, v]) => timestampPart(text(p!).toLowerCase(), v!)) },
  named_struct: {
    min: 2, max: 128, returns: 'object',
    run: (args) => {
      if (args.length % 2) throw new SqlRuntimeError('named_struct takes pairs of a name and a value');
      const out: Record<string, SqlValue> = {};
      for (let i = 0; i < args.length; i += 2) setOwn(out, text(args[i]!), args[i + 1]!);
      return out;
    },
  },
  make_array: { min: 0, max: 128, returns: 'array', run: (args) => args },
  array_length: { min: 1, max: 1, refuses: ['string', 'int', 'float', 'bool', 'object', 'timestamp'], returns: 'int', run: strict(([a]) => (Array.isArray(a) ? a.length : null)) },
  cardinality: { min: 1, max: 1, refuses: ['string', 'int', 'float', 'bool', 'object', 'timestamp'], returns: 'int', run: strict(([a]) => (Array.isArray(a) ? a.length : null)) },
  array_to_string: { min: 2, max: 2, returns: 'string', run: strict(([a, sep]) => (Array.isArray(a) ? a.filter((x) => x !== null).map(text).join(text(sep!)) : null)) },
  array_join: { min: 2, max: 2, returns: 'string', run: strict(([a, sep]) => (Array.isArray(a) ? a.filter((x) => x !== null).map(text).join(text(sep!)) : null)) },
  string_to_array: { min: 2, max: 2, returns: 'array', run: strict(([s, sep]) => text(s!).split(text(sep!))) },
  array_has: { min: 2, max: 2, returns: 'bool', run: strict(([a, x]) => (Array.isArray(a) ? a.some((e) => asText(e) === asText(x!)) : null)) },
  array_contains: { min: 2, max: 2, returns: 'bool', run: strict(([a, x]) => (Array.isArray(a) ? a.some((e) => asText(e) === asText(x!)) : null)) },
  get_field: { min: 2, max: 2, returns: 'any', run: strict(([o, k]) => (isStruct(o!) ? o[text(k!)] ?? null : null)) },
};

function substr(s: string, start: number, len: number | undefined): string {
  // SQL positions count from 1; a start before 1 eats into the length, as in PostgreSQL and DataFusion.
  const c = chars(s);
  const from = Math.max(start, 1);
  const to = len === undefined ? c.length + 1 : start + len;
  if (len !== undefined && len < 0) throw new SqlRuntimeError('substr: the length must not be negative');
  return c.slice(from - 1, Math.max(from - 1, to - 1)).join('');
}

/**
 * Functions of the dialect (DataFusion's, which Pipelines SQL is) that the reference server does not
 * run: a query naming one is stored, its preview answered 501. `unnest` makes several records of one.
 */
export const NOT_RUN_FUNCTIONS: ReadonlySet<string> = new Set([
  'unnest', 'regexp_replace', 'regexp_match', 'regexp_like', 'regexp_count', 'now', 'current_date', 'current_time', 'current_timestamp', 'random', 'uuid',
  'date_trunc', 'datetrunc', 'date_bin', 'date_format', 'to_char', 'to_date', 'to_local_time', 'from_unixtime', 'make_date', 'datepart',
  'md5', 'sha224', 'sha256', 'sha384', 'sha512', 'digest', 'translate', 'overlay', 'levenshtein', 'lpad', 'rpad', 'to_hex', 'chr', 'ascii', 'bit_length', 'octet_length',
  'substr_index', 'find_in_set', 'instr', 'position', 'power', 'pow', 'sqrt', 'cbrt', 'exp', 'ln', 'log', 'log2', 'log10', 'trunc', 'signum', 'pi',
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'degrees', 'radians', 'gcd', 'lcm', 'factorial', 'nanvl', 'nvl2',
  'array_append', 'array_prepend', 'array_concat', 'array_distinct', 'array_element', 'array_has_all', 'array_has_any', 'array_position', 'array_remove',
  'array_slice', 'array_sort', 'flatten', 'range', 'map', 'map_extract', 'map_keys', 'map_values', 'arrow_typeof', 'struct',
  'json_get', 'json_get_str', 'json_get_int', 'json_get_float', 'json_get_bool', 'json_get_json', 'json_as_text', 'json_length', 'json_contains',
]);

/** Aggregate and window functions: not supported by transformers (each record is transformed on its own). */
export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set([
  'count', 'sum', 'avg', 'mean', 'min', 'max', 'array_agg', 'string_agg', 'first_value', 'last_value', 'median', 'stddev', 'stddev_pop', 'var', 'var_pop',
  'bool_and', 'bool_or', 'approx_distinct', 'approx_percentile_cont', 'row_number', 'rank', 'dense_rank', 'percent_rank', 'lag', 'lead', 'ntile', 'nth_value', 'cume_dist',
]);
