/**
 * Logpush `http_requests` lines as a request table for the HTTP phases' rules: one column per rule field,
 * named by the field, read from the line's JSON by the readings of the one table from Logpush fields to
 * rule fields (`LOGPUSH_REQUEST_FIELDS` in src/http/logpush.ts), each reading what `logpushRecord` makes
 * of the same value. Where a value's reading has no exact SQL form (an array where `String(v)` joins
 * elements, a number past 2^53, text with non-ASCII letters to change case, an RFC 3339 timestamp that
 * `Date.parse` reads in a form other than UTC `…T…Z`), the row is marked inexact for that field instead of read differently; a rule field
 * the table gives without a reading has no SQL form at all (`sql-no-exact-form`). A field a line lacks
 * is NULL, missing, as in process. Text only, browser-safe.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { HTTP_SCHEME, type FieldDef } from '../expression/index.js';
import { LOGPUSH_CONSTANT_FIELDS, LOGPUSH_REQUEST_FIELDS, LOGPUSH_SIGNATURE, RULE_FIELD_NEEDS, type LogpushSqlReading } from '../http/index.js';
import type { Dialect, JsonValueSql } from './dialect.js';

/** 2^53: integers up to it are doubles exactly, and `String(v)` writes them as their digits. */
const EXACT = '9007199254740992';
/** JavaScript's white space (what `trim()` removes and `Number('  ')` reads as 0), as an RE2 class. */
const JS_SPACE = '[\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]';
/** The ASCII part of it: enough to trim text that holds ASCII only. */
const ASCII_SPACE = '[\\t\\n\\x0B\\f\\r ]';
const ASCII_ONLY = '[\\x00-\\x7F]*';

/** Why a reading can be inexact, for the diagnostic (`LogpushSqlReading.kind` → words). */
const INEXACT_WHY: Readonly<Record<LogpushSqlReading['kind'], string>> = {
  text: 'an array, or a number that is not a whole number up to 2^53',
  upper: 'an array, a number that is not a whole number, or text with non-ASCII characters to upper-case',
  version: 'an array, a number that is not a whole number, or text with non-ASCII characters',
  'client-tcp': 'an array, a number that is not a whole number, or text with non-ASCII characters',
  address: 'an array',
  country: 'an array',
  tls: 'an array, or a number that is not a whole number up to 2^53',
  'media-type': 'an array, a number, non-ASCII text, or a content-type header in the line’s header map too',
  integer: 'an array, a number past 2^53, or text other than decimal digits',
  finite: 'an array, a fraction, a number past 2^53, or text other than decimal digits',
  seconds: 'text other than digits or UTC time YYYY-MM-DDTHH:MM:SS[.fff]Z, which Date.parse reads by rules of its own, or digits past 15',
  milliseconds: 'text other than digits or UTC time YYYY-MM-DDTHH:MM:SS[.fff]Z, which Date.parse reads by rules of its own, or digits past 15',
  zero: '',
  empty: '',
};

/** Names of the columns the request table adds beside the fields. */
export const requestCheckColumn = {
  /** The row is not a Logpush line (a request object, or an object without the dataset's own fields). */
  notLogpush: 'rulekit not logpush',
  /** The row's value of the rule field has no exact SQL reading. */
  inexact: (field: string) => `rulekit inexact ${field}`,
  /** The row lacks the Logpush field. */
  lacks: (logpush: string) => `rulekit lacks ${logpush}`,
};

/** What {@link logpushRequestsSql} returns. */
export interface LogpushRequestsSql {
  /**
   * The request table, `(SELECT …) AS requests`: the input's `rn` and `line`, a column per rule field read,
   * and the boolean columns of {@link requestCheckColumn}.
   */
  relation: string;
  /** The rule fields with a column. */
  fields: string[];
  /** Per rule field read (constants left out): the Logpush fields it needs (none: no Logpush field gives it). */
  needs: Map<string, readonly string[]>;
  /** The rule fields whose rows can be inexact, with why, in words. */
  inexact: Map<string, { logpush: string; why: string }>;
  /** The Logpush fields a lacks-column is counted for. */
  logpush: string[];
  /** Every member of the lines the table reads (a Parquet source need hold only these as JSON). */
  members: string[];
  /** `sql-no-exact-form` for each rule field read that the table gives without a reading. */
  refused: Diagnostic[];
}

