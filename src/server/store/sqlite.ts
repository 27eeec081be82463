/**
 * The embedded store: SQLite through better-sqlite3, one file under the data directory (or `:memory:`).
 * WAL journal with `synchronous=FULL`: a write the server acknowledged survives a crash of the process
 * or of the machine. better-sqlite3 is synchronous; the writes of one turn of the event loop are committed
 * together (group commit, see `write`), so that concurrent requests share one fsync.
 * @module
 */
import type Database from 'better-sqlite3';
import { MissingPartError, missingPartOf } from '../../optional-parts.js';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import type { DataDirLock } from './dir-lock.js';
import { RulesetCache } from './cache.js';
import { sqliteLogpushExtra } from './logpush-extra-sqlite.js';
import { sqliteTransformers } from './transformers-sqlite.js';
import { expandRuleset, HistoryRows, RecordTexts, rulesetText } from './record-text.js';
import { SqliteListStore } from './lists-sqlite.js';
import type { Change, ListStore, LogpushExtraStore, Owner, Store, TransformerStore, Stored, StoredJob, StoredRuleset, UpdateResult, VersionDeleteResult, WriteOptions } from './types.js';

/** Thrown inside a transaction to roll it back (dry runs, refusals); never leaves this module. */
class Rollback<T> {
  constructor(readonly value: T) {}
}

export interface SqliteStoreOptions {
  /** A file path, or `:memory:`. */
  path: string;
  /** The lock of the file's directory, released when the store closes (see dir-lock.ts). */
  lock?: DataDirLock;
}

/**
 * better-sqlite3, an optional part (src/optional-parts.ts) loaded by the SQLite store alone; required,
 * not imported, so that opening the store stays synchronous.
 */
function sqliteDriver(): typeof Database {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (error) {
    const found = missingPartOf(error);
    if (found) throw new MissingPartError(found.missing, found.part, ['server', found.part]);
    throw error;
  }
}

/** Open (creating and migrating when needed) a SQLite store. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  try {
    return openLocked(options);
  } catch (e) {
    options.lock?.release();
    throw e;
  }
}

function openLocked(options: SqliteStoreOptions): Store {
  const db = new (sqliteDriver())(options.path);
  // 16 KiB pages for a new database (an existing one keeps its own): a stored ruleset of 50 rules is
  // ~16 KB of text, which 4 KiB pages split over a chain of overflow pages, each its own WAL frame and
  // write; with 16 KiB pages a write of a group of PUTs took ~30% less time (commit and fsync
  // included) in a measurement of 5,000 history rows in groups of 25. Set before WAL mode, which fixes it.
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Each write of a group runs in a savepoint (see `write`), whose statement journal holds the first
  // copy of every page the write changes: three or four 16 KiB pages pass the 64 KiB SQLite keeps in
  // memory, and the rest went to a temporary file, ~6 pwrite calls per PUT (strace) and ~14 µs of CPU
  // per 2.5 KB history row (49 → 35 µs in a measurement of groups of 37 rows). In memory, it never
  // touches the disk; it is emptied when the savepoint is released.
  db.pragma('temp_store = MEMORY');
  migrate(db);
  const file = db.memory ? undefined : db.name;
  if (file) db.pragma('wal_autocheckpoint = 0');
  return new SqliteStore(db, file, options.lock);
}

/**
 * WAL frames (16 KiB pages) past which the writer checkpoints itself, with RESTART, before its next
 * group: the checkpointer's PASSIVE checkpoints let the writer start the WAL over only when one of them
 * copied all of it before the writer's next BEGIN, which writes without a pause between groups could
 * prevent for long. 4,096 frames is 64 MiB.
 */
const WAL_FRAMES_MAX = 4096;

/**
 * The WAL's checkpoints run on a thread of their own, with a connection of its own, instead of inside
 * the COMMIT that crosses `wal_autocheckpoint` (1,000 pages): such a COMMIT copied ~16 MB into the
 * database file and fsynced it on the server's only thread, a stall of 10–45 ms once every ~90 groups
 * that every request in flight waited through (the tail of the PUT latency under 64 connections). A
 * PASSIVE checkpoint never blocks the writer, and the writer starts the WAL over once a checkpoint has
 * copied all of it, so the WAL stays bounded. SQLite's WAL documentation suggests exactly this ("turn
 * off the automatic checkpoints and run checkpoints ... in a separate thread or process"). A commit's
 * own fsync of the WAL (synchronous=FULL) is unchanged, so durability is too.
 */
