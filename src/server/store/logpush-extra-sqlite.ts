/**
 * {@link LogpushExtraStore} on SQLite: statements prepared once, writes through the store's group commit.
 * @module
 */
import type Database from 'better-sqlite3';
import type { LogpushExtraStore, Owner, StoredEdgeJob, WriteOptions } from './types.js';

/** The store's write: `fn` in the next group commit, rolled back when a dry run. */
export type SqliteWrite = <T>(fn: () => T, dryRun: boolean | undefined) => Promise<T>;

export function sqliteLogpushExtra(db: Database.Database, write: SqliteWrite): LogpushExtraStore {
  const q = {
    dropExpiredChallenges: db.prepare('DELETE FROM logpush_ownership_challenges WHERE scope = ? AND owner = ? AND expires_at <= ?'),
    addChallenge: db.prepare('INSERT OR REPLACE INTO logpush_ownership_challenges (scope, owner, destination, token, expires_at) VALUES (?, ?, ?, ?, ?)'),
    hasChallenge: db.prepare('SELECT 1 FROM logpush_ownership_challenges WHERE scope = ? AND owner = ? AND destination = ? AND token = ? AND expires_at > ?').pluck(),
    dropEdgeJobs: db.prepare('DELETE FROM logpush_edge_jobs WHERE scope = ? AND owner = ?'),
    addEdgeJob: db.prepare('INSERT INTO logpush_edge_jobs (session_id, scope, owner, expires_at, body) VALUES (?, ?, ?, ?, ?)'),
    listEdgeJobs: db.prepare('SELECT body FROM logpush_edge_jobs WHERE scope = ? AND owner = ? AND expires_at > ? ORDER BY rowid').pluck(),
  };
  return {
    addOwnershipChallenge(owner: Owner, destination: string, token: string, expiresAt: number, now: number, options: WriteOptions = {}) {
      return write(() => {
        q.dropExpiredChallenges.run(owner.scope, owner.id, now);
        q.addChallenge.run(owner.scope, owner.id, destination, token, expiresAt);
      }, options.dryRun);
    },
    async hasOwnershipChallenge(owner: Owner, destination: string, token: string, now: number) {
      return q.hasChallenge.get(owner.scope, owner.id, destination, token, now) !== undefined;
    },
    createEdgeJob(owner: Owner, job: StoredEdgeJob, expiresAt: number, options: WriteOptions = {}) {
      return write(() => {
        q.dropEdgeJobs.run(owner.scope, owner.id);
        q.addEdgeJob.run(job.session_id, owner.scope, owner.id, expiresAt, JSON.stringify(job));
        return job;
      }, options.dryRun);
    },
    async listEdgeJobs(owner: Owner, now: number) {
      return (q.listEdgeJobs.all(owner.scope, owner.id, now) as string[]).map((b) => JSON.parse(b) as StoredEdgeJob);
    },
  };
}
