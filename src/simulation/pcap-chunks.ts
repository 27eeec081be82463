/**
 * A capture file cut into chunks of whole records: the unit handed to a worker thread (transferred, not
 * copied) or counted on this thread. Records are walked in place, a few reads per record header; no
 * record objects are made. Classic pcap and pcapng (draft-ietf-opsawg-pcapng) both: a pcapng chunk
 * starts with the raw Section Header and Interface Description Blocks in force where it begins, so each
 * chunk carries its own byte order, link types and snap lengths and a worker needs nothing else.
 * @module
 */
import type { PcapHeader } from '../capture/index.js';
import type { ByteReader } from './source.js';

/** The facts of a pcap header the record walk needs (plain data: it crosses to workers). */
export interface PcapFacts {
  format: 'pcap';
  littleEndian: boolean;
  recordHeaderBytes: number;
  linkType: number;
}

/** A pcapng file: every chunk describes itself (its section's header and interfaces come first). */
export interface PcapngFacts {
  format: 'pcapng';
}

/** What a chunk's record loop needs to know of its file. */
export type ChunkFacts = PcapFacts | PcapngFacts;

/** The facts of a parsed pcap header. */
export function pcapFacts(header: PcapHeader): PcapFacts {
  return { format: 'pcap', littleEndian: header.littleEndian, recordHeaderBytes: header.recordHeaderBytes, linkType: header.linkType };
}

/**
 * Where chunks go: worker threads or this thread. `send` resolves to the buffer when the sink is done
 * with it (counted on this thread: the reader fills it again), or undefined when it was handed away
 * (transferred to a worker).
 */
export interface ChunkSink {
  send(buffer: ArrayBuffer, length: number, index: number): Promise<ArrayBuffer | undefined>;
  /**
   * Present on a sink that counts on this thread: it walks a pcap chunk's records itself, counting each
   * whole one as it goes ({@link pcapCountingWalk}), so the reader does not walk them a second time.
   */
  readonly walkAndCount?: PcapCountingWalk;
}

/** Where a walk over the records at the start of a chunk stopped. */
export interface RecordWalk {
  /** End of the last whole record (0: none). */
  end: number;
  /** Whole records. */
  count: number;
  /** True when it stopped at a record whose captured length is above the limit (corrupt). */
  bad: boolean;
  /** Start of the last whole record, or -1. */
  lastStart: number;
}

