/**
 * The repository interface the server writes through: rulesets (with their version history) and Logpush
 * jobs, each owned by one account or zone. SQLite (embedded, one process) and PostgreSQL (several
 * replicas) implement it and pass the same test suite (test/server/store-suite.ts).
 *
 * Every write is one transaction: it changes everything it says or nothing. `dryRun` runs the same
 * transaction, checks included, and rolls it back, so a dry run answers exactly what the write would.
 * @module
 */

/** Who owns a resource: an account or a zone, by id. */
export interface Owner {
  scope: 'accounts' | 'zones';
  id: string;
}

/** A rule as stored and returned. */
export interface StoredRule {
  id: string;
  version: string;
  action: string;
  action_parameters?: Record<string, unknown>;
  expression: string;
  description: string;
  last_updated: string;
  ref: string;
  enabled: boolean;
}

/** A ruleset as stored and returned. `version` counts up from "1" with each write of the ruleset. */
export interface StoredRuleset {
  id: string;
  name: string;
  description: string;
  kind: string;
  phase: string;
  version: string;
  last_updated: string;
  rules: StoredRule[];
}

/** A Logpush job as stored and returned; `id` is assigned by the store. */
export interface StoredJob {
  id: number;
  name: string | null;
  dataset: string | null;
  destination_conf: string;
  logpull_options: string | null;
  filter: string | null;
  enabled: boolean;
  frequency: string;
  kind: string;
  max_upload_bytes: number | null;
  max_upload_interval_seconds: number | null;
  max_upload_records: number | null;
  output_options: Record<string, unknown> | null;
  error_message: string | null;
  last_complete: string | null;
  last_error: string | null;
}

/**
 * A record the store wrote or read, with its JSON text as the store holds it (`JSON.stringify(record)`,
 * byte for byte): an answer sends that text rather than serialising the record again. The record is
 * frozen when the store keeps it for later requests.
 */
export interface Stored<T> {
  readonly record: T;
  readonly json: string;
}

/** Options of every write. */
export interface WriteOptions {
  /** Check and compute everything, then roll back: nothing is stored. */
  dryRun?: boolean;
}

/**
 * What an update computes from the stored record, inside the transaction that holds it: the new record,
 * or a refusal (whatever the caller wants to answer with) that leaves the store as it was.
 */
export type Change<T, R> = (current: T) => { next: T } | { refused: R };

/** Result of an update. */
export type UpdateResult<T, R> = { ok: T } | { notFound: true } | { refused: R };

/** Result of a version delete: done, refused (the current version), or nothing of that id or number. */
export type VersionDeleteResult = 'deleted' | 'current' | 'no-ruleset' | 'no-version';

/** The repository. Ids of rulesets are strings chosen by the caller; job ids are numbers the store assigns. */
export interface Store {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';

  listRulesets(owner: Owner): Promise<StoredRuleset[]>;
  getRuleset(owner: Owner, id: string): Promise<Stored<StoredRuleset> | undefined>;
  /**
   * Store a new ruleset. An owner has at most one entry-point ruleset (kind `root` or `zone`) per phase:
   * a second one answers `phase-exists` with the id of the one that exists.
   */
  createRuleset(owner: Owner, ruleset: StoredRuleset, options?: WriteOptions): Promise<{ created: Stored<StoredRuleset> } | { phaseExists: string }>;
  /** Replace a ruleset by what `change` computes from it; the stored version must go up. */
  updateRuleset<R>(owner: Owner, id: string, change: Change<StoredRuleset, R>, options?: WriteOptions): Promise<UpdateResult<Stored<StoredRuleset>, R>>;
  /** Delete a ruleset and its history; false when there was none. */
  deleteRuleset(owner: Owner, id: string, options?: WriteOptions): Promise<boolean>;
  /** Every stored version of a ruleset, oldest first (empty when there is none). */
  rulesetVersions(owner: Owner, id: string): Promise<StoredRuleset[]>;
  /** One stored version of a ruleset, with its rules; undefined when the ruleset or that version is not there. */
  getRulesetVersion(owner: Owner, id: string, version: number): Promise<StoredRuleset | undefined>;
  /**
   * Delete one version from a ruleset's history. The current version cannot be (the ruleset is that
   * version): `current`. Later versions never reuse a deleted number (the ruleset's version only goes up).
   */
  deleteRulesetVersion(owner: Owner, id: string, version: number, options?: WriteOptions): Promise<VersionDeleteResult>;
  /** The id of the owner's entry-point ruleset (kind `root` or `zone`) of a phase, when it has one. */
  entryPointId(owner: Owner, phase: string): Promise<string | undefined>;

