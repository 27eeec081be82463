/**
 * The byte view of a String value and its inverse. Strings are UTF-8 text, but a value can also hold raw
 * bytes (a digest, a cut through a character, an escape `"\xff"`): a byte of such a value that is not part
 * of a valid UTF-8 sequence is carried as the lone low surrogate U+DC00 + byte (U+DC80–U+DCFF, the
 * "surrogateescape" of Python), which no UTF-8 text holds. `valueBytes` reads a value as bytes and
 * `bytesValue` is its inverse, so every function that reads or makes bytes (`len`, `substring`,
 * `remove_bytes`, `starts_with`, `sha256`, `encode_base64`, `decode_base64`, `url_decode`, …) agrees on
 * them: `bytesValue(valueBytes(v)) === v` for well-formed text and for whatever `bytesValue` gave, and
 * `valueBytes(bytesValue(b))` is `b` for any bytes. Any other lone surrogate is the 3 bytes of U+FFFD, as
 * TextEncoder has it. Browser-safe.
 * @module
 */

const utf8 = new TextEncoder();
/** For runs already validated; `ignoreBOM` so that a leading EF BB BF stays a character. */
const utf8Text = new TextDecoder('utf-8', { ignoreBOM: true });

/** Only ASCII characters: a byte per character, the common case. */
const ASCII = /^[\x00-\x7f]*$/;
/** An escaped byte (it may also be the low half of a pair; `valueBytes` tells the two apart). */
const ESCAPED = /[\udc80-\udcff]/;

/** Does the value carry an escaped byte (so that its code units are not its characters)? */
export function hasEscapedBytes(s: string): boolean {
  return ESCAPED.test(s);
}

/**
 * The bytes of a value: UTF-8, except lone U+DC80–U+DCFF, which are the escaped bytes 0x80–0xFF. A value
 * with escapes is encoded by hand into a buffer of its measured length: encoding it piecewise with
 * TextEncoder made `substring` of a digest 12 times slower than before escapes were read (a bench of
 * `substring(sha256(x), 0, 4)`).
 */
export function valueBytes(s: string): Uint8Array {
  if (!ESCAPED.test(s)) return utf8.encode(s);
  const out = new Uint8Array(valueByteLength(s));
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) out[o++] = c;
    else if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6);
      out[o++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const cp = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
      out[o++] = 0xf0 | (cp >> 18);
      out[o++] = 0x80 | ((cp >> 12) & 0x3f);
      out[o++] = 0x80 | ((cp >> 6) & 0x3f);
      out[o++] = 0x80 | (cp & 0x3f);
    } else if (c >= 0xdc80 && c <= 0xdcff) out[o++] = c - 0xdc00;
    else {
      // Any other lone surrogate is U+FFFD, as TextEncoder has it.
      const u = c >= 0xd800 && c <= 0xdfff ? 0xfffd : c;
      out[o++] = 0xe0 | (u >> 12);
      out[o++] = 0x80 | ((u >> 6) & 0x3f);
      out[o++] = 0x80 | (u & 0x3f);
    }
  }
  return out;
}

/**
 * The byte length of a value without encoding it: bench http showed `len()` of a long query string spend
 * nearly all of a rule's time in TextEncoder. An escaped byte counts 1; any other lone surrogate 3 (U+FFFD).
 */
export function valueByteLength(s: string): number {
  if (ASCII.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 4 bytes for 2 code units
      i++;
    } else if (c < 0xdc80 || c > 0xdcff) n += 2; // an escaped byte (reached unpaired) is 1 byte
  }
  return n;
}

/**
 * The length of the valid UTF-8 sequence at `i` (the well-formed byte table of Unicode 3.9, table 3-7),
 * or 0 when the bytes there do not start one.
 */
function sequenceAt(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => i + j < b.length && b[i + j]! >= lo && b[i + j]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const ok = c === 0xe0 ? cont(1, 0xa0) : c === 0xed ? cont(1, 0x80, 0x9f) : cont(1);
    return ok && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const ok = c === 0xf0 ? cont(1, 0x90) : c === 0xf4 ? cont(1, 0x80, 0x8f) : cont(1);
    return ok && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/**
 * Bytes as a value: valid UTF-8 sequences as their text, each byte of anything else as U+DC00 + byte.
 * The escaping walk is hand-written (no decoder library escapes bytes), and it validates before decoding
 * rather than catching a fatal TextDecoder: the exception made `substring` of a digest 12 times slower.
 */
export function bytesValue(bytes: Uint8Array): string {
  let out = '';
  let run = 0;
  for (let i = 0; i < bytes.length; ) {
    if (bytes[i]! < 0x80) {
      i++;
      continue;
    }
    const n = sequenceAt(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (run < i) out += utf8Text.decode(bytes.subarray(run, i));
    out += String.fromCharCode(0xdc00 + bytes[i]!);
    i += 1;
    run = i;
  }
  if (run === 0) return utf8Text.decode(bytes);
  if (run < bytes.length) out += utf8Text.decode(bytes.subarray(run));
  return out;
}

/** A code unit from U+D800 up: where UTF-16 order and byte order can part. */
const WIDE = /[\ud800-\uffff]/;

/** The byte order of two values (`<` on strings): negative, 0 or positive. */
export function compareValues(a: string, b: string): number {
  // Below U+D800 a code unit is a character, and code-unit order is code point order, which is UTF-8's.
  if (!WIDE.test(a) && !WIDE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = valueBytes(a);
  const y = valueBytes(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