/** Walk the whole records of `buffer[0, length)` (none above `maxPacket` bytes), counting each, the first as record `index`. */
export type PcapCountingWalk = (buffer: ArrayBuffer, length: number, index: number, maxPacket: number) => RecordWalk;

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
  const countHere = sink.walkAndCount;
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
    let lastStart = -1;
    if (countHere) {
      // Counted in the same pass (this thread): the buffer is free again right away.
      ({ end: p, count, bad, lastStart } = countHere(buffer, len, index, options.maxPacket));
    } else {
      while (p + hb <= len) {
        const caplen = view.getUint32(p + 8, le);
        if (caplen > options.maxPacket) {
          bad = true;
          break;
        }
        if (p + hb + caplen > len) break;
        lastStart = p;
        p += hb + caplen;
        count++;
      }
    }
    if (lastStart >= 0) lastSeconds = view.getUint32(lastStart, le);
    carry = u8.slice(p, len);
    spare = countHere || count === 0 ? buffer : await sink.send(buffer, p, index);
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
  facts: ChunkFacts,
  countFrame: (bytes: Uint8Array, start: number, end: number, linkType: number, index: number) => number,
): (buffer: ArrayBuffer, length: number, index: number) => void {
  if (facts.format === 'pcapng') return pcapngChunkLoop(countFrame);
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

/**
 * The record walk of {@link feedPcapChunks} and the record loop of {@link chunkLoop} in one pass, for a
 * chunk counted on this thread: each whole record's frame goes to `countFrame` as the walk finds it.
 * HOT PATH: walking the record headers twice cost ~15 ns a packet (bench/simulate.ts, 1M packets).
 */
export function pcapCountingWalk(
  facts: PcapFacts,
  countFrame: (bytes: Uint8Array, start: number, end: number, linkType: number, index: number) => number,
): PcapCountingWalk {
  const { linkType, littleEndian: le, recordHeaderBytes: hb } = facts;
  return (buffer, length, first, maxPacket) => {
    const bytes = new Uint8Array(buffer, 0, length);
    const view = new DataView(buffer, 0, length);
    let index = first;
    let p = 0;
    let lastStart = -1;
    let bad = false;
    while (p + hb <= length) {
      const caplen = view.getUint32(p + 8, le);
      if (caplen > maxPacket) {
        bad = true;
        break;
      }
      const end = p + hb + caplen;
      if (end > length) break;
      countFrame(bytes, p + hb, end, linkType, index++);
      lastStart = p;
      p = end;
    }
    return { end: p, count: index - first, bad, lastStart };
  };
}

// ---- pcapng ---------------------------------------------------------------------------------------

const SHB = 0x0a0d0d0a;
const IDB = 0x00000001;
/** Obsolete Packet Block: as an EPB with a 16-bit interface id. */
const OPB = 0x00000002;
const SPB = 0x00000003;
const EPB = 0x00000006;
const BYTE_ORDER_MAGIC = 0x1a2b3c4d;
const BYTE_ORDER_MAGIC_SWAPPED = 0x4d3c2b1a;

/** Where the chunked pcapng walk stopped. */
export interface PcapngChunkedResult {
  /** Packets handed to the sink. */
  packets: number;
  /** Bytes of the file consumed. */
  bytes: number;
  /**
   * Set when bytes are left that are not a whole block the walk vouches for (a corrupt, cut or
   * oversized block): the general parser reads them, resumed at `offset` as record `index` with the raw
   * Section Header and Interface Description Blocks in force there (`section`), starting with `carry`
   * then the reader's rest.
   */
  rest?: { offset: number; index: number; section: Uint8Array; carry: Uint8Array };
}

/**
 * Read a pcapng file from its first byte, cut it into chunks of whole blocks and send them to `sink`,
 * each chunk led by a copy of the Section Header and Interface Description Blocks in force where it
 * starts. Every block is checked as the general parser checks it (byte-order magic, lengths, trailer,
 * packet lengths, interface ids); the walk stops before the first block that parser would report, or
 * that the input cuts short, or that cannot fit a chunk, and hands the rest back (`rest`). `onLinkType`
 * is told each packet's link type when it differs from the previous packet's.
 */
export async function feedPcapngChunks(
  reader: ByteReader,
  sink: ChunkSink,
  options: {
    chunkBytes: number;
    maxPacket: number;
    signal?: AbortSignal;
    onProgress?: (bytes: number, packets: number) => void;
    onLinkType?: (linkType: number) => void;
  },
): Promise<PcapngChunkedResult> {
  // A packet block of the largest packet with some options, twice over, plus the section blocks.
  const size = Math.max(options.chunkBytes, 2 * (options.maxPacket + 65536));
  // The section in force: byte order, interfaces (link type), and its raw blocks (each chunk's lead).
  let le = true;
  let linkTypes: number[] = [];
  let sectionBlocks: Uint8Array[] = [];
  let section = new Uint8Array(0);
  let lastLink = -1;
  let offset = 0;
  let carry = new Uint8Array(0);
  let index = 0;
  let spare: ArrayBuffer | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const buffer = spare ?? new ArrayBuffer(size);
    spare = undefined;
    const u8 = new Uint8Array(buffer);
    const lead = section;
    u8.set(lead, 0);
    u8.set(carry, lead.length);
    const start = lead.length + carry.length;
    const n = await reader.read(u8, start, size - start);
    const len = start + n;
    const view = new DataView(buffer, 0, len);
    let p = lead.length;
    let count = 0;
    let bad = false;
    while (p + 12 <= len) {
      let ble: boolean = le;
      const shb = view.getUint32(p, false) === SHB;
      if (shb) {
        const bom = view.getUint32(p + 8, true);
        if (bom === BYTE_ORDER_MAGIC) ble = true;
        else if (bom === BYTE_ORDER_MAGIC_SWAPPED) ble = false;
        else {
          bad = true;
          break;
        }
      }
      const blen = view.getUint32(p + 4, ble);
      // Lengths the general parser rejects, and blocks no chunk can hold (after the lead the next chunk
      // starts with), go to it.
      if (blen < 12 || blen % 4 !== 0 || section.length + blen > size) {
        bad = true;
        break;
      }
      if (p + blen > len) break;
      if (view.getUint32(p + blen - 4, ble) !== blen) {
        bad = true;
        break;
      }
      const type = shb ? SHB : view.getUint32(p, ble);
      if (type === EPB || type === OPB) {
        if (blen < 32) {
          bad = true;
          break;
        }
        const iface = type === EPB ? view.getUint32(p + 8, ble) : view.getUint16(p + 8, ble);
        const caplen = view.getUint32(p + 20, ble);
        if (28 + caplen + 4 > blen || caplen > options.maxPacket || iface >= linkTypes.length) {
          bad = true;
          break;
        }
        const link = linkTypes[iface]!;
        if (link !== lastLink) {
          lastLink = link;
          options.onLinkType?.(link);
        }
        count++;
      } else if (type === SPB) {
        if (blen < 16 || linkTypes.length === 0) {
          bad = true;
          break;
        }
        const link = linkTypes[0]!;
        if (link !== lastLink) {
          lastLink = link;
          options.onLinkType?.(link);
        }
        count++;
      } else if (type === SHB) {
        le = ble;
        linkTypes = [];
        sectionBlocks = [u8.slice(p, p + blen)];
        section = concat(sectionBlocks);
      } else if (type === IDB) {
        if (blen < 20) {
          bad = true;
          break;
        }
        linkTypes.push(view.getUint16(p + 8, ble));
        sectionBlocks.push(u8.slice(p, p + blen));
        section = concat(sectionBlocks);
      }
      p += blen;
    }
    carry = u8.slice(p, len);
    spare = count > 0 ? await sink.send(buffer, p, index) : buffer;
    index += count;
    offset += p - lead.length;
    options.onProgress?.(offset, index);
    if (bad || n === 0) {
      return carry.length > 0 ? { packets: index, bytes: offset, rest: { offset, index, section, carry } } : { packets: index, bytes: offset };
    }
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, b) => a + b.length, 0));
  let at = 0;
  for (const b of parts) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/**
 * The record loop over a chunk of whole pcapng blocks that {@link feedPcapngChunks} checked: section
 * headers set the byte order, interface descriptions the link types and snap lengths, and each
 * enhanced, obsolete or simple packet block's frame is counted where it lies. HOT PATH (bench/simulate.ts).
 */
