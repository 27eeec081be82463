/**
 * The only way user text enters generated code: a JavaScript literal built by `JSON.stringify`, with
 * U+2028/U+2029 and `<`, `>` escaped too (so the code can also sit inside an HTML `<script>`).
 * @module
 */

/** A JavaScript string literal for any string, lone surrogates included. */
export function jsString(s: string): string {
  return JSON.stringify(String(s)).replace(/[\u2028\u2029<>]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A JavaScript literal for a filter scalar (finite numbers only; anything else is rejected). */
export function jsLiteral(v: string | number | boolean): string {
  if (typeof v === 'string') return jsString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' && Number.isFinite(v)) return v < 0 || Object.is(v, -0) ? `(${String(v)})` : String(v);
  throw new TypeError('not a filter scalar');
}
