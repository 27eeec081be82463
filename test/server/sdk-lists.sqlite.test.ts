import { openSqliteStore } from '../../src/server/index.js';
import { sdkListsSuite } from './sdk-lists-suite.js';

sdkListsSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
