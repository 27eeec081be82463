/**
 * What the Logpush operations beside jobs keep: the ownership challenges the server issued (one row per
 * token, bound to an owner and a destination, valid until it expires, as the service's JWTs are) and the
 * Instant Logs sessions of a zone (`…/logpush/edge/jobs`). Both stores implement it
 * (logpush-extra-sqlite.ts, logpush-extra-postgres.ts) on the tables of migration 8.
 * @module
 */
import type { Owner, WriteOptions } from './types.js';

/** An Instant Logs job as stored and answered (the SDK's `InstantLogpushJob`). */
export interface StoredEdgeJob {
  session_id: string;
  destination_conf: string;
  fields: string;
  filter: string;
  sample: number;
}

/** The operations; every time is epoch milliseconds, given by the caller (so tests can move the clock). */
export interface LogpushExtraStore {
  /** Keep a challenge token issued for the owner's destination; tokens expired by `now` are dropped. */
  addOwnershipChallenge(owner: Owner, destination: string, token: string, expiresAt: number, now: number, options?: WriteOptions): Promise<void>;
  /** Whether this token was issued for this owner and destination and has not expired by `now`. */
  hasOwnershipChallenge(owner: Owner, destination: string, token: string, now: number): Promise<boolean>;
  /**
   * Store an Instant Logs session, replacing the zone's others: the service runs one session per zone
   * (docs: logs/instant-logs, "Limits").
   */
  createEdgeJob(owner: Owner, job: StoredEdgeJob, expiresAt: number, options?: WriteOptions): Promise<StoredEdgeJob>;
  /** The owner's sessions that have not expired by `now`, oldest first. */
  listEdgeJobs(owner: Owner, now: number): Promise<StoredEdgeJob[]>;
}
