/**
 * Opening the store when the database may not be up yet (containers starting together): attempts with a
 * growing pause between them, one line each, until the database answers or the wait is over.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore, type Store, type StoreOptions } from './store/index.js';
import { StoreUnavailableError } from './store/unavailable.js';

/** Pauses between attempts, in ms: doubling from half a second, at most five. */
const FIRST_PAUSE = 500;
const LONGEST_PAUSE = 5000;

/**
 * Open the store, trying again while its database does not answer, for at most `waitSeconds` (0: one
 * attempt). `say` gets one line per failed attempt. Past the wait, the error is one line too.
 */
export async function openStoreWaiting(options: StoreOptions, waitSeconds: number, say: (line: string) => void): Promise<Store> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (let attempt = 1, pause = FIRST_PAUSE; ; attempt++, pause = Math.min(pause * 2, LONGEST_PAUSE)) {
    try {
      return await openStore(options);
    } catch (e) {
      if (!(e instanceof StoreUnavailableError)) throw e;
      const why = (e.cause as Error)?.message ?? e.message;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the database did not answer in ${waitSeconds} s (${why}); is it running? (--db-wait sets how long to wait)`);
      const wait = Math.min(pause, left);
      say(`rulekit: the database does not answer (${why}); attempt ${attempt}, trying again in ${(wait / 1000).toFixed(1)} s`);
      await sleep(wait);
    }
  }
}
