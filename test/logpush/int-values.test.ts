/**
 * Integer values of filters (service.md: an int field's value may be given as a number or a string of
 * digits) against JavaScript's own definition of a safe integer (Number.isSafeInteger, 2^53 - 1), and the
 * timestamp fields' integers (unix nanoseconds, past 2^53: up to 19 digits, any integral number).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asInt, asTimestampInt } from '../../src/logpush/filter-check.js';

describe('asInt', () => {
  it.each([
    [0, 0], [-1, -1], [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], [Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER],
    [Number.MAX_SAFE_INTEGER + 1, undefined], [1.5, undefined], [Number.NaN, undefined], [Number.POSITIVE_INFINITY, undefined],
    ['0', 0], ['500', 500], ['-500', -500], ['9007199254740991', 9007199254740991], ['-9007199254740991', -9007199254740991],
    ['9007199254740992', undefined], ['99999999999999999', undefined], ['1234567890123456', 1234567890123456],
    ['01', undefined], ['+1', undefined], ['1.0', undefined], ['1e3', undefined], [' 1', undefined], ['1 ', undefined], ['', undefined], ['-', undefined],
    ['0x10', undefined], [true, undefined], [null, undefined], [[1], undefined],
  ] as const)('%j → %j', (v, want) => {
    expect(asInt(v)).toBe(want);
  });

  it('a decimal string is read exactly when it is a safe integer written without leading zeros or sign +', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }).map(Number)), (n) => {
        expect(asInt(String(n))).toBe(Number.isSafeInteger(n) && Number.isSafeInteger(Number(String(n))) ? n : undefined);
        expect(asInt(n)).toBe(Number.isSafeInteger(n) ? n : undefined);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('asTimestampInt', () => {
  it.each([
    [0, 0], [1.5, undefined], [2 ** 60, 2 ** 60], [Number.NaN, undefined], [Number.POSITIVE_INFINITY, undefined],
    ['1700000000000000000', 1700000000000000000], ['-1', -1], ['9999999999999999999', 9999999999999999999],
    ['10000000000000000000', undefined], ['01', undefined], ['1.5', undefined], ['', undefined], ['x', undefined], [true, undefined],
  ] as const)('%j → %j', (v, want) => {
    expect(asTimestampInt(v)).toBe(want);
  });
});
