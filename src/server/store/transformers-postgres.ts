/**
 * {@link TransformerStore} on PostgreSQL: reads through the pool, writes in the store's transactions.
 * A write locks the transformer's row (`FOR UPDATE`), so two replicas saving the same transformer at once
 * make two versions one after the other, never two of one number.
 * @module
 */
import type { PostgresAccess } from './logpush-extra-postgres.js';
import type { StoredTransformer, StoredTransformerVersion, TransformerStore } from './types.js';

const COLUMNS = 'id, name, description, dataset, created_at, updated_at';

interface Row { id: string; name: string; description: string; dataset: string | null; created_at: string; updated_at: string }
/** BIGINT ids arrive as strings (pg's default); they stay far below 2^53. */
const transformer = (r: Row): StoredTransformer => ({ ...r, id: Number(r.id) });

export function postgresTransformers(db: PostgresAccess): TransformerStore {
  const current = async (account: string, id: number): Promise<number | undefined> => {
    const { rows } = await db.read<{ version: number }>('SELECT version FROM logpush_transformers WHERE account = $1 AND id = $2', [account, id]);
    return rows[0]?.version;
  };
  return {
    async list(account) {
      const { rows } = await db.read<Row>(`SELECT ${COLUMNS} FROM logpush_transformers WHERE account = $1 ORDER BY id`, [account]);
      return rows.map(transformer);
    },
    async get(account, id) {
      const { rows } = await db.read<Row>(`SELECT ${COLUMNS} FROM logpush_transformers WHERE account = $1 AND id = $2`, [account, id]);
      return rows[0] && transformer(rows[0]);
    },
    create(account, t, now) {
      return db.write(async (c) => {
        const { rows } = await c.query<Row>(
          `INSERT INTO logpush_transformers (account, name, description, dataset, version, created_at, updated_at) VALUES ($1, $2, $3, $4, 1, $5, $5) RETURNING ${COLUMNS}`,
          [account, t.name, t.description, t.dataset, now],
        );
        await c.query('INSERT INTO logpush_transformer_versions (transformer_id, version, code, created_at) VALUES ($1, 1, $2, $3)', [rows[0]!.id, t.code, now]);
        return transformer(rows[0]!);
      }, false);
    },
    update(account, id, t, now) {
      return db.write(async (c) => {
        const held = await c.query<{ version: number }>('SELECT version FROM logpush_transformers WHERE account = $1 AND id = $2 FOR UPDATE', [account, id]);
        const version = held.rows[0]?.version;
        if (version === undefined) return undefined;
        let rows: Row[];
        if (t.code) {
          ({ rows } = await c.query<Row>(
            `UPDATE logpush_transformers SET name = $1, description = $2, dataset = $3, version = version + 1, updated_at = $4 WHERE account = $5 AND id = $6 RETURNING ${COLUMNS}`,
            [t.name, t.description, t.code.dataset, now, account, id],
          ));
          await c.query('INSERT INTO logpush_transformer_versions (transformer_id, version, code, created_at) VALUES ($1, $2, $3, $4)', [id, version + 1, t.code.code, now]);
        } else {
          ({ rows } = await c.query<Row>(`UPDATE logpush_transformers SET name = $1, description = $2, updated_at = $3 WHERE account = $4 AND id = $5 RETURNING ${COLUMNS}`, [t.name, t.description, now, account, id]));
        }
        return transformer(rows[0]!);
      }, false);
    },
    delete(account, id) {
      return db.write(async (c) => {
        const { rowCount } = await c.query('DELETE FROM logpush_transformers WHERE account = $1 AND id = $2', [account, id]);
        if (!rowCount) return false;
        await c.query('DELETE FROM logpush_transformer_versions WHERE transformer_id = $1', [id]);
        return true;
      }, false);
    },
    async content(account, id, versionId) {
      const version = await current(account, id);
      if (version === undefined) return 'no-transformer';
      const { rows } = versionId === undefined
        ? await db.read<{ code: string }>('SELECT code FROM logpush_transformer_versions WHERE transformer_id = $1 AND version = $2', [id, version])
        : await db.read<{ code: string }>('SELECT code FROM logpush_transformer_versions WHERE transformer_id = $1 AND id = $2', [id, versionId]);
      return rows[0]?.code ?? 'no-version';
    },
    async versions(account, id, limit) {
      if ((await current(account, id)) === undefined) return undefined;
      const { rows } = await db.read<{ id: string; version: number; created_at: string }>(
        'SELECT id, version, created_at FROM logpush_transformer_versions WHERE transformer_id = $1 ORDER BY version DESC LIMIT $2', [id, limit],
      );
      return rows.map((r): StoredTransformerVersion => ({ id: Number(r.id), version: r.version, created_at: r.created_at }));
    },
  };
}