function startCheckpointer(file: string, walTooLong: () => void, gone: () => void): Worker {
  const worker = new Worker(CHECKPOINTER, { eval: true, workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file, framesMax: WAL_FRAMES_MAX } });
  worker.unref();
  worker.on('message', walTooLong);
  // A checkpoint that fails is tried again after the next commit. When the thread itself fails (its
  // connection could not open), the writer checkpoints as SQLite does by default again.
  worker.on('error', gone);
  return worker;
}

const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('synchronous = FULL');
let scheduled = false;
const checkpoint = () => {
  scheduled = false;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r.log > workerData.framesMax) parentPort.postMessage(r.log);
  } catch {}
};
parentPort.on('message', (m) => {
  if (m === 'commit') {
    if (!scheduled) { scheduled = true; setImmediate(checkpoint); }
    return;
  }
  checkpoint();
  db.close();
  parentPort.close();
});
`;

function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  const current = row.v ?? 0;
  if (current > SCHEMA_VERSION) throw new Error(`the database is at schema version ${current}, newer than this rulekit (${SCHEMA_VERSION}); upgrade rulekit`);
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sqlite);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
    }).immediate();
  }
}

/** A write waiting for the next group commit. */
interface QueuedWrite {
  fn: () => unknown;
  dryRun: boolean;
  /**
   * Called with the value when the write's savepoint is released (not for dry runs, refusals or errors),
   * inside the group's transaction: the cache then holds it for the next writes of the group. Nothing
   * else runs before the COMMIT (the group is written in one synchronous call), and when that fails the
   * cache is emptied, so no reader ever gets a record that was not committed.
   */
  stored?: (value: unknown) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Shortest time between two checkpoints the writer asks for (see `askCheckpoint`). */
const CHECKPOINT_EVERY_MS = 50;

class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly lists: ListStore;
  private readonly q;
  private queue: QueuedWrite[] = [];
  private readonly cache = new RulesetCache();
  /**
   * Digests of rule contents that committed transactions wrote (or found) here: a PUT of the same rules
   * again skips the INSERT OR IGNORE of their ~15 KB. Contents are never deleted, so an entry stays true;
   * emptied with the cache when a group fails to commit.
   */
  private readonly contents = new Set<string>();
  /** Which records' history rows are written compact (see {@link HistoryRows}). */
  private readonly rows = new HistoryRows();
  /** What this store keeps of the texts it wrote (see {@link RecordTexts}). */
  private readonly texts = new RecordTexts();

  /** The thread that checkpoints the WAL (see {@link startCheckpointer}); none for `:memory:`. */
  private readonly checkpointer?: Worker;
  /** The checkpointer found the WAL longer than {@link WAL_FRAMES_MAX}: the next group restarts it first. */
  private walTooLong = false;
  /** When the checkpointer was last asked to run (performance.now()). */
  private askedAt = -Infinity;
  readonly logpushExtra: LogpushExtraStore;
  readonly transformers: TransformerStore;

  constructor(private readonly db: Database.Database, file: string | undefined, private readonly lock?: DataDirLock) {
    this.lists = new SqliteListStore(db, (fn, dryRun) => this.write(fn, dryRun));
    if (file) {
      this.checkpointer = startCheckpointer(file, () => (this.walTooLong = true), () => {
        if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
      });
    }
    this.q = {
      listRulesets: db.prepare('SELECT v.body, c.parts FROM rulesets r JOIN ruleset_versions v ON v.ruleset_id = r.id AND v.version = r.version LEFT JOIN rule_contents c ON c.digest = v.contents WHERE r.scope = ? AND r.owner = ? ORDER BY r.rowid'),
      rulesetVersion: db.prepare('SELECT version FROM rulesets WHERE scope = ? AND owner = ? AND id = ?').pluck(),
      rulesetBody: db.prepare('SELECT v.body, c.parts FROM ruleset_versions v LEFT JOIN rule_contents c ON c.digest = v.contents WHERE v.ruleset_id = ? AND v.version = ?'),
      entryPoint: db.prepare("SELECT id FROM rulesets WHERE scope = ? AND owner = ? AND phase = ? AND kind IN ('root', 'zone')"),
      insertRuleset: db.prepare('INSERT INTO rulesets (id, scope, owner, kind, phase, version) VALUES (?, ?, ?, ?, ?, ?)'),
      updateRuleset: db.prepare('UPDATE rulesets SET version = ? WHERE scope = ? AND owner = ? AND id = ? AND version = ?'),
      deleteRuleset: db.prepare('DELETE FROM rulesets WHERE scope = ? AND owner = ? AND id = ?'),
      insertVersion: db.prepare('INSERT INTO ruleset_versions (ruleset_id, version, body, contents) VALUES (?, ?, ?, ?)'),
      insertContents: db.prepare('INSERT OR IGNORE INTO rule_contents (digest, parts) VALUES (?, ?)'),
      deleteVersions: db.prepare('DELETE FROM ruleset_versions WHERE ruleset_id = ?'),
      version: db.prepare('SELECT v.body, c.parts FROM ruleset_versions v JOIN rulesets r ON r.id = v.ruleset_id LEFT JOIN rule_contents c ON c.digest = v.contents WHERE r.scope = ? AND r.owner = ? AND r.id = ? AND v.version = ?'),
      deleteVersion: db.prepare('DELETE FROM ruleset_versions WHERE ruleset_id = ? AND version = ?'),
      versions: db.prepare('SELECT v.body, c.parts FROM ruleset_versions v JOIN rulesets r ON r.id = v.ruleset_id LEFT JOIN rule_contents c ON c.digest = v.contents WHERE r.scope = ? AND r.owner = ? AND r.id = ? ORDER BY v.version'),
      listJobs: db.prepare('SELECT id, body FROM logpush_jobs WHERE scope = ? AND owner = ? ORDER BY id'),
      getJob: db.prepare('SELECT id, body FROM logpush_jobs WHERE scope = ? AND owner = ? AND id = ?'),
      insertJob: db.prepare('INSERT INTO logpush_jobs (scope, owner, body) VALUES (?, ?, ?)'),
      updateJob: db.prepare('UPDATE logpush_jobs SET body = ? WHERE scope = ? AND owner = ? AND id = ?'),
      deleteJob: db.prepare('DELETE FROM logpush_jobs WHERE scope = ? AND owner = ? AND id = ?'),
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      savepoint: db.prepare('SAVEPOINT write'),
      release: db.prepare('RELEASE write'),
      rollbackTo: db.prepare('ROLLBACK TO write'),
    };
    this.logpushExtra = sqliteLogpushExtra(db, <T>(fn: () => T, dryRun: boolean | undefined) => this.write(fn, dryRun));
    this.transformers = sqliteTransformers(db, <T>(fn: () => T, dryRun: boolean | undefined) => this.write(fn, dryRun));
  }

  /**
   * Run `fn` as one all-or-nothing write; a dry run or a thrown Rollback undoes it and answers its value.
   *
   * Group commit: the writes that arrive in one turn of the event loop share one transaction, each inside
   * its own savepoint (so a refusal, a dry run or an error undoes its own changes only), and one COMMIT,
   * whose fsync (synchronous=FULL) is most of a write's cost: ~0.1 ms to several ms on a virtual disk,
   * paid by every PUT alike before. Each promise settles after that COMMIT, so nothing is answered before
   * it is durable; when BEGIN, a savepoint or the COMMIT fails, every write of the group fails and none is
   * stored. A lone write waits one turn (setImmediate); under load a group holds the writes of all the
   * requests read in one turn.
   */
  private write<T>(fn: () => T, dryRun: boolean | undefined, stored?: (value: T) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, dryRun: dryRun === true, stored: stored as ((v: unknown) => unknown) | undefined, resolve: resolve as (v: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commit the queued writes as one transaction (see {@link write}). */
  private flush(): void {
    const group = this.queue;
    this.queue = [];
    if (!group.length) return;
    if (this.walTooLong) {
      this.walTooLong = false;
      try {
        this.db.pragma('wal_checkpoint(RESTART)');
      } catch {
        // Busy: the checkpointer's next report asks again.
      }
    }
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    try {
      this.q.begin.run();
      for (const w of group) {
        this.q.savepoint.run();
        try {
          const value = w.fn();
          if (w.dryRun) throw new Rollback(value);
          this.q.release.run();
          outcomes.push({ value: w.stored ? w.stored(value) : value });
        } catch (e) {
          this.q.rollbackTo.run();
          this.q.release.run();
          outcomes.push(e instanceof Rollback ? { value: e.value } : { error: e });
          // A failed write may have found a known digest missing (a database changed behind the server):
          // from now on contents are written again, as on a first write.
          if (!(e instanceof Rollback)) this.contents.clear();
        }
      }
      this.q.commit.run();
      this.askCheckpoint();
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.cache.clear();
      this.contents.clear();
      for (const w of group) w.reject(e);
      return;
    }
    group.forEach((w, i) => {
      const o = outcomes[i]!;
      if ('error' in o) w.reject(o.error);
      else w.resolve(o.value);
    });
  }

  /**
   * Ask the checkpointer to run after a commit, at most every {@link CHECKPOINT_EVERY_MS}: a checkpoint
   * per commit (~100 a second under load) woke its thread on the server's CPU each time and copied
   * every version of the pages each group rewrites (the last page of the history, the ruleset's row),
   * where one checkpoint after several groups copies each page once. Commits in between stay in the WAL,
   * where readers find them; the next commit after the pause asks again, and closing checkpoints all.
   */
  private askCheckpoint(): void {
    if (!this.checkpointer) return;
    const now = performance.now();
    if (now - this.askedAt < CHECKPOINT_EVERY_MS) return;
    this.askedAt = now;
    this.checkpointer.postMessage('commit');
  }

  async listRulesets(owner: Owner): Promise<StoredRuleset[]> {
    return (this.q.listRulesets.all(owner.scope, owner.id) as VersionRow[]).map((r) => JSON.parse(textOfRow(r)) as StoredRuleset);
  }

  async getRuleset(owner: Owner, id: string): Promise<Stored<StoredRuleset> | undefined> {
    return this.current(owner, id);
  }

  /** The stored record of a ruleset (cached when its version is the cached one). */
  private current(owner: Owner, id: string): Stored<StoredRuleset> | undefined {
    const version = this.q.rulesetVersion.get(owner.scope, owner.id, id) as number | undefined;
    if (version === undefined) return undefined;
    return this.cache.of(id, version, () => textOfRow(this.q.rulesetBody.get(id, version) as VersionRow));
  }

  async createRuleset(owner: Owner, ruleset: StoredRuleset, options: WriteOptions = {}): Promise<{ created: Stored<StoredRuleset> } | { phaseExists: string }> {
    return this.write((): { created: Stored<StoredRuleset> } | { phaseExists: string } => {
      if (ruleset.kind === 'root' || ruleset.kind === 'zone') {
        const existing = this.q.entryPoint.get(owner.scope, owner.id, ruleset.phase) as { id: string } | undefined;
        if (existing) throw new Rollback({ phaseExists: existing.id });
      }
      this.q.insertRuleset.run(ruleset.id, owner.scope, owner.id, ruleset.kind, ruleset.phase, Number(ruleset.version));
      return { created: this.insertVersion(ruleset, options.dryRun) };
    }, options.dryRun, (r) => ('created' in r ? { created: this.stored(r.created) } : r));
  }

  async updateRuleset<R>(owner: Owner, id: string, change: Change<StoredRuleset, R>, options: WriteOptions = {}): Promise<UpdateResult<Stored<StoredRuleset>, R>> {
    return this.write((): UpdateResult<Stored<StoredRuleset>, R> => {
      const current = this.current(owner, id)?.record;
      if (!current) return { notFound: true };
      const outcome = change(current);
      if ('refused' in outcome) throw new Rollback({ refused: outcome.refused });
      const next = outcome.next;
      if (!(Number(next.version) > Number(current.version))) throw new Error(`a ruleset update must move its version up (from ${current.version}, got ${next.version})`);
      const done = this.q.updateRuleset.run(Number(next.version), owner.scope, owner.id, id, Number(current.version));
      if (done.changes !== 1) throw new Error('the ruleset changed under an immediate transaction');
      return { ok: this.insertVersion(next, options.dryRun) };
    }, options.dryRun, (r) => ('ok' in r ? { ok: this.stored(r.ok) } : r));
  }

  /**
   * The history row of a record: its compact form when its rule contents come for the second time or
   * more (the contents written first unless this process knows them committed), else its text. The
   * contents of a write are known committed from here on (not a dry run's): a group that fails to commit,
   * or a write that fails, forgets every digest known (see {@link flush}).
   */
  private insertVersion(record: StoredRuleset, dryRun: boolean | undefined): Stored<StoredRuleset> {
    const text = rulesetText(record, this.texts);
    const form = this.rows.formFor(text);
    if (!form) {
      this.q.insertVersion.run(record.id, Number(record.version), text.json, null);
    } else {
      if (!this.contents.has(form.digest)) this.q.insertContents.run(form.digest, form.parts);
      this.q.insertVersion.run(record.id, Number(record.version), form.compact, form.digest);
      if (!dryRun) this.contents.add(form.digest);
    }
    return { record, json: text.json };
  }

  /** A record's write was released into the group's transaction (see {@link QueuedWrite.stored}): cached. */
  private stored(written: Stored<StoredRuleset>): Stored<StoredRuleset> {
    return this.cache.put(written);
  }

  async deleteRuleset(owner: Owner, id: string, options: WriteOptions = {}): Promise<boolean> {
    return this.write(() => {
      const done = this.q.deleteRuleset.run(owner.scope, owner.id, id);
      if (done.changes) this.q.deleteVersions.run(id);
      return done.changes === 1;
    }, options.dryRun, (deleted) => {
      this.cache.delete(id);
      return deleted;
    });
  }

  async rulesetVersions(owner: Owner, id: string): Promise<StoredRuleset[]> {
    return (this.q.versions.all(owner.scope, owner.id, id) as VersionRow[]).map((r) => JSON.parse(textOfRow(r)) as StoredRuleset);
  }

  async getRulesetVersion(owner: Owner, id: string, version: number): Promise<StoredRuleset | undefined> {
    const row = this.q.version.get(owner.scope, owner.id, id, version) as VersionRow | undefined;
    return row ? (JSON.parse(textOfRow(row)) as StoredRuleset) : undefined;
  }

  async deleteRulesetVersion(owner: Owner, id: string, version: number, options: WriteOptions = {}): Promise<VersionDeleteResult> {
    return this.write((): VersionDeleteResult => {
      const current = this.q.rulesetVersion.get(owner.scope, owner.id, id) as number | undefined;
      if (current === undefined) return 'no-ruleset';
      if (current === version) return 'current';
      return this.q.deleteVersion.run(id, version).changes === 1 ? 'deleted' : 'no-version';
    }, options.dryRun);
  }

  async entryPointId(owner: Owner, phase: string): Promise<string | undefined> {
    return (this.q.entryPoint.get(owner.scope, owner.id, phase) as { id: string } | undefined)?.id;
  }

  async listJobs(owner: Owner): Promise<StoredJob[]> {
    return (this.q.listJobs.all(owner.scope, owner.id) as { id: number; body: string }[]).map(jobOf);
  }

  async getJob(owner: Owner, id: number): Promise<StoredJob | undefined> {
    const row = this.q.getJob.get(owner.scope, owner.id, id) as { id: number; body: string } | undefined;
    return row ? jobOf(row) : undefined;
  }

  async createJob(owner: Owner, job: Omit<StoredJob, 'id'>, options: WriteOptions = {}): Promise<StoredJob> {
    return this.write(() => {
      const done = this.q.insertJob.run(owner.scope, owner.id, JSON.stringify(job));
      return { id: Number(done.lastInsertRowid), ...job };
    }, options.dryRun);
  }

  async updateJob<R>(owner: Owner, id: number, change: Change<StoredJob, R>, options: WriteOptions = {}): Promise<UpdateResult<StoredJob, R>> {
    return this.write((): UpdateResult<StoredJob, R> => {
      const row = this.q.getJob.get(owner.scope, owner.id, id) as { id: number; body: string } | undefined;
      if (!row) return { notFound: true };
      const outcome = change(jobOf(row));
      if ('refused' in outcome) throw new Rollback({ refused: outcome.refused });
      const { id: _id, ...body } = outcome.next;
      this.q.updateJob.run(JSON.stringify(body), owner.scope, owner.id, id);
      return { ok: { ...outcome.next, id } };
    }, options.dryRun);
  }

  async deleteJob(owner: Owner, id: number, options: WriteOptions = {}): Promise<boolean> {
    return this.write(() => this.q.deleteJob.run(owner.scope, owner.id, id).changes === 1, options.dryRun);
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    // Writes still queued are committed first (their callers are waiting for them).
    if (this.db.open) this.flush();
    // The checkpointer copies what is left and closes its connection first, so that this one, the
    // last, removes the WAL on closing.
    if (this.checkpointer && this.checkpointer.threadId !== -1) {
      const done = new Promise((resolve) => this.checkpointer!.once('exit', resolve));
      // Referenced while it finishes: the thread is unref'd so it never keeps the process alive, but with
      // nothing else pending (a server that failed to listen) the process would exit before its 'exit'.
      this.checkpointer.ref();
      this.checkpointer.postMessage('close');
      await done;
    }
    if (this.db.open) this.db.close();
    this.lock?.release();
  }
}

/** A history row: the text, or its compact form and the rule contents it names. */
interface VersionRow {
  body: string;
  parts: string | null;
}

function textOfRow(row: VersionRow): string {
  return row.parts === null ? row.body : expandRuleset(row.body, row.parts);
}

function jobOf(row: { id: number | bigint | string; body: string }): StoredJob {
  return { id: Number(row.id), ...(JSON.parse(row.body) as Omit<StoredJob, 'id'>) };
}
