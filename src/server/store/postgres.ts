/**
 * The shared store: PostgreSQL through a `pg` pool, so several server replicas can write one database.
 * Behaves exactly as the SQLite store (the same suite holds both). What differs is concurrency: SQLite
 * serializes whole transactions, here they overlap: a ruleset's updates are written by statements
 * conditioned on the version they started from (see {@link PostgresStore.updateRuleset}), a job's update
 * locks its row (`SELECT … FOR UPDATE`), and the entry-point race is settled by the unique index.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { loadPart } from '../../optional-parts.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { RulesetCache } from './cache.js';
import { expandRuleset, HistoryRows, RecordTexts, rulesetText, type CompactForm, type RulesetText } from './record-text.js';
import { ReadWaves } from './waves.js';
import { StoreUnavailableError, type WriteOutcome } from './unavailable.js';
import { PostgresListStore } from './lists-postgres.js';
import { postgresLogpushExtra } from './logpush-extra-postgres.js';
import { postgresTransformers } from './transformers-postgres.js';
import type { Change, ListStore, LogpushExtraStore, Owner, Store, TransformerStore, Stored, StoredJob, StoredRuleset, UpdateResult, VersionDeleteResult, WriteOptions } from './types.js';

/** Thrown inside a transaction to roll it back (dry runs, refusals); never leaves this module. */
class Rollback<T> {
  constructor(readonly value: T) {}
}

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq parameters such as `sslmode` included). */
  connectionString: string;
  /** Most connections this process holds open (default 10); replicas × max must stay under the server's `max_connections`. */
  max?: number;
  /** How long to wait for a connection, in ms, before a call fails (default 10 000), so a dead database is an error, not a hang. */
  connectionTimeoutMillis?: number;
}

/** Key of the advisory lock migrations hold: "rulekit" in ASCII, so it is unlikely to collide with another application's. */
const MIGRATION_LOCK = '32217255763470708';

/** Open (creating and migrating when needed) a PostgreSQL store. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  // pg is an optional part (src/optional-parts.ts), loaded by the PostgreSQL store alone.
  const { default: driver } = await loadPart(['postgres'], () => import('pg'));
  const pool = new driver.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    application_name: 'rulekit',
    // Queries given to a connection go out at once, not after the answer to the one before: a ruleset's
    // next group is in the database's socket while the group before commits, and the backend starts on
    // it without waiting for this process to read that answer (under load, a turn of the event loop of
    // several milliseconds). Answers still come in order; each query still has its own Sync, so one
    // that fails does not fail those behind it (outside a transaction).
    pipeline: true,
  });
  // An idle client whose connection drops (database restart, network) is reported here and discarded by
  // the pool; without a listener the event would crash the process. The next call opens a new connection.
  pool.on('error', () => {});
  // A client checked out (a lane's, a transaction's) whose connection drops between two queries emits
  // 'error' too, with no listener of the pool's: without this one it would crash the process as well. Its
  // next query then fails, and the client is given back as broken.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await migrate(pool);
  } catch (e) {
    await pool.end();
    throw e;
  }
  return new PostgresStore(pool);
}

/**
 * Apply the pending migrations in one transaction under an advisory lock: replicas starting together
 * queue on the lock, and the ones after the first find nothing left to do.
 */
async function migrate(pool: pg.Pool): Promise<void> {
  await transaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const { rows } = await c.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations');
    const current = rows[0]?.v ?? 0;
    if (current > SCHEMA_VERSION) throw new Error(`the database is at schema version ${current}, newer than this rulekit (${SCHEMA_VERSION}); upgrade rulekit`);
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      if (m.postgres) await c.query(m.postgres);
      await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, new Date().toISOString()]);
    }
  }, false);
}

/**
 * Run `fn` in a transaction on one pooled client; a dry run or a thrown Rollback undoes it and answers
 * its value, any other error undoes it and is rethrown.
 */
