/**
 * Parse and check a Logpush filter string against a dataset: JSON syntax, document structure, field
 * names, the operator/field-type table, values, depth and limits. Every problem is a diagnostic with a
 * JSON pointer into the filter document and a range into the filter string; nothing throws.
 * @module
 */
import type { Diagnostic, Fix, Range } from '../diagnostics/index.js';
import type { Dataset, DatasetField, DatasetScope, FieldType } from './datasets/types.js';
import { getDataset, DATASET_NAMES, DATASETS_BY_SCOPE, UNFILTERABLE_FIELDS, UNFILTERABLE_TYPES, FILTER_LIMITATIONS_SOURCE } from './datasets/index.js';
import type { FilterClause, FilterGroup, FilterNode, FilterScalar, LogFilter } from './filter-ast.js';
import {
  ARRAY_ELEMENT, FIELD_TYPE_LABEL, FILTER_LIMITS, OPERATORS, OPERATOR_BY_NAME,
  OPERATOR_MISSPELLINGS, operatorSupports, type FilterOperator,
} from './operators.js';
import { childPointer, parseJsonText, utf8Length, type JsonDoc } from '../json/index.js';
import { describe, diag, hasOwn, isObject } from './diag.js';
import { suggest } from '../diagnostics/index.js';

/** Result of {@link checkLogFilter}. */
export interface CheckedFilter {
  diagnostics: Diagnostic[];
  /** The checked filter, present when there is no error. */
  filter?: LogFilter;
}

const CLAUSE_KEYS = ['key', 'operator', 'value'] as const;

/** The type a filter scalar is checked against: a field type, or the integer view of a timestamp field. */
type ScalarType = FieldType | 'timestamp_int';
/** Filters longer than this many times the byte limit (in UTF-16 code units) are rejected without parsing. */
const UNREAD_BEYOND = 4;
const INT_STRING = /^-?(0|[1-9][0-9]{0,15})$/;

/** An int value as the service accepts it: a safe integer, or a string of one. */
export function asInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && INT_STRING.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/**
 * An integer of a timestamp (`int or string`) field: unix nanoseconds pass 2^53, so any integral number
 * or string of up to 19 digits is accepted (compared as a double).
 */
export function asTimestampInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^-?(0|[1-9][0-9]{0,18})$/.test(v)) return Number(v);
  return undefined;
}

/** The replacement fix of a JSON value in the filter text. */
function replaceFix(title: string, range: Range | undefined, value: unknown): Fix | undefined {
  return range ? { title, edits: [{ range, newText: JSON.stringify(value) }] } : undefined;
}

/** Resolve an operator spelling: the operator itself, or the one a misspelling means. */
export function resolveOperator(op: string): { operator?: FilterOperator; exact: boolean } {
  if (OPERATOR_BY_NAME.has(op)) return { operator: op as FilterOperator, exact: true };
  const mis = OPERATOR_MISSPELLINGS.get(op) ?? OPERATOR_MISSPELLINGS.get(op.toLowerCase()) ?? OPERATOR_MISSPELLINGS.get(op.trim());
  if (mis) return { operator: mis, exact: false };
  const lower = op.trim().toLowerCase();
  for (const o of OPERATORS) if (o.name.toLowerCase() === lower) return { operator: o.name, exact: false };
  const near = suggest(op, OPERATORS.map((o) => o.name));
  if (near) return { operator: near as FilterOperator, exact: false };
  return { exact: false };
}

/** Group depth and operator count of an unchecked JSON value (bounded: the text's nesting was capped). */
function shape(v: unknown): { depth: number; operators: number } {
  if (!isObject(v)) return { depth: 0, operators: 0 };
  const kids = hasOwn(v, 'and') ? v['and'] : hasOwn(v, 'or') ? v['or'] : undefined;
  if (!Array.isArray(kids)) return { depth: kids === undefined ? 0 : 1, operators: 1 };
  let depth = 0;
  let operators = 1;
  for (const k of kids) {
    const s = shape(k);
    depth = Math.max(depth, s.depth);
    operators += s.operators;
  }
  return { depth: depth + 1, operators };
}

class Checker {
  readonly out: Diagnostic[] = [];
  operators = 0;
  private depthReported = false;

  constructor(
    private readonly doc: JsonDoc,
    private readonly dataset: Dataset | undefined,
  ) {}

