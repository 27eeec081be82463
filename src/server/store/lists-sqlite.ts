/**
 * The account lists of the SQLite store (see {@link ListStore}). Writes go through the store's group
 * commit (`write`), reads straight to the database; a write of items that fails (a limit, an unknown
 * id) rolls its changes back to a savepoint and records the failed operation in the same transaction.
 * @module
 */
import type Database from 'better-sqlite3';
import type { ItemsPage, ItemsWrite, ListItemInput, ListStore, ListWriteLimits, StoredBulkOperation, StoredList, StoredListItem, WriteOptions } from './types.js';
import { randomId as newListId } from './random-ids.js';

/** Runs `fn` as one write of the store's group commit. */
export type SqliteWrite = <T>(fn: () => T, dryRun: boolean | undefined) => Promise<T>;

interface ListRow {
  id: string;
  name: string;
  kind: StoredList['kind'];
  description: string;
  created_on: string;
  modified_on: string;
  num_items: number;
}

interface ItemRow {
  id: string;
  key: string;
  text: string;
  body: string;
  created_on: string;
  modified_on: string;
}

const LIST_COLUMNS = 'l.id, l.name, l.kind, l.description, l.created_on, l.modified_on, (SELECT COUNT(*) FROM list_items i WHERE i.list_id = l.id) AS num_items';

export class SqliteListStore implements ListStore {
  private readonly q;