/** The rule field's definition, alias and any-of targets included (they are what a rule's SQL reads). */
function readFields(fields: Iterable<string>): Map<string, FieldDef> {
  const out = new Map<string, FieldDef>();
  const add = (name: string) => {
    const def = HTTP_SCHEME.get(name);
    if (!def || out.has(name)) return;
    out.set(name, def);
    if (def.aliasOf !== undefined) add(def.aliasOf);
    for (const f of def.anyOf ?? []) add(f);
  };
  for (const f of fields) add(f);
  return out;
}

/** Each rule field's reading, from the table's rows (a field that needs one Logpush field only). */
const READINGS: ReadonlyMap<string, { logpush: string; reading: LogpushSqlReading }> = (() => {
  const out = new Map<string, { logpush: string; reading: LogpushSqlReading }>();
  for (const row of LOGPUSH_REQUEST_FIELDS) {
    for (const [field, reading] of Object.entries(row.sql ?? {})) {
      if (RULE_FIELD_NEEDS.get(field)?.length !== 1) throw new Error(`LOGPUSH_REQUEST_FIELDS: ${field} has an SQL reading but needs ${RULE_FIELD_NEEDS.get(field)?.join(', ')}`);
      out.set(field, { logpush: row.logpush, reading });
    }
  }
  return out;
})();

/** Readings of one JSON value: JavaScript's `String(v)` and friends, where exact. */
class ValueSql {
  constructor(
    private readonly d: Dialect,
    readonly x: JsonValueSql,
  ) {}

  /** The member is there, not null and not `""` (logpushRecord's `present`). */
  get has(): string {
    return `COALESCE(${this.x.present} AND NOT (${this.x.isString} AND ${this.x.text} = ''), FALSE)`;
  }
  /** A whole number up to 2^53. */
  get wholeNumber(): string {
    const { x } = this;
    return `(${x.isNumber} AND ${x.num} = floor(${x.num}) AND abs(${x.num}) <= ${EXACT})`;
  }
  private get isObject(): string {
    const { x } = this;
    return `(${x.present} AND NOT ${x.isString} AND NOT ${x.isNumber} AND NOT ${x.isBool} AND NOT ${x.isArray})`;
  }
  /** `String(v)` where exact (an array or another number is {@link textInexact}). */
  get text(): string {
    const { d, x } = this;
    return d.firstOf(
      [
        [x.isString, x.text],
        [x.isBool, d.firstOf([[x.boolTrue, `'true'`]], `'false'`)],
        [this.wholeNumber, d.toText(d.toInt64(x.num))],
        [this.isObject, `'[object Object]'`],
      ],
      'NULL',
    );
  }
  get textInexact(): string {
    return `(${this.x.isArray} OR (${this.x.isNumber} AND NOT ${this.wholeNumber}))`;
  }
  /** `Number(v)` where a whole number (`finite`: where finite), as a 64-bit integer; and where inexact. */
  number(finite: boolean): { value: string; inexact: string } {
    const { d, x } = this;
    const digits = `(${x.isString} AND ${d.regexpFullMatch(x.text, '-?[0-9]{1,15}')})`;
    const blank = `(${x.isString} AND ${d.regexpFullMatch(x.text, `${JS_SPACE}+`)})`;
    const value = d.firstOf(
      [
        [this.wholeNumber, d.toInt64(x.num)],
        // The number of the text (JSONExtractFloat reads a string's number; DuckDB's cast likewise).
        [digits, d.toInt64(x.num)],
        [blank, d.toInt64('0')],
        [x.isBool, d.firstOf([[x.boolTrue, d.toInt64('1')]], d.toInt64('0'))],
      ],
      'NULL',
    );
    // Text with a digit that is not plain decimal digits (`1e3`, `0x10`, ` 7`): Number() reads forms SQL casts do not.
    const otherDigits = `(${x.isString} AND NOT ${d.regexpFullMatch(x.text, '[^0-9]*')} AND NOT ${digits})`;
    const fraction = finite ? `(${x.isNumber} AND NOT ${this.wholeNumber})` : `(${x.isNumber} AND ${x.num} = floor(${x.num}) AND NOT ${this.wholeNumber})`;
    return { value, inexact: `(${x.isArray} OR ${fraction} OR ${otherDigits})` };
  }
  /** EdgeStartTimestamp as milliseconds (a DOUBLE, as `millisOf` computes it) and where inexact. */
  millis(): { value: string; inexact: string } {
    const { d, x } = this;
    const digits = `(${x.isString} AND ${d.regexpFullMatch(x.text, '[0-9]{1,15}')})`;
    const n = d.firstOf([[x.isNumber, x.num], [digits, x.num]], 'NULL');
    const fromNumber = d.firstOf([[`${n} > 1e15`, `floor(${n} / 1e6)`]], `${n} * 1000`);
    const { ms: fromText, shape, valid } = rfc3339Millis(d, x.text);
    const ms = d.firstOf([[`${x.isString} AND ${shape}`, d.nullUnless(valid, fromText)]], fromNumber);
    // Other text is Date.parse's to read (its other forms, offsets, an hour 24, the year 0): not read in SQL.
    const read = `(${shape} AND substring(${x.text}, 12, 2) <> '24' AND substring(${x.text}, 1, 4) <> '0000')`;
    return { value: ms, inexact: `((${x.isString} AND NOT ${digits} AND NOT ${read}) OR abs(${ms}) > ${EXACT})` };
  }
}

