/**
 * Custom log fields (zone phase `http_log_custom_fields`): validation of a `log_custom_field` rule and of a
 * zone's rules together (the 40-field limit over request, response and cookie fields).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { childPointer } from '../json/index.js';
import { describe, diag, hasOwn, isObject } from './diag.js';
import { suggest } from '../diagnostics/index.js';

/** The three arrays of `action_parameters`, and what each names. */
export const CUSTOM_FIELD_ARRAYS = {
  request_fields: { object: 'RequestHeaders', kind: 'header' },
  response_fields: { object: 'ResponseHeaders', kind: 'header' },
  cookie_fields: { object: 'Cookies', kind: 'cookie' },
} as const;

/** A name of one of the three arrays. */
export type CustomFieldArray = keyof typeof CUSTOM_FIELD_ARRAYS;

/** The limits of custom log fields (docs/logpush.md: the service's limits). */
export const CUSTOM_FIELD_LIMITS = {
  /** Fields per zone over the three arrays. */
  maxFields: 40,
  /** Bytes of values per object of a log line. */
  maxObjectBytes: 8192,
} as const;

/** The action and expression a custom field rule has. */
export const CUSTOM_FIELD_ACTION = 'log_custom_field';

/** An HTTP token (RFC 9110 `tchar`), what header and cookie names are made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Options of {@link validateCustomFieldRule}. */
export interface CustomFieldRuleOptions {
  /** Pointer of the rule inside the caller's document (e.g. `/rules/0`); default `''`. */
  pointer?: string;
}

/** The configured names of a rule, per array (entries that are not `{name: string}` are skipped). */
export function customFieldNames(rule: unknown): Record<CustomFieldArray, string[]> {
  const out: Record<CustomFieldArray, string[]> = { request_fields: [], response_fields: [], cookie_fields: [] };
  const ap = isObject(rule) ? rule['action_parameters'] : undefined;
  if (!isObject(ap)) return out;
  for (const k of Object.keys(CUSTOM_FIELD_ARRAYS) as CustomFieldArray[]) {
    const arr = ap[k];
    if (!Array.isArray(arr)) continue;
    for (const e of arr) if (isObject(e) && typeof e['name'] === 'string') out[k].push(e['name']);
  }
  return out;
}

/** How many custom fields a rule configures over its three arrays. */
export function countCustomFields(rule: unknown): number {
  const n = customFieldNames(rule);
  return n.request_fields.length + n.response_fields.length + n.cookie_fields.length;
}
const countFields = countCustomFields;

/**
 * The zone-wide limit over several rules (`pointer`: where to report it), or nothing when they stay under
 * it or when one rule alone is over it (that rule's own diagnostic already says so).
 */
export function zoneCustomFieldLimit(rules: readonly unknown[], pointer: string): Diagnostic[] {
  let total = 0;
  for (const r of rules) {
    const n = countFields(r);
    if (n > CUSTOM_FIELD_LIMITS.maxFields) return [];
    total += n;
  }
  if (total <= CUSTOM_FIELD_LIMITS.maxFields) return [];
  return [diag('custom-field-limit', `The zone's rules configure ${total} custom fields together; the limit is ${CUSTOM_FIELD_LIMITS.maxFields} per zone`, { pointer, data: { limit: CUSTOM_FIELD_LIMITS.maxFields, measured: total } })];
}

/**
 * Validate one custom log field rule: action `log_custom_field`, expression `true`, `action_parameters`
 * with at least one of request_fields/response_fields/cookie_fields, each an array of `{name}`; header
 * names lower case (fix offered), cookie names as sent, no duplicates, at most 40 fields. Pointers are
 * `options.pointer` + the path inside the rule; name ranges are inside the name (`rangeIn: 'value'`).
 */
export function validateCustomFieldRule(rule: unknown, options: CustomFieldRuleOptions = {}): Diagnostic[] {
  const base = options?.pointer ?? '';
  const out: Diagnostic[] = [];
  try {
    check(rule, base, out);
  } catch (e) {
    out.push(diag('custom-field-rule-not-object', `The rule could not be read: ${String(e)}`, { pointer: base }));
  }
  return out;
}