  constructor(private readonly db: Database.Database, private readonly write: SqliteWrite) {
    this.q = {
      lists: db.prepare(`SELECT ${LIST_COLUMNS} FROM lists l WHERE l.account = ? ORDER BY l.name`),
      list: db.prepare(`SELECT ${LIST_COLUMNS} FROM lists l WHERE l.account = ? AND l.id = ?`),
      byName: db.prepare('SELECT id FROM lists WHERE account = ? AND name = ?').pluck(),
      count: db.prepare('SELECT COUNT(*) FROM lists WHERE account = ?').pluck(),
      countOfKind: db.prepare('SELECT COUNT(*) FROM lists WHERE account = ? AND kind = ?').pluck(),
      itemsOfKind: db.prepare('SELECT COUNT(*) FROM list_items i JOIN lists l ON l.id = i.list_id WHERE l.account = ? AND l.kind = ?').pluck(),
      insertList: db.prepare('INSERT INTO lists (id, account, name, kind, description, created_on, modified_on) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      updateList: db.prepare('UPDATE lists SET description = ?, modified_on = ? WHERE account = ? AND id = ?'),
      touchList: db.prepare('UPDATE lists SET modified_on = ? WHERE id = ?'),
      deleteList: db.prepare('DELETE FROM lists WHERE account = ? AND id = ?'),
      deleteItems: db.prepare('DELETE FROM list_items WHERE list_id = ?'),
      deleteItem: db.prepare('DELETE FROM list_items WHERE list_id = ? AND id = ?'),
      itemByKey: db.prepare('SELECT id, created_on FROM list_items WHERE list_id = ? AND key = ?'),
      insertItem: db.prepare('INSERT INTO list_items (list_id, id, key, text, body, created_on, modified_on) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      updateItem: db.prepare('UPDATE list_items SET text = ?, body = ?, modified_on = ? WHERE list_id = ? AND id = ?'),
      item: db.prepare('SELECT i.id, i.key, i.text, i.body, i.created_on, i.modified_on FROM list_items i JOIN lists l ON l.id = i.list_id WHERE l.account = ? AND i.list_id = ? AND i.id = ?'),
      allItems: db.prepare('SELECT i.list_id, i.body FROM list_items i JOIN lists l ON l.id = i.list_id WHERE l.account = ? ORDER BY i.list_id, i.key'),
      insertOperation: db.prepare('INSERT INTO list_operations (id, account, status, completed, error) VALUES (?, ?, ?, ?, ?)'),
      operation: db.prepare('SELECT id, status, completed, error FROM list_operations WHERE account = ? AND id = ?'),
      bump: db.prepare('INSERT INTO list_revisions (account, revision) VALUES (?, 1) ON CONFLICT (account) DO UPDATE SET revision = revision + 1'),
      revision: db.prepare('SELECT revision FROM list_revisions WHERE account = ?').pluck(),
      savepoint: db.prepare('SAVEPOINT items'),
      release: db.prepare('RELEASE items'),
      rollbackTo: db.prepare('ROLLBACK TO items'),
    };
  }

  async listLists(account: string): Promise<StoredList[]> {
    return (this.q.lists.all(account) as ListRow[]).map(listOf);
  }

  async getList(account: string, id: string): Promise<StoredList | undefined> {
    const row = this.q.list.get(account, id) as ListRow | undefined;
    return row ? listOf(row) : undefined;
  }

  async createList(account: string, list: Omit<StoredList, 'num_items'>, limits: ListWriteLimits, options: WriteOptions = {}): Promise<{ created: StoredList } | { nameExists: string } | { limit: string }> {
    return this.write(() => {
      const taken = this.q.byName.get(account, list.name) as string | undefined;
      if (taken) return { nameExists: taken };
      const all = this.q.count.get(account) as number;
      if (all >= limits.maxLists) return { limit: `the account has ${all} lists, the most it may have` };
      const ofKind = this.q.countOfKind.get(account, list.kind) as number;
      if (ofKind >= limits.maxListsOfKind) return { limit: `the account has ${ofKind} ${list.kind} lists, the most it may have` };
      this.q.insertList.run(list.id, account, list.name, list.kind, list.description, list.created_on, list.modified_on);
      this.q.bump.run(account);
      return { created: { ...list, num_items: 0 } };
    }, options.dryRun);
  }

  async updateList(account: string, id: string, description: string, now: string, options: WriteOptions = {}): Promise<StoredList | undefined> {
    return this.write(() => {
      if (this.q.updateList.run(description, now, account, id).changes !== 1) return undefined;
      this.q.bump.run(account);
      return listOf(this.q.list.get(account, id) as ListRow);
    }, options.dryRun);
  }

  async deleteList(account: string, id: string, options: WriteOptions = {}): Promise<boolean> {
    return this.write(() => {
      if (this.q.deleteList.run(account, id).changes !== 1) return false;
      this.q.deleteItems.run(id);
      this.q.bump.run(account);
      return true;
    }, options.dryRun);
  }

  async listItems(account: string, listId: string, page: { after?: string; before?: string; limit?: number; search?: { text: string; match: 'prefix' | 'contains' | 'exact' } }): Promise<ItemsPage | undefined> {
    if (!this.q.list.get(account, listId)) return undefined;
    const where = ['list_id = ?'];
    const values: unknown[] = [listId];
    const s = page.search;
    if (s?.match === 'exact') (where.push('text = ?'), values.push(s.text));
    if (s?.match === 'prefix') (where.push('substr(text, 1, length(?)) = ?'), values.push(s.text, s.text));
    if (s?.match === 'contains') (where.push('instr(text, ?) > 0'), values.push(s.text));
    const backwards = page.before !== undefined && page.after === undefined;
    if (page.after !== undefined) (where.push('key > ?'), values.push(page.after));
    if (backwards) (where.push('key < ?'), values.push(page.before));
    const limit = page.limit ?? -1;
    const sql = `SELECT id, key, text, body, created_on, modified_on FROM list_items WHERE ${where.join(' AND ')} ORDER BY key ${backwards ? 'DESC' : 'ASC'} LIMIT ?`;
    const rows = this.db.prepare(sql).all(...values, limit < 0 ? -1 : limit + 1) as ItemRow[];
    return pageOf(rows.map(itemOf), limit, backwards, page.after !== undefined || page.before !== undefined);
  }

  async getItem(account: string, listId: string, itemId: string): Promise<StoredListItem | undefined> {
    const row = this.q.item.get(account, listId, itemId) as ItemRow | undefined;
    return row ? itemOf(row) : undefined;
  }

  async writeItems(account: string, listId: string, write: ItemsWrite, operation: { id: string; now: string }, limits: ListWriteLimits, options: WriteOptions = {}): Promise<StoredBulkOperation | undefined> {
    return this.write((): StoredBulkOperation | undefined => {
      const list = this.q.list.get(account, listId) as ListRow | undefined;
      if (!list) return undefined;
      this.q.savepoint.run();
      let error: string | undefined;
      try {
        error = this.apply(listId, write, operation.now);
        if (error === undefined) {
          const total = this.q.itemsOfKind.get(account, list.kind) as number;
          if (total > limits.maxItemsOfKind) error = itemsLimitError(total, list.kind, limits.maxItemsOfKind);
        }
        if (error !== undefined) this.q.rollbackTo.run();
      } finally {
        this.q.release.run();
      }
      if (error === undefined) this.q.touchList.run(operation.now, listId);
      const done: StoredBulkOperation = error === undefined ? { id: operation.id, status: 'completed', completed: operation.now } : { id: operation.id, status: 'failed', completed: operation.now, error };
      this.q.insertOperation.run(done.id, account, done.status, done.completed, done.error ?? null);
      this.q.bump.run(account);
      return done;
    }, options.dryRun);
  }

  /** The changes of a write of items; a reason when it cannot be made (the caller rolls back). */
  private apply(listId: string, write: ItemsWrite, now: string): string | undefined {
    if (write.mode === 'delete') {
      for (const id of write.ids) if (this.q.deleteItem.run(listId, id).changes !== 1) return `the list has no item ${id}`;
      return undefined;
    }
    if (write.mode === 'replace') this.q.deleteItems.run(listId);
    for (const item of write.items) this.upsert(listId, item, now);
    return undefined;
  }

  private upsert(listId: string, item: ListItemInput, now: string): void {
    const found = this.q.itemByKey.get(listId, item.key) as { id: string; created_on: string } | undefined;
    if (found) this.q.updateItem.run(item.text, JSON.stringify(item.value), now, listId, found.id);
    else this.q.insertItem.run(listId, newListId(), item.key, item.text, JSON.stringify(item.value), now, now);
  }

  async getOperation(account: string, id: string): Promise<StoredBulkOperation | undefined> {
    const row = this.q.operation.get(account, id) as { id: string; status: 'completed' | 'failed'; completed: string; error: string | null } | undefined;
    return row ? operationOf(row) : undefined;
  }

  async listsWithItems(account: string): Promise<{ list: StoredList; values: Record<string, unknown>[] }[]> {
    const lists = await this.listLists(account);
    const byId = new Map(lists.map((list) => [list.id, { list, values: [] as Record<string, unknown>[] }]));
    for (const row of this.q.allItems.all(account) as { list_id: string; body: string }[]) byId.get(row.list_id)?.values.push(JSON.parse(row.body) as Record<string, unknown>);
    return [...byId.values()];
  }

  async revision(account: string): Promise<number> {
    return Number((this.q.revision.get(account) as number | bigint | undefined) ?? 0);
  }
}

/** A list row as a record (COUNT comes back as a number or, on PostgreSQL, a string). */
export function listOf(row: Omit<ListRow, 'num_items'> & { num_items: number | string }): StoredList {
  return { id: row.id, name: row.name, description: row.description, kind: row.kind, num_items: Number(row.num_items), created_on: row.created_on, modified_on: row.modified_on };
}

export function itemOf(row: ItemRow): StoredListItem {
  return { id: row.id, key: row.key, text: row.text, value: JSON.parse(row.body) as Record<string, unknown>, created_on: row.created_on, modified_on: row.modified_on };
}

export function operationOf(row: { id: string; status: 'completed' | 'failed'; completed: string; error: string | null }): StoredBulkOperation {
  return row.error === null ? { id: row.id, status: row.status, completed: row.completed } : { id: row.id, status: row.status, completed: row.completed, error: row.error };
}

export function itemsLimitError(total: number, kind: string, max: number): string {
  return `the account's ${kind} lists would hold ${total} items, more than the ${max} allowed across them; nothing was changed`;
}

/**
 * A page from rows read one past `limit` (limit < 0: all), in key order; rows read backwards (before a
 * key) are put back in order. `paged`: the request named a cursor, so items come before this page.
 */
export function pageOf(rows: StoredListItem[], limit: number, backwards: boolean, paged: boolean): ItemsPage {
  const more = limit >= 0 && rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  if (backwards) items.reverse();
  const page: ItemsPage = { items };
  if (!items.length) return page;
  if (backwards ? paged : more) page.after = items[items.length - 1]!.key;
  if (backwards ? more : paged) page.before = items[0]!.key;
  return page;
}