function pcapngChunkLoop(
  countFrame: (bytes: Uint8Array, start: number, end: number, linkType: number, index: number) => number,
): (buffer: ArrayBuffer, length: number, index: number) => void {
  return (buffer, length, first) => {
    const bytes = new Uint8Array(buffer, 0, length);
    const view = new DataView(buffer, 0, length);
    let index = first;
    let le = true;
    const links: number[] = [];
    const snaps: number[] = [];
    for (let p = 0; p < length; ) {
      if (view.getUint32(p, false) === SHB) {
        le = view.getUint32(p + 8, true) === BYTE_ORDER_MAGIC;
        links.length = 0;
        snaps.length = 0;
        p += view.getUint32(p + 4, le);
        continue;
      }
      const type = view.getUint32(p, le);
      const blen = view.getUint32(p + 4, le);
      if (type === EPB) {
        const start = p + 28;
        countFrame(bytes, start, start + view.getUint32(p + 20, le), links[view.getUint32(p + 8, le)]!, index++);
      } else if (type === SPB) {
        // No captured length: the original length, cut to the block and to the interface's snap length.
        let caplen = Math.min(view.getUint32(p + 8, le), blen - 16);
        if (snaps[0]! > 0) caplen = Math.min(caplen, snaps[0]!);
        countFrame(bytes, p + 12, p + 12 + caplen, links[0]!, index++);
      } else if (type === IDB) {
        links.push(view.getUint16(p + 8, le));
        snaps.push(view.getUint32(p + 12, le));
      } else if (type === OPB) {
        const start = p + 28;
        countFrame(bytes, start, start + view.getUint32(p + 20, le), links[view.getUint16(p + 8, le)]!, index++);
      }
      p += blen;
    }
  };
}