/**
 * `Date.parse` (V8) of UTC text `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, the Logpush RFC 3339 timestamps: the
 * milliseconds from the fields (the fraction's first three digits; a day past its month's end runs on into
 * the next, as V8 has it), where `valid` (month 1–12, day 1–31, hour 0–23, minute and second 0–59;
 * otherwise NaN, missing). Days from the civil date by the proleptic Gregorian count from year 1.
 */
function rfc3339Millis(d: Dialect, t: string): { ms: string; shape: string; valid: string } {
  const shape = d.regexpFullMatch(t, '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z');
  const part = (from: number, length: number) => d.toInt64(`substring(${t}, ${from}, ${length})`);
  const [y, m, day, h, mi, s] = [part(1, 4), part(6, 2), part(9, 2), part(12, 2), part(15, 2), part(18, 2)];
  const valid = `(${y} >= 1 AND ${m} BETWEEN 1 AND 12 AND ${day} BETWEEN 1 AND 31 AND ${h} BETWEEN 0 AND 23 AND ${mi} BETWEEN 0 AND 59 AND ${s} BETWEEN 0 AND 59)`;
  // The year counted from March, so that a leap day ends it (Hinnant's days_from_civil, years ≥ 0).
  const ya = `(${y} - CASE WHEN ${m} <= 2 THEN 1 ELSE 0 END)`;
  const doy = `(floor((153 * (${m} + CASE WHEN ${m} > 2 THEN -3 ELSE 9 END) + 2) / 5) + ${day} - 1)`;
  const days = `(365 * ${ya} + floor(${ya} / 4) - floor(${ya} / 100) + floor(${ya} / 400) + ${doy} - 719468)`;
  const fraction = d.toInt64(`substring(concat(${d.regexpRemoveAll(t, '^.{20}|Z$')}, '00'), 1, 3)`);
  return { ms: `((${days} * 86400 + ${h} * 3600 + ${mi} * 60 + ${s}) * 1000 + ${fraction})`, shape, valid };
}

/** Whether text holds characters outside ASCII (whose case JavaScript and SQL change differently). */
const nonAscii = (d: Dialect, t: string) => `NOT ${d.regexpFullMatch(t, ASCII_ONLY)}`;
const trimAscii = (d: Dialect, t: string) => d.regexpRemoveAll(t, `^${ASCII_SPACE}+|${ASCII_SPACE}+$`);

