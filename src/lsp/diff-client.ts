/**
 * The diff lenses' worker thread (./diff-worker.ts), started on first use; requests are answered in
 * order. Where no worker can start (the module is not beside this one), the diff runs on this thread.
 * @module
 */
import { Worker } from 'node:worker_threads';
import type { DiffLensResult } from './diff-lenses.js';
import { DIFF_WORKER_KIND, runDiffLenses, type DiffLensReply, type DiffLensRequest } from './diff-worker.js';
import { RequestThread } from '../threads/index.js';

/** The worker's file: beside the CLI bundle's chunks as lsp-diff-worker.js, beside this file in tsc's build; under vitest, the bundle's. */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('../../dist/bundle/lsp-diff-worker.js', here);
  return here.includes('/dist/lsp/') ? new URL('./diff-worker.js', here) : new URL('./lsp-diff-worker.js', here);
}

export class DiffLensClient {
  private readonly thread = new RequestThread<DiffLensRequest, DiffLensResult>(() => new Worker(workerUrl(), { workerData: DIFF_WORKER_KIND }), 'diff worker', (m) => (m as unknown as Extract<DiffLensReply, { result: unknown }>).result);

  /** The lenses of an edit. Rejects when the capture cannot be read. */
  run(request: DiffLensRequest): Promise<DiffLensResult> {
    return this.thread.send(request) ?? runDiffLenses(request);
  }

  async close(): Promise<void> {
    await this.thread.close();
  }
}
