/** The official-client suite on PostgreSQL: the same calls, the same answers as on SQLite. */
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore } from '../../src/server/index.js';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool } from '../helpers/tools.js';
import { sdkSuite } from './sdk-suite.js';
import { sdkRulesetPartsSuite } from './sdk-rulesets-suite.js';
import { sdkLogpushSuite } from './sdk-logpush-suite.js';

describeNeedsTool('postgres')('on PostgreSQL', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  sdkSuite('PostgreSQL', async () => openPostgresStore({ connectionString: await cluster.createSchema() }));
  sdkRulesetPartsSuite('PostgreSQL', async () => openPostgresStore({ connectionString: await cluster.createSchema() }));
  sdkLogpushSuite('PostgreSQL', async () => openPostgresStore({ connectionString: await cluster.createSchema() }));
});
