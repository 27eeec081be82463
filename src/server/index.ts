/**
 * The reference server of the ruleset and Logpush configuration API, as a library (Node only):
 * `createServer(options)` gives a fastify instance to `listen` on or `inject` requests into, so a team can
 * run it inside its own test suite. `rulekit serve` runs the same server from the command line.
 * @module rulekit/server
 */
export { createServer, API_PREFIX, type ServerOptions } from './app.js';
export { SERVER_CODES, type ServerCode, type ServerCodeInfo } from './codes.js';
export { hashKey, type UserConfig, type UsersEntry, type FailureLimit } from './auth.js';
export { generateToken, hashToken, type TokenConfig, type Permission } from './tokens.js';
export { addTokenToUsersFile } from './users-file.js';
export { openStore, openSqliteStore, openPostgresStore, MIGRATIONS, SCHEMA_VERSION, type Store, type StoreOptions, type Owner, type Stored, type StoredRule, type StoredRuleset, type StoredJob, type WriteOptions, type VersionDeleteResult, type ListStore, type StoredList, type StoredListKind, type StoredListItem, type StoredBulkOperation, type ListItemInput, type ItemsWrite, type ItemsPage, type ListWriteLimits, type TransformerStore, type StoredTransformer, type StoredTransformerVersion, type TransformerCode } from './store/index.js';
export { MAX_JSON_DEPTH } from './body.js';
export { MAX_SIMULATED_PACKETS } from './routes/common.js';
export { serve, demoUser, type ServeOptions } from './serve.js';
