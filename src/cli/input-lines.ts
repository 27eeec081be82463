/**
 * The lines of a text input as they arrive (gzip told by its magic bytes, whatever the name): what
 * `rulekit logfilter` and `rulekit diff --against` read log lines with.
 * @module
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { checkRegularFile, UsageError } from './io.js';

/**
 * Whole lines of an input, a chunk at a time, as it arrives: `bytes` holds one or more whole lines, each
 * ending with LF except maybe the input's last, and `firstLine` is the number of its first. Gunzipped when
 * the input starts with gzip's magic bytes (whatever the name); a UTF-8 byte order mark skipped. The input
 * is never held whole (log files are routinely larger than memory), and a chunk is handed on as it came,
 * not copied: only a line cut across two chunks is joined. A batch's bytes are good until the next batch
 * is asked for (the buffer is read into again).
 * A consumer walks a batch's lines itself (see {@link forEachLine}) instead of awaiting each line: one
 * promise a chunk, not one a line.
 */
export async function* inputLineBatches(path: string, onGzip: () => void): AsyncGenerator<{ firstLine: number; bytes: Buffer }> {
  let pending: Buffer | undefined;
  let lineNo = 1;
  let first = true;
  for await (const chunk of inputChunks(path, onGzip)) {
    let buf = chunk;
    if (first) {
      if (pending) buf = Buffer.concat([pending, buf]);
      pending = undefined;
      if (buf.length < 3 && buf.every((b, i) => b === [0xef, 0xbb, 0xbf][i])) {
        pending = Buffer.from(buf);
        continue;
      }
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
      first = false;
    }
    const firstNl = buf.indexOf(10);
    if (firstNl < 0) {
      pending = pending ? Buffer.concat([pending, buf]) : Buffer.from(buf);
      continue;
    }
    // The line cut across chunks: the pending part joined with this chunk's first line (a small copy).
    let at = 0;
    if (pending) {
      yield { firstLine: lineNo, bytes: Buffer.concat([pending, buf.subarray(0, firstNl + 1)]) };
      lineNo++;
      pending = undefined;
      at = firstNl + 1;
    }
    const lastNl = buf.lastIndexOf(10);
    if (lastNl >= at) {
      const whole = buf.subarray(at, lastNl + 1);
      yield { firstLine: lineNo, bytes: whole };
      lineNo += countLf(whole);
    }
    // Copied: the chunk's buffer may be read into again.
    if (lastNl + 1 < buf.length) pending = Buffer.from(buf.subarray(lastNl + 1));
  }
  if (pending && pending.length) yield { firstLine: lineNo, bytes: pending };
}

/**
 * Call `fn` with the start and end of each line of a batch (the end before its LF, and before a CR in front
 * of the LF), numbered from `firstLine`.
 */
export function forEachLine(bytes: Buffer, firstLine: number, fn: (line: number, start: number, end: number) => void): void {
  let at = 0;
  let line = firstLine;
  const n = bytes.length;
  while (at < n) {
    let nl = bytes.indexOf(10, at);
    if (nl < 0) nl = n;
    fn(line++, at, nl > at && bytes[nl - 1] === 13 ? nl - 1 : nl);
    at = nl + 1;
  }
}

/** The lines of an input, one at a time (see {@link inputLineBatches}): split on LF, a CR before it dropped. */
export async function* inputLines(path: string, onGzip: () => void): AsyncGenerator<{ line: number; bytes: Buffer }> {
  for await (const { firstLine, bytes } of inputLineBatches(path, onGzip)) {
    const lines: { line: number; bytes: Buffer }[] = [];
    forEachLine(bytes, firstLine, (line, start, end) => lines.push({ line, bytes: bytes.subarray(start, end) }));
    yield* lines;
  }
}

function countLf(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  return n;
}

/** Bytes a read asks for. */
const CHUNK = 1 << 20;

/**
 * The raw chunks of an input: gunzipped when it starts with gzip's magic bytes. A plain file is read
 * straight into one buffer used again for every chunk (a chunk is good until the next is asked for):
 * a read stream's fresh buffer a chunk, and its hops through the thread pool, cost ~0.7 s over 400 MB,
 * more than reading the lines does.
 */
async function* inputChunks(path: string, onGzip: () => void): AsyncGenerator<Buffer> {
  const shown = path === '-' ? 'standard input' : path;
  let source: NodeJS.ReadableStream;
  if (path === '-') source = process.stdin;
  else {
    checkRegularFile(path);
    const plain = readPlainFile(path, shown);
    if (plain) {
      yield* plain;
      return;
    }
    source = createReadStream(path, { highWaterMark: CHUNK });
  }
  let stream: AsyncIterable<Buffer> = source as AsyncIterable<Buffer>;
  const reader = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  // Peek at the first chunk for the magic bytes, then go on through gunzip if they are there.
  let head = await nextChunk(reader, shown);
  while (head && head.length < 2) {
    const more = await nextChunk(reader, shown);
    if (!more) break;
    head = Buffer.concat([head, more]);
  }
  if (head && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    onGzip();
    const gunzip = createGunzip();
    const feed = (async () => {
      try {
        gunzip.write(head);
        for (let c = await nextChunk(reader, shown); c; c = await nextChunk(reader, shown)) {
          if (!gunzip.write(c)) await new Promise((r) => gunzip.once('drain', r));
        }
        gunzip.end();
      } catch (e) {
        gunzip.destroy(e as Error);
      }
    })();
    stream = gunzip;
    head = undefined;
    void feed;
  }
  if (head) yield head;
  if (stream === source) for (let c = await nextChunk(reader, shown); c; c = await nextChunk(reader, shown)) yield c;
  else {
    try {
      for await (const c of stream) yield c as Buffer;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`${shown}: starts as gzip but cannot be decompressed (${(e as Error).message})`);
    }
  }
}

/** A file's chunks read into one buffer, or `undefined` when the file starts as gzip (read as a stream). */
function readPlainFile(path: string, shown: string): Generator<Buffer> | undefined {
  const cannot = (e: unknown) => new UsageError(`${shown}: cannot be read (${(e as Error).message})`);
  let fd: number;
  const buf = Buffer.allocUnsafeSlow(CHUNK);
  let n: number;
  try {
    fd = openSync(path, 'r');
    n = readSync(fd, buf, 0, CHUNK, null);
    // Fewer than 2 bytes at first: read on, to tell the magic bytes.
    while (n < 2) {
      const more = readSync(fd, buf, n, CHUNK - n, null);
      if (more === 0) break;
      n += more;
    }
  } catch (e) {
    throw cannot(e);
  }
  if (n >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    closeSync(fd);
    return undefined;
  }
  return (function* () {
    try {
      while (n > 0) {
        yield buf.subarray(0, n);
        try {
          n = readSync(fd, buf, 0, CHUNK, null);
        } catch (e) {
          throw cannot(e);
        }
      }
    } finally {
      closeSync(fd);
    }
  })();
}

async function nextChunk(reader: AsyncIterator<Buffer>, shown: string): Promise<Buffer | undefined> {
  try {
    const r = await reader.next();
    return r.done ? undefined : (r.value as Buffer);
  } catch (e) {
    throw new UsageError(`${shown}: cannot be read (${(e as Error).message})`);
  }
}
