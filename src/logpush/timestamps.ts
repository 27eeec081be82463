/**
 * Timestamp formatting of log lines (`timestamps=` of logpull_options): `unixnano` (integer
 * nanoseconds), `unix` (integer seconds) and `rfc3339` (`2006-01-02T15:04:05Z`).
 * @module
 */
import type { TimestampFormat } from './logpull-options.js';

/**
 * Read a time value as integer nanoseconds since the epoch: a bigint or number of nanoseconds, a string
 * of digits (nanoseconds), an RFC 3339 string, or a Date. Undefined when it is none of these.
 */
export function toUnixNanos(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.round(v)) : undefined;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : BigInt(v.getTime()) * 1_000_000n;
  if (typeof v === 'string') {
    if (/^-?\d{1,30}$/.test(v)) return BigInt(v);
    const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(v);
    if (!m) return undefined;
    const ms = Date.parse(`${m[1]}${m[3]}`);
    if (Number.isNaN(ms)) return undefined;
    return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
  }
  return undefined;
}

/** Format nanoseconds in a timestamp format: unixnano → bigint, unix → number of seconds, rfc3339 → string. */
export function formatTimestamp(ns: bigint, format: TimestampFormat): bigint | number | string {
  switch (format) {
    case 'unixnano':
      return ns;
    case 'unix':
      return Number(ns / 1_000_000_000n - (ns < 0n && ns % 1_000_000_000n !== 0n ? 1n : 0n));
    case 'rfc3339': {
      const sec = Number(ns / 1_000_000_000n - (ns < 0n && ns % 1_000_000_000n !== 0n ? 1n : 0n));
      const d = new Date(sec * 1000);
      return Number.isNaN(d.getTime()) ? String(ns) : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
  }
}
