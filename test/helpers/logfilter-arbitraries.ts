/**
 * Arbitraries of Logpush filters and log lines over a few fields of each type, shared by the filter
 * property tests and the SQL equality tests.
 */
import fc from 'fast-check';
import type { LogFieldType as FieldType } from '../../src/logpush/index.js';

/** Strings meant to break out of generated code or markup. */
export const HOSTILE = [
  '"', '\\', '\\"', '${x}', '`', '*/', '/*', '\u2028', '\u2029', '</script>', '<!--', "'); globalThis.pwned = 1; ('",
  '"); globalThis.pwned = 1; ("', '\\u0022', '\n', '\r\n', '\u0000', '\ud800', '\udfff', '😀', 'é', '}', '})', ']', 'constructor', '__proto__',
];

export const FIELDS: Record<Exclude<FieldType, 'float' | 'object' | 'array_object'>, string[]> = {
  string: ['ClientCountry', 'ClientRequestPath'],
  int: ['EdgeResponseStatus', 'BotScore'],
  bool: ['WorkerSubrequest'],
  int_or_string: ['EdgeStartTimestamp'],
  array_string: ['SecurityActions'],
  array_int: ['BotDetectionIDs'],
};
export const OPS: Record<keyof typeof FIELDS, string[]> = {
  string: ['eq', '!eq', 'startsWith', 'endsWith', '!startsWith', '!endsWith', 'contains', '!contains', 'in', '!in'],
  int: ['eq', '!eq', 'lt', 'leq', 'gt', 'geq', 'in', '!in'],
  bool: ['eq', '!eq'],
  int_or_string: ['eq', '!eq', 'lt', 'geq', 'startsWith', 'in', '!in'],
  array_string: ['contains', '!contains'],
  array_int: ['contains', '!contains'],
};
export const strVal = fc.oneof(fc.constantFrom('', 'a', 'ab', 'b', '/api', 'us', ...HOSTILE), fc.string({ maxLength: 4 }));
export const intVal = fc.constantFrom(-1, 0, 1, 5, 500, 1700000000);
export const intLike = fc.oneof(intVal, intVal.map(String));

export function clauseArb(): fc.Arbitrary<unknown> {
  return fc.constantFrom(...(Object.keys(FIELDS) as (keyof typeof FIELDS)[])).chain((type) =>
    fc.tuple(fc.constantFrom(...FIELDS[type]), fc.constantFrom(...OPS[type])).chain(([key, operator]) => {
      const ordering = ['lt', 'leq', 'gt', 'geq'].includes(operator);
      const stringy = ['startsWith', 'endsWith', '!startsWith', '!endsWith', 'contains', '!contains'].includes(operator);
      const elem: fc.Arbitrary<unknown> =
        type === 'string' || type === 'array_string' ? strVal
          : type === 'int' || type === 'array_int' ? intLike
            : type === 'bool' ? fc.boolean()
              : ordering ? intLike : stringy ? strVal : fc.oneof(intLike, strVal);
      const value = operator === 'in' || operator === '!in' ? fc.array(elem, { maxLength: 12 }) : elem;
      return value.map((v) => ({ key, operator, value: v }));
    }),
  );
}
export const nodeArb: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    clauseArb(),
    fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
    fc.record({ or: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
  ),
})).node;

export const anyFieldValue = fc.oneof(
  fc.constant(undefined), fc.constant(null), strVal, intVal, fc.boolean(),
  fc.array(fc.oneof(strVal, intVal), { maxLength: 4 }), fc.constant({}), intVal.map(String),
);
export const lineArb = fc.record(
  Object.fromEntries(Object.values(FIELDS).flat().map((f) => [f, anyFieldValue])),
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, unknown>>;


// ---------------------------------------------------------------- log lines as text

/** JSON whitespace but LF (an LF ends a log line; mutations below may still put one in). */
const wsText = fc.constantFrom('', '', '', ' ', '\t', '\r', '  ');
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const u4 = (c: number, upper: boolean) => `\\u${c.toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`;

/**
 * A JSON string literal of `s`, each code unit written as is, as `\uXXXX` (either case) or as its short
 * escape, chosen by `how` in turn; what must be escaped is. Lone surrogates stay lone: escaped, or raw (then
 * UTF-8 encoding writes U+FFFD for them, on both sides of a comparison).
 */
export function jsonStringText(s: string, how: readonly number[]): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const c = s.charCodeAt(i);
    const h = how.length ? how[i % how.length]! : 0;
    if (h === 3 || h === 4) out += u4(c, h === 4);
    else if (h === 5 && SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (ch === '"' || ch === '\\' || c < 0x20) out += SHORT_ESCAPES[ch] ?? u4(c, false);
    else out += ch;
  }
  return out + '"';
}
const escapeChoices = fc.array(fc.nat(5), { maxLength: 8 });
const anyString = fc.oneof(strVal, fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('GET', 'us', 'de', '\ud83d\ude00x', 'a\u2028b'));
export const stringText = fc.tuple(anyString, escapeChoices).map(([s, how]) => jsonStringText(s, how));

