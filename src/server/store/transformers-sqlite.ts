/**
 * {@link TransformerStore} on SQLite: statements prepared once, writes through the store's group commit.
 * @module
 */
import type Database from 'better-sqlite3';
import type { SqliteWrite } from './logpush-extra-sqlite.js';
import type { StoredTransformer, StoredTransformerVersion, TransformerStore } from './types.js';

const COLUMNS = 'id, name, description, dataset, created_at, updated_at';

export function sqliteTransformers(db: Database.Database, write: SqliteWrite): TransformerStore {
  const q = {
    list: db.prepare(`SELECT ${COLUMNS} FROM logpush_transformers WHERE account = ? ORDER BY id`),
    get: db.prepare(`SELECT ${COLUMNS} FROM logpush_transformers WHERE account = ? AND id = ?`),
    current: db.prepare('SELECT version FROM logpush_transformers WHERE account = ? AND id = ?').pluck(),
    insert: db.prepare('INSERT INTO logpush_transformers (account, name, description, dataset, version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)'),
    rename: db.prepare('UPDATE logpush_transformers SET name = ?, description = ?, updated_at = ? WHERE account = ? AND id = ?'),
    recode: db.prepare('UPDATE logpush_transformers SET name = ?, description = ?, dataset = ?, version = version + 1, updated_at = ? WHERE account = ? AND id = ?'),
    addVersion: db.prepare('INSERT INTO logpush_transformer_versions (transformer_id, version, code, created_at) VALUES (?, ?, ?, ?)'),
    delete: db.prepare('DELETE FROM logpush_transformers WHERE account = ? AND id = ?'),
    deleteVersions: db.prepare('DELETE FROM logpush_transformer_versions WHERE transformer_id = ?'),
    codeOf: db.prepare('SELECT code FROM logpush_transformer_versions WHERE transformer_id = ? AND version = ?').pluck(),
    codeById: db.prepare('SELECT code FROM logpush_transformer_versions WHERE transformer_id = ? AND id = ?').pluck(),
    versions: db.prepare('SELECT id, version, created_at FROM logpush_transformer_versions WHERE transformer_id = ? ORDER BY version DESC LIMIT ?'),
  };
  const get = (account: string, id: number) => q.get.get(account, id) as StoredTransformer | undefined;
  return {
    async list(account) {
      return q.list.all(account) as StoredTransformer[];
    },
    async get(account, id) {
      return get(account, id);
    },
    create(account, t, now) {
      return write(() => {
        const id = Number(q.insert.run(account, t.name, t.description, t.dataset, now, now).lastInsertRowid);
        q.addVersion.run(id, 1, t.code, now);
        return get(account, id)!;
      }, false);
    },
    update(account, id, t, now) {
      return write(() => {
        const version = q.current.get(account, id) as number | undefined;
        if (version === undefined) return undefined;
        if (t.code) {
          q.recode.run(t.name, t.description, t.code.dataset, now, account, id);
          q.addVersion.run(id, version + 1, t.code.code, now);
        } else q.rename.run(t.name, t.description, now, account, id);
        return get(account, id)!;
      }, false);
    },
    delete(account, id) {
      return write(() => {
        if (q.delete.run(account, id).changes === 0) return false;
        q.deleteVersions.run(id);
        return true;
      }, false);
    },
    async content(account, id, versionId) {
      const version = q.current.get(account, id) as number | undefined;
      if (version === undefined) return 'no-transformer';
      const code = (versionId === undefined ? q.codeOf.get(id, version) : q.codeById.get(id, versionId)) as string | undefined;
      return code ?? 'no-version';
    },
    async versions(account, id, limit) {
      if (q.current.get(account, id) === undefined) return undefined;
      return q.versions.all(id, limit) as StoredTransformerVersion[];
    },
  };
}
