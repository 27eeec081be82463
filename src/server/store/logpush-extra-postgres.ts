/**
 * {@link LogpushExtraStore} on PostgreSQL: reads through the pool, writes in the store's transactions.
 * @module
 */
import type pg from 'pg';
import type { LogpushExtraStore, Owner, StoredEdgeJob, WriteOptions } from './types.js';

/** The store's read (a query outside a transaction) and write (`fn` in a transaction, rolled back when a dry run). */
export interface PostgresAccess {
  read<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>>;
  write<T>(fn: (c: pg.PoolClient) => Promise<T>, dryRun: boolean | undefined): Promise<T>;
}

export function postgresLogpushExtra(db: PostgresAccess): LogpushExtraStore {
  return {
    addOwnershipChallenge(owner: Owner, destination: string, token: string, expiresAt: number, now: number, options: WriteOptions = {}) {
      return db.write(async (c) => {
        await c.query('DELETE FROM logpush_ownership_challenges WHERE scope = $1 AND owner = $2 AND expires_at <= $3', [owner.scope, owner.id, now]);
        await c.query(
          `INSERT INTO logpush_ownership_challenges (scope, owner, destination, token, expires_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (scope, owner, destination, token) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
          [owner.scope, owner.id, destination, token, expiresAt],
        );
      }, options.dryRun);
    },
    async hasOwnershipChallenge(owner: Owner, destination: string, token: string, now: number) {
      const { rows } = await db.read('SELECT 1 FROM logpush_ownership_challenges WHERE scope = $1 AND owner = $2 AND destination = $3 AND token = $4 AND expires_at > $5', [owner.scope, owner.id, destination, token, now]);
      return rows.length > 0;
    },
    createEdgeJob(owner: Owner, job: StoredEdgeJob, expiresAt: number, options: WriteOptions = {}) {
      return db.write(async (c) => {
        await c.query('DELETE FROM logpush_edge_jobs WHERE scope = $1 AND owner = $2', [owner.scope, owner.id]);
        await c.query('INSERT INTO logpush_edge_jobs (session_id, scope, owner, expires_at, body) VALUES ($1, $2, $3, $4, $5)', [job.session_id, owner.scope, owner.id, expiresAt, JSON.stringify(job)]);
        return job;
      }, options.dryRun);
    },
    async listEdgeJobs(owner: Owner, now: number) {
      const { rows } = await db.read<{ body: string }>('SELECT body FROM logpush_edge_jobs WHERE scope = $1 AND owner = $2 AND expires_at > $3 ORDER BY seq', [owner.scope, owner.id, now]);
      return rows.map((r) => JSON.parse(r.body) as StoredEdgeJob);
    },
  };
}
