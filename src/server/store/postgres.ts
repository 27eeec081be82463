/**
 * PostgreSQL store (placeholder until implemented): several server replicas share one database.
 * @module
 */
import type { Store } from './types.js';

export interface PostgresStoreOptions {
  connectionString: string;
}

export async function openPostgresStore(_options: PostgresStoreOptions): Promise<Store> {
  throw new Error('the PostgreSQL store is not implemented yet');
}
