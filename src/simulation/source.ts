/**
 * Where simulated packets come from: a file path, bytes in memory or a byte stream, all read through one
 * {@link ByteReader} so that every input kind takes the same record loops.
 * @module
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** A simulation input: a file path, the bytes themselves, or a stream of bytes (standard input, a socket, …). */
export type SimulationSource = string | { path: string } | Uint8Array | ArrayBuffer | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Sequential reads from a source, whatever its kind. */
export interface ByteReader {
  /** A name for messages: the path, or "standard input"/"the input". */
  readonly name: string;
  /** Total bytes, when known (files and bytes in memory). */
  readonly size: number | undefined;
  /** The file path, when the source is a file (worker threads read it themselves). */
  readonly path: string | undefined;
  /** Fill `into[offset, offset + length)` as far as the source goes; 0 at the end. */
  read(into: Uint8Array, offset: number, length: number): Promise<number>;
  /** The rest of the source as chunks. */
  chunks(): AsyncIterable<Uint8Array>;
  close(): void;
}

/** A reader for `source` (a path is opened here: a missing or unreadable file throws the fs error). */
export function openSource(source: SimulationSource, name?: string): ByteReader {
  if (typeof source === 'string' || (typeof source === 'object' && source !== null && 'path' in source && typeof source.path === 'string')) {
    return new FileReader(typeof source === 'string' ? source : source.path);
  }
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
    return new StreamReader([bytes], name ?? 'the input', bytes.length);
  }
  if (source !== null && typeof source === 'object' && (Symbol.asyncIterator in source || Symbol.iterator in source)) {
    return new StreamReader(source as AsyncIterable<Uint8Array> | Iterable<Uint8Array>, name ?? 'the input', undefined);
  }
  throw new TypeError('a simulation source is a file path, bytes (Uint8Array/ArrayBuffer) or an iterable of byte chunks');
}

/** A file read in place with positioned reads (no stream buffering between the disk and the chunk). */
class FileReader implements ByteReader {
  readonly size: number | undefined;
  private readonly fd: number;
  /** Where the next read starts; null for a FIFO or a device, which read in sequence. */
  private position: number | null = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
    try {
      const st = fstatSync(this.fd);
      if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR', path });
      this.size = st.isFile() ? st.size : undefined;
      if (!st.isFile()) this.position = null;
    } catch (e) {
      closeSync(this.fd);
      throw e;
    }
  }

  get name(): string {
    return this.path;
  }

  async read(into: Uint8Array, offset: number, length: number): Promise<number> {
    let n = 0;
    for (let got = -1; got !== 0 && n < length; ) {
      got = readSync(this.fd, into, offset + n, length - n, this.position);
      if (this.position !== null) this.position += got;
      n += got;
    }
    return n;
  }

  async *chunks(): AsyncIterable<Uint8Array> {
    for (;;) {
      const buf = new Uint8Array(1 << 20);
      const n = await this.read(buf, 0, buf.length);
      if (n === 0) return;
      yield n === buf.length ? buf : buf.subarray(0, n);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Bytes from an (async) iterable of chunks. */
class StreamReader implements ByteReader {
  readonly path = undefined;
  private readonly it: AsyncIterator<unknown> | Iterator<unknown>;
  private pending: Uint8Array = new Uint8Array(0);
  private done = false;

  constructor(
    source: AsyncIterable<unknown> | Iterable<unknown>,
    readonly name: string,
    readonly size: number | undefined,
  ) {
    this.it = Symbol.asyncIterator in source ? (source as AsyncIterable<unknown>)[Symbol.asyncIterator]() : (source as Iterable<unknown>)[Symbol.iterator]();
  }

  /** The next chunk from the source (undefined at its end); a chunk that is not bytes is an error. */
  private async next(): Promise<Uint8Array | undefined> {
    if (this.done) return undefined;
    const r = await this.it.next();
    if (r.done) {
      this.done = true;
      return undefined;
    }
    const v = r.value;
    if (v instanceof Uint8Array) return v;
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    if (typeof v === 'string') return new TextEncoder().encode(v);
    throw new TypeError(`${this.name} produced a ${v === null ? 'null' : typeof v} instead of bytes`);
  }

  async read(into: Uint8Array, offset: number, length: number): Promise<number> {
    let n = 0;
    while (n < length) {
      if (this.pending.length === 0) {
        const c = await this.next();
        if (c === undefined) break;
        this.pending = c;
      }
      const take = Math.min(length - n, this.pending.length);
      into.set(this.pending.subarray(0, take), offset + n);
      this.pending = this.pending.subarray(take);
      n += take;
    }
    return n;
  }

  async *chunks(): AsyncIterable<Uint8Array> {
    if (this.pending.length) {
      const p = this.pending;
      this.pending = new Uint8Array(0);
      yield p;
    }
    for (let c = await this.next(); c !== undefined; c = await this.next()) yield c;
  }

  close(): void {
    const it = this.it as { return?: () => unknown };
    try {
      it.return?.();
    } catch {
      // a source that cannot be closed early is left to be collected
    }
  }
}

/** Chunks that start with `head` (bytes already read) and go on with the reader's rest. */
export async function* prepend(head: Uint8Array, reader: ByteReader): AsyncIterable<Uint8Array> {
  if (head.length) yield head;
  yield* reader.chunks();
}
