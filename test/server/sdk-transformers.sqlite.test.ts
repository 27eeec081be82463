import { openSqliteStore } from '../../src/server/index.js';
import { sdkTransformersSuite } from './sdk-transformers-suite.js';

sdkTransformersSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
