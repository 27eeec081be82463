/**
 * The server's storage: the repository interface and its two implementations. `openStore` picks
 * PostgreSQL when given a `postgres://` URL and SQLite otherwise.
 * @module
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { openSqliteStore } from './sqlite.js';
import { lockDataDir } from './dir-lock.js';
import { openPostgresStore } from './postgres.js';
import type { Store } from './types.js';

export type { ItemsPage, ItemsWrite, ListItemInput, ListStore, ListWriteLimits, StoredBulkOperation, StoredList, StoredListItem, StoredListKind } from './types.js';
export type { StoredTransformer, StoredTransformerVersion, TransformerCode, TransformerStore } from './types.js';
export type { LogpushExtraStore, StoredEdgeJob, Store, Owner, Stored, StoredRule, StoredRuleset, StoredJob, WriteOptions, Change, UpdateResult, VersionDeleteResult } from './types.js';
export { expandRuleset, rulesetJson, rulesetText, seededId, seededIds, seedMask, type CompactForm, type RulesetText } from './record-text.js';
export { ruleContent, sameRule, storedRule, STORED_RULE_MEMBERS, STORED_RULESET_MEMBERS, type RuleContent, type RuleMember } from './members.js';
export { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.js';
export { openSqliteStore } from './sqlite.js';
export { DataDirLockedError, lockDataDir, type DataDirLock } from './dir-lock.js';
export { randomId } from './random-ids.js';
export { openPostgresStore } from './postgres.js';

/** Where the store lives. */
export interface StoreOptions {
  /** `postgres://…` (or `postgresql://…`): PostgreSQL; takes precedence over `dataDir`. */
  databaseUrl?: string;
  /**
   * Directory of the SQLite file `rulekit.sqlite` (created when missing); `:memory:` keeps it in memory.
   * One process at a time: the directory is locked while the store is open (a second open is refused).
   */
  dataDir?: string;
}

/** Open the store the options name (SQLite in memory when they name none). */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  if (options.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(options.databaseUrl)) throw new Error(`the database URL must start with postgres:// or postgresql://, not ${JSON.stringify(options.databaseUrl.slice(0, 20))}`);
    return openPostgresStore({ connectionString: options.databaseUrl });
  }
  if (!options.dataDir || options.dataDir === ':memory:') return openSqliteStore({ path: ':memory:' });
  mkdirSync(options.dataDir, { recursive: true });
  return openSqliteStore({ path: join(options.dataDir, 'rulekit.sqlite'), lock: lockDataDir(options.dataDir) });
}
