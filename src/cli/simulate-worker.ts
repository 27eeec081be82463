/**
 * `rulekit simulate` on several cores: the main thread reads a pcap file in large chunks cut at record
 * boundaries and hands them (transferred, not copied) to worker threads, which decode the records and
 * run them through their own copy of the compiled ruleset; each worker sends back its summary at the
 * end and the main thread merges them ({@link CompiledRuleset.merge}: counts add up, examples are the
 * lowest indexes). Needed by issue 5's target: one thread tops out near 1M packets/s (bench/simulate.ts).
 *
 * This module is both the worker's entry point and the main thread's driver ({@link runParallel}).
 * @module
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { RE2JS } from 're2js';
// Not '../index.js': the worker must not load the expression parser (chevrotain takes ~300 ms to load).
import type { Diagnostic, Packet, SimulationSummary } from '../index.js';
import { PortableCounter, type PortableRuleset } from '../ruleset/codegen.js';
import { decodeFrameInto, decodePacket, decodeSlots, geoIpFromCsv, geoIpFromMmdb, Slots, type DecodeOptions, type GeoIpLookup } from '../capture/index.js';

/** Load a country/ASN table (CSV or .mmdb) from a file. */
export async function loadGeoIp(path: string | undefined, diagnostics: Diagnostic[]): Promise<GeoIpLookup | undefined> {
  if (!path) return undefined;
  const load = path.endsWith('.mmdb') ? await geoIpFromMmdb(new Uint8Array(readFileSync(path))) : geoIpFromCsv(readFileSync(path, 'utf8'));
  diagnostics.push(...load.diagnostics);
  return load.lookup;
}

/** What a worker is started with (workerData). */
export interface WorkerSetup {
  kind: 'rulekit-simulate';
  /** The compiled ruleset (`CompiledRuleset.portable()`). */
  ruleset: PortableRuleset;
  geoip?: string;
  colo?: { name: string };
  /** Decide on packet objects even when the ruleset has a slots decider (tests compare both paths). */
  objects?: boolean;
  /** pcap file header facts. */
  linkType: number;
  littleEndian: boolean;
  recordHeaderBytes: number;
}

/** A chunk of whole records, from the main thread. */
interface ChunkMessage {
  type: 'chunk';
  buffer: ArrayBuffer;
  length: number;
  /** Index of the chunk's first record in the file. */
  index: number;
}

type FromWorker = { type: 'ack' } | { type: 'summary'; summary: SimulationSummary } | { type: 'error'; message: string };

/** The pcap file header as the driver needs it. */
export interface PcapFacts {
  littleEndian: boolean;
  recordHeaderBytes: number;
  linkType: number;
}

/** Recognise a classic pcap header (24 bytes); undefined for anything else (pcapng, NDJSON). */
export function pcapFacts(head: Uint8Array): PcapFacts | undefined {
  if (head.length < 24) return undefined;
  const v = new DataView(head.buffer, head.byteOffset, head.byteLength);
  for (const le of [false, true]) {
    const m = v.getUint32(0, le);
    if (m === 0xa1b2c3d4 || m === 0xa1b23c4d || m === 0xa1b2cd34) {
      return { littleEndian: le, recordHeaderBytes: m === 0xa1b2cd34 ? 24 : 16, linkType: v.getUint32(20, le) & 0xffff };
    }
  }
  return undefined;
}

// ---- worker side ---------------------------------------------------------------------------------

/** What counts the records of a chunk: a worker's {@link PortableCounter} or the main thread's CompiledRuleset. */
export interface ChunkCounter {
  readonly fields: ReadonlySet<string>;
  readonly slotsDecider: unknown;
  count(packet: Packet, index: number, transient?: boolean): number;
  countSlots(V: Float64Array, W: Uint32Array, index: number, example: () => Packet): number;
}

/**
 * The record loop over a chunk of whole pcap records (cut by {@link feedPcap}), for a worker thread and for
 * the main thread alike. HOT PATH (bench/simulate.ts): the records are walked without the general parser
 * and decoded in place — into numeric slots when the ruleset allows (no packet object unless the summary
 * keeps an example), else into one reused packet object.
 */
