import { openSqliteStore } from '../../src/server/index.js';
import { sdkSuite } from './sdk-suite.js';

sdkSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
