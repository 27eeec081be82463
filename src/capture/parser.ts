/**
 * An incremental pcap/pcapng reader: push byte chunks in, pull packet records out. It never holds more
 * than the unread tail of the input plus the record being assembled, so memory does not grow with the
 * file. Corrupt and truncated records become diagnostics with their byte offset; nothing throws.
 *
 * Hand-written on purpose: the npm packages that read captures (`pcap-parser`, `pcap-ng-parser`) are
 * built on Node streams and Buffers, read one format each and stop at the first bad record; none streams
 * both formats in a browser. This reader follows the libpcap and pcapng format descriptions
 * (draft-ietf-opsawg-pcap, draft-ietf-opsawg-pcapng) directly. It is a hot path: DataView reads on the
 * input chunk, records are zero-copy views.
 * @module
 */
import { captureDiagnostic, type CaptureDiagnostic } from './diagnostic.js';
import type { CaptureCode } from './codes.js';
import { PCAP_HEADER_BYTES, pcapMagic, plausiblePcapRecord, readPcapHeader, type PcapHeader } from './pcap.js';
import {
  BYTE_ORDER_MAGIC,
  BlockType,
  RESYNC_BLOCK_TYPES,
  interfaceTimestamp,
  readInterface,
  type PcapngInterface,
} from './pcapng.js';
import type { CaptureFormat, CaptureRecord, CaptureSummary, ReadCaptureOptions } from './types.js';

const EMPTY = new Uint8Array(0);
const GZIP_MAGIC = 0x1f8b;

type Mode = 'magic' | 'pcap-header' | 'pcap' | 'pcapng' | 'resync' | 'done';

/** Outcome of one step of the state machine: a record, "need more bytes", or "go on". */
const NEED_MORE = 0;
const CONTINUE = 1;
type Step = CaptureRecord | typeof NEED_MORE | typeof CONTINUE;

/**
 * Incremental capture parser. `push()` chunks as they arrive, call `read()` until it returns `undefined`
 * (it needs more bytes), and `end()` when the input is over; then drain `read()` once more.
 */
export class CaptureParser {
  private buf: Uint8Array = EMPTY;
  private view = new DataView(EMPTY.buffer);
  /** Read position in `buf`. */
  private pos = 0;
  /** File offset of `buf[0]`. */
  private base = 0;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private ended = false;
  private mode: Mode = 'magic';
  private produced = 0;
  private totalBytes = 0;
  private readonly diagnostics: CaptureDiagnostic[] = [];
  private dropped = 0;
  private stoppedEarly = false;
  private detected: CaptureFormat | undefined;

  private readonly asNumber: boolean;
  private readonly copyData: boolean;
  private readonly maxPacket: number;
  private readonly maxBlock: number;
  private readonly maxResync: number;
  private readonly maxDiagnostics: number;
  private readonly onDiagnostic: ((d: CaptureDiagnostic) => void) | undefined;

  // pcap state
  private pcap: PcapHeader | undefined;
  private lastSeconds: number | undefined;
  // pcapng state
  private le = true;
  private interfaces: PcapngInterface[] = [];
  // resynchronisation state
  private resyncStart = 0;
  private resyncFormat: CaptureFormat = 'pcap';

  constructor(options: ReadCaptureOptions = {}) {
    this.asNumber = options.timestamps === 'number';
    this.copyData = options.copyData === true;
    this.maxPacket = positive(options.maxPacketBytes, 262144);
    this.maxBlock = positive(options.maxBlockBytes, 16 * 1024 * 1024);
    this.maxResync = positive(options.maxResyncBytes, 4 * 1024 * 1024);
    this.maxDiagnostics = positive(options.maxDiagnostics, 1000);
    this.onDiagnostic = options.onDiagnostic;
  }

  /** The detected format, once the magic number has been read. */
  get format(): CaptureFormat | undefined {
    return this.detected;
  }

