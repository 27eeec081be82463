/** The Logpush transformers suite on PostgreSQL: the same calls, the same answers as on SQLite. */
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore } from '../../src/server/index.js';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool } from '../helpers/tools.js';
import { sdkTransformersSuite } from './sdk-transformers-suite.js';

describeNeedsTool('postgres')('on PostgreSQL', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  sdkTransformersSuite('PostgreSQL', async () => openPostgresStore({ connectionString: await cluster.createSchema() }));
});
