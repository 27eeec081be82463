/**
 * A classic pcap file cut into chunks of whole records: the unit handed to a worker thread (transferred,
 * not copied) or counted on this thread. Records are walked in place, a few reads per record header; no
 * record objects are made.
 * @module
 */
import type { PcapHeader } from '../capture/index.js';
import type { ByteReader } from './source.js';

/** The facts of a pcap header the record walk needs (plain data: it crosses to workers). */
export interface PcapFacts {
  littleEndian: boolean;
  recordHeaderBytes: number;
  linkType: number;
}

/** The facts of a parsed pcap header. */
export function pcapFacts(header: PcapHeader): PcapFacts {
  return { littleEndian: header.littleEndian, recordHeaderBytes: header.recordHeaderBytes, linkType: header.linkType };
}

/**
 * Where chunks go: worker threads or this thread. `send` resolves to the buffer when the sink is done
 * with it (counted on this thread: the reader fills it again), or undefined when it was handed away
 * (transferred to a worker).
 */
export interface ChunkSink {
  send(buffer: ArrayBuffer, length: number, index: number): Promise<ArrayBuffer | undefined>;
}

/** Where the chunked walk stopped. */
export interface ChunkedResult {
  /** Records handed to the sink. */
  packets: number;
  /** Bytes consumed, the 24-byte file header included. */
  bytes: number;
  /**
   * Set when bytes are left that are not a whole plausible record (a corrupt or cut record): the general
   * parser reads them, resumed at `offset` as record `index`, starting with `carry` then the reader's rest.
   */
  rest?: { offset: number; index: number; lastSeconds: number | undefined; carry: Uint8Array };
}

/**
 * Read the records after the file header from `reader`, cut them into chunks of whole records and send
 * them to `sink`. Stops at the end, or before a record whose captured length is above `maxPacket` (the
 * general parser's corruption limit) or that the input cuts short.
 */
export async function feedPcapChunks(
  reader: ByteReader,
  facts: PcapFacts,
  sink: ChunkSink,
  options: { chunkBytes: number; maxPacket: number; signal?: AbortSignal; onProgress?: (bytes: number, packets: number) => void },
): Promise<ChunkedResult> {
  const hb = facts.recordHeaderBytes;
  const le = facts.littleEndian;
  const size = Math.max(options.chunkBytes, 2 * (options.maxPacket + hb));
  let offset = 24;
  let carry = new Uint8Array(0);
  let index = 0;
  let lastSeconds: number | undefined;
  // A buffer the sink gave back is filled again: a fresh 1 MiB buffer per chunk costs its page faults
  // on every read (measured: reading a 67 MB file took ~170 ms that way, ~30 ms reusing one buffer).
  let spare: ArrayBuffer | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const buffer = spare ?? new ArrayBuffer(size);
    spare = undefined;
    const u8 = new Uint8Array(buffer);
    u8.set(carry, 0);
    const n = await reader.read(u8, carry.length, size - carry.length);
    const len = carry.length + n;
    const view = new DataView(buffer, 0, len);
    let p = 0;
    let count = 0;
    let bad = false;
    while (p + hb <= len) {
      const caplen = view.getUint32(p + 8, le);
      if (caplen > options.maxPacket) {
        bad = true;
        break;
      }
      if (p + hb + caplen > len) break;
      lastSeconds = view.getUint32(p, le);
      p += hb + caplen;
      count++;
    }
    carry = u8.slice(p, len);
    spare = count > 0 ? await sink.send(buffer, p, index) : buffer;
    index += count;
    offset += p;
    options.onProgress?.(offset, index);
    if (bad || n === 0) {
      return carry.length > 0 ? { packets: index, bytes: offset, rest: { offset, index, lastSeconds, carry } } : { packets: index, bytes: offset };
    }
  }
}

/**
 * The record loop over one chunk of whole records, shared by the worker threads and this thread: each
 * record's frame goes to `countFrame` (the compiled ruleset's frame counter). HOT PATH (bench/simulate.ts, bench/decide.ts).
 */
export function chunkLoop(
  facts: PcapFacts,
  countFrame: (bytes: Uint8Array, start: number, end: number, linkType: number, index: number) => number,
): (buffer: ArrayBuffer, length: number, index: number) => void {
  const { linkType, littleEndian: le, recordHeaderBytes: hb } = facts;
  return (buffer, length, first) => {
    const bytes = new Uint8Array(buffer, 0, length);
    const view = new DataView(buffer, 0, length);
    let index = first;
    for (let p = 0; p < length; ) {
      const start = p + hb;
      const end = start + view.getUint32(p + 8, le);
      countFrame(bytes, start, end, linkType, index++);
      p = end;
    }
  };
}
