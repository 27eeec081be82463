/**
 * Timestamps and UTF-8 cuts against outside references: RFC 3339 instants worked out by hand (and
 * `Date`, which reads RFC 3339 / ISO 8601 itself), and `TextEncoder` for UTF-8 lengths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTimestamp, toUnixNanos, utf8Prefix } from '../../src/logpush/index.js';

describe('toUnixNanos', () => {
  // 2006-01-02T15:04:05Z is 1136214245 s after the epoch (13149 days × 86400 + 15:04:05).
  const T = 1136214245n * 1_000_000_000n;
  it.each([
    ['1970-01-01T00:00:00Z', 0n],
    ['2006-01-02T15:04:05Z', T],
    ['2006-01-02t15:04:05z', T],
    ['2006-01-02T15:04:05.5Z', T + 500_000_000n],
    ['2006-01-02T15:04:05.000000001Z', T + 1n],
    ['2006-01-02T15:04:05.123456789Z', T + 123_456_789n],
    ['2006-01-02T16:04:05+01:00', T],
    ['2006-01-02T14:04:05.25-01:00', T + 250_000_000n],
    ['1969-12-31T23:59:59Z', -1_000_000_000n],
    ['1136214245000000000', T],
    ['-5', -5n],
    ['0', 0n],
    [`${'9'.repeat(30)}`, BigInt('9'.repeat(30))],
  ] as const)('%s is %s ns', (text, ns) => {
    expect(toUnixNanos(text)).toBe(ns);
  });

  it.each([
    `${'9'.repeat(31)}`,
    '2006-01-02T15:04:05',
    '2006-01-02 15:04:05Z',
    '2006-01-02T15:04:05.Z',
    '2006-01-02T15:04:05.1234567890Z',
    '2006-13-02T15:04:05Z',
    '2006-01-02T15:04:05+0100',
    'x2006-01-02T15:04:05Z',
    '2006-01-02T15:04:05Zx',
    '1.5',
    '',
  ])('%j is not a time', (text) => {
    expect(toUnixNanos(text)).toBeUndefined();
  });

  it('reads numbers (rounded), bigints and Dates, and nothing else', () => {
    expect(toUnixNanos(1.6)).toBe(2n);
    expect(toUnixNanos(-1.6)).toBe(-2n);
    expect(toUnixNanos(7n)).toBe(7n);
    expect(toUnixNanos(Number.NaN)).toBeUndefined();
    expect(toUnixNanos(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(toUnixNanos(new Date(5))).toBe(5_000_000n);
    expect(toUnixNanos(new Date(Number.NaN))).toBeUndefined();
    for (const v of [null, undefined, {}, [], true]) expect(toUnixNanos(v)).toBeUndefined();
  });

  it('agrees with Date on RFC 3339 texts with milliseconds and offsets', () => {
    fc.assert(
      fc.property(fc.integer({ min: -30_000_000_000_000, max: 250_000_000_000_000 }), fc.integer({ min: -23 * 60 + 1, max: 23 * 60 - 1 }), (ms, offMin) => {
        const local = new Date(ms + offMin * 60_000).toISOString().slice(0, 23);
        const sign = offMin < 0 ? '-' : '+';
        const a = Math.abs(offMin);
        const text = `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
        expect(toUnixNanos(text), text).toBe(BigInt(ms) * 1_000_000n);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('formatTimestamp', () => {
  it.each([
    [0n, 0, '1970-01-01T00:00:00Z'],
    [1n, 0, '1970-01-01T00:00:00Z'],
    [999_999_999n, 0, '1970-01-01T00:00:00Z'],
    [1_000_000_000n, 1, '1970-01-01T00:00:01Z'],
    [-1n, -1, '1969-12-31T23:59:59Z'],
    [-1_000_000_000n, -1, '1969-12-31T23:59:59Z'],
    [-1_000_000_001n, -2, '1969-12-31T23:59:58Z'],
    [1136214245_123_456_789n, 1136214245, '2006-01-02T15:04:05Z'],
  ] as const)('%s ns: unix %i, rfc3339 %s', (ns, unix, rfc) => {
    expect(formatTimestamp(ns, 'unixnano')).toBe(ns);
    expect(formatTimestamp(ns, 'unix')).toBe(unix);
    expect(formatTimestamp(ns, 'rfc3339')).toBe(rfc);
  });

  it('prints an instant Date cannot hold as its nanoseconds', () => {
    const ns = 8_640_000_000_001n * 1_000_000_000n;
    expect(formatTimestamp(ns, 'rfc3339')).toBe(String(ns));
  });

  it('unix is the floor of the seconds and rfc3339 is Date\'s text of that second', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (ns) => {
        const floorSec = Math.floor(Number(ns) / 1e9);
        // Number(ns) rounds; compare away from whole seconds only.
        if (ns % 1_000_000_000n === 0n || (ns % 1_000_000_000n + 1_000_000_000n) % 1_000_000_000n > 1000n) {
          const exact = ns >= 0n ? ns / 1_000_000_000n : -((-ns + 999_999_999n) / 1_000_000_000n);
          expect(formatTimestamp(ns, 'unix')).toBe(Number(exact));
          if (Math.abs(floorSec) < 8.64e12) expect(formatTimestamp(ns, 'rfc3339')).toBe(new Date(Number(exact) * 1000).toISOString().replace('.000Z', 'Z'));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('utf8Prefix against TextEncoder', () => {
  const enc = new TextEncoder();
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.array(fc.constantFrom('a', 'é', '€', '😀', '\uD800', '\uDC00', '\u07FF', '\u0800', '\u007F', '\u0080'), { maxLength: 12 }).map((a) => a.join('')),
  );
  it('is the longest prefix of whole characters whose encoding fits', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 60 }), (s, max) => {
        const p = utf8Prefix(s, max);
        expect(s.startsWith(p)).toBe(true);
        expect(enc.encode(p).length).toBeLessThanOrEqual(max);
        if (p.length < s.length) {
          // The next character (a whole surrogate pair when there is one) would not fit.
          const cp = s.codePointAt(p.length)!;
          const next = cp > 0xffff ? s.slice(p.length, p.length + 2) : s[p.length]!;
          expect(enc.encode(p + next).length).toBeGreaterThan(max);
          // Never a pair cut in two.
          expect(cp >= 0xdc00 && cp <= 0xdfff && p.length > 0 && /[\uD800-\uDBFF]$/.test(p)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['\u007F\u0080', 1, '\u007F'],
    ['\u07FF', 2, '\u07FF'],
    ['\u07FF', 1, ''],
    ['\u0800', 2, ''],
    ['\u0800', 3, '\u0800'],
    ['😀', 3, ''],
    ['😀', 4, '😀'],
    ['\uD800a', 3, '\uD800'],
    ['\uD800', 2, ''],
    ['\uDBFF\uDFFF', 4, '\uDBFF\uDFFF'],
    ['\uDBFF\uE000', 3, '\uDBFF'],
    ['\uD7FF', 3, '\uD7FF'],
    ['\uDC00\uDC00', 3, '\uDC00'],
  ])('%j in %i bytes is %j', (s, max, want) => {
    expect(utf8Prefix(s, max)).toBe(want);
    expect(enc.encode(want).length).toBeLessThanOrEqual(max);
  });
});
