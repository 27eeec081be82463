/**
 * The diff lenses' worker thread (./diff-worker.ts), started on first use; requests are answered in
 * order. Where no worker can start (the module is not beside this one), the diff runs on this thread.
 * @module
 */
import { Worker } from 'node:worker_threads';
import type { DiffLensResult } from './diff-lenses.js';
import { DIFF_WORKER_KIND, runDiffLenses, type DiffLensReply, type DiffLensRequest } from './diff-worker.js';

/** The worker's file: beside the CLI bundle's chunks as lsp-diff-worker.js, beside this file in tsc's build; under vitest, the bundle's. */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('../../dist/bundle/lsp-diff-worker.js', here);
  return here.includes('/dist/lsp/') ? new URL('./diff-worker.js', here) : new URL('./lsp-diff-worker.js', here);
}

export class DiffLensClient {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: DiffLensResult) => void; reject: (e: Error) => void }>();

  /** The lenses of an edit. Rejects when the capture cannot be read. */
  run(request: DiffLensRequest): Promise<DiffLensResult> {
    const worker = this.start();
    if (!worker) return runDiffLenses(request);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const w = new Worker(workerUrl(), { workerData: DIFF_WORKER_KIND });
      w.unref();
      w.on('message', (m: DiffLensReply) => {
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if ('error' in m) p?.reject(new Error(m.error));
        else p?.resolve(m.result);
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', () => this.fail(new Error('the diff worker exited')));
      this.worker = w;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }

  private fail(e: Error): void {
    this.worker = undefined;
    this.failed = true;
    for (const p of this.waiting.values()) p.reject(e);
    this.waiting.clear();
  }
}
