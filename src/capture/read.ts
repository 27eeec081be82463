/** `readCapture`: stream packet records out of a pcap or pcapng byte source. @module */
import { CaptureParser } from './parser.js';
import type { CaptureRecord, CaptureSummary, ReadCaptureOptions } from './types.js';

/**
 * Where capture bytes come from: an async or sync iterable of chunks (a Node `fs.ReadStream`, an array of
 * chunks), a web `ReadableStream` (e.g. `file.stream()` in a browser), or one whole buffer.
 */
export type CaptureSource =
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | ArrayBuffer>
  | Iterable<Uint8Array | ArrayBuffer>
  | Uint8Array
  | ArrayBuffer;

/**
 * Read packet records from a pcap or pcapng source, detecting the format from its magic number. Streams:
 * only the current chunk and the record being assembled are held. Never throws on bad input: problems
 * go to `options.onDiagnostic` and into the summary the generator returns when it finishes.
 *
 * @example
 * for await (const rec of readCapture(fs.createReadStream('x.pcapng'))) console.log(rec.index, rec.linkType);
 */
export async function* readCapture(
  source: CaptureSource,
  options: ReadCaptureOptions = {},
): AsyncGenerator<CaptureRecord, CaptureSummary, undefined> {
  const batches = readCaptureBatches(source, options);
  for (;;) {
    const next = await batches.next();
    if (next.done) return next.value;
    for (const r of next.value) yield r;
  }
}

/**
 * Like {@link readCapture}, but yields the records of each input chunk as one array: one `await` per
 * chunk instead of per record, which matters at millions of packets per second. Same diagnostics and
 * summary.
 */
export async function* readCaptureBatches(
  source: CaptureSource,
  options: ReadCaptureOptions = {},
): AsyncGenerator<CaptureRecord[], CaptureSummary, undefined> {
  return yield* readBatchesWith(new CaptureParser(options), source);
}

/**
 * {@link readCaptureBatches} with a parser the caller made (the simulator's worker threads hand the rest
 * of a pcap file to one resumed with {@link CaptureParser.resumePcapAt}). Not part of the public API.
 */
export async function* readBatchesWith(parser: CaptureParser, source: CaptureSource): AsyncGenerator<CaptureRecord[], CaptureSummary, undefined> {
  let offset = 0;
  try {
    for await (const chunk of chunksOf(source)) {
      const bytes = asBytes(chunk);
      if (!bytes) {
        parser.report(
          'capture-bad-chunk',
          offset,
          `At byte ${offset}: the source produced a ${describe(chunk)} instead of bytes (Uint8Array or ArrayBuffer); reading stopped.`,
        );
        parser.abort();
        break;
      }
      offset += bytes.length;
      parser.push(bytes);
      const batch = drain(parser);
      if (batch.length > 0) yield batch;
    }
  } catch (err) {
    parser.report('capture-bad-chunk', offset, `At byte ${offset}: reading the source failed: ${errorText(err)}; reading stopped.`);
    parser.abort();
  }
  parser.end();
  const last = drain(parser);
  if (last.length > 0) yield last;
  return parser.summary();
}

function drain(parser: CaptureParser): CaptureRecord[] {
  const out: CaptureRecord[] = [];
  for (let r = parser.read(); r; r = parser.read()) out.push(r);
  return out;
}

/**
 * Read a whole capture and collect its records and summary (convenient for small files and tests; use
 * {@link readCapture} to stream large ones).
 */
export async function readCaptureAll(
  source: CaptureSource,
  options: ReadCaptureOptions = {},
): Promise<{ records: CaptureRecord[]; summary: CaptureSummary }> {
  const records: CaptureRecord[] = [];
  const it = readCaptureBatches(source, options);
  for (;;) {
    const n = await it.next();
    if (n.done) return { records, summary: n.value };
    for (const r of n.value) records.push(r);
  }
}

/** A web `ReadableStream` (where it is not async-iterable, as in some browsers). */
interface StreamWithReader {
  getReader(): { read(): Promise<{ done?: boolean; value?: unknown }>; releaseLock?(): void };
}

async function* fromReader(stream: StreamWithReader): AsyncGenerator<unknown> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock?.();
  }
}

function chunksOf(source: CaptureSource): AsyncIterable<unknown> | Iterable<unknown> {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return [source];
  if (source && typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function' && typeof (source as unknown as StreamWithReader).getReader === 'function') {
    return fromReader(source as unknown as StreamWithReader);
  }
  if (source && (typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function' || typeof (source as Iterable<unknown>)[Symbol.iterator] === 'function')) {
    return source as AsyncIterable<unknown>;
  }
  return [source];
}

function asBytes(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'object') {
    const name: unknown = Object.getPrototypeOf(v)?.constructor?.name;
    return typeof name === 'string' ? name : 'object';
  }
  return typeof v;
}

function errorText(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.length > 200 ? `${m.slice(0, 197)}...` : m;
}