async function transaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>, dryRun: boolean | undefined): Promise<T> {
  const c = await unavailableOn(pool.connect(), 'none');
  let broken: Error | undefined;
  let committing = false;
  try {
    await c.query('BEGIN');
    const value = await fn(c);
    if (dryRun) throw new Rollback(value);
    committing = true;
    await c.query('COMMIT');
    return value;
  } catch (e) {
    if (e instanceof Rollback) {
      await c.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      return e.value as T;
    }
    if (isConnectionFailure(e)) {
      broken = e as Error;
      // A connection lost before COMMIT was sent takes its transaction with it; lost after, it may have committed.
      throw new StoreUnavailableError(committing ? 'unknown' : 'none', e);
    }
    try {
      await c.query('ROLLBACK');
    } catch (rollbackError) {
      // The connection itself failed: give it back as broken so the pool closes it instead of reusing it.
      broken = rollbackError as Error;
    }
    throw e;
  } finally {
    c.release(broken);
  }
}

/** SQLSTATEs of a connection the server ended or refused: class 08, admin/crash shutdown, starting up, too many connections. */
const CONNECTION_STATES = /^(08...|57P0[1-3]|53300)$/;

/**
 * Whether an error is the loss (or the refusal) of the database connection rather than the database's
 * answer to a statement: a network error, pg's own errors for a connection that ended or could not be
 * made in time, or a server message that ends the session.
 */
function isConnectionFailure(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (isDatabaseError(e)) return CONNECTION_STATES.test(e.code ?? '');
  const code = (e as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  return /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed|Connection ended/i.test(e.message);
}

/** `p`, with a connection failure turned into a {@link StoreUnavailableError} of this outcome. */
async function unavailableOn<T>(p: Promise<T>, outcome: WriteOutcome): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw isConnectionFailure(e) ? new StoreUnavailableError(outcome, e) : e;
  }
}

/** Most ruleset versions remembered (a start without a read needs the cache's record too, which keeps 1,000). */
const KNOWN_MAX = 4096;

/** Largest group whose statement is prepared (named); larger ones, rare, are planned each time. */
const PREPARED_GROUP_MAX = 64;

/** Most updates written by one statement. */
const MAX_GROUP = 1000;

/** An update waiting for its group (see {@link PostgresStore.updateRuleset}). */
interface QueuedUpdate {
  change: Change<StoredRuleset, unknown>;
  dryRun: boolean;
  resolve: (value: UpdateResult<Stored<StoredRuleset>, unknown>) => void;
  reject: (error: unknown) => void;
}

/** A ruleset's key in the per-ruleset maps: ids are unique, but the owner is part of what a request names. */
const keyOf = (owner: Owner, id: string) => `${owner.scope}\u0000${owner.id}\u0000${id}`;

/** Groups of one ruleset in flight at once: one in the database, the next computed and sent behind it. */
const PIPELINE_DEPTH = 2;

/** The updates of one ruleset: those waiting for a group, and the groups in flight. */
interface Lane {
  owner: Owner;
  id: string;
  queue: QueuedUpdate[];
  /** A launch is scheduled for the end of this turn of the event loop. */
  scheduled: boolean;
  inFlight: number;
  /** The record the last group launched will have written and the token it writes, once it is computed (attempt one only). */
  end?: { stored: Stored<StoredRuleset>; token: string };
  /** Settles when the last group launched has been answered. */
  tail: Promise<void>;
  /** The connection its statements go through (pipelined), so they run in the order they are sent. */
  connection?: Promise<pg.PoolClient>;
}

/**
 * A query whose values carry history rows or rule contents (kilobytes each), with its values array emptied
 * once it is answered. Something in pg keeps a query's values reachable for V8's young-generation
 * collections after the answer: every group's ~40 KB of rows was copied by one young collection and
 * promoted to the old generation by the next, for a full collection to sweep. Under the bench's PUT load
 * on PostgreSQL, emptied: ~400 → ~30 KB promoted per young collection, their pauses 4.4–4.9 → 2.4–2.5 ms
 * (two alternating pairs); pg alone, a query every ~0.5 ms with 19 values of 2 KB, 71–82 → 13–16 KB.
 */
export async function queryReleasing<R extends pg.QueryResultRow>(c: pg.Pool | pg.PoolClient, config: pg.QueryConfig<unknown[]> & { values: unknown[] }): Promise<pg.QueryResult<R>> {
  try {
    return await c.query<R>(config);
  } finally {
    config.values.length = 0;
  }
}

const isEntryPoint = (kind: string) => kind === 'root' || kind === 'zone';

/** A concurrent create of the same entry point committed between our check and our insert. */
function isEntryPointConflict(e: unknown): boolean {
  return isDatabaseError(e) && e.code === '23505' && e.constraint === 'rulesets_entry_point';
}

