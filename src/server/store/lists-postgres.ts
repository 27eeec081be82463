/**
 * The account lists of the PostgreSQL store (see {@link ListStore}); the same behaviour as the SQLite
 * one (one suite holds both). Every write first moves the account's list revision up: the row's lock
 * orders the list writes of one account across replicas, so the checks a write makes (a name taken,
 * the limits) hold until it commits.
 * @module
 */
import type pg from 'pg';
import type { ItemsPage, ItemsWrite, ListStore, ListWriteLimits, StoredBulkOperation, StoredList, StoredListItem, WriteOptions } from './types.js';
import { itemOf, itemsLimitError, listOf, operationOf, pageOf } from './lists-sqlite.js';
import { randomId as newListId } from './random-ids.js';

/** A query outside a transaction. */
export type PostgresRead = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;
/** A transaction on one client; a dry run rolls it back. */
export type PostgresWrite = <T>(fn: (c: pg.PoolClient) => Promise<T>, dryRun: boolean | undefined) => Promise<T>;

const LIST_COLUMNS = 'l.id, l.name, l.kind, l.description, l.created_on, l.modified_on, (SELECT COUNT(*) FROM list_items i WHERE i.list_id = l.id) AS num_items';
const ITEM_COLUMNS = 'i.id, i.key, i.text, i.body, i.created_on, i.modified_on';

type ListRow = Omit<StoredList, 'num_items'> & { num_items: string };
type ItemRow = { id: string; key: string; text: string; body: string; created_on: string; modified_on: string };

const bump = (c: pg.PoolClient, account: string) =>
  c.query('INSERT INTO list_revisions (account, revision) VALUES ($1, 1) ON CONFLICT (account) DO UPDATE SET revision = list_revisions.revision + 1', [account]);

export class PostgresListStore implements ListStore {
  constructor(private readonly read: PostgresRead, private readonly write: PostgresWrite) {}

  async listLists(account: string): Promise<StoredList[]> {
    const { rows } = await this.read<ListRow>(`SELECT ${LIST_COLUMNS} FROM lists l WHERE l.account = $1 ORDER BY l.name COLLATE "C"`, [account]);
    return rows.map(listOf);
  }

  async getList(account: string, id: string): Promise<StoredList | undefined> {
    const { rows } = await this.read<ListRow>(`SELECT ${LIST_COLUMNS} FROM lists l WHERE l.account = $1 AND l.id = $2`, [account, id]);
    return rows[0] ? listOf(rows[0]) : undefined;
  }

  async createList(account: string, list: Omit<StoredList, 'num_items'>, limits: ListWriteLimits, options: WriteOptions = {}): Promise<{ created: StoredList } | { nameExists: string } | { limit: string }> {
    return refusable(this.write(async (c) => {
      await bump(c, account);
      const { rows } = await c.query<{ taken: string | null; all: string; of_kind: string }>(
        'SELECT (SELECT id FROM lists WHERE account = $1 AND name = $2) AS taken, (SELECT COUNT(*) FROM lists WHERE account = $1) AS all, (SELECT COUNT(*) FROM lists WHERE account = $1 AND kind = $3) AS of_kind',
        [account, list.name, list.kind],
      );
      const r = rows[0]!;
      // Nothing was written but the revision: a refusal rolls that back with the rest (a dry run's way).
      if (r.taken) return refused({ nameExists: r.taken });
      if (Number(r.all) >= limits.maxLists) return refused({ limit: `the account has ${r.all} lists, the most it may have` });
      if (Number(r.of_kind) >= limits.maxListsOfKind) return refused({ limit: `the account has ${r.of_kind} ${list.kind} lists, the most it may have` });
      await c.query('INSERT INTO lists (id, account, name, kind, description, created_on, modified_on) VALUES ($1, $2, $3, $4, $5, $6, $7)', [list.id, account, list.name, list.kind, list.description, list.created_on, list.modified_on]);
      return { created: { ...list, num_items: 0 } };
    }, options.dryRun));
  }

  async updateList(account: string, id: string, description: string, now: string, options: WriteOptions = {}): Promise<StoredList | undefined> {
    return refusable(this.write(async (c) => {
      await bump(c, account);
      const done = await c.query('UPDATE lists SET description = $1, modified_on = $2 WHERE account = $3 AND id = $4', [description, now, account, id]);
      if (done.rowCount !== 1) return refused(undefined);
      const { rows } = await c.query<ListRow>(`SELECT ${LIST_COLUMNS} FROM lists l WHERE l.account = $1 AND l.id = $2`, [account, id]);
      return listOf(rows[0]!);
    }, options.dryRun));
  }