export function chunkCounter(
  counter: ChunkCounter,
  facts: PcapFacts & { colo?: { name: string }; objects?: boolean },
  geoip: GeoIpLookup | undefined,
): (buffer: ArrayBuffer, length: number, index: number) => void {
  const linkType = facts.linkType;
  const le = facts.littleEndian;
  const hb = facts.recordHeaderBytes;
  const options: DecodeOptions = { fields: counter.fields, geoip, colo: facts.colo, problems: false, fixedShape: true };
  // One packet object, refilled for every record (count() copies the ones it keeps as examples).
  const packet = decodePacket({ linkType, data: new Uint8Array(0) }, options).packet;
  const slots = counter.slotsDecider && !facts.objects ? new Slots() : undefined;
  // The frame being counted, for the example builder (one closure for all packets, no allocation each).
  let exampleBytes = new Uint8Array(0);
  let exampleStart = 0;
  let exampleEnd = 0;
  const exampleOptions: DecodeOptions = { fields: counter.fields, geoip, colo: facts.colo, problems: false };
  const example = () => decodePacket({ linkType, data: exampleBytes.slice(exampleStart, exampleEnd) }, exampleOptions).packet as Packet;
  return (buffer, length, first) => {
    const bytes = new Uint8Array(buffer, 0, length);
    const view = new DataView(buffer, 0, length);
    let index = first;
    if (slots) {
      exampleBytes = bytes;
      for (let p = 0; p < length; ) {
        exampleStart = p + hb;
        exampleEnd = exampleStart + view.getUint32(p + 8, le);
        decodeSlots(slots, bytes, exampleStart, exampleEnd, linkType);
        counter.countSlots(slots.V, slots.W, index++, example);
        p = exampleEnd;
      }
      return;
    }
    for (let p = 0; p < length; ) {
      const start = p + hb;
      const end = start + view.getUint32(p + 8, le);
      decodeFrameInto(packet, bytes, start, end, linkType, options);
      counter.count(packet as Packet, index++, true);
      p = end;
    }
  };
}

async function workerMain(setup: WorkerSetup): Promise<void> {
  const port = parentPort!;
  const compiled = new PortableCounter(setup.ruleset, RE2JS);
  const geoip = await loadGeoIp(setup.geoip, []);
  const countChunk = chunkCounter(compiled, setup, geoip);
  port.on('message', (m: ChunkMessage | { type: 'end' }) => {
    try {
      if (m.type === 'end') {
        port.postMessage({ type: 'summary', summary: compiled.summary() } satisfies FromWorker);
        return;
      }
      countChunk(m.buffer, m.length, m.index);
      port.postMessage({ type: 'ack' } satisfies FromWorker);
    } catch (e) {
      port.postMessage({ type: 'error', message: (e as Error)?.stack ?? String(e) } satisfies FromWorker);
    }
  });
  port.postMessage({ type: 'ack' } satisfies FromWorker); // ready
}

if (!isMainThread && (workerData as WorkerSetup | undefined)?.kind === 'rulekit-simulate') {
  workerMain(workerData as WorkerSetup).catch((e) => parentPort!.postMessage({ type: 'error', message: (e as Error)?.stack ?? String(e) } satisfies FromWorker));
}

// ---- main-thread side ----------------------------------------------------------------------------

/** Where the workers stopped: the rest of the file (from `offset`, record `index` on) is for one parser. */
export interface ParallelResult {
  /** Records the workers decided. */
  packets: number;
  /** Set when bytes are left (a corrupt or cut record): read them from `offset` with a resumed parser. */
  rest?: { offset: number; index: number; lastSeconds: number | undefined };
}

/** The worker module's file: the compiled one next to this file (under vitest, the built copy in dist/). */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('../../dist/cli/simulate-worker.js', here);
  return new URL('./simulate-worker.js', here);
}

/** A started pool of workers (start it early: loading and compiling overlaps the main thread's work). */
export class WorkerPool implements ChunkSink {
  private readonly workers: { w: Worker; inflight: number; ready: boolean; sent: number; summary?: SimulationSummary }[] = [];
  private closing = false;
  /** Counts chunks on this thread while no worker has started yet (so small files never wait for them). */
  private local: ChunkSink | undefined;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(setup: Omit<WorkerSetup, 'kind'>, threads: number) {
    for (let i = 0; i < threads; i++) {
      const w = new Worker(workerUrl(), { workerData: { ...setup, kind: 'rulekit-simulate' } satisfies WorkerSetup });
      const slot = { w, inflight: 1 as number, ready: false, sent: 0, summary: undefined as SimulationSummary | undefined }; // 1 until it says it is ready
      w.on('message', (m: FromWorker) => {
        if (m.type === 'ack') {
          slot.inflight--;
          slot.ready = true;
        }
        else if (m.type === 'summary') slot.summary = m.summary;
        else this.failure ??= new Error(`simulate worker failed: ${m.message}`);
        this.wake?.();
      });
      w.on('error', (e) => {
        this.failure ??= e;
        this.wake?.();
      });
      w.on('exit', (code) => {
        if (!slot.summary && !this.closing) this.failure ??= new Error(`simulate worker exited (code ${code}) before its summary`);
        this.wake?.();
      });
      this.workers.push(slot);
    }
  }

