/**
 * Request bodies: bytes → checked UTF-8 text → JSON value, each step answering its own error. The JSON
 * parser of fastify would decode bad UTF-8 to U+FFFD silently and give no position; this one refuses
 * bad bytes with their offset, refuses nesting deeper than {@link MAX_JSON_DEPTH} before parsing (a deep
 * body cannot exhaust the stack), and gives the line and column of a syntax error.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { SourceText } from '../diagnostics/index.js';
import { parseJsonText, scanDepth } from '../json/index.js';
import { messagesText, serverDiagnostic } from './envelope.js';

/** Deepest nesting of arrays and objects a body may have. */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Why a body was not read whole: over the limit (413), or not as long as its Content-Length said (400). */
export type BodyReadFailure = 'too-large' | 'length-mismatch';

/**
 * Read a request's body bytes, refusing more than `limit` (declared by Content-Length, or received).
 * What fastify's `parseAs: 'buffer'` does, but a body that arrives in one chunk is handed on as that
 * chunk, not copied: fastify copies every body into a Buffer of its own (~8 KB for the bench's PUT),
 * which lives until a garbage collection (measured: 3% of a PUT's server time, and page faults when
 * the allocator gives the memory of a batch back). The chunk may be a view of the socket's read, so
 * whatever keeps bytes beyond the request copies them ({@link ParseMemo} does).
 */
export function readBodyBytes(
  stream: NodeJS.ReadableStream,
  limit: number,
  declaredLength: number,
  done: (failure: BodyReadFailure | Error | undefined, bytes?: Buffer) => void,
): void {
  if (declaredLength > limit) return done('too-large');
  const chunks: Buffer[] = [];
  let received = 0;
  const finish = (failure: BodyReadFailure | Error | undefined, bytes?: Buffer) => {
    stream.removeListener('data', onData);
    stream.removeListener('end', onEnd);
    stream.removeListener('error', onError);
    done(failure, bytes);
  };
  const onData = (chunk: Buffer | string) => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += b.length;
    if (received > limit) return finish('too-large');
    chunks.push(b);
  };
  const onEnd = () => {
    if (!Number.isNaN(declaredLength) && received !== declaredLength) return finish('length-mismatch');
    finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
  };
  const onError = (e: Error) => finish(e);
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('error', onError);
  stream.resume();
}

/** A parsed body: the JSON value and its text (validators take the text for ranges and duplicate keys). */
export interface ParsedBody {
  value: unknown;
  text: string;
  /** What {@link parseBody}'s scan of the text found: object members (colons outside strings), and whether a string holds a `\uD8xx`–`\uDFxx` escape. */
  scan?: { members: number; surrogateEscape: boolean };
}

/** Decode and parse a body; a diagnostic when it is not UTF-8 JSON within the depth limit. */
export function parseBody(bytes: Buffer): ParsedBody | Diagnostic {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return serverDiagnostic('server-invalid-utf8', `the body is not valid UTF-8: the first bad byte sequence starts at byte ${firstBadUtf8(bytes)}`);
  }
  const scan = scanText(text, MAX_JSON_DEPTH);
  if (scan.blank) return serverDiagnostic('server-missing-body', 'the body is empty; send a JSON object');
  const deep = scan.tooDeep ? scanDepth(text, MAX_JSON_DEPTH) : undefined;
  if (deep) {
    const d = serverDiagnostic('server-json-too-deep', `the body nests ${deep.depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted`);
    d.range = { start: deep.offset, end: deep.offset + 1 };
    return d;
  }
  try {
    return { value: JSON.parse(text), text, scan: { members: scan.members, surrogateEscape: scan.surrogateEscape } };
  } catch {
    // Only JSON's four whitespace characters count as blank in the scan; other Unicode space is blank too.
    if (text.trim() === '') return serverDiagnostic('server-missing-body', 'the body is empty; send a JSON object');
    // JSON.parse says neither line nor column in a stable form: the tolerant parser finds the place.
    const parsed = parseJsonText(text, MAX_JSON_DEPTH);
    const first = parsed.errors[0];
    if (!first) return serverDiagnostic('server-invalid-json', 'the body is not valid JSON');
    const at = new SourceText(text).position(first.range.start);
    const d = serverDiagnostic('server-invalid-json', `the body is not valid JSON at line ${at.line}, column ${at.column + 1}: ${first.message}`);
    d.range = first.range;
    return d;
  }
}

function firstBadUtf8(bytes: Buffer): number {
  // Bisect on the fatal streaming decoder: the longest prefix that decodes as the start of a stream.
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    let ok = true;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
    } catch {
      ok = false;
    }
    if (ok) lo = mid;
    else hi = mid - 1;
  }
  // That prefix may end inside a sequence whose lead byte was fine (E0 80, ED A0: the second byte is the
  // bad one; or the body ends there): the bad sequence starts at that lead byte, not after it.
  let start = lo;
  while (start > 0 && start > lo - 3 && (bytes[start - 1]! & 0xc0) === 0x80) start--;
  if (start > 0 && bytes[start - 1]! >= 0xc0) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, lo));
    } catch {
      return start - 1;
    }
  }
  return lo;
}