  /** Add the next chunk of the file. Chunks after `end()` or after reading stopped are ignored. */
  push(chunk: Uint8Array): void {
    if (this.ended || chunk.length === 0) return;
    // A Node Buffer (or other subclass) becomes a plain Uint8Array view, so records are always plain
    // Uint8Arrays and the decoder's element reads stay monomorphic.
    if (chunk.constructor !== Uint8Array) chunk = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.totalBytes += chunk.length;
    if (this.mode === 'done') return;
    if (this.pos >= this.buf.length && this.pendingBytes === 0) {
      this.base += this.buf.length;
      this.setBuffer(chunk);
      return;
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
  }

  /** Say that no more input will come: a partial record at the end is then reported and skipped. */
  end(): void {
    this.ended = true;
  }

  /** Stop reading now (the source failed): later `read()` calls return `undefined`; the summary says incomplete. */
  abort(): void {
    this.stoppedEarly = true;
    this.stop();
  }

  /** The next complete record, or `undefined` when more input is needed (or, after `end()`, when done). */
  read(): CaptureRecord | undefined {
    for (;;) {
      const step = this.step();
      if (step === NEED_MORE) return undefined;
      if (step !== CONTINUE) return step;
    }
  }

  /**
   * Not part of the public API. After the 24-byte header of a pcap file was pushed and read (so `read()`
   * returned undefined), continue as if the file's records up to byte `offset` had been read: `index`
   * records so far, the last at `lastSeconds`. The next chunk pushed is the file from `offset` on. The
   * simulator's worker threads use it to hand the rest of a file (after a corrupt or cut record) back
   * to one parser, with the offsets and record numbers of a whole-file read.
   */
  resumePcapAt(offset: number, index: number, lastSeconds: number | undefined): void {
    if (this.mode !== 'pcap' || this.pos !== this.buf.length || this.pendingBytes !== 0) throw new Error('resumePcapAt: not right after a pcap header');
    this.setBuffer(EMPTY);
    this.base = offset;
    this.produced = index;
    this.lastSeconds = lastSeconds;
  }

  /**
   * Not part of the public API. On a new parser, before anything is pushed: continue as if a pcapng
   * file's blocks up to byte `offset` had been read, `index` records so far, with `section` (the raw
   * Section Header Block and Interface Description Blocks in force at `offset`, or no bytes) read for the
   * byte order and interfaces. The next chunk pushed is the file from `offset` on. The simulator's
   * in-place block walk hands the rest of a file (from a block it does not vouch for) to such a parser.
   */
  resumePcapngAt(offset: number, index: number, section: Uint8Array): void {
    if (this.mode !== 'magic' || this.buf.length !== 0 || this.pendingBytes !== 0) throw new Error('resumePcapngAt: not on a new parser');
    this.detected = 'pcapng';
    this.mode = 'pcapng';
    this.setBuffer(section);
    while (this.pos < this.buf.length) {
      const at = this.pos;
      const type = this.view.getUint32(at, false) === BlockType.SectionHeader ? BlockType.SectionHeader : this.view.getUint32(at, this.le);
      if ((type !== BlockType.SectionHeader && type !== BlockType.InterfaceDescription) || this.step() !== CONTINUE || this.diagnostics.length > 0) {
        throw new Error('resumePcapngAt: the section is not whole section header and interface description blocks');
      }
    }
    this.setBuffer(EMPTY);
    this.base = offset;
    this.produced = index;
  }

  /** Counts and diagnostics so far (the final summary after `end()` and a drained `read()`). */
  summary(): CaptureSummary {
    const summary: CaptureSummary = {
      records: this.produced,
      bytes: this.totalBytes,
      diagnostics: this.diagnostics.slice(),
      droppedDiagnostics: this.dropped,
      complete: !this.stoppedEarly,
    };
    if (this.detected) summary.format = this.detected;
    return summary;
  }

  /** Report a diagnostic (kept up to the limit; always passed to `onDiagnostic`). */
  report(code: CaptureCode, offset: number, message: string, extra?: Record<string, unknown>): void {
    const d = captureDiagnostic(code, offset, message, extra);
    this.onDiagnostic?.(d);
    if (this.diagnostics.length < this.maxDiagnostics) {
      this.diagnostics.push(d);
      if (this.diagnostics.length === this.maxDiagnostics) {
        const cap = captureDiagnostic(
          'capture-too-many-diagnostics',
          offset,
          `At byte ${offset}: reached the limit of ${this.maxDiagnostics} diagnostics (maxDiagnostics); later ones are counted, not kept.`,
          { limit: this.maxDiagnostics },
        );
        this.onDiagnostic?.(cap);
        this.diagnostics.push(cap);
      }
    } else {
      this.dropped++;
    }
  }

  // ---- buffering ---------------------------------------------------------------------------------

  private setBuffer(b: Uint8Array): void {
    this.buf = b;
    this.pos = 0;
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  /** Bytes available from the read position, pending chunks included. */
  private available(): number {
    return this.buf.length - this.pos + this.pendingBytes;
  }

  /** Make `n` bytes contiguous at `pos`; false when they have not all arrived yet. */
  private ensure(n: number): boolean {
    let rest = this.buf.length - this.pos;
    if (rest >= n) return true;
    if (rest + this.pendingBytes < n) return false;
    if (rest === 0) {
      // Take the next chunk as it is (no copy) when it is enough on its own.
      this.base += this.buf.length;
      const next = this.pending.shift()!;
      this.pendingBytes -= next.length;
      this.setBuffer(next);
      rest = next.length;
      if (rest >= n) return true;
    }
    const merged = new Uint8Array(rest + this.pendingBytes);
    merged.set(this.buf.subarray(this.pos), 0);
    let at = rest;
    for (const c of this.pending) {
      merged.set(c, at);
      at += c.length;
    }
    this.base += this.pos;
    this.pending = [];
    this.pendingBytes = 0;
    this.setBuffer(merged);
    return true;
  }

  /** Skip `n` bytes (they may reach into pending chunks). */
  private skip(n: number): void {
    const rest = this.buf.length - this.pos;
    if (n <= rest) {
      this.pos += n;
      return;
    }
    let left = n - rest;
    this.base += this.buf.length;
    this.setBuffer(EMPTY);
    while (left > 0 && this.pending.length > 0) {
      const c = this.pending.shift()!;
      this.pendingBytes -= c.length;
      if (c.length <= left) {
        this.base += c.length;
        left -= c.length;
      } else {
        this.setBuffer(c);
        this.pos = left;
        left = 0;
      }
    }
  }

  private offset(): number {
    return this.base + this.pos;
  }

  private stop(): typeof NEED_MORE {
    this.mode = 'done';
    this.pending = [];
    this.pendingBytes = 0;
    this.setBuffer(EMPTY);
    return NEED_MORE;
  }

  /** Out of input in the middle of something: wait for more, or report the truncation once ended. */
  private short(what: string, needed: number): typeof NEED_MORE {
    if (!this.ended) return NEED_MORE;
    const have = this.available();
    if (have > 0) {
      this.report(
        'capture-truncated-record',
        this.offset(),
        `At byte ${this.offset()}: the file ends inside ${what} (${have} of ${needed} bytes present); the partial record was skipped. The capture was probably cut off while being written or copied.`,
        { needed, present: have },
      );
    }
    return this.stop();
  }

  private record(linkType: number, interfaceId: number, ts: bigint | number, start: number, caplen: number, origlen: number, at: number): CaptureRecord {
    const data = this.copyData ? this.buf.slice(start, start + caplen) : this.buf.subarray(start, start + caplen);
    return {
      index: this.produced++,
      offset: at,
      linkType,
      interfaceId,
      timestampNs: ts,
      capturedLength: caplen,
      originalLength: origlen,
      data,
    };
  }

  // ---- state machine -----------------------------------------------------------------------------

  private step(): Step {
    switch (this.mode) {
      case 'magic':
        return this.stepMagic();
      case 'pcap-header':
        return this.stepPcapHeader();
      case 'pcap':
        return this.stepPcapRecord();
      case 'pcapng':
        return this.stepBlock();
      case 'resync':
        return this.resyncFormat === 'pcap' ? this.stepPcapResync() : this.stepBlockResync();
      default:
        return NEED_MORE;
    }
  }

  private stepMagic(): Step {
    if (!this.ensure(4)) {
      if (!this.ended) return NEED_MORE;
      if (this.available() === 0) {
        this.report('capture-empty', 0, 'The capture is empty (0 bytes): there is nothing to read.');
      } else {
        this.report(
          'capture-truncated-header',
          0,
          `At byte 0: the file is only ${this.available()} bytes long, too short for a pcap or pcapng header.`,
        );
      }
      this.stoppedEarly = true;
      return this.stop();
    }
    const v = this.view;
    const p = this.pos;
    if (v.getUint32(p, false) === BlockType.SectionHeader) {
      this.detected = 'pcapng';
      this.mode = 'pcapng';
      return CONTINUE;
    }
    if (pcapMagic(v, p)) {
      this.detected = 'pcap';
      this.mode = 'pcap-header';
      return CONTINUE;
    }
    const hex = Array.from(this.buf.subarray(p, p + 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    const hint =
      v.getUint16(p, false) === GZIP_MAGIC
        ? ' It looks gzip-compressed: decompress it first (gunzip).'
        : ' Expected a pcap magic (a1 b2 c3 d4, a1 b2 3c 4d or byte-swapped) or a pcapng section header (0a 0d 0d 0a).';
    this.report('capture-unknown-format', 0, `At byte 0: unknown capture format (first bytes ${hex}).${hint}`, { magic: hex });
    this.stoppedEarly = true;
    return this.stop();
  }

  private stepPcapHeader(): Step {
    if (!this.ensure(PCAP_HEADER_BYTES)) {
      if (!this.ended) return NEED_MORE;
      this.report(
        'capture-truncated-header',
        0,
        `At byte 0: the file ends inside the 24-byte pcap file header (${this.available()} bytes present).`,
      );
      this.stoppedEarly = true;
      return this.stop();
    }
    this.pcap = readPcapHeader(this.view, this.pos, pcapMagic(this.view, this.pos)!);
    this.pos += PCAP_HEADER_BYTES;
    this.mode = 'pcap';
    return CONTINUE;
  }

  private stepPcapRecord(): Step {
    const h = this.pcap!;
    const hb = h.recordHeaderBytes;
    if (!this.ensure(hb)) return this.short('a pcap record header', hb);
    const le = h.littleEndian;
    const v = this.view;
    const p = this.pos;
    const at = this.offset();
    const sec = v.getUint32(p, le);
    const frac = v.getUint32(p + 4, le);
    const caplen = v.getUint32(p + 8, le);
    const origlen = v.getUint32(p + 12, le);
    if (caplen > this.maxPacket) {
      this.report(
        'capture-corrupt-record',
        at,
        `At byte ${at}: record ${this.produced + 1} claims ${caplen} captured bytes, above the limit of ${this.maxPacket} (maxPacketBytes); the record header is corrupt. Looking for the next plausible record.`,
        { capturedLength: caplen, limit: this.maxPacket },
      );
      return this.beginResync('pcap', at + 1);
    }
    if (!this.ensure(hb + caplen)) return this.short(`pcap record ${this.produced + 1}`, hb + caplen);
    this.lastSeconds = sec;
    const fracNs = h.nanos ? frac : frac * 1000;
    const ts = this.asNumber ? sec * 1e9 + fracNs : BigInt(sec) * 1_000_000_000n + BigInt(fracNs);
    const rec = this.record(h.linkType, 0, ts, this.pos + hb, caplen, origlen, at);
    this.pos += hb + caplen;
    return rec;
  }

  private stepBlock(): Step {
    if (!this.ensure(12)) return this.short('a pcapng block header', 12);
    const v = this.view;
    const p = this.pos;
    const at = this.offset();
    const type = v.getUint32(p, this.le);
    if (v.getUint32(p, false) === BlockType.SectionHeader) {
      const bom = v.getUint32(p + 8, true);
      if (bom === BYTE_ORDER_MAGIC) this.le = true;
      else if (bom === 0x4d3c2b1a) this.le = false;
      else {
        this.report(
          'capture-corrupt-record',
          at,
          `At byte ${at}: a pcapng section header has no valid byte-order magic (1a2b3c4d); the block is corrupt. Looking for the next plausible block.`,
        );
        return this.beginResync('pcapng', at + 4);
      }
    }
    const len = v.getUint32(p + 4, this.le);
    if (len < 12 || len % 4 !== 0 || len > this.maxBlock) {
      const why = len > this.maxBlock ? `above the limit of ${this.maxBlock} (maxBlockBytes)` : 'not a multiple of 4 of at least 12';
      this.report(
        'capture-corrupt-record',
        at,
        `At byte ${at}: pcapng block of type 0x${type.toString(16)} has length ${len}, ${why}; the block is corrupt. Looking for the next plausible block.`,
        { blockType: type, blockLength: len },
      );
      return this.beginResync('pcapng', at + 4);
    }
    if (!this.ensure(len)) return this.short(`a pcapng block of type 0x${type.toString(16)}`, len);
    const q = this.pos;
    const trailer = this.view.getUint32(q + len - 4, this.le);
    if (trailer !== len) {
      this.report(
        'capture-corrupt-record',
        at,
        `At byte ${at}: pcapng block of type 0x${type.toString(16)} says ${len} bytes at its start and ${trailer} at its end; the block is corrupt. Looking for the next plausible block.`,
        { blockType: type, blockLength: len, trailingLength: trailer },
      );
      return this.beginResync('pcapng', at + 4);
    }
    const out = this.block(type, q, len, at);
    this.pos = q + len;
    return out;
  }

  /** Interpret a block whose frame has been checked (`len` bytes at `q`). */
  private block(type: number, q: number, len: number, at: number): Step {
    const v = this.view;
    const le = this.le;
    switch (type) {
      case BlockType.SectionHeader:
        this.interfaces = [];
        return CONTINUE;
      case BlockType.InterfaceDescription:
        if (len < 20) return this.badBlock(at, 'interface description block', len, 20);
        this.interfaces.push(readInterface(v, q + 8, q + len - 4, le));
        return CONTINUE;
      case BlockType.EnhancedPacket:
      case BlockType.Packet: {
        if (len < 32) return this.badBlock(at, 'packet block', len, 32);
        const epb = type === BlockType.EnhancedPacket;
        const iface = epb ? v.getUint32(q + 8, le) : v.getUint16(q + 8, le);
        const caplen = v.getUint32(q + 20, le);
        const origlen = v.getUint32(q + 24, le);
        if (28 + caplen + 4 > len || caplen > this.maxPacket) {
          return this.badBlock(at, 'packet block', len, 32 + caplen);
        }
        const i = this.interfaces[iface];
        if (!i) return this.unknownInterface(at, iface);
        const ts = interfaceTimestamp(i, v.getUint32(q + 12, le), v.getUint32(q + 16, le), this.asNumber);
        return this.record(i.linkType, iface, ts, q + 28, caplen, origlen, at);
      }
      case BlockType.SimplePacket: {
        if (len < 16) return this.badBlock(at, 'simple packet block', len, 16);
        const i = this.interfaces[0];
        if (!i) return this.unknownInterface(at, 0);
        const origlen = v.getUint32(q + 8, le);
        let caplen = Math.min(origlen, len - 16);
        if (i.snapLength > 0) caplen = Math.min(caplen, i.snapLength);
        // A simple packet block carries no timestamp.
        return this.record(i.linkType, 0, this.asNumber ? 0 : 0n, q + 12, caplen, origlen, at);
      }
      default:
        return CONTINUE;
    }
  }

  private badBlock(at: number, what: string, len: number, needed: number): Step {
    this.report(
      'capture-bad-block',
      at,
      `At byte ${at}: ${what} of ${len} bytes cannot hold its contents (needs ${needed}); the block was skipped.`,
      { blockLength: len, needed },
    );
    return CONTINUE;
  }

  private unknownInterface(at: number, iface: number): Step {
    this.report(
      'capture-unknown-interface',
      at,
      `At byte ${at}: packet block for interface ${iface}, but the section declares ${this.interfaces.length} interface(s); the packet was skipped.`,
      { interfaceId: iface, interfaces: this.interfaces.length },
    );
    return CONTINUE;
  }

  // ---- resynchronisation -------------------------------------------------------------------------

  private beginResync(format: CaptureFormat, from: number): Step {
    this.resyncFormat = format;
    this.resyncStart = this.offset();
    this.mode = 'resync';
    this.skip(from - this.offset());
    return CONTINUE;
  }

  private resyncFailed(): typeof NEED_MORE {
    const scanned = this.offset() - this.resyncStart;
    const why = this.ended && this.available() < 16 ? 'the file ended' : `the scan limit of ${this.maxResync} bytes (maxResyncBytes) was reached`;
    this.report(
      'capture-resync-failed',
      this.resyncStart,
      `At byte ${this.resyncStart}: no plausible record follows the corrupt one (${why} after ${scanned} bytes); reading stopped.`,
      { scanned, limit: this.maxResync },
    );
    this.stoppedEarly = !(this.ended && this.available() < 16);
    return this.stop();
  }

  private resumed(): Step {
    const at = this.offset();
    this.report('capture-resynchronised', this.resyncStart, `At byte ${this.resyncStart}: skipped ${at - this.resyncStart} corrupt bytes; reading resumed at byte ${at}.`, {
      skipped: at - this.resyncStart,
      resumedAt: at,
    });
    this.mode = this.resyncFormat;
    return CONTINUE;
  }

  private stepPcapResync(): Step {
    const h = this.pcap!;
    const hb = h.recordHeaderBytes;
    for (;;) {
      if (this.offset() - this.resyncStart > this.maxResync) return this.resyncFailed();
      if (!this.ensure(hb)) return this.ended ? this.resyncFailed() : NEED_MORE;
      const v = this.view;
      const p = this.pos;
      if (plausiblePcapRecord(v, p, h, this.maxPacket, this.lastSeconds)) {
        const caplen = v.getUint32(p + 8, h.littleEndian);
        const next = hb + caplen;
        if (this.ensure(next + hb)) {
          if (plausiblePcapRecord(this.view, this.pos + next, h, this.maxPacket, this.lastSeconds)) return this.resumed();
        } else if (!this.ended) {
          return NEED_MORE;
        } else if (this.available() === next) {
          return this.resumed(); // the last record of the file
        }
      }
      this.skip(1);
    }
  }

  private stepBlockResync(): Step {
    for (;;) {
      if (this.offset() % 4 !== 0) {
        this.skip(Math.min(4 - (this.offset() % 4), this.available()));
        if (this.available() === 0) return this.ended ? this.resyncFailed() : NEED_MORE;
        continue;
      }
      if (this.offset() - this.resyncStart > this.maxResync) return this.resyncFailed();
      if (!this.ensure(12)) return this.ended ? this.resyncFailed() : NEED_MORE;
      const v = this.view;
      const p = this.pos;
      let le = this.le;
      let type = v.getUint32(p, le);
      let ok = RESYNC_BLOCK_TYPES.has(type);
      if (v.getUint32(p, false) === BlockType.SectionHeader) {
        const bom = v.getUint32(p + 8, true);
        ok = bom === BYTE_ORDER_MAGIC || bom === 0x4d3c2b1a;
        le = bom === BYTE_ORDER_MAGIC;
        type = BlockType.SectionHeader;
      }
      const len = v.getUint32(p + 4, le);
      if (ok && len >= 12 && len % 4 === 0 && len <= Math.min(this.maxBlock, this.maxPacket + 65536)) {
        if (this.ensure(len)) {
          const trailer = this.view.getUint32(this.pos + len - 4, le);
          const fits =
            trailer === len &&
            (type !== BlockType.EnhancedPacket ||
              (this.view.getUint32(this.pos + 8, le) < this.interfaces.length && 32 + this.view.getUint32(this.pos + 20, le) <= len));
          if (fits) return this.resumed();
        } else if (!this.ended) {
          return NEED_MORE;
        }
      }
      this.skip(4);
    }
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}