  listJobs(owner: Owner): Promise<StoredJob[]>;
  getJob(owner: Owner, id: number): Promise<StoredJob | undefined>;
  /** Store a new job; the store assigns `id` (a dry run answers the id the write would likely get, or 0). */
  createJob(owner: Owner, job: Omit<StoredJob, 'id'>, options?: WriteOptions): Promise<StoredJob>;
  updateJob<R>(owner: Owner, id: number, change: Change<StoredJob, R>, options?: WriteOptions): Promise<UpdateResult<StoredJob, R>>;
  deleteJob(owner: Owner, id: number, options?: WriteOptions): Promise<boolean>;

  /** The account lists of the Lists API. */
  readonly lists: ListStore;
  /** Ownership challenges and Instant Logs sessions (see {@link LogpushExtraStore}). */
  readonly logpushExtra: LogpushExtraStore;
  /** An account's Logpush transformers and their SQL's versions (see {@link TransformerStore}). */
  readonly transformers: TransformerStore;

  /** Liveness of the database (for /healthz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The kinds of account list (the Lists API's `kind`). */
export type StoredListKind = 'ip' | 'asn' | 'hostname' | 'redirect';

/** An account list as stored: what the Lists API answers but `num_referencing_filters`, which the routes count. */
export interface StoredList {
  id: string;
  name: string;
  description: string;
  kind: StoredListKind;
  num_items: number;
  created_on: string;
  modified_on: string;
}

/**
 * A list item as stored. `value` is what the API answers beside the id and the times: the kind's member
 * (`{ip}`, `{asn}`, `{hostname: {…}}`, `{redirect: {…}}`) and any `comment`. `key` is its identity in the
 * list and its place in the order items are answered in (see lists/items.ts); `text` what `search` reads.
 */
export interface StoredListItem {
  id: string;
  key: string;
  text: string;
  value: Record<string, unknown>;
  created_on: string;
  modified_on: string;
}

/** An item to write: a {@link StoredListItem} without its id and times (the store keeps or assigns them). */
export type ListItemInput = Pick<StoredListItem, 'key' | 'text' | 'value'>;

/** A bulk operation on a list's items, as `GET …/lists/bulk_operations/{id}` answers it. */
export interface StoredBulkOperation {
  id: string;
  status: 'completed' | 'failed';
  completed: string;
  error?: string;
}

/** What a write of items does: add (an item with the key of one in the list replaces it), replace all, or delete by id. */
export type ItemsWrite =
  | { mode: 'append' | 'replace'; items: readonly ListItemInput[] }
  | { mode: 'delete'; ids: readonly string[] };

/** A page of a list's items, in key order; `after` is the key of its last item when more follow. */
export interface ItemsPage {
  items: StoredListItem[];
  /** The key of the last item, when items follow it. */
  after?: string;
  /** The key of the first item, when items come before it. */
  before?: string;
}

/** Limits a write of lists or items is held to (lists/limits.ts). */
export interface ListWriteLimits {
  /** Most lists per account. */
  maxLists: number;
  /** Most lists of the kind written, per account. */
  maxListsOfKind: number;
  /** Most items across all the account's lists of the kind written. */
  maxItemsOfKind: number;
}

/**
 * The account lists of the Lists API (`/accounts/{a}/rules/lists`): lists, their items and the record of
 * bulk operations on items. Every write moves the account's list revision up, in the same transaction,
 * so a reader can tell whether what it built from the lists is still current.
 */
export interface ListStore {
  /** The account's lists, by name. */
  listLists(account: string): Promise<StoredList[]>;
  getList(account: string, id: string): Promise<StoredList | undefined>;
  /** Store a new (empty) list; refused when the name is taken or a limit is reached. */
  createList(account: string, list: Omit<StoredList, 'num_items'>, limits: ListWriteLimits, options?: WriteOptions): Promise<{ created: StoredList } | { nameExists: string } | { limit: string }>;
  /** Change a list's description. */
  updateList(account: string, id: string, description: string, now: string, options?: WriteOptions): Promise<StoredList | undefined>;
  /** Delete a list and its items; false when there was none. */
  deleteList(account: string, id: string, options?: WriteOptions): Promise<boolean>;
  /**
   * One page of a list's items in key order, after (or before) a key; `search` keeps the items whose text
   * starts with it (`prefix`), holds it (`contains`) or is it (`exact`). Undefined when there is no such list.
   */
  listItems(account: string, listId: string, page: { after?: string; before?: string; limit?: number; search?: { text: string; match: 'prefix' | 'contains' | 'exact' } }): Promise<ItemsPage | undefined>;
  getItem(account: string, listId: string, itemId: string): Promise<StoredListItem | undefined>;
  /**
   * Apply a write of items and record it as bulk operation `operation.id`: `completed`, or `failed` with
   * the reason (a delete naming an item the list does not have, the limit of items of the kind passed),
   * the items then unchanged. Undefined when there is no such list.
   */
  writeItems(account: string, listId: string, write: ItemsWrite, operation: { id: string; now: string }, limits: ListWriteLimits, options?: WriteOptions): Promise<StoredBulkOperation | undefined>;
  getOperation(account: string, id: string): Promise<StoredBulkOperation | undefined>;
  /** Every list of the account with the values of its items (to build the catalog expressions are checked against). */
  listsWithItems(account: string): Promise<{ list: StoredList; values: Record<string, unknown>[] }[]>;
  /** The account's list revision: 0 before its first list write, then one up with each. */
  revision(account: string): Promise<number>;
}

/*
 * What the Logpush operations beside jobs keep: the ownership challenges the server issued (one row per
 * token, bound to an owner and a destination, valid until it expires, as the service's JWTs are) and the
 * Instant Logs sessions of a zone (`…/logpush/edge/jobs`). Both stores implement it
 * (logpush-extra-sqlite.ts, logpush-extra-postgres.ts) on the tables of migration 8.
 */
/** An Instant Logs job as stored and answered (the SDK's `InstantLogpushJob`). */
export interface StoredEdgeJob {
  session_id: string;
  destination_conf: string;
  fields: string;
  filter: string;
  sample: number;
}

/** The operations; every time is epoch milliseconds, given by the caller (so tests can move the clock). */
export interface LogpushExtraStore {
  /** Keep a challenge token issued for the owner's destination; tokens expired by `now` are dropped. */
  addOwnershipChallenge(owner: Owner, destination: string, token: string, expiresAt: number, now: number, options?: WriteOptions): Promise<void>;
  /** Whether this token was issued for this owner and destination and has not expired by `now`. */
  hasOwnershipChallenge(owner: Owner, destination: string, token: string, now: number): Promise<boolean>;
  /**
   * Store an Instant Logs session, replacing the zone's others: the service runs one session per zone
   * (docs: logs/instant-logs, "Limits").
   */
  createEdgeJob(owner: Owner, job: StoredEdgeJob, expiresAt: number, options?: WriteOptions): Promise<StoredEdgeJob>;
  /** The owner's sessions that have not expired by `now`, oldest first. */
  listEdgeJobs(owner: Owner, now: number): Promise<StoredEdgeJob[]>;
}

/*
 * Logpush transformers (`/accounts/{a}/logpush/transformers`): a named SQL query per row, and its history,
 * one version per save of the SQL (docs: "every save creates a new version; older versions remain
 * viewable"). Ids are numbers the store assigns: transformers' per table, versions' across every
 * transformer (the API's version `id` is unique, `version` counts from 1 per transformer). Both stores
 * implement it (transformers-sqlite.ts, transformers-postgres.ts) on the tables of migration 9.
 */
/** A transformer as stored (what the API answers but `associated_jobs`, which the routes add). */
export interface StoredTransformer {
  id: number;
  name: string;
  description: string;
  /** The dataset of the current SQL's FROM, when it names one. */
  dataset: string | null;
  created_at: string;
  updated_at: string;
}

/** One version of a transformer's SQL, as `…/versions` answers it. */
export interface StoredTransformerVersion {
  id: number;
  version: number;
  created_at: string;
}

/** A transformer's SQL to store as its next version, with the dataset it reads. */
export interface TransformerCode {
  code: string;
  dataset: string | null;
}

export interface TransformerStore {
  /** The account's transformers, oldest first. */
  list(account: string): Promise<StoredTransformer[]>;
  get(account: string, id: number): Promise<StoredTransformer | undefined>;
  /** Store a new transformer with its SQL as version 1. */
  create(account: string, t: { name: string; description: string } & TransformerCode, now: string): Promise<StoredTransformer>;
  /** Rename and describe a transformer; with `code`, its SQL becomes a new version. Undefined when there is none. */
  update(account: string, id: number, t: { name: string; description: string; code?: TransformerCode }, now: string): Promise<StoredTransformer | undefined>;
  /** Delete a transformer and its versions; false when there was none. */
  delete(account: string, id: number): Promise<boolean>;
  /** The SQL of the current version, or of the version with this id: `no-transformer` / `no-version` when absent. */
  content(account: string, id: number, versionId?: number): Promise<string | 'no-transformer' | 'no-version'>;
  /** The newest `limit` versions, newest first; undefined when there is no such transformer. */
  versions(account: string, id: number, limit: number): Promise<StoredTransformerVersion[] | undefined>;
}
