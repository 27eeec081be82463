/**
 * Request targets as sent, split without the WHATWG URL parser (which would normalize them: the `raw.*`
 * fields need the text as sent), and the path normalization of the service's default URL normalization
 * ("Cloudflare" type on incoming URLs: back slashes to slashes, successive slashes merged, then RFC 3986:
 * unreserved characters decoded, other percent-encodings upper-cased, other characters encoded, dot
 * segments removed). Source: the "How URL normalization works" page of cloudflare-docs
 * (`src/content/docs/rules/normalization/how-it-works.mdx`). The query string is not normalized.
 * @module
 */

/** The parts of a request target. */
export interface UrlParts {
  /** Lower-cased scheme (`https`), or undefined for an origin-form target (`/path?q`). */
  scheme?: string;
  /** Host without user info and port (IPv6 without brackets), or undefined. */
  host?: string;
  /** The authority's host and port as written (`example.com:8443`), or undefined. */
  authority?: string;
  port?: number;
  /** The path as sent; `/` when an absolute URL has none. */
  path: string;
  /** The query string as sent without `?`, or undefined when there is no `?`. */
  query?: string;
}

const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\\]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/s;
const ORIGIN = /^([^?#]*)(?:\?([^#]*))?(?:#.*)?$/s;

/** Split a request target; undefined when it is neither an absolute URL nor starts with `/` (or is `*`). */
export function splitUrl(url: string): UrlParts | undefined {
  const abs = ABSOLUTE.exec(url);
  if (abs) {
    const authority = abs[2]!.replace(/^[^@]*@/, '');
    const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority);
    if (!m) return undefined;
    const host = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
    const parts: UrlParts = { scheme: abs[1]!.toLowerCase(), host, authority, path: abs[3] || '/' };
    if (m[2]) parts.port = Number(m[2]);
    if (abs[4] !== undefined) parts.query = abs[4];
    return parts;
  }
  if (!url.startsWith('/') && url !== '*') return undefined;
  const o = ORIGIN.exec(url)!;
  const parts: UrlParts = { path: o[1]! };
  if (o[2] !== undefined) parts.query = o[2];
  return parts;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** Characters kept as they are: unreserved, reserved (RFC 3986 section 2.2) and `%` of a valid encoding. */
const KEPT = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]/;

/** The path after the default URL normalization (see the module comment). */
export function normalizePath(path: string): string {
  const merged = path.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  let out = '';
  const bytes = new TextEncoder();
  for (let i = 0; i < merged.length; i++) {
    const c = merged[i]!;
    if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(merged.slice(i + 1, i + 3))) {
      const hex = merged.slice(i + 1, i + 3).toUpperCase();
      const ch = String.fromCharCode(parseInt(hex, 16));
      out += UNRESERVED.test(ch) ? ch : `%${hex}`;
      i += 2;
    } else if (KEPT.test(c)) out += c;
    else {
      // A surrogate pair is one character: encode both halves together.
      const code = merged.codePointAt(i)!;
      const text = String.fromCodePoint(code);
      if (code > 0xffff) i++;
      for (const b of bytes.encode(text)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return removeDotSegments(out);
}

/** RFC 3986 section 5.2.4. */
export function removeDotSegments(path: string): string {
  let input = path;
  const output: string[] = [];
  while (input.length) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output.pop();
    } else if (input === '/..') {
      input = '/';
      output.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const seg = next < 0 ? input : input.slice(0, next);
      output.push(seg);
      input = next < 0 ? '' : input.slice(next);
    }
  }
  return output.join('');
}

/**
 * The file extension of a path's last segment without the dot (the fields reference's table: `/foo` → "",
 * `/.mp3` → "", `/.foo.mp3` → "mp3", `/foo.` → "").
 */
export function pathExtension(path: string): string {
  const seg = path.slice(path.lastIndexOf('/') + 1);
  const dot = seg.lastIndexOf('.');
  if (dot <= 0) return '';
  return seg.slice(dot + 1);
}

/** `name=value` pairs of a query string or form body, not decoded; empty pieces are skipped. */
export function splitPairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const piece of text.split('&')) {
    if (!piece) continue;
    const eq = piece.indexOf('=');
    out.push(eq < 0 ? [piece, ''] : [piece.slice(0, eq), piece.slice(eq + 1)]);
  }
  return out;
}
