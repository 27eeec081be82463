/**
 * Logpush transformers (developers.cloudflare.com/logs/logpush/transformers): one SQL query run on each
 * record before delivery. `checkTransformer` validates a query as the service does before saving it;
 * `previewTransformer` runs it on one record as `POST …/logpush/transformers/preview` does.
 * Parser: transformer-parse.ts; checks: transformer-check.ts; evaluation: transformer-eval.ts; functions:
 * transformer-functions.ts.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { diag, describe, isObject } from './diag.js';
import { checkTransformerSql, type CheckedTransformer, type Columns } from './transformer-check.js';
import { runTransformerQuery } from './transformer-eval.js';
import type { SqlType } from './transformer-functions.js';
import { SqlRuntimeError, type SqlValue } from './transformer-values.js';

export type { CheckedTransformer } from './transformer-check.js';

/** Largest query in characters: the API schema's `maxLength` of `code` and `sql` (32 KB). */
export const MAX_TRANSFORMER_SQL = 32_768;

/** Validate a transformer's SQL: diagnostics (errors refuse it), its dataset, and whether it can run here. */
export function checkTransformer(sql: string): CheckedTransformer {
  if (sql.length > MAX_TRANSFORMER_SQL) {
    return { diagnostics: [diag('transformer-too-large', `the query is ${sql.length} characters; the limit is ${MAX_TRANSFORMER_SQL}`, { data: { limit: MAX_TRANSFORMER_SQL, size: sql.length } })] };
  }
  return checkTransformerSql(sql);
}

/** What a preview answers. */
export type TransformerPreview =
  /** The delivered record, or null when the query drops it; warnings about the input. */
  | { output: Record<string, unknown> | null; diagnostics: Diagnostic[] }
  /** The query is refused (as at save), or it failed on this record. */
  | { errors: Diagnostic[] }
  /** The query is valid but uses what this implementation does not run. */
  | { notRunnable: { reason: string; range: Range } };

/** Whether a JSON value is one the field's kind holds (a value of another kind is read as NULL). */
function fits(v: unknown, t: SqlType): boolean {
  switch (t) {
    case 'string': return typeof v === 'string';
    case 'int': return typeof v === 'number' && Number.isInteger(v);
    case 'float': return typeof v === 'number';
    case 'bool': return typeof v === 'boolean';
    case 'array': return Array.isArray(v);
    case 'object': return isObject(v);
    default: return typeof v === 'string' || typeof v === 'number'; // a timestamp: RFC 3339 text or a Unix number
  }
}

/** The input record as the dataset's row: each field read as its type; other members are not columns. */
function inputRow(input: Record<string, unknown>, fields: Columns, pointer: string): { row: Map<string, SqlValue>; diagnostics: Diagnostic[] } {
  const row = new Map<string, SqlValue>();
  const diagnostics: Diagnostic[] = [];
  for (const [name, type] of fields) {
    if (!Object.prototype.hasOwnProperty.call(input, name)) continue;
    const v = input[name];
    if (v === null || fits(v, type)) row.set(name, (v ?? null) as SqlValue);
    else diagnostics.push(diag('transformer-input-type', `${name} is ${type === 'any' ? 'a timestamp (a string or a number)' : `of type ${type}`}, not ${describe(v)}: it is read as NULL`, { pointer: `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` }));
  }
  return { row, diagnostics };
}

/**
 * Run `sql` on one input record (`inputPointer`: where the record is in the request, for warnings).
 * The query is checked first, as the service checks it.
 */
export function previewTransformer(sql: string, input: unknown, inputPointer = '/input'): TransformerPreview {
  const checked = checkTransformer(sql);
  if (checked.diagnostics.some((d) => d.severity === 'error')) return { errors: checked.diagnostics };
  if (checked.notRunnable) return { notRunnable: checked.notRunnable };
  if (!isObject(input)) return { errors: [diag('transformer-input-type', `the input is one log record, a JSON object, not ${describe(input)}`, { pointer: inputPointer })] };
  const { row, diagnostics } = inputRow(input, checked.fields ?? new Map(), inputPointer);
  try {
    return { output: runTransformerQuery(checked.query!, sql, row), diagnostics };
  } catch (e) {
    if (e instanceof SqlRuntimeError) return { errors: [diag('transformer-runtime-error', `the query failed on this record: ${e.message}`)] };
    throw e;
  }
}
