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
import { RequestThread } from '../threads/index.js';

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
  private readonly thread = new RequestThread<Omit<FullCheckRequest, 'id'>, LintDiagnostic[]>(() => new Worker(workerUrl(), { workerData: WORKER_KIND }), 'full-check worker', (m) => (m as unknown as Extract<FullCheckReply, { diagnostics: unknown }>).diagnostics);
  private readonly sentSettings = new Set<number>();

  /** `rulekit lint`'s check of a text. */
  check(text: string, kind: InputKind, settings: Settings): Promise<LintDiagnostic[]> {
    if (!this.thread.start()) return lintText(text, kind, false, { expression: settings.expression, severity: settings.severity }).then((r) => r.diagnostics);
    const request: Omit<FullCheckRequest, 'id'> = { text, kind, settingsId: settings.id };
    if (!this.sentSettings.has(settings.id)) {
      request.settings = settings.plain;
      this.sentSettings.add(settings.id);
    }
    return this.thread.send(request) ?? lintText(text, kind, false, { expression: settings.expression, severity: settings.severity }).then((r) => r.diagnostics);
  }

  /** Start the worker ahead of the first check (its start-up then overlaps the pause before it). */
  warm(): void {
    this.thread.start();
  }

  /** Stop the worker (at shutdown). */
  async close(): Promise<void> {
    await this.thread.close();
  }
}