/**
 * An error PostgreSQL answered (pg's DatabaseError: a SQLSTATE code and a severity), as opposed to a
 * broken connection. Tested by its fields: the driver module is loaded when the store opens.
 */
function isDatabaseError(e: unknown): e is pg.DatabaseError {
  return e instanceof Error && typeof (e as Partial<pg.DatabaseError>).code === 'string' && typeof (e as Partial<pg.DatabaseError>).severity === 'string';
}

/** Job ids are BIGINT; an id that cannot be one names no job (SQLite answers "none" for it too, PostgreSQL would fail the cast). */
const isJobId = (id: number) => Number.isSafeInteger(id);

class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly lists: ListStore;
  private closed = false;
  private readonly cache = new RulesetCache();
  /**
   * Digests of rule contents known committed (written here, or found there): a write of the same rules
   * again does not send their ~15 KB. Contents are never deleted, so an entry stays true whatever other
   * replicas do.
   */
  private readonly contents = new Set<string>();
  /** Which records' history rows are written compact (see {@link HistoryRows}). */
  private readonly rows = new HistoryRows();
  /** What this store keeps of the texts it wrote (see {@link RecordTexts}). */
  private readonly texts = new RecordTexts();
  /** The updates of each ruleset with groups queued or in flight, by owner and id. */
  private readonly lanes = new Map<string, Lane>();
  /**
   * The version of each ruleset this process last committed or read, by owner and id: a group starts from
   * the cached record of that version without reading it (the write's `version =` condition finds out
   * when another replica moved it, and the group is computed again on a read).
   */
  private readonly known = new Map<string, number>();
  /** Reads of one ruleset, by owner and id. */
  private readonly reads = new ReadWaves<Stored<StoredRuleset> | undefined>();

  readonly logpushExtra: LogpushExtraStore = postgresLogpushExtra({
    read: <R extends pg.QueryResultRow>(text: string, values: unknown[]) => this.read<R>(text, values),
    write: <T>(fn: (c: pg.PoolClient) => Promise<T>, dryRun: boolean | undefined) => this.write(fn, dryRun),
  });

  readonly transformers: TransformerStore = postgresTransformers({
    read: <R extends pg.QueryResultRow>(text: string, values: unknown[]) => this.read<R>(text, values),
    write: <T>(fn: (c: pg.PoolClient) => Promise<T>, dryRun: boolean | undefined) => this.write(fn, dryRun),
  });

  constructor(private readonly pool: pg.Pool) {
    this.lists = new PostgresListStore((text, values) => this.read(text, values), (fn, dryRun) => this.write(fn, dryRun));
  }

  /** Note the version of a ruleset seen here, keeping the most recent {@link KNOWN_MAX}. */
  private remember(key: string, version: number): void {
    this.known.delete(key);
    this.known.set(key, version);
    if (this.known.size > KNOWN_MAX) this.known.delete(this.known.keys().next().value!);
  }

  /** A query outside a transaction, through the pool; a lost connection is a {@link StoreUnavailableError}. */
  private read<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return unavailableOn(this.pool.query<R>(text, values), 'none');
  }

  private write<T>(fn: (c: pg.PoolClient) => Promise<T>, dryRun: boolean | undefined): Promise<T> {
    return transaction(this.pool, fn, dryRun);
  }

  async listRulesets(owner: Owner): Promise<StoredRuleset[]> {
    const { rows } = await this.read<VersionRow>(
      'SELECT v.body, c.parts FROM rulesets r JOIN ruleset_versions v ON v.ruleset_id = r.id AND v.version = r.version LEFT JOIN rule_contents c ON c.digest = v.contents WHERE r.scope = $1 AND r.owner = $2 ORDER BY r.seq',
      [owner.scope, owner.id],
    );
    return rows.map((r) => JSON.parse(textOfRow(r)) as StoredRuleset);
  }

  /** See {@link ReadWaves}: a ruleset read by many costs a round trip per wave of readers. */
  async getRuleset(owner: Owner, id: string): Promise<Stored<StoredRuleset> | undefined> {
    return unavailableOn(this.reads.read(keyOf(owner, id), () => this.current(this.pool, owner, id, false)), 'none');
  }

  /**
   * The stored record of a ruleset, in one round trip: the body comes over the wire only when the cache
   * does not hold the stored version. `lock`: FOR UPDATE (inside a transaction).
   */
  private async current(c: pg.Pool | pg.PoolClient, owner: Owner, id: string, lock: boolean): Promise<Stored<StoredRuleset> | undefined> {
    // The row's lock first, by a statement of its own: a `FOR UPDATE` of the join below that waited for
    // another writer would check the row it then locks against the history rows of its snapshot, taken
    // before that writer committed, find none of the new version and answer nothing (a 404 for a
    // ruleset that is there). The read after it is a new snapshot, with that writer's rows.
    if (lock) await c.query({ name: 'rulekit-lock', text: 'SELECT 1 FROM rulesets WHERE scope = $1 AND owner = $2 AND id = $3 FOR UPDATE', values: [owner.scope, owner.id, id] });
    // The cache may move on while the query runs (this process commits a newer version): then the body
    // left out is asked for again.
    for (let cached = this.cache.versionOf(id) ?? -1; ; cached = -1) {
      const { rows } = await c.query<{ version: number; body: string | null; parts: string | null }>({
        // Prepared once per connection (every GET and every group that reads runs it).
        name: 'rulekit-current',
        text: `SELECT r.version, CASE WHEN r.version = $4 THEN NULL ELSE v.body END AS body, CASE WHEN r.version = $4 THEN NULL ELSE c.parts END AS parts
           FROM rulesets r JOIN ruleset_versions v ON v.ruleset_id = r.id AND v.version = r.version LEFT JOIN rule_contents c ON c.digest = v.contents
          WHERE r.scope = $1 AND r.owner = $2 AND r.id = $3`,
        values: [owner.scope, owner.id, id, cached],
      });
      const row = rows[0];
      const key = keyOf(owner, id);
      if (!row) {
        this.known.delete(key);
        return undefined;
      }
      this.remember(key, row.version);
      const body = row.body;
      if (body !== null) return this.cache.of(id, row.version, () => textOfRow({ body, parts: row.parts }));
      const hit = this.cache.get(id, row.version);
      if (hit) return hit;
    }
  }

  async createRuleset(owner: Owner, ruleset: StoredRuleset, options: WriteOptions = {}): Promise<{ created: Stored<StoredRuleset> } | { phaseExists: string }> {
    const text = rulesetText(ruleset, this.texts);
    // The check below cannot see a create that has not committed yet; when two race, the unique index
    // makes the later insert fail, and the retry's check then sees the winner.
    for (let attempt = 1; ; attempt++) {
      try {
        let form: CompactForm | undefined;
        const outcome = await this.write(async (c): Promise<{ created: Stored<StoredRuleset> } | { phaseExists: string }> => {
          if (isEntryPoint(ruleset.kind)) {
            const { rows } = await c.query<{ id: string }>(
              "SELECT id FROM rulesets WHERE scope = $1 AND owner = $2 AND phase = $3 AND kind IN ('root', 'zone')",
              [owner.scope, owner.id, ruleset.phase],
            );
            if (rows[0]) throw new Rollback({ phaseExists: rows[0].id });
          }
          await c.query('INSERT INTO rulesets (id, scope, owner, kind, phase, version) VALUES ($1, $2, $3, $4, $5, $6)', [
            ruleset.id, owner.scope, owner.id, ruleset.kind, ruleset.phase, Number(ruleset.version),
          ]);
          form = this.rows.formFor(text);
          await this.writeContents(c, [form]);
          await queryReleasing(c, { text: 'INSERT INTO ruleset_versions (ruleset_id, version, body, contents) VALUES ($1, $2, $3, $4)', values: [ruleset.id, Number(ruleset.version), form?.compact ?? text.json, form?.digest ?? null] });
          return { created: { record: ruleset, json: text.json } };
        }, options.dryRun);
        if ('created' in outcome && !options.dryRun) {
          this.remember(keyOf(owner, ruleset.id), Number(ruleset.version));
          if (form) this.contents.add(form.digest);
          return { created: this.cache.put(outcome.created) };
        }
        return outcome;
      } catch (e) {
        // A winner deleted before our retry read it lets the retry create; a few rounds end any such churn.
        if (!isEntryPointConflict(e) || attempt >= 3) throw e;
      }
    }
  }

  /**
   * Updates of one ruleset made by this process are queued and written in groups: the updates that arrive
   * in one turn of the event loop are applied one after the other in memory and written by one statement
   * (and one commit). So a busy ruleset costs one round trip and one commit per group, not a transaction
   * of five round trips per update holding the row's lock. Each update still gets what it would have got
   * alone, in order, and is answered only after its group's commit.
   *
   * Groups are pipelined: while one group's statement (and its commit's fsync) is under way, the next
   * group is computed from the record the first will have written, and its statement sent on the same
   * connection, behind the first (the pool's connections pipeline their queries); its condition on the
   * version fails if the first did not commit (it is then computed again). So the CPU works on the next
   * group while the database works on this one, and the database starts on it as soon as the first commits.
   */
  async updateRuleset<R>(owner: Owner, id: string, change: Change<StoredRuleset, R>, options: WriteOptions = {}): Promise<UpdateResult<Stored<StoredRuleset>, R>> {
    return new Promise((resolve, reject) => {
      const key = keyOf(owner, id);
      let lane = this.lanes.get(key);
      if (!lane) this.lanes.set(key, (lane = { owner, id, queue: [], scheduled: false, inFlight: 0, tail: Promise.resolve() }));
      lane.queue.push({ change: change as Change<StoredRuleset, unknown>, dryRun: options.dryRun === true, resolve: resolve as QueuedUpdate['resolve'], reject });
      this.schedule(key, lane);
    });
  }

  /** The connection a lane's statements go through, taken from the pool while the lane has work. */
  private connectionOf(lane: Lane): Promise<pg.PoolClient> {
    if (!lane.connection) {
      const taken = this.pool.connect();
      lane.connection = taken;
      taken.catch(() => {
        if (lane.connection === taken) lane.connection = undefined;
      });
    }
    return lane.connection;
  }

  /** Give the lane's connection back to the pool; `broken` when it failed (the pool closes it). */
  private releaseConnection(lane: Lane, broken?: Error): void {
    const taken = lane.connection;
    if (!taken) return;
    lane.connection = undefined;
    taken.then((c) => c.release(broken), () => {});
  }

  /** Launch the lane's next group once the updates of this turn of the event loop have queued. */
  private schedule(key: string, lane: Lane): void {
    if (lane.scheduled || lane.inFlight >= PIPELINE_DEPTH || !lane.queue.length) return;
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      if (lane.inFlight >= PIPELINE_DEPTH || !lane.queue.length) return;
      const group = lane.queue.splice(0, MAX_GROUP);
      const before = lane.tail;
      // The record the group in flight will have written, when known; a group launched on it is
      // computed at once, else it waits for the one before it.
      const predicted = lane.inFlight && lane.end ? lane.end : undefined;
      lane.inFlight++;
      lane.end = undefined;
      const done = this.writeGroup(lane, group, before, predicted).then(
        (outcomes) => group.forEach((u, i) => {
          const o = outcomes[i]!;
          if ('error' in o) u.reject(o.error);
          else u.resolve(o.value);
        }),
        (e: unknown) => {
          for (const u of group) u.reject(e);
        },
      ).finally(() => {
        lane.inFlight--;
        if (!lane.inFlight && !lane.queue.length && !lane.scheduled && this.lanes.get(key) === lane) {
          this.lanes.delete(key);
          this.releaseConnection(lane);
        } else this.schedule(key, lane);
      });
      lane.tail = done;
    });
  }

  /**
   * One group: start from the stored record (the one the group in flight will write, or the cached one of
   * the version last seen here, else read), apply each update's change in order (a dry run or a refusal
   * leaves the record as it was for the next), then write every new version in one statement that
   * moves the ruleset's version only if it is still the one started from: optimistic, because replicas
   * may write the same ruleset and the group before may fail. When the condition fails, nothing is
   * written and the group is computed again on a read; after two such rounds the group takes the row's
   * lock (SELECT … FOR UPDATE in a transaction), which cannot fail that way, so every update ends. The
   * outcomes are answered only after the group before (`before`) is.
   */
  private async writeGroup(lane: Lane, group: QueuedUpdate[], before: Promise<void>, predicted: { stored: Stored<StoredRuleset>; token: string } | undefined): Promise<({ value: UpdateResult<Stored<StoredRuleset>, unknown> } | { error: unknown })[]> {
    const { owner, id } = lane;
    const key = keyOf(owner, id);
    if (!predicted) await before;
    for (let attempt = 1; ; attempt++) {
      if (attempt === 2) await before;
      const locked = attempt > 2;
      // Every query of the lane goes through its one connection (a lane never waits for a second one,
      // so busy lanes cannot hold the pool's connections while waiting for more). A locked attempt is
      // the lane's only query in flight: the group after it is waiting for it (`before`).
      const c = await unavailableOn(this.connectionOf(lane), 'none');
      let open = false;
      // Whether what commits this group's versions has been sent: the statement itself (it commits alone)
      // or, in a locked attempt, the COMMIT after it. A connection lost after that may have committed them.
      let committing = false;
      try {
        if (locked) {
          await c.query('BEGIN');
          open = true;
        }
        // The first attempt starts from the record predicted, or the version last seen here when the cache holds its record.
        const seen = attempt === 1 && !predicted ? this.known.get(key) : undefined;
        const cached = attempt > 1 ? undefined : predicted?.stored ?? (seen === undefined ? undefined : this.cache.get(id, seen));
        const start = cached ?? (await this.current(c, owner, id, locked));
        if (!start) {
          if (open) await c.query('COMMIT');
          return group.map(() => ({ value: { notFound: true } }));
        }
        let current = start;
        const writes: { stored: Stored<StoredRuleset>; text: RulesetText }[] = [];
        const outcomes = group.map((u): { value: UpdateResult<Stored<StoredRuleset>, unknown> } | { error: unknown } => {
          try {
            const outcome = u.change(current.record);
            if ('refused' in outcome) return { value: { refused: outcome.refused } };
            const next = outcome.next;
            if (!(Number(next.version) > Number(current.record.version))) throw new Error(`a ruleset update must move its version up (from ${current.record.version}, got ${next.version})`);
            const text = rulesetText(next, this.texts);
            const stored = { record: next, json: text.json };
            if (!u.dryRun) {
              writes.push({ stored, text });
              current = stored;
            }
            return { value: { ok: stored } };
          } catch (error) {
            return { error };
          }
        });
        if (!writes.length) {
          // Nothing to write, so no condition checks the record started from: a group that did not read it
          // reads it now (after the group before), and is computed again if it is not that one.
          if (cached) {
            await before;
            const now = await this.current(c, owner, id, false);
            if (!now) return group.map(() => ({ value: { notFound: true } }));
            if (now.record.version !== start.record.version) continue;
          }
          if (open) await c.query('COMMIT');
          return outcomes;
        }
        const token = randomUUID();
        if (attempt === 1) lane.end = { stored: current, token };
        // The history rows as parameters of a VALUES list, not as two arrays: pg would write each ~16 KB
        // text into an array literal, escaping every quote, and the server would parse it back.
        // The rule contents of compact rows first, when not known committed, in a statement of their own
        // sent just before (outside a locked attempt it commits at once: contents are shared and never
        // deleted, so one written for a group that then loses its race is simply there for the next).
        // The condition: the version started from and, for a group computed on the record of the group
        // before, that group's token (the version alone could be another replica's after that group failed).
        // The contents the rows name must be there (the database has no foreign key for them: see
        // migration 6): the statement counts them, once, and writes nothing when one is missing (its
        // statement before failed), so a history row never names contents that are not there.
        const forms = writes.map((w) => this.rows.formFor(w.text));
        const contents = this.writeContents(c, forms);
        const named = [...new Set(forms.flatMap((f) => (f ? [f.digest] : [])))];
        const rows = writes.map((_, k) => `($${9 + 3 * k}::int, $${10 + 3 * k}::text, $${11 + 3 * k}::text)`).join(', ');
        // Prepared once per connection and group size (up to PREPARED_GROUP_MAX): the database then plans
        // the statement once instead of for every group.
        const statement = queryReleasing<Record<string, never>>(c, {
          ...(writes.length <= PREPARED_GROUP_MAX ? { name: `rulekit-write-${writes.length}` } : {}),
          text: `WITH moved AS (UPDATE rulesets SET version = $5, writer = $6 WHERE scope = $1 AND owner = $2 AND id = $3 AND version = $4 AND ($7::text IS NULL OR writer = $7)
             AND (SELECT count(*) FROM rule_contents WHERE digest = ANY ($8::text[])) = cardinality($8::text[]) RETURNING id)
           INSERT INTO ruleset_versions (ruleset_id, version, body, contents) SELECT moved.id, v.version, v.body, v.contents FROM moved, (VALUES ${rows}) AS v(version, body, contents)`,
          values: [owner.scope, owner.id, id, Number(start.record.version), Number(current.record.version), token, attempt === 1 && predicted ? predicted.token : null, named, ...writes.flatMap((w, k) => [Number(w.stored.record.version), forms[k]?.compact ?? w.text.json, forms[k]?.digest ?? null])],
        });
        // The next group may be computed from this one's record while the statement is under way.
        if (attempt === 1) this.schedule(key, lane);
        committing = !locked;
        const [, done] = await Promise.all([contents, statement]);
        if (done.rowCount === writes.length) {
          committing = true;
          if (open) await c.query('COMMIT');
          await before;
          for (const f of forms) if (f) this.contents.add(f.digest);
          this.cache.put(current);
          this.remember(key, Number(current.record.version));
          return outcomes;
        }
        // Another replica moved the version, or contents named are missing: the next attempt reads the
        // record again and writes every contents it names again (ON CONFLICT DO NOTHING).
        this.known.delete(key);
        this.contents.clear();
        if (locked) throw new Error('the ruleset changed under its row lock, or the rule contents it names could not be written');
      } catch (e) {
        // As in SQLite: after a failure, contents known committed are written again (ON CONFLICT DO NOTHING).
        this.contents.clear();
        this.known.delete(key);
        const lost = isConnectionFailure(e);
        let broken = lost || !isDatabaseError(e) ? (e as Error) : undefined;
        if (open && !lost) {
          try {
            await c.query('ROLLBACK');
          } catch (rollbackError) {
            broken = rollbackError as Error;
          }
        }
        // A failure that is not the database's answer to a statement may be the connection's: the lane
        // gives it back as broken and takes another.
        if (broken) this.releaseConnection(lane, broken);
        await before;
        throw lost ? new StoreUnavailableError(committing ? 'unknown' : 'none', e) : e;
      }
    }
  }

  /** Insert the rule contents of these forms that are not known committed (one statement). */
  private async writeContents(c: pg.Pool | pg.PoolClient, forms: readonly (CompactForm | undefined)[]): Promise<void> {
    const fresh = new Map<string, string>();
    for (const f of forms) if (f && !this.contents.has(f.digest)) fresh.set(f.digest, f.parts);
    if (!fresh.size) return;
    const values = [...fresh.keys()].map((_, k) => `($${1 + 2 * k}::text, $${2 + 2 * k}::text)`).join(', ');
    await queryReleasing(c, { text: `INSERT INTO rule_contents (digest, parts) VALUES ${values} ON CONFLICT DO NOTHING`, values: [...fresh].flat() });
  }

  async deleteRuleset(owner: Owner, id: string, options: WriteOptions = {}): Promise<boolean> {
    const deleted = await this.write(async (c) => {
      const done = await c.query('DELETE FROM rulesets WHERE scope = $1 AND owner = $2 AND id = $3', [owner.scope, owner.id, id]);
      if (done.rowCount) await c.query('DELETE FROM ruleset_versions WHERE ruleset_id = $1', [id]);
      return done.rowCount === 1;
    }, options.dryRun);
    if (deleted && !options.dryRun) {
      this.cache.delete(id);
      this.known.delete(keyOf(owner, id));
    }
    return deleted;
  }

  async rulesetVersions(owner: Owner, id: string): Promise<StoredRuleset[]> {
    const { rows } = await this.read<VersionRow>(
      'SELECT v.body, c.parts FROM ruleset_versions v JOIN rulesets r ON r.id = v.ruleset_id LEFT JOIN rule_contents c ON c.digest = v.contents WHERE r.scope = $1 AND r.owner = $2 AND r.id = $3 ORDER BY v.version',
      [owner.scope, owner.id, id],
    );
    return rows.map((r) => JSON.parse(textOfRow(r)) as StoredRuleset);
  }

  async getRulesetVersion(owner: Owner, id: string, version: number): Promise<StoredRuleset | undefined> {
    const { rows } = await this.read<VersionRow>(
      'SELECT v.body, c.parts FROM ruleset_versions v JOIN rulesets r ON r.id = v.ruleset_id LEFT JOIN rule_contents c ON c.digest = v.contents WHERE r.scope = $1 AND r.owner = $2 AND r.id = $3 AND v.version = $4',
      [owner.scope, owner.id, id, version],
    );
    return rows[0] ? (JSON.parse(textOfRow(rows[0])) as StoredRuleset) : undefined;
  }

  async deleteRulesetVersion(owner: Owner, id: string, version: number, options: WriteOptions = {}): Promise<VersionDeleteResult> {
    // The ruleset's row locked first: a concurrent update cannot make this version current (versions only
    // go up, so it cannot anyway) nor delete the ruleset between the check and the delete.
    return this.write(async (c): Promise<VersionDeleteResult> => {
      const { rows } = await c.query<{ version: number }>('SELECT version FROM rulesets WHERE scope = $1 AND owner = $2 AND id = $3 FOR UPDATE', [owner.scope, owner.id, id]);
      if (!rows[0]) return 'no-ruleset';
      if (rows[0].version === version) return 'current';
      const done = await c.query('DELETE FROM ruleset_versions WHERE ruleset_id = $1 AND version = $2', [id, version]);
      return done.rowCount === 1 ? 'deleted' : 'no-version';
    }, options.dryRun);
  }

  async entryPointId(owner: Owner, phase: string): Promise<string | undefined> {
    const { rows } = await this.read<{ id: string }>("SELECT id FROM rulesets WHERE scope = $1 AND owner = $2 AND phase = $3 AND kind IN ('root', 'zone')", [owner.scope, owner.id, phase]);
    return rows[0]?.id;
  }

  async listJobs(owner: Owner): Promise<StoredJob[]> {
    const { rows } = await this.read<JobRow>('SELECT id, body FROM logpush_jobs WHERE scope = $1 AND owner = $2 ORDER BY id', [owner.scope, owner.id]);
    return rows.map(jobOf);
  }

  async getJob(owner: Owner, id: number): Promise<StoredJob | undefined> {
    if (!isJobId(id)) return undefined;
    const { rows } = await this.read<JobRow>('SELECT id, body FROM logpush_jobs WHERE scope = $1 AND owner = $2 AND id = $3', [owner.scope, owner.id, id]);
    return rows[0] ? jobOf(rows[0]) : undefined;
  }

  async createJob(owner: Owner, job: Omit<StoredJob, 'id'>, options: WriteOptions = {}): Promise<StoredJob> {
    // A dry run still draws its id from the identity sequence (sequences do not roll back): ids may skip
    // numbers, which they may anyway after a failed insert.
    return this.write(async (c) => {
      const { rows } = await c.query<{ id: string }>('INSERT INTO logpush_jobs (scope, owner, body) VALUES ($1, $2, $3) RETURNING id', [owner.scope, owner.id, JSON.stringify(job)]);
      return { id: Number(rows[0]!.id), ...job };
    }, options.dryRun);
  }

  async updateJob<R>(owner: Owner, id: number, change: Change<StoredJob, R>, options: WriteOptions = {}): Promise<UpdateResult<StoredJob, R>> {
    if (!isJobId(id)) return { notFound: true };
    return this.write(async (c): Promise<UpdateResult<StoredJob, R>> => {
      const { rows } = await c.query<JobRow>('SELECT id, body FROM logpush_jobs WHERE scope = $1 AND owner = $2 AND id = $3 FOR UPDATE', [owner.scope, owner.id, id]);
      if (!rows[0]) return { notFound: true };
      const outcome = change(jobOf(rows[0]));
      if ('refused' in outcome) throw new Rollback({ refused: outcome.refused });
      const { id: _id, ...body } = outcome.next;
      await c.query('UPDATE logpush_jobs SET body = $1 WHERE scope = $2 AND owner = $3 AND id = $4', [JSON.stringify(body), owner.scope, owner.id, id]);
      return { ok: { ...outcome.next, id } };
    }, options.dryRun);
  }

  async deleteJob(owner: Owner, id: number, options: WriteOptions = {}): Promise<boolean> {
    if (!isJobId(id)) return false;
    return this.write(async (c) => (await c.query('DELETE FROM logpush_jobs WHERE scope = $1 AND owner = $2 AND id = $3', [owner.scope, owner.id, id])).rowCount === 1, options.dryRun);
  }

  async ping(): Promise<void> {
    await this.read('SELECT 1', []);
  }

  async close(): Promise<void> {
    // pool.end() may be called once only; close() is safe to repeat, as SQLite's is.
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
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

/** `id` is BIGINT, which pg returns as a string. */
interface JobRow {
  id: string;
  body: string;
}

function jobOf(row: JobRow): StoredJob {
  return { id: Number(row.id), ...(JSON.parse(row.body) as Omit<StoredJob, 'id'>) };
}
