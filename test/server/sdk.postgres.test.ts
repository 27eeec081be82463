/** The official-client suites on PostgreSQL, one cluster for all: the same calls, the same answers as on SQLite. */
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore } from '../../src/server/index.js';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool } from '../helpers/tools.js';
import { sdkSuite } from './sdk-suite.js';
import { sdkRulesetPartsSuite } from './sdk-rulesets-suite.js';
import { sdkLogpushSuite } from './sdk-logpush-suite.js';
import { sdkListsSuite } from './sdk-lists-suite.js';
import { sdkTransformersSuite } from './sdk-transformers-suite.js';

describeNeedsTool('postgres')('on PostgreSQL', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const store = async () => openPostgresStore({ connectionString: await cluster.createSchema() });
  sdkSuite('PostgreSQL', store);
  sdkRulesetPartsSuite('PostgreSQL', store);
  sdkLogpushSuite('PostgreSQL', store);
  sdkListsSuite('PostgreSQL', store);
  sdkTransformersSuite('PostgreSQL', store);
});