  private async until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    if (this.failure) throw this.failure;
  }

  /**
   * Count chunks with `here` (on this thread, into the caller's counter) until a worker is ready; the
   * summaries of {@link WorkerPool.finish} then cover only what the workers counted.
   */
  countHereUntilReady(here: ChunkSink): void {
    this.local = here;
  }

  /** Send a chunk to the least busy worker (waits while every worker has `depth` chunks queued). */
  async send(buffer: ArrayBuffer, length: number, index: number, depth = 2): Promise<void> {
    if (this.local && !this.workers.some((s) => s.ready)) {
      // Workers take ~0.1 s to start (loading modules, rebuilding the ruleset): count here meanwhile.
      await this.local.send(buffer, length, index);
      await new Promise<void>((resolve) => setImmediate(resolve)); // let their "ready" messages in
      if (this.failure) throw this.failure;
      return;
    }
    const pick = () => this.workers.reduce((a, b) => (b.inflight < a.inflight ? b : a));
    await this.until(() => pick().inflight < depth);
    const slot = pick();
    slot.inflight++;
    slot.sent++;
    slot.w.postMessage({ type: 'chunk', buffer, length, index } satisfies ChunkMessage, [buffer]);
  }

  /** Wait for every chunk, collect the summaries and stop the workers. */
  async finish(): Promise<SimulationSummary[]> {
    // Workers that got no chunk (this thread counted everything while they started) are just stopped.
    const used = this.workers.filter((s) => s.sent > 0);
    await this.until(() => used.every((s) => s.inflight === 0));
    for (const s of used) s.w.postMessage({ type: 'end' });
    await this.until(() => used.every((s) => s.summary !== undefined));
    const out = used.map((s) => s.summary!);
    await this.close();
    return out;
  }

  /** Stop the workers. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((s) => s.w.terminate()));
  }
}

/** Where {@link feedPcap} sends chunks: a {@link WorkerPool}, or {@link LocalPool} on this thread. */
export interface ChunkSink {
  send(buffer: ArrayBuffer, length: number, index: number): Promise<void>;
}

/** Chunks counted on this thread, straight into the caller's counter (no summaries to merge). */
export class LocalPool implements ChunkSink {
  private readonly countChunk: (buffer: ArrayBuffer, length: number, index: number) => void;

  constructor(counter: ChunkCounter, facts: PcapFacts & { colo?: { name: string }; objects?: boolean }, geoip: GeoIpLookup | undefined) {
    this.countChunk = chunkCounter(counter, facts, geoip);
  }

  async send(buffer: ArrayBuffer, length: number, index: number): Promise<void> {
    this.countChunk(buffer, length, index);
  }
}

/**
 * Read a pcap file from just after its header, cut it into chunks of whole records and feed them to the
 * pool. Stops at the end, or before a record the general parser would call corrupt (captured length above
 * `maxPacket`) or cut short: the result says where the rest begins.
 */
export async function feedPcap(
  path: string,
  facts: PcapFacts,
  pool: ChunkSink,
  options: { chunkBytes: number; maxPacket: number; onProgress?: (bytes: number, packets: number) => void },
): Promise<ParallelResult> {
  const fd = openSync(path, 'r');
  try {
    const hb = facts.recordHeaderBytes;
    const le = facts.littleEndian;
    const size = Math.max(options.chunkBytes, 2 * (options.maxPacket + hb));
    let readAt = 24;
    let chunkOffset = 24;
    let carry = new Uint8Array(0);
    let index = 0;
    let lastSeconds: number | undefined;
    for (;;) {
      const buffer = new ArrayBuffer(size);
      const u8 = new Uint8Array(buffer);
      u8.set(carry, 0);
      let n = 0;
      for (let got = -1; got !== 0 && carry.length + n < size; ) {
        got = readSync(fd, u8, carry.length + n, size - carry.length - n, readAt);
        readAt += got;
        n += got;
      }
      const len = carry.length + n;
      const view = new DataView(buffer, 0, len);
      let p = 0;
      let count = 0;
      let bad = false;
      // Walk the record headers: a few reads per record.
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
      if (count > 0) await pool.send(buffer, p, index);
      index += count;
      chunkOffset += p;
      options.onProgress?.(chunkOffset, index);
      if (bad || n === 0) {
        return carry.length > 0 ? { packets: index, rest: { offset: chunkOffset, index, lastSeconds } } : { packets: index };
      }
    }
  } finally {
    closeSync(fd);
  }
}
