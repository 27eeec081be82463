/**
 * The store's Logpush extras (ownership challenges, Instant Logs sessions) on every store: the same calls,
 * the same answers (store.sqlite.test.ts, store.postgres.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Owner, Store, StoredEdgeJob } from '../../src/server/store/index.js';

const A: Owner = { scope: 'accounts', id: 'acc1' };
const B: Owner = { scope: 'accounts', id: 'acc2' };
const Z: Owner = { scope: 'zones', id: 'acc1' };
const edge = (session_id: string): StoredEdgeJob => ({ session_id, destination_conf: `wss://x/${session_id}`, fields: 'ClientIP', filter: '', sample: 1 });

export function storeLogpushExtraSuite(name: string, open: () => Promise<Store>): void {
  describe(`store Logpush extras: ${name}`, () => {
    const withStore = (fn: (s: Store) => Promise<void>) => async () => {
      const s = await open();
      try {
        await fn(s);
      } finally {
        await s.close();
      }
    };

    it('keeps each challenge token per owner and destination until it expires; a dry run keeps none', withStore(async (s) => {
      const x = s.logpushExtra;
      await x.addOwnershipChallenge(A, 's3://b', 't1', 2000, 1000);
      await x.addOwnershipChallenge(A, 's3://b', 't2', 5000, 1000);
      await x.addOwnershipChallenge(A, 's3://b', 'dry', 5000, 1000, { dryRun: true });
      expect(await x.hasOwnershipChallenge(A, 's3://b', 't1', 1999)).toBe(true);
      expect(await x.hasOwnershipChallenge(A, 's3://b', 't2', 1999)).toBe(true);
      expect(await x.hasOwnershipChallenge(A, 's3://b', 't1', 2000)).toBe(false);
      expect(await x.hasOwnershipChallenge(A, 's3://b', 'dry', 1000)).toBe(false);
      expect(await x.hasOwnershipChallenge(A, 's3://c', 't2', 1000)).toBe(false);
      expect(await x.hasOwnershipChallenge(B, 's3://b', 't2', 1000)).toBe(false);
      expect(await x.hasOwnershipChallenge(Z, 's3://b', 't2', 1000)).toBe(false);
      // Issuing again drops the owner's expired tokens and refreshes a repeated one.
      await x.addOwnershipChallenge(A, 's3://b', 't1', 9000, 3000);
      expect(await x.hasOwnershipChallenge(A, 's3://b', 't1', 8000)).toBe(true);
    }));

    it('keeps one Instant Logs session per owner, listed until it expires', withStore(async (s) => {
      const x = s.logpushExtra;
      expect(await x.listEdgeJobs(Z, 0)).toEqual([]);
      expect(await x.createEdgeJob(Z, edge('s1'), 1000)).toEqual(edge('s1'));
      await x.createEdgeJob(B, edge('b1'), 1000);
      expect(await x.listEdgeJobs(Z, 999)).toEqual([edge('s1')]);
      expect(await x.listEdgeJobs(Z, 1000)).toEqual([]);
      await x.createEdgeJob(Z, edge('dry'), 5000, { dryRun: true });
      expect(await x.listEdgeJobs(Z, 0)).toEqual([edge('s1')]);
      await x.createEdgeJob(Z, edge('s2'), 5000);
      expect(await x.listEdgeJobs(Z, 0)).toEqual([edge('s2')]);
      expect(await x.listEdgeJobs(B, 0)).toEqual([edge('b1')]);
    }));
  });
}