  private vr(p: string): Range | undefined {
    return this.doc.valueRange(p);
  }

  private unknownKeys(o: Record<string, unknown>, pointer: string, allowed: readonly string[], where: string): void {
    for (const k of Object.keys(o)) {
      if (allowed.includes(k)) continue;
      const p = childPointer(pointer, k);
      const s = suggest(k, allowed);
      const kr = this.doc.keyRange(p);
      this.out.push(diag('filter-unknown-key', `Unknown key ${describe(k)} in ${where}; allowed: ${allowed.join(', ')}${s ? `. Did you mean "${s}"?` : ''}`, {
        pointer: p, range: kr ?? this.vr(p), data: { key: k, allowed: [...allowed], suggestion: s },
        fix: s ? replaceFix(`rename to "${s}"`, kr, s) : undefined,
      }));
    }
  }

  /** Check the document root; returns the `where` tree or undefined. */
  root(): FilterNode | undefined {
    const v = this.doc.value;
    for (const d of this.doc.duplicates) {
      this.out.push(diag('filter-duplicate-key', `Key ${describe(d.key)} appears twice in the same object; remove one`, { pointer: d.pointer, range: d.range }));
    }
    if (!isObject(v)) {
      this.out.push(diag('filter-not-object', `The filter must be a JSON object {"where": …}, not ${describe(v)}`, { pointer: '', range: this.vr('') }));
      return undefined;
    }
    this.unknownKeys(v, '', ['where'], 'the filter document');
    if (!hasOwn(v, 'where')) {
      this.out.push(diag('filter-missing-where', 'The filter has no "where" key; write {"where": <clause or and/or>}', { pointer: '', range: this.vr('') }));
      return undefined;
    }
    return this.node(v['where'], '/where', 0);
  }

  private node(v: unknown, pointer: string, depth: number): FilterNode | undefined {
    const range = this.vr(pointer);
    if (!isObject(v)) {
      this.out.push(diag('filter-not-object', `Expected a clause {"key","operator","value"} or an {"and"|"or": […]} object at ${pointer}, found ${describe(v)}`, { pointer, range }));
      return undefined;
    }
    const hasAnd = hasOwn(v, 'and');
    const hasOr = hasOwn(v, 'or');
    const clauseish = CLAUSE_KEYS.some((k) => hasOwn(v, k));
    if (hasAnd || hasOr) {
      if ((hasAnd && hasOr) || clauseish) {
        this.out.push(diag('filter-ambiguous-node', `The object at ${pointer} mixes ${[hasAnd && '"and"', hasOr && '"or"', clauseish && 'clause keys'].filter(Boolean).join(' and ')}; split it into separate objects`, { pointer, range }));
        return undefined;
      }
      return this.group(v, pointer, hasAnd ? 'and' : 'or', depth + 1);
    }
    if (!clauseish) {
      // Perhaps "AND"/"Or": suggest the group keys; otherwise report a clause with missing members.
      const groupish = Object.keys(v).find((k) => k.toLowerCase() === 'and' || k.toLowerCase() === 'or');
      if (groupish !== undefined) {
        this.unknownKeys(v, pointer, ['and', 'or'], `the group at ${pointer}`);
        return undefined;
      }
    }
    return this.clause(v, pointer);
  }

  private group(v: Record<string, unknown>, pointer: string, kind: 'and' | 'or', depth: number): FilterGroup | undefined {
    this.operators++;
    const range = this.vr(pointer);
    if (depth > FILTER_LIMITS.maxDepth) {
      // Not checked further, but measured: the deepest nesting and the operators below count.
      const below = shape(v);
      this.operators += below.operators - 1;
      if (!this.depthReported) {
        this.depthReported = true;
        const measured = depth - 1 + below.depth;
        this.out.push(diag('filter-depth-limit', `"and"/"or" nesting reaches ${measured} levels (from ${pointer}); the limit is ${FILTER_LIMITS.maxDepth}`, { pointer, range, data: { limit: FILTER_LIMITS.maxDepth, measured } }));
      }
      return undefined;
    }
    this.unknownKeys(v, pointer, [kind], `the "${kind}" group at ${pointer}`);
    const p = childPointer(pointer, kind);
    const arr = v[kind];
    if (!Array.isArray(arr)) {
      this.out.push(diag('filter-group-not-array', `"${kind}" at ${pointer} must be an array of clauses or groups, found ${describe(arr)}`, { pointer: p, range: this.vr(p) }));
      return undefined;
    }
    if (arr.length === 0) {
      this.out.push(diag('filter-empty-group', `"${kind}" at ${pointer} is empty; give it at least one clause`, { pointer: p, range: this.vr(p) }));
      return undefined;
    }
    const children: FilterNode[] = [];
    let ok = true;
    arr.forEach((c, i) => {
      const n = this.node(c, childPointer(p, i), depth);
      if (n) children.push(n);
      else ok = false;
    });
    if (!ok) return undefined;
    const g: FilterGroup = { kind, children, pointer };
    if (range) g.range = range;
    return g;
  }