/** A reading's value (NULL where the value gives none) and where it is inexact (evaluated where present). */
function readingSql(d: Dialect, v: ValueSql, reading: LogpushSqlReading, header: JsonValueSqlAt | undefined): { value: string; inexact: string } {
  const { x } = v;
  const text = v.text;
  const textInexact = v.textInexact;
  const overridden = header && reading.header ? ` OR COALESCE(${d.jsonHasKeyLower(header.col, header.key, reading.header.name)}, FALSE)` : '';
  switch (reading.kind) {
    case 'text':
      return { value: text, inexact: `(${textInexact}${overridden})` };
    case 'upper':
      return { value: `upper(${text})`, inexact: `(${textInexact} OR ${nonAscii(d, text)})` };
    case 'version':
    case 'client-tcp': {
      const s = `upper(${d.regexpRemoveAll(text, `^${JS_SPACE}+|${JS_SPACE}+$`)})`;
      const version = d.firstOf([[`${s} IN ('H2', 'HTTP/2', 'HTTP/2.0')`, `'HTTP/2'`], [`(${s} IN ('H3', 'HTTP/3', 'HTTP/3.0') OR ${d.startsWith(s, `'H3-'`)})`, `'HTTP/3'`]], s);
      return { value: reading.kind === 'version' ? version : `(NOT (${version} = 'HTTP/3'))`, inexact: `(${textInexact} OR ${nonAscii(d, text)})` };
    }
    case 'address':
      return { value: d.nullUnless(`${x.isString} AND ${d.ip.isAddress(x.text)}`, x.text), inexact: x.isArray };
    case 'country':
      return {
        value: d.firstOf([[`${x.isString} AND ${d.regexpFullMatch(x.text, '[a-zA-Z0-9]{2}')}`, `upper(${x.text})`], [`${v.wholeNumber} AND ${x.num} BETWEEN 10 AND 99`, d.toText(d.toInt64(x.num))]], 'NULL'),
        inexact: x.isArray,
      };
    case 'tls':
      return { value: d.firstOf([[`${text} = 'none'`, `''`]], text), inexact: textInexact };
    case 'media-type':
      return { value: `lower(${trimAscii(d, d.regexpRemoveAll(text, '(?s);.*'))})`, inexact: `(${textInexact} OR ${nonAscii(d, text)}${overridden})` };
    case 'integer':
    case 'finite':
      return v.number(reading.kind === 'finite');
    case 'seconds':
    case 'milliseconds': {
      const ms = v.millis();
      // Past 2^53 the row is inexact; the cast is kept from it (DuckDB refuses a DOUBLE past 64 bits).
      const value = reading.kind === 'seconds' ? d.toInt64(`floor(${ms.value} / 1000)`) : `((${d.toInt64(`floor(${ms.value})`)} % 1000) + 1000) % 1000`;
      return { value: d.nullUnless(`abs(${ms.value}) <= ${EXACT}`, value), inexact: ms.inexact };
    }
    case 'zero':
      return { value: d.toInt64('0'), inexact: 'FALSE' };
    case 'empty':
      return { value: `''`, inexact: 'FALSE' };
  }
}

/** A JSON value's place: a column, and a member key in it (absent: the column holds the value itself). */
interface JsonValueSqlAt {
  col: string;
  key?: string;
}

/** Options of {@link logpushRequestsSql}. */
export interface LogpushRequestsSqlOptions {
  /**
   * Values as the semantic diff takes them (`checkPacketValues`): an Int outside its field's domain is
   * missing. Without, as the simulator takes them: kept.
   */
  checked?: boolean;
}

/**
 * The request table over `lines`, a relation (`(…) AS name`) with a row number `rn` and each Logpush line
 * as JSON (`line`), for the rule fields `fields` (the fields the rules read).
 */
