/**
 * The store's database could not be reached, or its connection was lost during a call. The server answers
 * 503 with `Retry-After`; what it tells the client about a write depends on where the connection was lost.
 * @module
 */

/**
 * `none`: the call wrote nothing (it failed before any write was sent, or the database rolled it back).
 * `unknown`: the connection was lost after the write's commit was sent: it may have been applied.
 */
export type WriteOutcome = 'none' | 'unknown';

export class StoreUnavailableError extends Error {
  constructor(readonly outcome: WriteOutcome, cause: unknown) {
    super(`the database is unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}
