/**
 * Reading literals by the type the left-hand side wants (wirefilter lexes the right-hand side "with the
 * left-hand side"; we lex once and interpret here). Each reader returns a value or pushes a diagnostic.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { LiteralNode } from './ast.js';
import { expressionDiagnostic } from './diagnostics.js';
import type { FieldDef } from './scheme.js';
import { COUNTRY_CODES } from './countries.js';
import { bytesValue } from './bytes.js';
import { parseIpAddress, parseIpCidr, cidrToRange, formatIpAddress, type IpAddress, type IpRange } from '../net/index.js';

/**
 * Result of reading an integer literal's text. Integers are 64-bit signed, as in the language; beyond
 * ±2^53 `value` is the nearest double and `big` the exact value.
 */
export type IntText = { ok: true; value: number; octal: boolean; big?: bigint } | { ok: false; reason: string };

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Read decimal, `0x` hex or leading-zero octal text. */
export function readIntText(text: string, negative = false): IntText {
  if (text.startsWith('-')) {
    const r = readIntText(text.slice(1), true);
    if (!r.ok) return r;
    const big = r.big === undefined ? undefined : -r.big;
    return big === undefined ? { ...r, value: -r.value } : { ...r, value: -r.value, big };
  }
  let value: number;
  let octal = false;
  const c0 = text.charCodeAt(0);
  if (c0 >= 49 && c0 <= 57 && text.length < 16 && isDecimal(text)) return { ok: true, value: Number(text), octal: false }; // fast path
  if (/^0x[0-9a-fA-F]+$/.test(text)) value = parseInt(text.slice(2), 16);
  else if (/^0[0-9]+$/.test(text)) {
    if (/[89]/.test(text)) return { ok: false, reason: `${text} starts with 0, so it is octal, and 8 and 9 are not octal digits` };
    value = parseInt(text, 8);
    octal = true;
  } else if (/^[0-9]+$/.test(text)) value = parseInt(text, 10);
  else return { ok: false, reason: `${text} is not an integer` };
  if (!Number.isSafeInteger(value)) {
    const digits = octal ? text.slice(1) : text.startsWith('0x') ? text.slice(2) : text;
    const big = BigInt(octal ? '0o' + digits : text.startsWith('0x') ? '0x' + digits : digits);
    if ((negative ? -big : big) < I64_MIN || (negative ? -big : big) > I64_MAX) return { ok: false, reason: `${negative ? '-' : ''}${text} is out of the 64-bit integer range (${I64_MIN}..${I64_MAX})` };
    return { ok: true, value: Number(big), octal, big };
  }
  return { ok: true, value, octal };
}

const bits = new DataView(new ArrayBuffer(8));

/** The double next to `d` (a non-zero double), away from zero (`outward`) or towards it. */
function nextDouble(d: number, outward: boolean): number {
  bits.setFloat64(0, d);
  bits.setBigUint64(0, bits.getBigUint64(0) + (outward ? 1n : -1n));
  return bits.getFloat64(0);
}

/**
 * The doubles a 64-bit integer bounds: the least double ≥ `big` and the greatest double ≤ `big` (equal
 * when `big` is a double). A double `v` is ≥ `big` exactly when `v ≥ atLeast`, ≤ `big` exactly when
 * `v ≤ atMost`: integers beyond ±2^53 in a set become double comparisons that agree with the exact ones.
 */
export function doubleBounds(big: bigint): { atLeast: number; atMost: number } {
  const d = Number(big);
  const exact = BigInt(d);
  if (exact === big) return { atLeast: d, atMost: d };
  // |big| > 2^53 here, so d is far from zero: the next double is one unit of its last place away.
  return exact > big ? { atLeast: d, atMost: nextDouble(d, d < 0) } : { atLeast: nextDouble(d, d > 0), atMost: d };
}

