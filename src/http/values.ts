/**
 * Values given for fields directly (`fields` of an NDJSON request, `_rulekit_fields` of a HAR entry),
 * checked against the HTTP fields' documented types and turned into record shape: a JSON object given for
 * a `Map<…>` field becomes a `Map`. A value of the wrong type is dropped with a warning.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { HTTP_SCHEME } from '../expression/index.js';
import { isIpAddressText } from '../net/index.js';
import { httpDiagnostic, pointerToken } from './diagnostic.js';

/** Whether `v` is a value of the scalar scheme type `type`. */
function scalarOk(type: string, v: unknown): boolean {
  switch (type) {
    case 'Int':
      return typeof v === 'number' && Number.isInteger(v);
    case 'Bool':
      return typeof v === 'boolean';
    case 'Ip':
      return typeof v === 'string' && isIpAddressText(v);
    default:
      return typeof v === 'string';
  }
}

/** `v` as a value of the documented type `doc` (`Array<String>`, `Map<Array<String>>`), or undefined. */
function shaped(doc: string, item: string, v: unknown): unknown {
  if (doc.startsWith('Array<')) {
    if (!Array.isArray(v)) return undefined;
    const inner = doc.slice(6, -1);
    const out = v.map((x) => shaped(inner, item, x));
    return out.every((x) => x !== undefined) ? out : undefined;
  }
  if (doc.startsWith('Map<')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const inner = doc.slice(4, -1);
    const map = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) {
      const s = shaped(inner, item, x);
      if (s === undefined) return undefined;
      map.set(k, s);
    }
    return map;
  }
  return scalarOk(item, v) ? v : undefined;
}

/** The given field values in record shape; unknown names and wrong types are warnings. */
export function fieldValues(given: unknown, pointer: string, line: number | undefined, out: Diagnostic[]): Record<string, unknown> | undefined {
  if (given === undefined) return undefined;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    out.push(httpDiagnostic('http-invalid-value', 'fields is an object of field name → value; it is ignored', { pointer, line }));
    return undefined;
  }
  const values: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(given)) {
    const at = `${pointer}/${pointerToken(name)}`;
    const def = HTTP_SCHEME.get(name);
    if (!def) {
      out.push(httpDiagnostic('http-invalid-value', `${name} is not a field of the HTTP phases; it is ignored`, { pointer: at, line }));
      continue;
    }
    const value = shaped(def.container ?? '', def.type, v);
    if (value === undefined) {
      out.push(httpDiagnostic('http-invalid-value', `${name} is ${def.container ?? def.type}; the value given is not one, so the field stays missing`, { pointer: at, line }));
      continue;
    }
    values[name] = value;
  }
  return values;
}