export function logpushRequestsSql(d: Dialect, fields: Iterable<string>, lines: string, options: LogpushRequestsSqlOptions = {}): LogpushRequestsSql {
  const read = readFields(fields);
  const refused: Diagnostic[] = [];
  const needs = new Map<string, readonly string[]>();
  const inexact = new Map<string, { logpush: string; why: string }>();
  // The Logpush members read: those the fields need, the header maps that may override them, and the
  // keys that tell a Logpush line from a request object.
  const members: string[] = [];
  const member = (k: string) => {
    let i = members.indexOf(k);
    if (i < 0) i = members.push(k) - 1;
    return i;
  };
  for (const [field] of read) {
    // An alias (a deprecated name, ip.geoip.country) needs what its target needs.
    const target = HTTP_SCHEME.get(field)?.aliasOf ?? field;
    if (LOGPUSH_CONSTANT_FIELDS.has(target)) continue;
    const need = RULE_FIELD_NEEDS.get(field) ?? RULE_FIELD_NEEDS.get(target) ?? [];
    needs.set(field, need);
    need.forEach(member);
    const r = READINGS.get(target);
    if (r) member(r.logpush);
    if (r?.reading.header) member(r.reading.header.logpush);
    if (need.length && !r) refused.push({ code: 'sql-no-exact-form', severity: 'error', message: `${field} is made from the Logpush field${need.length > 1 ? 's' : ''} ${need.join(', ')} in this process (URLs parsed, header and cookie maps built); it has no exact SQL form, so the rules reading it are not run on an engine`, pointer: '', data: { field } });
  }
  for (const k of ['method', 'url', ...LOGPUSH_SIGNATURE]) member(k);
  const { source } = d;
  const { items, member: at } = source.lineMembers('line', members);
  const place = (k: string): JsonValueSqlAt => {
    const [col, key] = at(member(k));
    return key === undefined ? { col } : { col, key };
  };
  const valueOf = (k: string) => {
    const p = place(k);
    return new ValueSql(d, d.json(p.col, p.key));
  };
  const id = (s: string) => d.identifier(s);
  const cols: string[] = [];
  for (const [field, def] of read) {
    // An alias (a deprecated name) holds its target's value: a column of its own, for the diff's regions.
    const source = def.aliasOf ?? field;
    const constant = LOGPUSH_CONSTANT_FIELDS.get(source);
    if (constant !== undefined) {
      cols.push(`${typeof constant === 'number' ? d.toInt64(String(constant)) : d.string(constant)} AS ${id(field)}`);
      continue;
    }
    if (def.container !== undefined) continue; // rules read these through functions or [ ], which have no SQL form
    const r = READINGS.get(source);
    if (!r) {
      // Missing on every line (no Logpush field gives it), or refused above.
      cols.push(`CAST(NULL AS ${d.flowTypes[def.type]}) AS ${id(field)}`);
      continue;
    }
    const v = valueOf(r.logpush);
    const header = r.reading.header ? place(r.reading.header.logpush) : undefined;
    const got = readingSql(d, v, r.reading, header);
    let value = got.value;
    if (options.checked && def.type === 'Int') {
      // checkPacketValues' bounds: the field's domain, else its literal range, else JavaScript's safe integers.
      const lo = def.domain?.min ?? def.range?.[0] ?? -9007199254740991;
      const hi = def.domain?.max ?? def.range?.[1] ?? 9007199254740991;
      value = d.nullUnless(`${value} BETWEEN ${lo} AND ${hi}`, value);
    }
    cols.push(`${d.nullUnless(v.has, value)} AS ${id(field)}`);
    if (got.inexact !== 'FALSE') {
      cols.push(`COALESCE(${v.has} AND ${got.inexact}, FALSE) AS ${id(requestCheckColumn.inexact(field))}`);
      inexact.set(field, { logpush: r.logpush, why: INEXACT_WHY[r.reading.kind] });
    }
  }
  const logpush = [...new Set([...needs.values()].flat())];
  for (const k of logpush) cols.push(`NOT ${valueOf(k).has} AS ${id(requestCheckColumn.lacks(k))}`);
  const has = (k: string) => `COALESCE(${valueOf(k).x.has}, FALSE)`;
  cols.push(`NOT (NOT ${has('method')} AND NOT ${has('url')} AND (${LOGPUSH_SIGNATURE.map(has).join(' OR ')})) AS ${id(requestCheckColumn.notLogpush)}`);
  const withMembers = items.length ? `(SELECT *, ${items.join(', ')} FROM ${lines}) AS members` : lines;
  return { relation: `(SELECT rn, line, ${cols.join(', ')} FROM ${withMembers}) AS requests`, fields: [...read.keys()], needs, inexact, logpush, members, refused };
}
