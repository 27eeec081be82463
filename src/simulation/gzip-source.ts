/**
 * A gzip-compressed input read as what it holds (Node only): `rulekit simulate` is given Logpush files as
 * Logpush writes them (`.log.gz`), NDJSON packet objects or a capture compressed the same way. Told by the
 * magic bytes, whatever the name; inflated as it is read, never held whole. Several gzip members one
 * after the other (files joined with `cat`) are read as one input, as `gzip -d` reads them.
 * @module
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { openSource, prepend, type ByteReader } from './source.js';

/** Whether the first bytes of an input are gzip's magic number. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** An inflating reader over a gzip input, and what it has read of the compressed bytes. */
export interface GzipInput {
  /** The inflated bytes (no size, no path: the compressed file's are not theirs). */
  reader: ByteReader;
  /** Compressed bytes read so far: what a progress bar over the file's size shows. */
  compressedBytes(): number;
  /** Why inflating stopped before the end (damaged or cut data), once it has. */
  error(): Error | undefined;
}

/** The inflated content of `reader`, whose first bytes `first` have been read already. */
export function gunzipInput(first: Uint8Array, reader: ByteReader): GzipInput {
  let compressed = 0;
  let failure: Error | undefined;
  const counted = async function* (): AsyncGenerator<Uint8Array> {
    for await (const chunk of prepend(first, reader)) {
      compressed += chunk.length;
      yield chunk;
    }
  };
  const inflated = async function* (): AsyncGenerator<Uint8Array> {
    const gunzip = createGunzip();
    const source = Readable.from(counted());
    source.on('error', (e) => gunzip.destroy(e));
    source.pipe(gunzip);
    try {
      for await (const chunk of gunzip) yield chunk as Buffer;
    } catch (e) {
      // What was inflated before stays read; the caller reports the rest as unreadable.
      failure = e as Error;
    } finally {
      source.destroy();
    }
  };
  const inner = openSource(inflated(), reader.name);
  return {
    reader: {
      name: reader.name,
      size: undefined,
      path: undefined,
      read: (into, offset, length) => inner.read(into, offset, length),
      chunks: () => inner.chunks(),
      close: () => {
        inner.close();
        reader.close();
      },
    },
    compressedBytes: () => compressed,
    error: () => failure,
  };
}
