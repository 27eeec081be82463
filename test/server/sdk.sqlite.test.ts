import { openSqliteStore } from '../../src/server/index.js';
import { sdkSuite } from './sdk-suite.js';
import { sdkRulesetPartsSuite } from './sdk-rulesets-suite.js';
import { sdkLogpushSuite } from './sdk-logpush-suite.js';

sdkSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
sdkRulesetPartsSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
sdkLogpushSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
