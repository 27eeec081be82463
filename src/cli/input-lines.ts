/**
 * The lines of a text input as they arrive (gzip told by its magic bytes, whatever the name): what
 * `rulekit logfilter` and `rulekit diff --against` read log lines with.
 * @module
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { checkRegularFile, UsageError } from './io.js';

/**
 * The lines of an input, one at a time, as it arrives: gunzipped when it starts with gzip's magic bytes
 * (whatever the name), split on LF (a CR before it dropped), a UTF-8 byte order mark skipped. The input is
 * never held whole: log files are routinely larger than memory.
 */
export async function* inputLines(path: string, onGzip: () => void): AsyncGenerator<{ line: number; bytes: Buffer }> {
  const shown = path === '-' ? 'standard input' : path;
  let source: NodeJS.ReadableStream;
  if (path === '-') source = process.stdin;
  else {
    checkRegularFile(path);
    source = createReadStream(path, { highWaterMark: 1 << 20 });
  }
  let stream: AsyncIterable<Buffer> = source as AsyncIterable<Buffer>;
  let pending: Buffer | undefined;
  let lineNo = 0;
  let first = true;
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
  const chunks = (async function* () {
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
  })();
  for await (const chunk of chunks) {
    let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
    if (first) {
      if (buf.length < 3 && buf.every((b, i) => b === [0xef, 0xbb, 0xbf][i])) {
        pending = buf;
        continue;
      }
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
      first = false;
    }
    let at = 0;
    for (let nl = buf.indexOf(10, at); nl >= 0; nl = buf.indexOf(10, at)) {
      lineNo++;
      yield { line: lineNo, bytes: buf.subarray(at, nl > at && buf[nl - 1] === 13 ? nl - 1 : nl) };
      at = nl + 1;
    }
    pending = at < buf.length ? buf.subarray(at) : undefined;
  }
  if (pending && pending.length) {
    lineNo++;
    yield { line: lineNo, bytes: pending[pending.length - 1] === 13 ? pending.subarray(0, -1) : pending };
  }
}

async function nextChunk(reader: AsyncIterator<Buffer>, shown: string): Promise<Buffer | undefined> {
  try {
    const r = await reader.next();
    return r.done ? undefined : (r.value as Buffer);
  } catch (e) {
    throw new UsageError(`${shown}: cannot be read (${(e as Error).message})`);
  }
}
