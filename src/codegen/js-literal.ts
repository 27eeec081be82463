/**
 * The only way a value enters generated JavaScript: a literal that reads back as the same value.
 * Strings go through `JSON.stringify` (which escapes quotes, backslashes, control characters and lone
 * surrogates) and then U+2028/U+2029 (line terminators in older engines' string literals) and `<`, `>`
 * are escaped too, so that generated code can also sit inside an HTML `<script>` element. Browser-safe.
 * @module
 */

/** A JavaScript string literal for any string, lone surrogates included. */
export function jsString(s: string): string {
  return JSON.stringify(String(s)).replace(/[\u2028\u2029<>]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A JavaScript literal for a string, a finite number or a boolean (anything else is rejected). */
export function jsLiteral(v: string | number | boolean): string {
  if (typeof v === 'string') return jsString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' && Number.isFinite(v)) {
    // String(-0) is "0"; a negative number is parenthesised so that `x -` + literal never reads `x --1`.
    if (Object.is(v, -0)) return '(-0)';
    return v < 0 ? `(${String(v)})` : String(v);
  }
  throw new TypeError('not a string, finite number or boolean');
}
