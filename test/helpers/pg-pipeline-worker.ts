/**
 * A process of its own for the PostgreSQL store's pipelining test (test/server/store.postgres.test.ts):
 * PUTs of one ruleset arriving over several turns of the event loop while another session holds the
 * ruleset's row, so a group is sent while the one before it waits in the database. All send the same
 * frozen body (as the server's memo of parsed bodies hands it out): the first group writes its rules
 * whole, the second as a compact row after a statement of its own writing the rule contents, so that
 * group sends two statements behind the first. Prints the versions answered as one JSON line; whatever
 * pg warns of goes to stderr (Node prints a deprecation once per process, hence a process per run).
 *
 *   node --import tsx test/helpers/pg-pipeline-worker.ts URL
 */
import pg from 'pg';
import { newRuleset, replaceRules } from '../../src/server/records.js';
import { openPostgresStore } from '../../src/server/store/postgres.js';
import type { Owner, Stored, StoredRuleset } from '../../src/server/store/types.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: pg-pipeline-worker.ts URL');
  process.exit(2);
}
const owner: Owner = { scope: 'accounts', id: 'pipeline' };
const store = await openPostgresStore({ connectionString: url, max: 2 });
try {
  const created = await store.createRuleset(owner, newRuleset({ name: 'p', kind: 'custom', phase: 'network_transit', rules: [] }, '2026-01-01T00:00:00.000Z'));
  if (!('created' in created)) throw new Error('not created');
  const id = created.created.record.id;
  const body = Object.freeze({ rules: Object.freeze([Object.freeze({ action: 'block', expression: 'tcp.dstport == 22', description: 'ssh' })]) });
  const put = () => store.updateRuleset(owner, id, (current) => replaceRules(current, body, '2026-01-02T00:00:00.000Z') as { next: StoredRuleset });
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT 1 FROM rulesets WHERE id = $1 FOR UPDATE', [id]);
  const pending: Promise<unknown>[] = [];
  for (let turn = 0; turn < 20; turn++) {
    if (turn === 10) await holder.query('COMMIT');
    pending.push(put());
    await new Promise((r) => setTimeout(r, 1));
  }
  await holder.end();
  const answers = (await Promise.all(pending)) as { ok: Stored<StoredRuleset> }[];
  process.stdout.write(`${JSON.stringify(answers.map((a) => Number(a.ok.record.version)))}\n`);
} finally {
  await store.close();
}