  private clause(v: Record<string, unknown>, pointer: string): FilterClause | undefined {
    this.operators++;
    const range = this.vr(pointer);
    this.unknownKeys(v, pointer, CLAUSE_KEYS, `the clause at ${pointer}`);
    const missing = CLAUSE_KEYS.filter((k) => !hasOwn(v, k));
    if (missing.length > 0) {
      this.out.push(diag('filter-missing-member', `The clause at ${pointer} has no ${missing.map((m) => `"${m}"`).join(', ')}; a clause is {"key": <field>, "operator": <operator>, "value": <value>}`, { pointer, range, data: { missing } }));
    }
    let ok = missing.length === 0;
    // key
    let field: DatasetField | undefined;
    let unfilterable = false;
    const keyPtr = childPointer(pointer, 'key');
    const key = v['key'];
    if (hasOwn(v, 'key')) {
      if (typeof key !== 'string') {
        this.out.push(diag('filter-member-type', `"key" at ${pointer} must be a string naming a log field, found ${describe(key)}`, { pointer: keyPtr, range: this.vr(keyPtr) }));
        ok = false;
      } else if (this.dataset) {
        field = this.dataset.byName.get(key);
        if (!field) {
          const s = suggest(key, this.dataset.byName.keys());
          this.out.push(diag('filter-unknown-field', `${describe(key)} is not a field of ${this.dataset.name}${s ? `; did you mean "${s}"?` : ''}`, {
            pointer: keyPtr, range: this.vr(keyPtr), data: { key, dataset: this.dataset.name, suggestion: s },
            fix: s ? replaceFix(`replace with "${s}"`, this.vr(keyPtr), s) : undefined,
          }));
          ok = false;
        } else {
          unfilterable = this.fieldNotes(field, keyPtr);
        }
      }
    }
    // operator
    let op: FilterOperator | undefined;
    const opPtr = childPointer(pointer, 'operator');
    const rawOp = v['operator'];
    if (hasOwn(v, 'operator')) {
      if (typeof rawOp !== 'string') {
        this.out.push(diag('filter-member-type', `"operator" at ${pointer} must be a string (one of ${OPERATORS.map((o) => o.name).join(', ')}), found ${describe(rawOp)}`, { pointer: opPtr, range: this.vr(opPtr) }));
        ok = false;
      } else {
        const r = resolveOperator(rawOp);
        if (r.exact) op = r.operator;
        else if (r.operator) {
          op = r.operator;
          ok = false;
          this.out.push(diag('filter-misspelt-operator', `${describe(rawOp)} is not a Logpush operator; the operator for "${OPERATOR_BY_NAME.get(r.operator)!.meaning.toLowerCase()}" is "${r.operator}"`, {
            pointer: opPtr, range: this.vr(opPtr), data: { operator: rawOp, meant: r.operator },
            fix: replaceFix(`replace with "${r.operator}"`, this.vr(opPtr), r.operator),
          }));
        } else {
          ok = false;
          this.out.push(diag('filter-unknown-operator', `${describe(rawOp)} is not a Logpush operator; use one of ${OPERATORS.map((o) => o.name).join(', ')}`, { pointer: opPtr, range: this.vr(opPtr), data: { operator: rawOp } }));
        }
      }
    }
    if (!this.dataset && op && hasOwn(v, 'value')) this.untypedValue(v['value'], childPointer(pointer, 'value'), op);
    if (!field || !op || !hasOwn(v, 'value')) return undefined;
    // operator × field type; the filtering-limitations note takes some types out whatever the operator.
    if (UNFILTERABLE_TYPES.has(field.type)) {
      this.out.push(diag('filter-object-field', `${field.name} is an ${FIELD_TYPE_LABEL[field.type]} field; the public docs say filtering is not supported on ${[...UNFILTERABLE_TYPES].map((t) => FIELD_TYPE_LABEL[t]).join(' or ')} fields (${LIMITATIONS_PAGE})`, { pointer: keyPtr, range: this.vr(keyPtr), data: { key: field.name, type: field.type } }));
      return undefined;
    }
    if (field.type === 'float') {
      this.out.push(diag('filter-float-field', `${field.name} is a float field; no Logpush operator supports float fields`, { pointer: keyPtr, range: this.vr(keyPtr), data: { key: field.name, type: field.type } }));
      return undefined;
    }
    if (!operatorSupports(op, field.type)) {
      const usable = OPERATORS.filter((o) => operatorSupports(o.name, field!.type)).map((o) => o.name);
      this.out.push(diag('filter-operator-type', `"${op}" does not apply to ${field.name}, ${/^[aeiou]/.test(FIELD_TYPE_LABEL[field.type]) ? 'an' : 'a'} ${FIELD_TYPE_LABEL[field.type]} field; operators for it: ${usable.join(', ')}`, {
        pointer: opPtr, range: this.vr(opPtr), data: { operator: op, key: field.name, type: field.type, usable },
      }));
      return undefined;
    }
    const operand = this.value(v['value'], childPointer(pointer, 'value'), field, op);
    if (operand === undefined || !ok || unfilterable) return undefined;
    const c: FilterClause = { kind: 'clause', key: field.name, operator: op, value: v['value'] as FilterScalar | FilterScalar[], fieldType: field.type, operand, pointer };
    if (range) c.range = range;
    return c;
  }

