/** File and stream helpers of the CLI (Node only). @module */
import { createReadStream, statSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** A text input as read: the text, and where bytes that are not UTF-8 were replaced by U+FFFD. */
export interface TextInput {
  /** The decoded text, without a leading byte order mark. */
  text: string;
  /** UTF-16 offsets into `text` of each U+FFFD that replaced an invalid UTF-8 sequence. */
  invalidUtf8: number[];
  /** True when the file started with a UTF-8 byte order mark (skipped). */
  bom: boolean;
}

/**
 * Read a whole text input, `-` meaning standard input. A path that is missing, a directory, unreadable
 * or not a regular file is a {@link UsageError} naming the path and the problem (the CLI prints it on one
 * line and exits 2). A FIFO is refused rather than opened: opening one without a writer blocks forever,
 * and standard input (`-`) is the way to pipe text in.
 */
export async function readInput(path: string): Promise<TextInput> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return decodeUtf8(Buffer.concat(chunks));
  }
  checkRegularFile(path);
  try {
    return decodeUtf8(await readFile(path));
  } catch (e) {
    throw fileError(path, e);
  }
}

/** Read a whole text file, `-` meaning standard input (see {@link readInput}). */
export async function readText(path: string): Promise<string> {
  return (await readInput(path)).text;
}

/** Throw a {@link UsageError} unless `path` names a regular file (symbolic links followed). */
export function checkRegularFile(path: string): Stats {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    throw fileError(path, e);
  }
  if (st.isDirectory()) throw new UsageError(`${path}: is a directory; give a file`);
  if (st.isFIFO()) throw new UsageError(`${path}: is a named pipe (FIFO), not a regular file; pipe its text to standard input with -`);
  if (st.isSocket()) throw new UsageError(`${path}: is a socket, not a regular file`);
  if (!st.isFile() && !st.isCharacterDevice()) throw new UsageError(`${path}: is not a regular file`);
  return st;
}

/** A file system error as a one-line {@link UsageError} naming the path. */
export function fileError(path: string, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException)?.code;
  const problem =
    code === 'ENOENT' ? 'no such file'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'EISDIR' ? 'is a directory; give a file'
    : code === 'ENOTDIR' ? 'a part of the path is not a directory'
    : code === 'ELOOP' ? 'too many symbolic links'
    : code === 'ENAMETOOLONG' ? 'the path is too long'
    : code === 'ERR_FS_FILE_TOO_LARGE' ? 'the file is too large to read'
    : `cannot read it (${code ?? (e as Error)?.message ?? String(e)})`;
  return new UsageError(`${path}: ${problem}`);
}

/** A byte stream of a file, `-` meaning standard input. */
export function byteStream(path: string): AsyncIterable<Uint8Array> {
  return path === '-' ? (process.stdin as AsyncIterable<Uint8Array>) : createReadStream(path, { highWaterMark: 1 << 20 });
}

/** Parse JSON text or exit with a message naming the file. */
export function parseJsonFile(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${path}: not valid JSON (${(e as Error).message})`);
  }
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decode UTF-8 bytes, skipping a leading byte order mark. Valid input takes the native decoder; invalid
 * input is decoded here as the WHATWG decoder does (one U+FFFD per maximal invalid subpart), recording
 * where each replacement lands so that it can be reported with a position.
 */
export function decodeUtf8(bytes: Uint8Array): TextInput {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  try {
    return { text: strict.decode(body), invalidUtf8: [], bom };
  } catch {
    // fall through to the position-keeping decoder
  }
  const parts: string[] = [];
  const invalidUtf8: number[] = [];
  let units: number[] = [];
  let length = 0;
  const push = (cp: number) => {
    if (cp > 0xffff) {
      cp -= 0x10000;
      units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
      length += 2;
    } else {
      units.push(cp);
      length++;
    }
    if (units.length >= 8192) {
      parts.push(String.fromCharCode(...units));
      units = [];
    }
  };
  const n = body.length;
  let i = 0;
  while (i < n) {
    const b = body[i]!;
    if (b < 0x80) {
      push(b);
      i++;
      continue;
    }
    let need = 0;
    let cp = 0;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) (need = 1), (cp = b & 0x1f);
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      cp = b & 0xf;
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      cp = b & 0x7;
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
    }
    if (need === 0) {
      invalidUtf8.push(length);
      push(0xfffd);
      i++;
      continue;
    }
    let j = i + 1;
    let ok = true;
    for (let k = 0; k < need; k++, j++) {
      const c = body[j];
      if (c === undefined || c < lower || c > upper) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (c & 0x3f);
      lower = 0x80;
      upper = 0xbf;
    }
    if (!ok) {
      invalidUtf8.push(length);
      push(0xfffd);
      i = j; // the maximal subpart ends before the offending byte
      continue;
    }
    push(cp);
    i = j;
  }
  parts.push(String.fromCharCode(...units));
  return { text: parts.join(''), invalidUtf8, bom };
}

/** Line (1-based) of each UTF-16 offset in `text`, for messages about a file. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Whether to colour what goes to a stream: `--color` / `--no-color` when given, else only on a terminal,
 * and never under NO_COLOR (no-color.org: set and not empty) or TERM=dumb. Every command that prints
 * diagnostics decides here.
 */
export function useColor(option: boolean | undefined, stream: { isTTY?: boolean } = process.stdout): boolean {
  if (option !== undefined) return option;
  return stream.isTTY === true && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb';
}

/** A problem with the command line or its input files: printed without a stack, exit code 2. */
export class UsageError extends Error {}
