/**
 * The PostgreSQL store empties the values of the queries that carry history rows once the database has
 * answered (pg keeps them reachable for V8's young collections after the answer): they must still go out
 * whole, and be emptied whatever the answer.
 */
import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { queryReleasing } from '../../src/server/store/postgres.js';

/** A client that records what each query was given when it was sent, and answers or fails later. */
function stubClient(fail?: Error) {
  const sent: unknown[][] = [];
  const client = {
    query(config: pg.QueryConfig<unknown[]>) {
      sent.push([...(config.values ?? [])]);
      return new Promise((resolve, reject) => setTimeout(() => (fail ? reject(fail) : resolve({ rowCount: 1, rows: [] })), 1));
    },
  } as unknown as pg.PoolClient;
  return { client, sent };
}

describe('queryReleasing', () => {
  it('sends the values whole and empties the array once answered', async () => {
    const { client, sent } = stubClient();
    const values = ['a', 'x'.repeat(2048), null];
    const pending = queryReleasing(client, { text: 'SELECT $1, $2, $3', values });
    // Sent at once, before the answer: the lane schedules its next group behind it.
    expect(sent).toEqual([['a', 'x'.repeat(2048), null]]);
    expect(values).toHaveLength(3);
    await expect(pending).resolves.toMatchObject({ rowCount: 1 });
    expect(values).toEqual([]);
  });

  it('empties the array when the query fails too, and passes the failure on', async () => {
    const { client } = stubClient(new Error('conflict'));
    const values = ['y'.repeat(4096)];
    await expect(queryReleasing(client, { text: 'SELECT $1', values })).rejects.toThrow('conflict');
    expect(values).toEqual([]);
  });
});