  async deleteList(account: string, id: string, options: WriteOptions = {}): Promise<boolean> {
    return refusable(this.write(async (c) => {
      await bump(c, account);
      const done = await c.query('DELETE FROM lists WHERE account = $1 AND id = $2', [account, id]);
      if (done.rowCount !== 1) return refused(false);
      await c.query('DELETE FROM list_items WHERE list_id = $1', [id]);
      return true;
    }, options.dryRun));
  }

  async listItems(account: string, listId: string, page: { after?: string; before?: string; limit?: number; search?: { text: string; match: 'prefix' | 'contains' | 'exact' } }): Promise<ItemsPage | undefined> {
    const where = ['l.account = $1', 'i.list_id = $2'];
    const values: unknown[] = [account, listId];
    const param = (v: unknown) => `$${values.push(v)}`;
    const s = page.search;
    if (s?.match === 'exact') where.push(`i.text = ${param(s.text)}`);
    if (s?.match === 'prefix') where.push(`left(i.text, length(${param(s.text)})) = $${values.length}`);
    if (s?.match === 'contains') where.push(`strpos(i.text, ${param(s.text)}) > 0`);
    const backwards = page.before !== undefined && page.after === undefined;
    if (page.after !== undefined) where.push(`i.key > ${param(page.after)} COLLATE "C"`);
    if (backwards) where.push(`i.key < ${param(page.before)} COLLATE "C"`);
    const limit = page.limit ?? -1;
    // Keys compare byte by byte, as SQLite compares them (COLLATE "C"), whatever the database's collation.
    const sql = `SELECT ${ITEM_COLUMNS} FROM list_items i JOIN lists l ON l.id = i.list_id WHERE ${where.join(' AND ')} ORDER BY i.key COLLATE "C" ${backwards ? 'DESC' : 'ASC'}${limit >= 0 ? ` LIMIT ${param(limit + 1)}` : ''}`;
    const [{ rows: found }, { rows }] = await Promise.all([
      this.read<{ id: string }>('SELECT id FROM lists WHERE account = $1 AND id = $2', [account, listId]),
      this.read<ItemRow>(sql, values),
    ]);
    if (!found.length) return undefined;
    return pageOf(rows.map(itemOf), limit, backwards, page.after !== undefined || page.before !== undefined);
  }

