/** The hostile-input suite (hostile-suite.ts) on SQLite in memory; security.postgres.test.ts runs it on PostgreSQL. */
import { openSqliteStore } from '../../src/server/index.js';
import { hostileSuite } from './hostile-suite.js';

hostileSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