/** Numbers in every JSON form (signs, leading zero, fractions, exponents either case, huge and tiny), and near misses. */
export const numberText = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(
    fc.constantFrom('', '', '-'),
    fc.oneof(fc.constant('0'), fc.nat(1000).map(String), fc.bigInt({ min: 1n, max: 10n ** 25n }).map(String)),
    fc.option(fc.stringMatching(/^\.[0-9]{1,20}$/), { nil: '' }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.nat(400)).map(([e, s, n]) => `${e}${s}${n}`), { nil: '' }),
  ).map((parts) => parts.join('')) },
  { weight: 2, arbitrary: fc.constantFrom('-0', '0.0', '-0e0', '1E+2', '1e400', '-1e-400', '9007199254740993', '123456789012345', '1234567890123456', '999999999999999', '-999999999999999', '500') },
  { weight: 1, arbitrary: fc.constantFrom('-0', '0.0', '-0e0', '1E+2', '1e400', '-1e-400', '9007199254740993', '123456789012345', '1234567890123456', '999999999999999', '-999999999999999', '500', '0500', '01', '1.', '-', '.5', '+1', '1e', '1e+', 'Infinity', 'NaN', '0x10', '- 1', '1_0') },
);

/** Nesting on either side of the depth the scanner leaves to JSON.parse (64, the line's object included). */
const deepText = fc.tuple(fc.constantFrom(1, 2, 61, 62, 63, 64, 100), fc.boolean()).map(([d, obj]) => (obj ? '{"a":'.repeat(d) + '1' + '}'.repeat(d) : '['.repeat(d) + ']'.repeat(d)));

export const jsonValueText: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    stringText,
    numberText,
    fc.constantFrom('true', 'false', 'null', 'true', 'false', 'null', 'tru', 'nul', 'falsey', 'True'),
    fc.oneof({ weight: 1, arbitrary: deepText }, { weight: 3, arbitrary: fc.constantFrom('[]', '{}', '[1,"a",{"b":null}]') }),
    fc.array(fc.tuple(wsText, tie('v'), wsText), { maxLength: 3 }).map((xs) => `[${xs.map((x) => x.join('')).join(',')}]`),
    fc.array(fc.tuple(stringText, wsText, tie('v')), { maxLength: 3 }).map((xs) => `{${xs.map(([k, w, v]) => `${k}:${w}${v}`).join(',')}}`),
  ),
})).v;

/** Keys of lines: the filter fields, near misses of them, and keys every object inherits. */
const lineKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...Object.values(FIELDS).flat()) },
  { weight: 1, arbitrary: fc.constantFrom('ClientCountr', 'ClientCountryX', 'clientcountry', '__proto__', 'constructor', 'toString', 'RayID', 'é', '') },
);
const keyText = fc.tuple(lineKey, fc.oneof({ weight: 4, arbitrary: fc.constant<number[]>([]) }, { weight: 1, arbitrary: escapeChoices })).map(([k, how]) => jsonStringText(k, how));

/** What can go wrong with a line's text: cut short, a byte dropped or added, a second copy of a part. */
const mutation = fc.oneof(
  { weight: 20, arbitrary: fc.constant((t: string) => t) },
  { weight: 1, arbitrary: fc.nat().map((n) => (t: string) => t.slice(0, n % (t.length + 1))) },
  { weight: 1, arbitrary: fc.nat().map((n) => (t: string) => t.slice(0, n % (t.length + 1)) + t.slice((n % (t.length + 1)) + 1)) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', '0', '-', 'e', '.', ' ', '\n', '\u0000', '\u001f', '\ufeff', 'x')).map(([n, c]) => (t: string) => t.slice(0, n % (t.length + 1)) + c + t.slice(n % (t.length + 1))) },
  { weight: 1, arbitrary: fc.constantFrom((t: string) => `[${t}]`, (t: string) => `${t}${t}`, (t: string) => `${t} x`, (t: string) => `\ufeff${t}`) },
);

/**
 * Log lines as text: objects with the filter's fields (any value, any form, escapes in keys and values,
 * duplicate keys, deep nesting, whitespace anywhere), other top-level values, and mutations that make them
 * invalid.
 */
export const lineText = fc.tuple(
  wsText,
  fc.oneof(
    { weight: 8, arbitrary: fc.array(fc.tuple(keyText, wsText, wsText, jsonValueText, wsText), { maxLength: 6 }).map((es) => `{${es.map(([k, a, b, v, c]) => `${a}${k}${b}:${c}${v}${a}`).join(',')}}`) },
    { weight: 1, arbitrary: jsonValueText },
    { weight: 3, arbitrary: lineArb.map((r) => JSON.stringify(r)) },
  ),
  wsText,
  mutation,
).map(([a, body, b, m]) => m(`${a}${body}${b}`));

/** A line's bytes: its UTF-8, sometimes with a byte that makes it not UTF-8. */
export const lineBytes = fc.tuple(lineText, fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0x80, 0xbf, 0xc0, 0xed, 0xf5, 0xff)) })).map(([t, bad]) => {
  const b = Buffer.from(t, 'utf8');
  if (!bad) return b;
  const at = bad[0] % (b.length + 1);
  return Buffer.concat([b.subarray(0, at), Buffer.from([bad[1]]), b.subarray(at)]);
});
