/**
 * The values a transformer computes with, and how they become JSON. A record's fields are JSON values;
 * SQL adds timestamps (epoch nanoseconds). NULL is `null`: a missing field reads as NULL.
 * @module
 */

/** A point in time, as DataFusion's `Timestamp(Nanosecond)`. */
export class SqlTimestamp {
  constructor(readonly ns: bigint) {}
  /** `2026-05-21T15:00:00` (fraction only when there is one): arrow-json's form of a zone-less timestamp. */
  toJSON(): string {
    const ms = this.ns / 1_000_000n;
    const iso = new Date(Number(ms)).toISOString().slice(0, 19);
    const frac = ((this.ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
    return frac === 0n ? iso : `${iso}.${frac.toString().padStart(9, '0').replace(/0+$/, '')}`;
  }
}

export type SqlValue = null | string | number | boolean | SqlTimestamp | SqlValue[] | { [k: string]: SqlValue };

/** A runtime failure of the query on this record (the service fails the batch; preview answers it). */
export class SqlRuntimeError extends Error {}

export const isStruct = (v: SqlValue): v is { [k: string]: SqlValue } => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof SqlTimestamp);

/** RFC 3339 (or `YYYY-MM-DD[ T]hh:mm:ss[.f…][Z|±hh:mm]`) to a timestamp; a zone-less one is UTC. */
export function parseTimestamp(text: string): SqlTimestamp {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?\s*(Z|z|[+-]\d\d:?\d\d)?$/.exec(text.trim());
  if (!m) throw new SqlRuntimeError(`${JSON.stringify(text.slice(0, 40))} is not a timestamp (RFC 3339, e.g. 2026-05-21T15:00:00Z)`);
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  let ms = Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +s);
  if (Number.isNaN(ms)) throw new SqlRuntimeError(`${JSON.stringify(text.slice(0, 40))} is not a valid date`);
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return new SqlTimestamp(BigInt(ms) * 1_000_000n + BigInt(frac.padEnd(9, '0') || '0'));
}

/** A value as text (`->>`, CAST to string, concat): strings as they are, the rest as JSON. */
export function asText(v: SqlValue): string | null {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  if (v instanceof SqlTimestamp) return v.toJSON();
  return JSON.stringify(toJson(v));
}

/**
 * A computed value as the delivered JSON: NULL members left out (arrow-json's default, which Pipelines'
 * SQL writes NDJSON with) and object keys sorted, as the docs' delivered records show them.
 */
export function toJson(v: SqlValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof SqlTimestamp) return v.toJSON();
  if (Array.isArray(v)) return v.map(toJson);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) if (v[k] !== null) setOwn(out, k, toJson(v[k]!));
  return out;
}

/** Set an own member, even one named `__proto__` (a field or alias name is the user's text). */
export function setOwn<T>(o: Record<string, T>, k: string, v: T): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** A JSON value of the input as a value (objects stay objects; nothing else to convert). */
export const fromJson = (v: unknown): SqlValue => v as SqlValue;
