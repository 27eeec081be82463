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

