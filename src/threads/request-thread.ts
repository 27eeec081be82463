/**
 * One worker thread answering requests by id, as the server's off-thread validation and the LSP's full
 * check and diff lenses each keep one. Started on first use and unref'd (a process that is ending does not
 * wait for it; its owner ends it with {@link RequestThread.close}). When it fails or exits, every waiting
 * request is rejected and it is not started again: the owner then does the work on its own thread.
 * @module
 */
import type { Worker } from 'node:worker_threads';

/** A reply of the worker: `{ id, error }`, or `{ id, … }` whose answer `answerOf` reads. Other messages (`{ ready: true }`) are ignored. */
type Reply = { id: number; error?: string } & Record<string, unknown>;

export class RequestThread<Request extends object, Answer> {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();

  /**
   * @param make starts the worker; undefined (or a throw) when there can be none
   * @param name what the worker is, in the error a waiting request gets when it exits
   * @param answerOf the answer in a reply that is not an error
   */
  constructor(private readonly make: () => Worker | undefined, private readonly name: string, private readonly answerOf: (reply: Reply) => Answer) {}

  /** The request's answer; undefined when there is no worker (do the work on this thread). */
  send(request: Request): Promise<Answer> | undefined {
    const worker = this.start();
    if (!worker) return undefined;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  /** Start the worker ahead of the first request (its start-up then overlaps what comes before); whether there is one. */
  start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const w = this.make();
      if (!w) {
        this.failed = true;
        return undefined;
      }
      w.unref();
      w.on('message', (m: Reply) => {
        if (typeof m?.id !== 'number') return;
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (typeof m.error === 'string') p?.reject(new Error(m.error));
        else p?.resolve(this.answerOf(m));
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', () => this.fail(new Error(`the ${this.name} exited`)));
      this.worker = w;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }

  /** End the worker; no request is sent to one again. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.failed = true;
    if (w) await w.terminate();
  }

  private fail(e: Error): void {
    this.worker = undefined;
    this.failed = true;
    for (const p of this.waiting.values()) p.reject(e);
    this.waiting.clear();
  }
}
