/**
 * Worker threads for a pcap or pcapng file: this thread cuts the file into chunks of whole records
 * (pcap-chunks.ts) and hands them, transferred, to the least busy worker; each worker counts them into its
 * own copy of the compiled ruleset (rebuilt from its portable form, without the expression parser) and
 * sends its summary at the end, which this thread merges (counts add up, examples are the lowest indexes).
 * @module
 */
import { Worker } from 'node:worker_threads';
import type { PortableRuleset, SimulationSummary } from '../engine/index.js';
import type { ChunkFacts, ChunkSink, PcapCountingWalk } from './pcap-chunks.js';

/** What a worker is started with (workerData). */
export interface WorkerSetup {
  kind: 'rulekit-simulate';
  /** The compiled ruleset (`CompiledRuleset.portable()`). */
  ruleset: PortableRuleset;
  /** A country/ASN table file the worker loads itself. */
  geoipPath?: string;
  colo?: { name: string };
  facts: ChunkFacts;
}

/** A chunk of whole records, to a worker. */
export interface ChunkMessage {
  type: 'chunk';
  buffer: ArrayBuffer;
  length: number;
  /** Index of the chunk's first record in the file. */
  index: number;
}

/**
 * What a worker says: ready / chunk done (with the chunk's buffer, transferred back for the reader to fill
 * again), its summary, or what went wrong.
 */
export type FromWorker = { type: 'ack'; buffer?: ArrayBuffer } | { type: 'summary'; summary: SimulationSummary } | { type: 'error'; message: string };

/** The worker module's file: beside this one once built (under vitest, which runs the sources, the built copy in dist/). */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('../../dist/simulation/worker.js', here);
  return new URL('./worker.js', here);
}

/** A started pool of workers (start it early: their start-up overlaps checking the ruleset here). */
export class WorkerPool implements ChunkSink {
  private readonly workers: { w: Worker; inflight: number; ready: boolean; sent: number; summary?: SimulationSummary }[] = [];
  private closing = false;
  /** Counts chunks on this thread while no worker has started yet (so small inputs never wait for them). */
  private local: ChunkSink | undefined;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  /**
   * Buffers the workers are done with, for the reader to fill again: without them every chunk was a new
   * 1 MiB buffer, freed only when the worker's garbage collector ran, and a worker that makes no garbage
   * let them pile up (measured: peak RSS 130 MB → 220 MB at 5M packets once the per-packet garbage went).
   */
  private readonly free: ArrayBuffer[] = [];

  constructor(setup: Omit<WorkerSetup, 'kind'>, threads: number) {
    for (let i = 0; i < threads; i++) {
      const w = new Worker(workerUrl(), { workerData: { ...setup, kind: 'rulekit-simulate' } satisfies WorkerSetup });
      // inflight is 1 until the worker says it is ready
      const slot = { w, inflight: 1, ready: false, sent: 0, summary: undefined as SimulationSummary | undefined };
      w.on('message', (m: FromWorker) => {
        if (m.type === 'ack') {
          slot.inflight--;
          slot.ready = true;
          if (m.buffer) this.free.push(m.buffer);
        } else if (m.type === 'summary') slot.summary = m.summary;
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
   * Count chunks with `here` (on this thread, into the caller's compiled ruleset) until a worker is ready;
   * the summaries of {@link WorkerPool.finish} then cover only what the workers counted.
   */
  countHereUntilReady(here: ChunkSink): void {
    this.local = here;
  }

  /**
   * Send a chunk to the least busy worker (waits while every worker has `depth` chunks queued); resolves
   * to a buffer a worker gave back, when there is one.
   */
  async send(buffer: ArrayBuffer, length: number, index: number, depth = 2): Promise<ArrayBuffer | undefined> {
    if (this.local && !this.workers.some((s) => s.ready)) {
      // Workers take a while to start (loading modules, rebuilding the ruleset): count here meanwhile.
      const back = await this.local.send(buffer, length, index);
      await new Promise<void>((resolve) => setImmediate(resolve)); // let their "ready" messages in
      if (this.failure) throw this.failure;
      return back;
    }
    const pick = () => this.workers.reduce((a, b) => (b.inflight < a.inflight ? b : a));
    await this.until(() => pick().inflight < depth);
    const slot = pick();
    slot.inflight++;
    slot.sent++;
    slot.w.postMessage({ type: 'chunk', buffer, length, index } satisfies ChunkMessage, [buffer]);
    return this.free.pop();
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

/** Chunks counted on this thread, straight into the caller's compiled ruleset. */
export class LocalPool implements ChunkSink {
  /** `walkAndCount`: for pcap, the one-pass walk and count the reader uses when this pool is its sink. */
  constructor(
    private readonly countChunk: (buffer: ArrayBuffer, length: number, index: number) => void,
    readonly walkAndCount?: PcapCountingWalk,
  ) {}

  async send(buffer: ArrayBuffer, length: number, index: number): Promise<ArrayBuffer> {
    this.countChunk(buffer, length, index);
    return buffer;
  }
}
