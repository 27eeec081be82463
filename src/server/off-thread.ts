/**
 * Validation of large bodies on a thread of its own. The server answers every request on one thread: a
 * ruleset body near the 1 MiB limit (200 rules of 300 addresses each) took 80–600 ms to validate, and a
 * Logpush job of 80,000 field names 100–280 ms, during which `/healthz` and every other client waited.
 * Bodies of {@link OFF_THREAD_BYTES} or more are validated by one worker thread instead, in order; smaller
 * ones (Terraform's and the SDK's are a few KB) stay on the server's thread, where the validation memo and
 * the per-rule cache answer repeated bodies in microseconds.
 *
 * The worker runs rulekit's published library (the bundle's `index.js`, beside the server's own module),
 * so it validates with exactly the code the server would. Where that file is not there (the server run
 * from its TypeScript sources without a build), {@link OffThreadChecks} says so by answering `undefined`
 * and the caller validates on its own thread.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Diagnostic } from '../diagnostics/index.js';
import type { ListItems } from '../expression/index.js';
import type { LogpushJobContext } from '../logpush/index.js';

/** Bodies of at least this many characters are validated off the server's thread. */
export const OFF_THREAD_BYTES = 128 * 1024;

/** What `validateRuleset` is given, with the lists as items (a catalog is built from them in the worker). */
export interface RulesetCheck {
  operation: 'create' | 'update';
  scope: 'account' | 'zone';
  phase?: string;
  lists?: ListItems;
  /** Names the lists: the worker keeps the catalog it built for the same tag. */
  listsTag?: string;
}

type Request = { id: number; kind: 'ruleset'; text: string; context: RulesetCheck } | { id: number; kind: 'job'; text: string; context: LogpushJobContext };
type Reply = { id: number; diagnostics: Diagnostic[] } | { id: number; error: string };

/** The library the worker loads: the bundle's index.js beside this module, or the build's. */
function libraryFile(): string | undefined {
  const here = import.meta.url;
  // Sources (vitest, tsx): the build's bundle; tsc's build: dist/index.js; a bundle: its own index.js.
  const url = here.endsWith('.ts') ? new URL('../../dist/bundle/index.js', here) : here.includes('/dist/server/') ? new URL('../index.js', here) : new URL('./index.js', here);
  return existsSync(fileURLToPath(url)) ? url.href : undefined;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.library).then((lib) => {
  const catalogs = new Map();
  const catalogOf = (items, tag) => {
    if (!items) return undefined;
    const hit = tag !== undefined && catalogs.get(tag);
    if (hit) return hit;
    const catalog = lib.ListCatalog.from(items);
    if (tag !== undefined) {
      if (catalogs.size >= 16) catalogs.delete(catalogs.keys().next().value);
      catalogs.set(tag, catalog);
    }
    return catalog;
  };
  parentPort.on('message', (m) => {
    try {
      let diagnostics;
      if (m.kind === 'ruleset') {
        const { lists, listsTag, ...rest } = m.context;
        diagnostics = lib.validateRuleset(m.text, { ...rest, expression: { lists: catalogOf(lists, listsTag) } });
      } else {
        diagnostics = lib.validateLogpushJob(m.text, m.context);
      }
      parentPort.postMessage({ id: m.id, diagnostics });
    } catch (e) {
      parentPort.postMessage({ id: m.id, error: String(e && e.message || e) });
    }
  });
  parentPort.postMessage({ ready: true });
}, (e) => { throw e; });
`;

/** The worker that validates large bodies; one per server, started on first use. */
export class OffThreadChecks {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (d: Diagnostic[]) => void; reject: (e: Error) => void }>();
  /** Bodies validated off the thread so far (what the tests and the log read). */
  handled = 0;

  /** @param library URL of the library the worker loads; null: none (every body is validated on the caller's thread). */
  constructor(private readonly library: string | null = libraryFile() ?? null) {}

  /** Whether a body of this text is validated off the thread here. */
  takes(text: string): boolean {
    return text.length >= OFF_THREAD_BYTES && this.start() !== undefined;
  }

  /** `validateRuleset(text, …)` on the worker; undefined when there is no worker (validate on this thread). */
  ruleset(text: string, context: RulesetCheck): Promise<Diagnostic[]> | undefined {
    return this.send({ kind: 'ruleset', text, context });
  }

  /** `validateLogpushJob(text, …)` on the worker; undefined when there is no worker. */
  job(text: string, context: LogpushJobContext): Promise<Diagnostic[]> | undefined {
    return this.send({ kind: 'job', text, context });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.failed = true;
    if (w) await w.terminate();
  }

  private send(request: { kind: 'ruleset'; text: string; context: RulesetCheck } | { kind: 'job'; text: string; context: LogpushJobContext }): Promise<Diagnostic[]> | undefined {
    const worker = this.start();
    if (!worker) return undefined;
    const id = this.nextId++;
    this.handled++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...request } as Request);
    });
  }

  private start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    if (!this.library) {
      this.failed = true;
      return undefined;
    }
    try {
      const w = new Worker(WORKER, { eval: true, workerData: { library: this.library } });
      // A server that is closing does not wait for the worker; close() ends it.
      w.unref();
      w.on('message', (m: Reply | { ready: true }) => {
        if ('ready' in m) return;
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if ('error' in m) p?.reject(new Error(m.error));
        else p?.resolve(m.diagnostics);
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', () => this.fail(new Error('the validation thread exited')));
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