function isDecimal(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Read an Int literal for a field (range checks, octal warning). */
export function readInt(lit: LiteralNode, field: FieldDef | undefined, out: Diagnostic[]): number | undefined {
  if (lit.form === 'word' && (lit.text === 'true' || lit.text === 'false')) {
    out.push(expressionDiagnostic('boolean-literal', `there is no ${lit.text} literal; ${field ? field.name : 'this value'} is an Int`, lit.range));
    return undefined;
  }
  if (lit.form === 'word' && /^-?[0-9][0-9a-zA-Z]*$/.test(lit.text)) {
    out.push(expressionDiagnostic('invalid-integer', `${lit.text} is not an integer (decimal, 0x hex or 0-prefixed octal)`, lit.range));
    return undefined;
  }
  if (lit.form !== 'int') {
    const looksInt = lit.form !== 'word' && /^(?:0x[0-9a-fA-F]+|[0-9]+)$/.test(lit.value ?? '');
    out.push(
      expressionDiagnostic('literal-type-mismatch', `${field ? field.name : 'this value'} is an Int; ${describe(lit)} is not an integer`, lit.range,
        looksInt ? { fix: { title: `write ${lit.value}`, edits: [{ range: lit.range, newText: lit.value! }] } } : {}),
    );
    return undefined;
  }
  const r = readIntText(lit.text);
  if (!r.ok) {
    out.push(expressionDiagnostic('invalid-integer', r.reason, lit.range));
    return undefined;
  }
  if (r.octal) {
    out.push(
      expressionDiagnostic('octal-literal', `${lit.text} is octal (= ${r.value}) because it starts with 0; if you meant ${parseInt(lit.text, 10)}, write it without the leading 0`, lit.range, {
        fix: { title: `write ${parseInt(lit.text, 10)} (decimal)`, edits: [{ range: lit.range, newText: String(parseInt(lit.text, 10)) }] },
        data: { value: r.value },
      }),
    );
  }
  if (field?.range && (r.value < field.range[0] || r.value > field.range[1])) {
    out.push(
      expressionDiagnostic('value-out-of-range', `${r.value} is outside the range of ${field.name} (${field.range[0]}..${field.range[1]})`, lit.range, {
        data: { min: field.range[0], max: field.range[1], value: r.value },
      }),
    );
    return undefined;
  }
  return r.value;
}

const BYTES_RE = /^[0-9a-fA-F]{2}(?:[:.-][0-9a-fA-F]{2})+$/;

/** Read a String literal: a quoted or raw string, or a byte string `aa:bb:cc` (its bytes, as `bytes.ts` makes a value of them). */
export function readString(lit: LiteralNode, field: FieldDef | undefined, out: Diagnostic[]): string | undefined {
  let value: string | undefined;
  if (lit.form === 'string' || lit.form === 'raw') value = lit.value ?? '';
  else if (lit.form === 'word' && BYTES_RE.test(lit.text)) {
    value = bytesValue(Uint8Array.from(lit.text.split(/[:.-]/), (h) => parseInt(h, 16)));
  } else {
    if (lit.form === 'word' && /^[0-9a-fA-F]{2}[:.-]/.test(lit.text) && !/^\d+\.\d+\.\d+\.\d+$/.test(lit.text)) {
      out.push(expressionDiagnostic('invalid-byte-string', `${lit.text} is not a byte string: each byte is two hex digits, separated by :, - or . (aa:bb:cc)`, lit.range));
      return undefined;
    }
    const quoted = JSON.stringify(lit.text);
    out.push(
      expressionDiagnostic('literal-type-mismatch', `${field ? field.name : 'this value'} is a String; put text in quotes: ${quoted}`, lit.range, {
        fix: { title: `write ${quoted}`, edits: [{ range: lit.range, newText: quoted }] },
      }),
    );
    return undefined;
  }
  if (field?.country) {
    if (!COUNTRY_CODES.has(value)) {
      const upper = value.toUpperCase();
      if (COUNTRY_CODES.has(upper)) {
        out.push(
          expressionDiagnostic('lowercase-country-code', `country codes are upper case: "${upper}" (as written, "${value}" never matches)`, lit.range, {
            fix: { title: `write "${upper}"`, edits: [{ range: lit.range, newText: JSON.stringify(upper) }] },
          }),
        );
      } else {
        out.push(expressionDiagnostic('invalid-country-code', `${JSON.stringify(value)} is not an ISO 3166-1 alpha-2 country code (such as "BR", "US", "DE")`, lit.range));
        return undefined;
      }
    }
  }
  return value;
}

/** What an Ip literal turned out to be. */
export type IpLiteral = { kind: 'address'; address: IpAddress } | { kind: 'cidr'; range: IpRange; text: string };

/** Read an Ip literal: an address, or (where `allowCidr`) a CIDR. */
export function readIp(lit: LiteralNode, field: FieldDef | undefined, out: Diagnostic[]): IpLiteral | undefined {
  if (lit.form !== 'word' && lit.form !== 'int') {
    const parsable = parseIpAddress(lit.value ?? '') !== undefined || parseIpCidr(lit.value ?? '') !== undefined;
    out.push(
      expressionDiagnostic('literal-type-mismatch', `${field ? field.name : 'this value'} is an Ip; write the address without quotes`, lit.range,
        parsable ? { fix: { title: `write ${lit.value}`, edits: [{ range: lit.range, newText: lit.value! }] } } : {}),
    );
    return undefined;
  }
  if (lit.form === 'int') {
    out.push(expressionDiagnostic('literal-type-mismatch', `${field ? field.name : 'this value'} is an Ip; ${lit.text} is an integer, not an address`, lit.range));
    return undefined;
  }
  const addr = parseIpAddress(lit.text);
  if (addr) return { kind: 'address', address: addr };
  if (lit.text.includes('/')) {
    const c = parseIpCidr(lit.text);
    if (c) {
      if (c.hostBitsSet) {
        const net = `${formatIpAddress(c.network)}/${c.prefix}`;
        out.push(
          expressionDiagnostic('cidr-host-bits', `${lit.text} has host bits set; it means ${net}`, lit.range, {
            fix: { title: `write ${net}`, edits: [{ range: lit.range, newText: net }] },
          }),
        );
      }
      return { kind: 'cidr', range: cidrToRange(c), text: lit.text };
    }
  }
  out.push(expressionDiagnostic('invalid-ip', `${lit.text} is not an IP address${lit.text.includes('/') ? ' or CIDR' : ''}`, lit.range));
  return undefined;
}

function describe(lit: LiteralNode): string {
  return lit.form === 'string' || lit.form === 'raw' ? `the string ${lit.text.length > 30 ? lit.text.slice(0, 30) + '…' : lit.text}` : lit.text;
}
