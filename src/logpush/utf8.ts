/** UTF-8 lengths and cuts at character boundaries, on JS strings (no encoder needed). @module */
export { utf8Length } from '../json/index.js';

/**
 * The longest prefix of `s` whose UTF-8 encoding fits in `maxBytes`, never splitting a character (a
 * surrogate pair stays whole; a lone surrogate counts 3 bytes, as its U+FFFD replacement).
 */
export function utf8Prefix(s: string, maxBytes: number): string {
  let n = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let len: number;
    let units = 1;
    if (c < 0x80) len = 1;
    else if (c < 0x800) len = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      len = 4;
      units = 2;
    } else len = 3;
    if (n + len > maxBytes) break;
    n += len;
    i += units;
  }
  return s.slice(0, i);
}