  /** Notes on a field of the dataset; true when the limitations note excludes it (the clause is then not built). */
  private fieldNotes(field: DatasetField, keyPtr: string): boolean {
    const ds = this.dataset!;
    const unfilterable = UNFILTERABLE_FIELDS.get(ds.name)?.has(field.name) === true;
    if (unfilterable) {
      this.out.push(diag('filter-unfilterable-field', `The public docs say filtering is not supported on ${field.name} of ${ds.name} (${LIMITATIONS_PAGE})`, { pointer: keyPtr, range: this.vr(keyPtr), data: { key: field.name, dataset: ds.name } }));
    }
    if (field.deprecated) {
      this.out.push(diag('filter-deprecated-field', `${field.name} is deprecated in ${ds.name}`, { pointer: keyPtr, range: this.vr(keyPtr), data: { key: field.name } }));
    }
    return unfilterable;
  }

  /**
   * The value of a clause whose field type is unknown (the dataset is not catalogued): only what the
   * operator alone decides, an array for `in`/`!in` and a scalar otherwise, each element a scalar.
   */
  private untypedValue(v: unknown, ptr: string, op: FilterOperator): void {
    const info = OPERATOR_BY_NAME.get(op)!;
    const range = this.vr(ptr);
    const scalar = (x: unknown) => typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x));
    if (info.arrayValue && !Array.isArray(v)) {
      this.out.push(diag('filter-value-not-array', `"${op}" takes an array of values, not ${describe(v)}`, {
        pointer: ptr, range, fix: scalar(v) ? replaceFix('wrap the value in an array', range, [v]) : undefined,
      }));
    } else if (info.arrayValue && Array.isArray(v)) {
      v.forEach((e, i) => {
        const p = childPointer(ptr, i);
        if (!scalar(e)) this.out.push(diag('filter-array-element-type', `Element ${describe(e)} at ${p} is not a string, number or boolean`, { pointer: p, range: this.vr(p) }));
      });
    } else if (!scalar(v)) {
      this.out.push(diag('filter-value-type', `Value ${describe(v)} at ${ptr} is not a string, number or boolean; "${op}" compares with one value`, { pointer: ptr, range }));
    }
  }

  /** Check a value against the field type and operator; returns the normalized operand. */
  private value(v: unknown, ptr: string, field: DatasetField, op: FilterOperator): FilterScalar | FilterScalar[] | undefined {
    const info = OPERATOR_BY_NAME.get(op)!;
    const range = this.vr(ptr);
    // The scalar type values must have: the element type on array fields, the field's own otherwise.
    // The scalar type values must have: the element type on array fields; on a timestamp (`int or string`)
    // field, what the operator's kind needs (ordering → integer, startsWith & co. → string); else the field's.
    let elem: ScalarType = ARRAY_ELEMENT[field.type] ?? (field.type as ScalarType);
    if (field.type === 'int_or_string') {
      if (info.kinds.length === 1 && info.kinds[0] === 'int') elem = 'timestamp_int';
      else if (!info.kinds.includes('int')) elem = 'string';
    }
    if (info.arrayValue) {
      if (!Array.isArray(v)) {
        const wrapped = this.scalar(v, elem, undefined, true);
        this.out.push(diag('filter-value-not-array', `"${op}" takes an array of values; ${field.name} got ${describe(v)}`, {
          pointer: ptr, range, fix: wrapped !== undefined ? replaceFix('wrap the value in an array', range, [v]) : undefined,
        }));
        return undefined;
      }
      if (v.length === 0) {
        this.out.push(diag('filter-empty-array', op === 'in' ? `"in []" on ${field.name} never matches` : `"!in []" on ${field.name} matches every line that has the field`, { pointer: ptr, range }));
      }
      const out: FilterScalar[] = [];
      let ok = true;
      v.forEach((e, i) => {
        const n = this.scalar(e, elem, childPointer(ptr, i), false, field, true);
        if (n === undefined) ok = false;
        else out.push(n);
      });
      return ok ? out : undefined;
    }
    return this.scalar(v, elem, ptr, false, field);
  }

  /** Check one scalar against a scalar type; report unless `quiet`. */
  private scalar(v: unknown, type: ScalarType, ptr: string | undefined, quiet: boolean, field?: DatasetField, element = false): FilterScalar | undefined {
    let r: FilterScalar | undefined;
    let want = '';
    let fix: unknown;
    switch (type) {
      case 'int':
        r = asInt(v);
        want = 'an integer (or a string of digits)';
        if (r === undefined && typeof v === 'number' && Number.isFinite(v)) fix = Math.trunc(v);
        if (r !== undefined && typeof v === 'string' && !quiet && ptr !== undefined) {
          const range = this.vr(ptr);
          this.out.push(diag('filter-value-string', `${element ? 'Element' : 'Value'} ${describe(v)} at ${ptr} is a string; ${field ? field.name : 'the field'} is an int field: the service reads it as ${r}, but write the number ${r}`, {
            pointer: ptr, range, fix: replaceFix(`replace with ${r}`, range, r),
          }));
        }
        break;
      case 'string':
        if (typeof v === 'string') r = v;
        want = 'a string';
        if (typeof v === 'number' || typeof v === 'boolean') fix = String(v);
        break;
      case 'bool':
        if (typeof v === 'boolean') r = v;
        want = 'true or false';
        if (v === 'true' || v === 'false') fix = v === 'true';
        break;
      case 'int_or_string':
        r = asTimestampInt(v) ?? (typeof v === 'string' ? v : undefined);
        want = 'an integer or a string';
        break;
      case 'timestamp_int':
        r = asTimestampInt(v);
        want = 'an integer (or a string of digits) for this operator';
        break;
      default:
        break;
    }
    if (r === undefined && !quiet && ptr !== undefined) {
      const range = this.vr(ptr);
      const name = field ? field.name : 'the field';
      this.out.push(diag(element ? 'filter-array-element-type' : 'filter-value-type', `${element ? 'Element' : 'Value'} ${describe(v)} at ${ptr} does not fit ${name} (${field ? FIELD_TYPE_LABEL[field.type] : type}): expected ${want}`, {
        pointer: ptr, range, data: { expected: type, got: v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v },
        fix: fix !== undefined ? replaceFix(`replace with ${JSON.stringify(fix)}`, range, fix) : undefined,
      }));
    }
    return r;
  }
}

