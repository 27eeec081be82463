/**
 * The full check, off the server's thread: one worker thread (src/lsp/worker.ts), started on first use,
 * takes the requests in order. Where no worker can start (the module is not beside this one), the check
 * runs on this thread instead.
 * @module
 */
import { Worker } from 'node:worker_threads';
import { lintText, type InputKind, type LintDiagnostic } from '../lint/index.js';
import type { Settings } from './settings.js';
import { WORKER_KIND, type FullCheckReply, type FullCheckRequest } from './worker.js';

/**
 * The worker module's file. The CLI bundle puts it beside its chunks as lsp-worker.js; tsc's build beside
 * this file as worker.js; under vitest (sources) the bundle's is used.
 */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('../../dist/bundle/lsp-worker.js', here);
  return here.includes('/dist/lsp/') ? new URL('./worker.js', here) : new URL('./lsp-worker.js', here);
}

export class FullChecker {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (d: LintDiagnostic[]) => void; reject: (e: Error) => void }>();
  private readonly sentSettings = new Set<number>();

  /** `rulekit lint`'s check of a text. */
  check(text: string, kind: InputKind, settings: Settings): Promise<LintDiagnostic[]> {
    const worker = this.start();
    if (!worker) return lintText(text, kind, false, { expression: settings.expression, severity: settings.severity }).then((r) => r.diagnostics);
    const id = this.nextId++;
    const request: FullCheckRequest = { id, text, kind, settingsId: settings.id };
    if (!this.sentSettings.has(settings.id)) {
      request.settings = settings.plain;
      this.sentSettings.add(settings.id);
    }
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage(request);
    });
  }

  /** Start the worker ahead of the first check (its start-up then overlaps the pause before it). */
  warm(): void {
    this.start();
  }

  /** Stop the worker (at shutdown). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const w = new Worker(workerUrl(), { workerData: WORKER_KIND });
      // The server ends when the client says exit, whatever the worker is doing.
      w.unref();
      w.on('message', (m: FullCheckReply) => {
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if ('error' in m) p?.reject(new Error(m.error));
        else p?.resolve(m.diagnostics);
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', () => this.fail(new Error('the full-check worker exited')));
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
