/**
 * Versioned schema migrations, one list per database. A migration runs once, in order, inside a
 * transaction with its row in `schema_migrations`; a database at a newer version than this code knows is
 * refused rather than written to.
 *
 * Records are kept as JSON text beside the columns the store queries on (owner, phase, kind, version):
 * the body is returned exactly as written (a jsonb column would reorder its keys). Since version 2 a
 * ruleset's text is kept once, in its history: `rulesets` holds what is queried and the current version
 * number, and the current text is the `ruleset_versions` row of that number (a PUT writes ~16 KB once
 * instead of twice). A migration once released is never edited: a change is a new migration, so that
 * data directories and databases of every earlier version still open.
 * @module
 */

/** One migration: its version and the statements of each dialect. */
export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'rulesets, their versions, logpush jobs',
    sqlite: `
      CREATE TABLE rulesets (
        id TEXT PRIMARY KEY,
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        kind TEXT NOT NULL,
        phase TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX rulesets_owner ON rulesets (scope, owner);
      CREATE UNIQUE INDEX rulesets_entry_point ON rulesets (scope, owner, phase) WHERE kind IN ('root', 'zone');
      CREATE TABLE ruleset_versions (
        ruleset_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (ruleset_id, version)
      );
      CREATE TABLE logpush_jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX logpush_jobs_owner ON logpush_jobs (scope, owner);
    `,
    postgres: `
      CREATE TABLE rulesets (
        id TEXT PRIMARY KEY,
        -- creation order, which SQLite's rowid gives (a row's physical place, ctid, moves when it is updated)
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        kind TEXT NOT NULL,
        phase TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX rulesets_owner ON rulesets (scope, owner, seq);
      CREATE UNIQUE INDEX rulesets_entry_point ON rulesets (scope, owner, phase) WHERE kind IN ('root', 'zone');
      CREATE TABLE ruleset_versions (
        ruleset_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (ruleset_id, version)
      );
      CREATE TABLE logpush_jobs (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX logpush_jobs_owner ON logpush_jobs (scope, owner);
    `,
  },
  {
    version: 2,
    name: 'the text of a ruleset kept once: the current one is its history row of the current version',
    // Every version of every ruleset has had its history row since version 1 (written in the same
    // transaction as the ruleset's own row), so the column only repeats what that row holds.
    sqlite: `
      ALTER TABLE rulesets DROP COLUMN body;
    `,
    postgres: `
      ALTER TABLE rulesets DROP COLUMN body;
    `,
  },
  {
    version: 3,
    name: 'rule contents kept once: a history row may hold the compact form of its text',
    // A row with `contents` holds the compact form of its text (record-text.ts) and names the rule
    // contents it was cut from; a row without holds the text itself, as every row did before. Contents
    // are shared by every version (of any ruleset) whose rules have the same members, and never deleted:
    // one row per distinct list of rules ever stored, far fewer than the history rows.
    sqlite: `
      CREATE TABLE rule_contents (
        digest TEXT PRIMARY KEY,
        parts TEXT NOT NULL
      );
      ALTER TABLE ruleset_versions ADD COLUMN contents TEXT REFERENCES rule_contents (digest);
    `,
    postgres: `
      CREATE TABLE rule_contents (
        digest TEXT PRIMARY KEY,
        parts TEXT NOT NULL
      );
      ALTER TABLE ruleset_versions ADD COLUMN contents TEXT REFERENCES rule_contents (digest);
    `,
  },
  {
    version: 4,
    name: 'the token of the last group written to a ruleset',
    // A PostgreSQL replica computes a ruleset's next group of updates from the record its group in flight
    // will write, and conditions that group's statement on this token as well as on the version: another
    // replica's writes could bring the version to the same number after the first group failed.
    sqlite: 'ALTER TABLE rulesets ADD COLUMN writer TEXT;',
    postgres: 'ALTER TABLE rulesets ADD COLUMN writer TEXT;',
  },
  {
    version: 5,
    name: 'PostgreSQL: history rows kept in the table, compressed with lz4',
    // A compact history row (~2.8 KB for 50 rules, most of it random hex ids) is over PostgreSQL's TOAST
    // threshold (~2 KB): pglz shrank it by a fifth and it was still moved into the TOAST table, an insert
    // there and into its index per row. STORAGE MAIN keeps a compressed value in the row unless it cannot
    // fit a page, and lz4 compresses faster than pglz to about the same size: in a measurement of 6,000
    // such rows in groups of 25, PostgreSQL's CPU per row fell from 73–105 µs to 42–63 µs, the table and
    // its TOAST taking the same space (16.4 MB). Rule contents (~15 KB) stay out of the row, compressed
    // with lz4 too. Rows written before keep their form. A server built without lz4 (or older than 14,
    // where the clause does not exist) keeps pglz.
    sqlite: '',
    postgres: `
      ALTER TABLE ruleset_versions ALTER COLUMN body SET STORAGE MAIN;
      DO $$
      BEGIN
        EXECUTE 'ALTER TABLE ruleset_versions ALTER COLUMN body SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE rule_contents ALTER COLUMN parts SET COMPRESSION lz4';
      EXCEPTION WHEN feature_not_supported OR syntax_error THEN
        NULL;
      END
      $$;
    `,
  },
  {
    version: 6,
    name: 'history rows may name their new rules\' ids by a seed; PostgreSQL: contents checked once per group',
    // A compact history row may now write a rule as 0, the id its `seed` gives its index (record-text.ts,
    // seededId), which a rulekit of schema version 5 cannot read: the version makes such a rulekit refuse
    // the database rather than misread it.
    // On PostgreSQL the foreign key from a history row to its rule contents goes: its check ran per row
    // (a query and a lock of the contents row each), ~7 of ~18 µs a row of a group's statement. That
    // statement checks instead, once, that every contents it names is there, and writes nothing when
    // one is not (postgres.ts); contents are never deleted. SQLite keeps its foreign key (an index
    // lookup per row; dropping it would copy the table).
    sqlite: '',
    postgres: `
      DO $$
      DECLARE fk text;
      BEGIN
        FOR fk IN SELECT conname FROM pg_constraint WHERE conrelid = 'ruleset_versions'::regclass AND contype = 'f' LOOP
          EXECUTE format('ALTER TABLE ruleset_versions DROP CONSTRAINT %I', fk);
        END LOOP;
      END
      $$;
    `,
  },
  {
    version: 7,
    name: 'account lists (Lists API): lists, their items, bulk operations, a revision per account',
    // An item's `key` is its identity in its list and the order items are answered in (canonical
    // address and prefix, zero-padded ASN, lower-case hostname, source URL); `text` is what `search`
    // reads; `body` the item's JSON as answered, without id and times. A list write moves the account's
    // `list_revisions` row up in its transaction: readers rebuild what they made of the lists when it moved,
    // and on PostgreSQL the row's lock orders the list writes of one account.
    sqlite: `
      CREATE TABLE lists (
        id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        description TEXT NOT NULL,
        created_on TEXT NOT NULL,
        modified_on TEXT NOT NULL
      );
      CREATE UNIQUE INDEX lists_name ON lists (account, name);
      CREATE TABLE list_items (
        list_id TEXT NOT NULL,
        id TEXT NOT NULL,
        key TEXT NOT NULL,
        text TEXT NOT NULL,
        body TEXT NOT NULL,
        created_on TEXT NOT NULL,
        modified_on TEXT NOT NULL,
        PRIMARY KEY (list_id, id)
      );
      CREATE UNIQUE INDEX list_items_key ON list_items (list_id, key);
      CREATE TABLE list_operations (
        id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        status TEXT NOT NULL,
        completed TEXT NOT NULL,
        error TEXT
      );
      CREATE TABLE list_revisions (
        account TEXT PRIMARY KEY,
        revision BIGINT NOT NULL
      );
    `,
    postgres: `
      CREATE TABLE lists (
        id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        description TEXT NOT NULL,
        created_on TEXT NOT NULL,
        modified_on TEXT NOT NULL
      );
      CREATE UNIQUE INDEX lists_name ON lists (account, name);
      CREATE TABLE list_items (
        list_id TEXT NOT NULL,
        id TEXT NOT NULL,
        key TEXT NOT NULL,
        text TEXT NOT NULL,
        body TEXT NOT NULL,
        created_on TEXT NOT NULL,
        modified_on TEXT NOT NULL,
        PRIMARY KEY (list_id, id)
      );
      CREATE UNIQUE INDEX list_items_key ON list_items (list_id, key);
      CREATE TABLE list_operations (
        id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        status TEXT NOT NULL,
        completed TEXT NOT NULL,
        error TEXT
      );
      CREATE TABLE list_revisions (
        account TEXT PRIMARY KEY,
        revision BIGINT NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: 'Logpush ownership challenges issued and Instant Logs sessions',
    // A challenge row per token issued (the service's tokens are JWTs bound to the owner and the
    // destination, valid 7 days, and stay valid when another is asked for); `expires_at` in epoch ms.
    // One Instant Logs session per zone (the service's limit), with its expiry; `seq` orders PostgreSQL's.
    sqlite: `
      CREATE TABLE logpush_ownership_challenges (
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        destination TEXT NOT NULL,
        token TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (scope, owner, destination, token)
      );
      CREATE TABLE logpush_edge_jobs (
        session_id TEXT PRIMARY KEY,
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX logpush_edge_jobs_owner ON logpush_edge_jobs (scope, owner);
    `,
    postgres: `
      CREATE TABLE logpush_ownership_challenges (
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        destination TEXT NOT NULL,
        token TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (scope, owner, destination, token)
      );
      CREATE TABLE logpush_edge_jobs (
        session_id TEXT PRIMARY KEY,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        scope TEXT NOT NULL,
        owner TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX logpush_edge_jobs_owner ON logpush_edge_jobs (scope, owner, seq);
    `,
  },
  {
    version: 9,
    name: 'Logpush transformers and the versions of their SQL',
    // A transformer's SQL is kept once per version (`version` counts from 1 per transformer and is the
    // current one's number in `logpush_transformers`); a version's `id` is unique across transformers, as
    // the API's is. Transformers are account resources: `account` is the owner.
    sqlite: `
      CREATE TABLE logpush_transformers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        dataset TEXT,
        version INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX logpush_transformers_account ON logpush_transformers (account, id);
      CREATE TABLE logpush_transformer_versions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        transformer_id INTEGER NOT NULL,
        version INTEGER NOT NULL,
        code TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (transformer_id, version)
      );
    `,
    postgres: `
      CREATE TABLE logpush_transformers (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        dataset TEXT,
        version INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX logpush_transformers_account ON logpush_transformers (account, id);
      CREATE TABLE logpush_transformer_versions (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        transformer_id BIGINT NOT NULL,
        version INTEGER NOT NULL,
        code TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (transformer_id, version)
      );
    `,
  },
];

/** The newest schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