/** Options of {@link checkLogFilter}. */
export interface CheckFilterOptions {
  /** The job's dataset (`http_requests`, …). */
  dataset: string;
  /**
   * The job's scope, for a name both scopes offer with different fields (`firewall_events`,
   * `websocket_analytics`). A dataset only the other scope has is still checked against that catalog
   * (job validation reports the scope).
   */
  scope?: DatasetScope;
}

const LIMITATIONS_PAGE = FILTER_LIMITATIONS_SOURCE.path.replace(/^.*\//, '');

/** The catalogued datasets, by scope, for messages. */
function datasetList(): string {
  return (['zone', 'account'] as const).map((s) => `${s}: ${[...DATASETS_BY_SCOPE[s].keys()].join(', ')}`).join('; ');
}

/**
 * Parse and check a filter string. Returns every diagnostic (pointer into the filter document, range into
 * `text`) and, when there is no error, the checked filter.
 */
export function checkLogFilter(text: string, options: CheckFilterOptions): CheckedFilter {
  const out: Diagnostic[] = [];
  if (typeof text !== 'string') {
    out.push(diag('filter-invalid-json', `The filter must be a string holding a JSON document, not ${describe(text)}`, { pointer: '' }));
    return { diagnostics: out };
  }
  const datasetName = options?.dataset;
  const dataset = typeof datasetName === 'string' ? getDataset(datasetName, options?.scope) ?? getDataset(datasetName) : undefined;
  if (!dataset) {
    // The rest is still checked: structure, operators, the values' shape, the limits.
    const s = typeof datasetName === 'string' ? suggest(datasetName, DATASET_NAMES) : undefined;
    out.push(diag('filter-unknown-dataset', `Unknown dataset ${describe(datasetName)}.${s ? ` Did you mean "${s}"?` : ''} The catalogued datasets are ${datasetList()}. Fields and value types were not checked`, { data: { dataset: datasetName, suggestion: s, known: [...DATASET_NAMES] } }));
  }
  // A UTF-8 encoding has at least one byte per UTF-16 code unit, so a text longer than the limit in code
  // units is over it whatever it holds. Up to a few times the limit the whole filter is still checked (one
  // answer names every problem); beyond that it is rejected unread, so a 10 MB filter costs no more than
  // a 4 KB one.
  if (text.length > FILTER_LIMITS.maxBytes * UNREAD_BEYOND) {
    out.push(
      diag('filter-size-limit', `The filter is at least ${text.length} bytes (${text.length} characters); the limit is ${FILTER_LIMITS.maxBytes} bytes (UTF-8)`, {
        pointer: '', range: { start: FILTER_LIMITS.maxBytes, end: text.length }, data: { limit: FILTER_LIMITS.maxBytes, measured: text.length, lowerBound: true },
      }),
    );
    return { diagnostics: out };
  }
  const bytes = utf8Length(text);
  if (bytes > FILTER_LIMITS.maxBytes) {
    out.push(diag('filter-size-limit', `The filter is ${bytes} bytes; the limit is ${FILTER_LIMITS.maxBytes} bytes (UTF-8)`, { pointer: '', range: { start: 0, end: text.length }, data: { limit: FILTER_LIMITS.maxBytes, measured: bytes } }));
  }
  const { doc, errors } = parseJsonText(text, FILTER_LIMITS.maxJsonDepth);
  if (!doc) {
    for (const e of errors) {
      if (e.tooDeep) {
        out.push(diag('filter-depth-limit', `The filter nests ${e.depth} levels of JSON; "and"/"or" nesting is capped at ${FILTER_LIMITS.maxDepth} levels`, { pointer: '', range: e.range, data: { limit: FILTER_LIMITS.maxDepth, measured: e.depth } }));
      } else {
        out.push(diag('filter-invalid-json', `The filter is not valid JSON: ${e.message} at offset ${e.range.start}`, { pointer: '', range: e.range }));
      }
    }
    return { diagnostics: out };
  }
  const checker = new Checker(doc, dataset);
  const where = checker.root();
  out.push(...checker.out);
  if (checker.operators > FILTER_LIMITS.maxOperators) {
    out.push(diag('filter-operator-limit', `The filter has ${checker.operators} operators (clauses plus and/or); the limit is ${FILTER_LIMITS.maxOperators}`, { pointer: '', range: doc.valueRange(''), data: { limit: FILTER_LIMITS.maxOperators, measured: checker.operators } }));
  }
  if (!where || !dataset || out.some((d) => d.severity === 'error')) return { diagnostics: out };
  return { diagnostics: out, filter: { dataset: dataset.name, where, operatorCount: checker.operators, bytes } };
}