/**
 * Whether the text may say something its parsed value has lost: a key given twice in one object (the
 * value keeps the last), or a `\uD8xx` escape (the value holds a lone surrogate silently). Members are
 * counted in the text (colons outside strings) and in the value; a difference means a duplicate.
 */
export function textMatters(body: ParsedBody): boolean {
  const { members: inText, surrogateEscape } = body.scan ?? scanText(body.text, Infinity);
  if (surrogateEscape) return true;
  let inValue = 0;
  const stack: unknown[] = [body.value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else for (const k of Object.keys(v)) {
      inValue++;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return inText !== inValue;
}

const isHex = (c: number) => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/**
 * One pass over a body's text: whether it is blank, whether it nests deeper than `maxDepth`, how many
 * object members it has (colons outside strings) and whether a string holds an escape of a UTF-16
 * surrogate (`\uD800`–`\uDFFF`). Hand-written as one loop: the three scans it replaces (depth, members,
 * a regular expression) were a tenth of a PUT's CPU time in the bench's profile.
 */
export function scanText(text: string, maxDepth: number): { blank: boolean; tooDeep: boolean; members: number; surrogateEscape: boolean } {
  let depth = 0;
  let members = 0;
  let surrogateEscape = false;
  let blank = true;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        // \uD8xx–\uDFxx: u, then d or D, then 8–9 or a–f, then two more hex digits.
        if (text.charCodeAt(i + 1) === 0x75 && (text.charCodeAt(i + 2) | 0x20) === 0x64) {
          const k = text.charCodeAt(i + 3) | 0x20;
          if ((k === 0x38 || k === 0x39 || (k >= 0x61 && k <= 0x66)) && isHex(text.charCodeAt(i + 4)) && isHex(text.charCodeAt(i + 5))) surrogateEscape = true;
        }
        i++;
      } else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    blank = false;
    if (c === 0x22) inString = true;
    else if (c === 0x3a) members++;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return { blank, tooDeep: true, members, surrogateEscape };
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return { blank, tooDeep: false, members, surrogateEscape };
}

/**
 * Validate a body: on its parsed value when the text adds nothing to it and the answer is clean (notes
 * at most), which skips building the positioned document; else on the text, so that problems come with
 * their ranges in the body and duplicate keys are reported.
 */
export function validateBody(body: ParsedBody, validate: (input: unknown) => Diagnostic[]): Diagnostic[] {
  if (!textMatters(body)) {
    const fast = validate(body.value);
    if (!fast.some((d) => d.severity === 'error' || d.severity === 'warning')) return fast;
  }
  return validate(body.text);
}

/**
 * Bodies parsed before, by their bytes: {@link parseBody} answers the same (frozen) {@link ParsedBody} for
 * the same bytes without decoding, scanning and parsing them again. For the routes whose bodies
 * automation sends again and again (ruleset writes: every `terraform apply` PUTs each ruleset): the
 * scan and `JSON.parse` of a 50-rule body (~8 KB) were ~50 µs, a sixth of a PUT's server time in the
 * bench's profile. Bodies are found by a hash of a sample of their bytes (length and 256 bytes evenly
 * spaced), then compared whole (`Buffer.equals`): ~1 µs, where a `Map` keyed by the text would hash all of
 * it (~30 µs for 8 KB). A body is parsed afresh the first time its bytes are seen and only its bytes are
 * kept; from the second time on its value is kept, deep-frozen, since every request with those bytes
 * shares it. Freezing a 50-rule body on first sight was wasted on edits, which do not repeat, and left
 * its objects frozen for nothing. A body that fails to parse is not kept (its answer is an error). The
 * most recent {@link ParseMemo.maxEntries} bodies of up to {@link ParseMemo.maxBytes} bytes are kept.
 */
export class ParseMemo {
  /** `parsed` is set on the second sight of the bytes. */
  private readonly byHash = new Map<number, MemoEntry[]>();
  /** Every kept body, least recently used first. */
  private readonly recency = new Map<MemoEntry, number>();

  constructor(readonly maxEntries = 128, readonly maxBytes = 64 * 1024) {}

  /** {@link parseBody}, or the body it parsed before from the same bytes. */
  parse(bytes: Buffer): ParsedBody | Diagnostic {
    if (bytes.length > this.maxBytes) return parseBody(bytes);
    const hash = sampleHash(bytes);
    const bucket = this.byHash.get(hash);
    const hit = bucket?.find((e) => e.bytes.equals(bytes));
    if (hit) {
      this.recency.delete(hit);
      this.recency.set(hit, hash);
      if (hit.parsed) return hit.parsed;
      // Bytes that parsed before parse again.
      const again = parseBody(bytes) as ParsedBody;
      freezeDeep(again.value);
      return (hit.parsed = Object.freeze(again));
    }
    const parsed = parseBody(bytes);
    if ('code' in parsed) return parsed;
    // A copy: the request's buffer may be a view of memory Node reuses.
    const entry: MemoEntry = { bytes: Buffer.from(bytes) };
    if (bucket) {
      // Edits of one length that the sample misses share a hash: a full bucket gives up its oldest, so a
      // lookup compares a few buffers, not up to maxEntries (128 compares were ~40 µs of an edit's PUT).
      if (bucket.length >= MAX_BUCKET) this.recency.delete(bucket.shift()!);
      bucket.push(entry);
    } else this.byHash.set(hash, [entry]);
    this.recency.set(entry, hash);
    if (this.recency.size > this.maxEntries) {
      const [oldest, oldHash] = this.recency.entries().next().value!;
      this.recency.delete(oldest);
      const b = this.byHash.get(oldHash)!;
      if (b.length === 1) this.byHash.delete(oldHash);
      else b.splice(b.indexOf(oldest), 1);
    }
    return parsed;
  }
}

/** Most bodies of one sample hash kept at once (see {@link ParseMemo.parse}). */
const MAX_BUCKET = 4;

interface MemoEntry {
  bytes: Buffer;
  parsed?: ParsedBody;
}

/** A hash of a buffer's length and of 256 of its bytes, evenly spaced (FNV-1a steps): equal buffers, equal hashes. */
function sampleHash(b: Buffer): number {
  const n = b.length;
  const step = n > 256 ? Math.floor(n / 256) : 1;
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  for (let i = 0; i < n; i += step) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h;
}

function freezeDeep<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) freezeDeep(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * What a validation said: its diagnostics, and the JSON text of the envelope's `messages` they make
 * (written when first asked for, then kept: the bench's 50-rule PUT answers 22 notes, ~70 µs to turn
 * into entries and serialise on every PUT). Kept by {@link ValidationMemo} with its diagnostics, so a
 * body validated before is answered with the messages' text written before.
 */
export class Validation {
  private text: string | undefined;

  constructor(readonly diagnostics: readonly Diagnostic[]) {}

  /** `messagesText(diagnostics)`. */
  get messagesJson(): string {
    return (this.text ??= messagesText(this.diagnostics));
  }
}

/**
 * The answers of validations already made, by what decides them: the body's text and what the
 * validation was told (`kind`: operation, scope, phase; the list catalog is the server's, one per
 * memo). Validation is a pure function of these, and automation sends the same body again and again
 * (every `terraform apply` PUTs each ruleset whether it changed or not): validating a 50-rule body is
 * ~0.1 ms even with its expressions' checks cached, a lookup a few µs. The most recent
 * {@link ValidationMemo.maxEntries} bodies of up to {@link ValidationMemo.maxText} characters are kept;
 * their diagnostics are frozen (shared by every answer that reuses them) and so is their messages' text.
 * One memo per server: it dies with it.
 */
export class ValidationMemo {
  /** By kind, then text (a map per kind: no key string of kind and text to build and hash per request). */
  private readonly byKind = new Map<string, Map<string, Validation>>();
  private size = 0;

  constructor(readonly maxEntries = 128, readonly maxText = 64 * 1024) {}

  /** {@link validateBody}, or the answer it gave before for the same kind and text (a copy of its diagnostics). */
  validate(body: ParsedBody, kind: string, validate: (input: unknown) => Diagnostic[]): Diagnostic[] {
    return [...this.validation(body, kind, validate).diagnostics];
  }

  /** {@link validateBody} as a {@link Validation}, or the one it made before for the same kind and text. */
  validation(body: ParsedBody, kind: string, validate: (input: unknown) => Diagnostic[]): Validation {
    if (body.text.length > this.maxText) return new Validation(validateBody(body, validate));
    let byText = this.byKind.get(kind);
    if (!byText) this.byKind.set(kind, (byText = new Map()));
    const hit = byText.get(body.text);
    if (hit) {
      byText.delete(body.text);
      byText.set(body.text, hit);
      return hit;
    }
    const out = new Validation(Object.freeze(validateBody(body, validate).map(freezeDeep)));
    byText.set(body.text, out);
    if (++this.size > this.maxEntries) {
      // The oldest entry of the kind with the most: kinds are few (operation × scope × phase).
      let fullest = byText;
      for (const m of this.byKind.values()) if (m.size > fullest.size) fullest = m;
      fullest.delete(fullest.keys().next().value!);
      this.size--;
    }
    return out;
  }
}
