/** The official-client suites on SQLite (each on a store of its own, in memory). */
import { openSqliteStore } from '../../src/server/index.js';
import { sdkSuite } from './sdk-suite.js';
import { sdkRulesetPartsSuite } from './sdk-rulesets-suite.js';
import { sdkLogpushSuite } from './sdk-logpush-suite.js';
import { sdkListsSuite } from './sdk-lists-suite.js';
import { sdkTransformersSuite } from './sdk-transformers-suite.js';

const store = async () => openSqliteStore({ path: ':memory:' });
sdkSuite('SQLite', store);
sdkRulesetPartsSuite('SQLite', store);
sdkLogpushSuite('SQLite', store);
sdkListsSuite('SQLite', store);
sdkTransformersSuite('SQLite', store);
