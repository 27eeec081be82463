/**
 * The security suites on PostgreSQL: credentials and tenancy on every route (tenancy-suite.ts, with API
 * tokens token-suite.ts) and hostile
 * input (hostile-suite.ts), as auth.test.ts and hostile.test.ts run them on SQLite. Each server gets a
 * schema of its own on one throwaway cluster.
 */
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore } from '../../src/server/index.js';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool } from '../helpers/tools.js';
import { hostileSuite } from './hostile-suite.js';
import { tenancySuite } from './tenancy-suite.js';
import { tokenSuite } from './token-suite.js';

describeNeedsTool('postgres')('security on PostgreSQL', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const open = async () => openPostgresStore({ connectionString: await cluster.createSchema() });
  tenancySuite('PostgreSQL', open);
  tokenSuite('PostgreSQL', open);
  hostileSuite('PostgreSQL', open);
});
