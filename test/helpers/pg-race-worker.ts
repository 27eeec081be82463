/**
 * One process of the PostgreSQL race test (test/server/store.postgres.test.ts): opens its own store on
 * the database it is given, prints "ready", waits for "go" on stdin so both processes start their writes
 * together, then prints one JSON line of results.
 *
 *   node --import tsx test/helpers/pg-race-worker.ts update URL RULESET_ID N   N concurrent version bumps
 *   node --import tsx test/helpers/pg-race-worker.ts create URL PREFIX N       entry-point creates for N owners
 */
import { createInterface } from 'node:readline';
import { openPostgresStore } from '../../src/server/store/postgres.js';
import type { Owner, StoredRuleset } from '../../src/server/store/types.js';

const [mode, url, name, count] = process.argv.slice(2);
const n = Number(count);
if ((mode !== 'update' && mode !== 'create') || !url || !name || !Number.isInteger(n)) {
  console.error('usage: pg-race-worker.ts update|create URL NAME N');
  process.exit(2);
}

// The test creates the ruleset under this owner.
const RACE_OWNER: Owner = { scope: 'accounts', id: 'race' };

const store = await openPostgresStore({ connectionString: url, max: 10 });
await store.ping();
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line === 'go') break;
lines.close();

let results: unknown[];
if (mode === 'update') {
  results = await Promise.all(
    Array.from({ length: n }, () =>
      store.updateRuleset(RACE_OWNER, name, (r) => ({ next: { ...r, version: String(Number(r.version) + 1), name: `${r.name}+` } })),
    ),
  );
} else {
  // Ruleset ids are unique per process (the primary key must not be what refuses the loser).
  results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.createRuleset({ scope: 'zones', id: `${name}-${i}` }, entryPoint(`${name}-${i}-${process.pid}`)),
    ),
  );
}
await store.close();
process.stdout.write(`${JSON.stringify(results)}\n`);

/** Made here rather than taken from store-suite.ts, which imports vitest (this runs outside it). */
function entryPoint(id: string): StoredRuleset {
  return { id, name: `rs ${id}`, description: '', kind: 'zone', phase: 'http_request_firewall_custom', version: '1', last_updated: '2026-01-01T00:00:00.000Z', rules: [] };
}