function check(rule: unknown, base: string, out: Diagnostic[]): void {
  if (!isObject(rule)) {
    out.push(diag('custom-field-rule-not-object', `A custom log field rule is an object, not ${describe(rule)}`, { pointer: base }));
    return;
  }
  const action = rule['action'];
  if (action !== CUSTOM_FIELD_ACTION) {
    out.push(diag('custom-field-action', `Rules of the http_log_custom_fields phase have action "${CUSTOM_FIELD_ACTION}", not ${describe(action)}`, {
      pointer: childPointer(base, 'action'),
      ...(typeof action === 'string' ? { range: { start: 0, end: action.length }, rangeIn: 'value' as const, fix: { title: `replace with "${CUSTOM_FIELD_ACTION}"`, edits: [{ range: { start: 0, end: action.length }, newText: CUSTOM_FIELD_ACTION }] } } : {}),
    }));
  }
  const expr = rule['expression'];
  if (typeof expr !== 'string' || expr.trim() !== 'true') {
    out.push(diag('custom-field-expression', `A log_custom_field rule has the expression "true", not ${describe(expr)}`, {
      pointer: childPointer(base, 'expression'),
      ...(typeof expr === 'string' ? { range: { start: 0, end: expr.length }, rangeIn: 'value' as const, fix: { title: 'replace with true', edits: [{ range: { start: 0, end: expr.length }, newText: 'true' }] } } : {}),
    }));
  }
  const apPtr = childPointer(base, 'action_parameters');
  const ap = rule['action_parameters'];
  if (!isObject(ap)) {
    out.push(diag(ap === undefined ? 'custom-field-no-fields' : 'custom-field-rule-not-object', ap === undefined
      ? 'The rule has no action_parameters; give it request_fields, response_fields or cookie_fields'
      : `action_parameters is an object, not ${describe(ap)}`, { pointer: ap === undefined ? base : apPtr }));
    return;
  }
  const arrays = Object.keys(CUSTOM_FIELD_ARRAYS) as CustomFieldArray[];
  for (const k of Object.keys(ap)) {
    if ((arrays as string[]).includes(k)) continue;
    const s = suggest(k, arrays);
    out.push(diag('custom-field-unknown-parameter', `action_parameters has no ${JSON.stringify(k)}; it holds ${arrays.join(', ')}${s ? `. Did you mean "${s}"?` : ''}`, { pointer: childPointer(apPtr, k), data: { key: k, suggestion: s } }));
  }
  if (!arrays.some((k) => hasOwn(ap, k))) {
    out.push(diag('custom-field-no-fields', 'action_parameters needs at least one of request_fields, response_fields, cookie_fields', { pointer: apPtr }));
  }
  for (const k of arrays) {
    if (!hasOwn(ap, k)) continue;
    const arrPtr = childPointer(apPtr, k);
    const arr = ap[k];
    if (!Array.isArray(arr)) {
      out.push(diag('custom-field-not-array', `${k} is an array of {"name": …} objects, not ${describe(arr)}`, { pointer: arrPtr }));
      continue;
    }
    const header = CUSTOM_FIELD_ARRAYS[k].kind === 'header';
    const seen = new Map<string, number>();
    arr.forEach((e, i) => {
      const ePtr = childPointer(arrPtr, i);
      if (!isObject(e) || typeof e['name'] !== 'string' || e['name'].length === 0) {
        out.push(diag('custom-field-entry', `${k}[${i}] must be {"name": "<${header ? 'header' : 'cookie'} name>"}, not ${isObject(e) ? `an object with name ${describe(e['name'])}` : describe(e)}`, { pointer: ePtr }));
        return;
      }
      const extra = Object.keys(e).filter((x) => x !== 'name');
      if (extra.length > 0) out.push(diag('custom-field-entry', `${k}[${i}] has ${extra.map((x) => describe(x)).join(', ')} besides "name"`, { pointer: childPointer(ePtr, extra[0]!) }));
      const name = e['name'];
      const nPtr = childPointer(ePtr, 'name');
      const whole = { start: 0, end: name.length };
      if (!TOKEN.test(name)) {
        const bad = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/.exec(name)!;
        out.push(diag('custom-field-invalid-name', `${header ? 'Header' : 'Cookie'} name ${describe(name)} has ${JSON.stringify(bad[0])}, which a ${header ? 'header' : 'cookie'} name cannot hold`, { pointer: nPtr, range: { start: bad.index, end: bad.index + bad[0].length }, rangeIn: 'value' }));
      } else if (header && name !== name.toLowerCase()) {
        out.push(diag('custom-field-uppercase-header', `Header names in ${k} are lower case: write "${name.toLowerCase()}", not "${name}"`, {
          pointer: nPtr, range: whole, rangeIn: 'value', fix: { title: `replace with "${name.toLowerCase()}"`, edits: [{ range: whole, newText: name.toLowerCase() }] },
        }));
      }
      const key = header ? name.toLowerCase() : name;
      const first = seen.get(key);
      if (first !== undefined) {
        out.push(diag('custom-field-duplicate', `${describe(name)} is already in ${k} at index ${first}${header ? ' (header names ignore case)' : ''}; remove one`, { pointer: nPtr, data: { first } }));
      } else seen.set(key, i);
    });
  }
  const total = countFields(rule);
  if (total > CUSTOM_FIELD_LIMITS.maxFields) {
    out.push(diag('custom-field-limit', `The rule configures ${total} custom fields; the limit is ${CUSTOM_FIELD_LIMITS.maxFields} per zone over request, response and cookie fields`, { pointer: apPtr, data: { limit: CUSTOM_FIELD_LIMITS.maxFields, measured: total } }));
  }
}

/**
 * Validate the custom field rules of one zone together: each rule (pointer `options.pointer/<i>`), and the
 * 40-field limit over all of them.
 */
export function validateCustomFieldRules(rules: readonly unknown[], options: CustomFieldRuleOptions = {}): Diagnostic[] {
  const base = options?.pointer ?? '';
  if (!Array.isArray(rules)) return [diag('custom-field-rule-not-object', `The zone's custom field rules are an array, not ${describe(rules)}`, { pointer: base })];
  const out: Diagnostic[] = [];
  rules.forEach((r, i) => out.push(...validateCustomFieldRule(r, { pointer: childPointer(base, i) })));
  out.push(...zoneCustomFieldLimit(rules, base));
  return out;
}