  async getItem(account: string, listId: string, itemId: string): Promise<StoredListItem | undefined> {
    const { rows } = await this.read<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM list_items i JOIN lists l ON l.id = i.list_id WHERE l.account = $1 AND i.list_id = $2 AND i.id = $3`, [account, listId, itemId]);
    return rows[0] ? itemOf(rows[0]) : undefined;
  }

  async writeItems(account: string, listId: string, write: ItemsWrite, operation: { id: string; now: string }, limits: ListWriteLimits, options: WriteOptions = {}): Promise<StoredBulkOperation | undefined> {
    return refusable(this.write(async (c): Promise<StoredBulkOperation | undefined> => {
      await bump(c, account);
      const { rows } = await c.query<{ kind: string }>('SELECT kind FROM lists WHERE account = $1 AND id = $2', [account, listId]);
      if (!rows[0]) return refused(undefined);
      const kind = rows[0].kind;
      await c.query('SAVEPOINT items');
      let error = await this.apply(c, listId, write, operation.now);
      if (error === undefined) {
        const { rows: counted } = await c.query<{ n: string }>('SELECT COUNT(*) AS n FROM list_items i JOIN lists l ON l.id = i.list_id WHERE l.account = $1 AND l.kind = $2', [account, kind]);
        const total = Number(counted[0]!.n);
        if (total > limits.maxItemsOfKind) error = itemsLimitError(total, kind, limits.maxItemsOfKind);
      }
      await c.query(error === undefined ? 'RELEASE SAVEPOINT items' : 'ROLLBACK TO SAVEPOINT items');
      if (error === undefined) await c.query('UPDATE lists SET modified_on = $1 WHERE id = $2', [operation.now, listId]);
      const done: StoredBulkOperation = error === undefined ? { id: operation.id, status: 'completed', completed: operation.now } : { id: operation.id, status: 'failed', completed: operation.now, error };
      await c.query('INSERT INTO list_operations (id, account, status, completed, error) VALUES ($1, $2, $3, $4, $5)', [done.id, account, done.status, done.completed, done.error ?? null]);
      return done;
    }, options.dryRun));
  }

  /** The changes of a write of items; a reason when it cannot be made (the caller rolls back). */
  private async apply(c: pg.PoolClient, listId: string, write: ItemsWrite, now: string): Promise<string | undefined> {
    if (write.mode === 'delete') {
      if (!write.ids.length) return undefined;
      const { rows } = await c.query<{ id: string }>('DELETE FROM list_items WHERE list_id = $1 AND id = ANY($2::text[]) RETURNING id', [listId, [...write.ids]]);
      const gone = new Set(rows.map((r) => r.id));
      const missing = write.ids.find((id) => !gone.has(id));
      return missing === undefined ? undefined : `the list has no item ${missing}`;
    }
    if (write.mode === 'replace') await c.query('DELETE FROM list_items WHERE list_id = $1', [listId]);
    if (!write.items.length) return undefined;
    // One statement for the lot; an item whose key the list holds keeps its id and creation time.
    await c.query(
      `INSERT INTO list_items (list_id, id, key, text, body, created_on, modified_on)
       SELECT $1, u.id, u.key, u.text, u.body, $2, $2 FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, key, text, body)
       ON CONFLICT (list_id, key) DO UPDATE SET text = EXCLUDED.text, body = EXCLUDED.body, modified_on = EXCLUDED.modified_on`,
      [listId, now, write.items.map(() => newListId()), write.items.map((i) => i.key), write.items.map((i) => i.text), write.items.map((i) => JSON.stringify(i.value))],
    );
    return undefined;
  }

  async getOperation(account: string, id: string): Promise<StoredBulkOperation | undefined> {
    const { rows } = await this.read<{ id: string; status: 'completed' | 'failed'; completed: string; error: string | null }>('SELECT id, status, completed, error FROM list_operations WHERE account = $1 AND id = $2', [account, id]);
    return rows[0] ? operationOf(rows[0]) : undefined;
  }

  async listsWithItems(account: string): Promise<{ list: StoredList; values: Record<string, unknown>[] }[]> {
    const [lists, { rows }] = await Promise.all([
      this.listLists(account),
      this.read<{ list_id: string; body: string }>('SELECT i.list_id, i.body FROM list_items i JOIN lists l ON l.id = i.list_id WHERE l.account = $1 ORDER BY i.list_id, i.key COLLATE "C"', [account]),
    ]);
    const byId = new Map(lists.map((list) => [list.id, { list, values: [] as Record<string, unknown>[] }]));
    for (const row of rows) byId.get(row.list_id)?.values.push(JSON.parse(row.body) as Record<string, unknown>);
    return [...byId.values()];
  }

  /**
   * Every ruleset write that names a list reads its account's revision, and automation sends them many at
   * once: the reads asked in one turn of the event loop go as one query. A read joins only a query not yet
   * sent, so it still sees every list write committed before it was asked (through any replica).
   */
  revision(account: string): Promise<number> {
    return new Promise((resolve, reject) => {
      let batch = this.revisionsAsked;
      if (!batch) {
        batch = this.revisionsAsked = new Map();
        setImmediate(() => this.readRevisions());
      }
      const waiting = batch.get(account);
      if (waiting) waiting.push({ resolve, reject });
      else batch.set(account, [{ resolve, reject }]);
    });
  }

  /** The revision reads asked since the last query was sent, by account. */
  private revisionsAsked?: Map<string, { resolve: (revision: number) => void; reject: (e: unknown) => void }[]>;

  private readRevisions(): void {
    const batch = this.revisionsAsked!;
    this.revisionsAsked = undefined;
    this.read<{ account: string; revision: string }>('SELECT account, revision FROM list_revisions WHERE account = ANY ($1::text[])', [[...batch.keys()]]).then(
      ({ rows }) => {
        const revisions = new Map(rows.map((r) => [r.account, Number(r.revision)]));
        for (const [account, waiting] of batch) for (const w of waiting) w.resolve(revisions.get(account) ?? 0);
      },
      (e: unknown) => {
        for (const waiting of batch.values()) for (const w of waiting) w.reject(e);
      },
    );
  }
}

/**
 * A refusal that must leave nothing behind (the revision moved first): thrown out of the transaction,
 * which then rolls back, and turned back into its value by {@link refusable}.
 */
class Refused<T> extends Error {
  constructor(readonly value: T) {
    super('refused');
  }
}

function refused<T>(value: T): never {
  throw new Refused(value);
}

/** `p`, or the value of the refusal it was rejected with. */
function refusable<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (e instanceof Refused) return e.value as T;
    throw e;
  });
}
