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
import { RequestThread } from '../threads/index.js';
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

/** A request to the worker (sent with an id); it replies `{ id, diagnostics }` or `{ id, error }`. */
type Request = { kind: 'ruleset'; text: string; context: RulesetCheck } | { kind: 'job'; text: string; context: LogpushJobContext };

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
  private readonly thread: RequestThread<Request, Diagnostic[]>;
  /** Bodies validated off the thread so far (what the tests and the log read). */
  handled = 0;

  /** @param library URL of the library the worker loads; null: none (every body is validated on the caller's thread). */
  constructor(library: string | null = libraryFile() ?? null) {
    this.thread = new RequestThread(() => (library ? new Worker(WORKER, { eval: true, workerData: { library } }) : undefined), 'validation thread', (m) => m['diagnostics'] as Diagnostic[]);
  }

  /** Whether a body of this text is validated off the thread here. */
  takes(text: string): boolean {
    return text.length >= OFF_THREAD_BYTES && this.thread.start() !== undefined;
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
    await this.thread.close();
  }

  private send(request: Request): Promise<Diagnostic[]> | undefined {
    const answer = this.thread.send(request);
    if (answer) this.handled++;
    return answer;
  }
}
