/**
 * The PostgreSQL store against a throwaway cluster (test/helpers/postgres.ts): the shared suite, each test
 * in a schema of its own (a database where migrations are under test), then what only a shared database has to get right: writers in separate
 * processes racing on one ruleset.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { rulesetJson, MIGRATIONS, openPostgresStore, openStore, type Owner, type Store, type Stored, type StoredRuleset } from '../../src/server/store/index.js';
import { newRuleset, replaceRules } from '../../src/server/records.js';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { describeNeedsTool, needsTool } from '../helpers/tools.js';
import { ruleset, storeSuite } from './store-suite.js';
import { storeLogpushExtraSuite } from './store-logpush-extra-suite.js';

const it = needsTool('postgres');
const WORKER = fileURLToPath(new URL('../helpers/pg-race-worker.ts', import.meta.url));
const PIPELINE_WORKER = fileURLToPath(new URL('../helpers/pg-pipeline-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describeNeedsTool('postgres')('postgres store', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  storeSuite('postgres', async () => openPostgresStore({ connectionString: await cluster.createSchema() }));
  storeLogpushExtraSuite('postgres', async () => openPostgresStore({ connectionString: await cluster.createSchema() }));

  it('is what openStore opens for a postgres:// URL, and migrates once however many open it at once', async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore({ databaseUrl: url })));
    try {
      expect(stores.map((s) => s.kind)).toEqual(['postgres', 'postgres', 'postgres', 'postgres']);
      await stores[0]!.createRuleset(A, ruleset('m1'));
      expect((await stores[3]!.getRuleset(A, 'm1'))!.record.id).toBe('m1');
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    const reopened = await openStore({ databaseUrl: url });
    await reopened.close();
    expect(await sql(url, 'SELECT version FROM schema_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
  });

  it('keeps history rows in the table, compressed with lz4 (Debian’s PostgreSQL has lz4): a compact row leaves the TOAST table empty', async () => {
    const url = await cluster.createDatabase();
    const store = await openStore({ databaseUrl: url });
    try {
      expect(await sql(url, `SELECT attname, attstorage, attcompression FROM pg_attribute WHERE attrelid IN ('ruleset_versions'::regclass, 'rule_contents'::regclass) AND attname IN ('body', 'parts') ORDER BY attname`))
        .toEqual([{ attname: 'body', attstorage: 'm', attcompression: 'l' }, { attname: 'parts', attstorage: 'x', attcompression: 'l' }]);
      // A history row over the TOAST threshold (~2 KB) of ids that do not compress.
      const rules = Array.from({ length: 60 }, (_, i) => ({ ...ruleset('t').rules[0]!, id: `${i}`.padStart(32, 'f').replace(/f/g, () => 'abcdef0123456789'[Math.floor(Math.random() * 16)]!), ref: `r${i}` }));
      await store.createRuleset(A, ruleset('t', { rules }));
      expect(Number(((await sql(url, `SELECT max(octet_length(body)) AS n FROM ruleset_versions`)) as { n: number }[])[0]!.n)).toBeGreaterThan(2100);
      expect(await sql(url, `SELECT pg_relation_size(reltoastrelid)::int AS toast FROM pg_class WHERE relname = 'ruleset_versions'`)).toEqual([{ toast: 0 }]);
      expect((await store.getRuleset(A, 't'))!.record.rules.length).toBe(60);
    } finally {
      await store.close();
    }
  });

  it('writes rule contents met for the first time as the whole text, and as contents and a compact row from their second time on', async () => {
    const url = await cluster.createDatabase();
    const s = await openStore({ databaseUrl: url });
    try {
      const rules = Array.from({ length: 20 }, (_, i) => ({ action: i % 4 ? 'block' : 'skip', expression: `tcp.dstport == ${i}`, description: `rule "${i}" é` }));
      const body = Object.freeze({ name: 'fw', kind: 'root', phase: 'network_transit', rules: Object.freeze(rules.map((r) => Object.freeze(r))) });
      const created = await s.createRuleset(A, newRuleset(body, '2026-01-01T00:00:00.000Z'));
      if (!('created' in created)) throw new Error('not created');
      const texts = [created.created.json];
      for (let i = 0; i < 3; i++) {
        // The same rules again (new ids), then an edit (contents never seen), then the same rules again.
        const put = (current: StoredRuleset) => (i === 1 ? { rules: [{ ...rules[0], id: current.rules[0]!.id }, { ...rules[1], description: 'changed' }] } : body);
        const out = await s.updateRuleset(A, created.created.record.id, (current) => replaceRules(current, put(current), `2026-01-0${i + 2}T00:00:00.000Z`) as { next: StoredRuleset });
        if (!('ok' in out)) throw new Error('not updated');
        texts.push(out.ok.json);
      }
      const rows = (await sql(url, 'SELECT body, contents FROM ruleset_versions ORDER BY version')) as { body: string; contents: string | null }[];
      expect(rows.map((r) => r.contents !== null)).toEqual([false, true, false, true]);
      expect(rows[0]!.body).toBe(texts[0]);
      expect(rows[2]!.body).toBe(texts[2]);
      expect(await sql(url, 'SELECT COUNT(*)::int AS n FROM rule_contents')).toEqual([{ n: 1 }]);
      expect((await s.rulesetVersions(A, created.created.record.id)).map((v) => JSON.stringify(v))).toEqual(texts);
    } finally {
      await s.close();
    }
  });

  it('never writes a history row naming rule contents that are not there (no foreign key since schema version 6: the group checks)', async () => {
    const url = await cluster.createDatabase();
    const s = await openStore({ databaseUrl: url });
    try {
      expect(await sql(url, `SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'ruleset_versions'::regclass AND contype = 'f'`)).toEqual([{ n: 0 }]);
      const rules = Array.from({ length: 5 }, (_, i) => ({ action: 'block', expression: `tcp.dstport == ${i}` }));
      const body = Object.freeze({ name: 'fw', kind: 'root', phase: 'network_transit', rules: Object.freeze(rules.map((r) => Object.freeze(r))) });
      const created = await s.createRuleset(A, newRuleset(body, '2026-01-01T00:00:00.000Z'));
      if (!('created' in created)) throw new Error('not created');
      const id = created.created.record.id;
      const put = () => s.updateRuleset(A, id, (current) => replaceRules(current, body, '2026-01-02T00:00:00.000Z') as { next: StoredRuleset });
      // The same rules a second time: written as contents and a compact row, but every insert of contents fails.
      await sql(url, `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no contents today'; END $$;
        CREATE TRIGGER refuse BEFORE INSERT ON rule_contents FOR EACH ROW EXECUTE FUNCTION refuse()`);
      await expect(put()).rejects.toThrow(/no contents today/);
      expect(await sql(url, 'SELECT version FROM rulesets')).toEqual([{ version: 1 }]);
      expect(await sql(url, 'SELECT count(*)::int AS n FROM ruleset_versions')).toEqual([{ n: 1 }]);
      // Once contents can be written, the same PUT writes them and its compact row.
      await sql(url, 'DROP TRIGGER refuse ON rule_contents');
      const out = await put();
      if (!('ok' in out)) throw new Error('not updated');
      expect(await sql(url, 'SELECT version, contents IS NOT NULL AS compact FROM ruleset_versions ORDER BY version')).toEqual([{ version: 1, compact: false }, { version: 2, compact: true }]);
      expect(await sql(url, 'SELECT count(*)::int AS n FROM ruleset_versions v LEFT JOIN rule_contents c ON c.digest = v.contents WHERE v.contents IS NOT NULL AND c.digest IS NULL')).toEqual([{ n: 0 }]);
      const reopened = await openStore({ databaseUrl: url });
      try {
        expect((await reopened.getRuleset(A, id))!.json).toBe(out.ok.json);
      } finally {
        await reopened.close();
      }
    } finally {
      await s.close();
    }
  });

  it('opens a database an earlier rulekit wrote (schema version 1: the text in both tables) and migrates it', async () => {
    const url = await cluster.createDatabase();
    const v1 = ruleset('old');
    const v2 = { ...v1, version: '2', name: 'rs old, second' };
    await sql(url, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL); ${MIGRATIONS[0]!.postgres}`);
    await sql(url, `INSERT INTO schema_migrations VALUES (1, 'v1', '2026-01-01');
      INSERT INTO rulesets (id, scope, owner, kind, phase, version, body) VALUES ('old', 'accounts', 'acc1', 'root', 'network_transit', 2, '${JSON.stringify(v2)}');
      INSERT INTO ruleset_versions VALUES ('old', 1, '${JSON.stringify(v1)}'), ('old', 2, '${JSON.stringify(v2)}')`);
    const s = await openStore({ databaseUrl: url });
    try {
      expect((await s.getRuleset(A, 'old'))?.record).toEqual(v2);
      expect(await s.listRulesets(A)).toEqual([v2]);
      expect(await s.updateRuleset(A, 'old', bump)).toEqual({ ok: { record: { ...v2, version: '3', name: 'rs old, second+' }, json: JSON.stringify({ ...v2, version: '3', name: 'rs old, second+' }) } });
      expect((await s.rulesetVersions(A, 'old')).map((r) => r.version)).toEqual(['1', '2', '3']);
    } finally {
      await s.close();
    }
    expect(await sql(url, 'SELECT version FROM schema_migrations ORDER BY version')).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
  });

  it('a group that loses the optimistic write twice to another writer takes the row lock, and nothing is lost', async () => {
    const url = await cluster.createSchema();
    const s = await openPostgresStore({ connectionString: url });
    try {
      await s.createRuleset(A, ruleset('contended', { kind: 'custom' }));
      // Another replica's write, made between this store's read and its write (synchronously, from a
      // process of its own): the optimistic statement then finds another version and writes nothing.
      const otherWrites = (lockTimeout = 0) => execFileSync(process.execPath, ['--input-type=module', '-e', `
        import pg from 'pg';
        const c = new pg.Client({ connectionString: ${JSON.stringify(url)} });
        await c.connect();
        await c.query("SET lock_timeout = ${lockTimeout}");
        const { rows } = await c.query("UPDATE rulesets SET version = version + 1 WHERE id = 'contended' RETURNING version");
        const v = rows[0].version;
        await c.query('INSERT INTO ruleset_versions VALUES ($1, $2, $3)', ['contended', v, JSON.stringify({ ...${JSON.stringify(ruleset('contended', { kind: 'custom' }))}, version: String(v), name: 'other ' + v })]);
        await c.end();
      `], { cwd: ROOT, stdio: 'pipe' });
      let calls = 0;
      const seen: string[] = [];
      const r = await s.updateRuleset(A, 'contended', (current) => {
        calls++;
        seen.push(current.version);
        if (calls <= 2) otherWrites();
        // The third round holds the row's lock: the other writer now waits (and gives up after 300 ms).
        else expect(() => otherWrites(300)).toThrow(/lock timeout/);
        return bump(current);
      });
      expect(seen).toEqual(['1', '2', '3']);
      expect(r).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '4', name: 'other 3+' }) }) });
      expect((await s.rulesetVersions(A, 'contended')).map((v) => [v.version, v.name])).toEqual([['1', 'rs contended'], ['2', 'other 2'], ['3', 'other 3'], ['4', 'other 3+']]);
    } finally {
      await s.close();
    }
  });

  it('a group whose row lock waits for another writer reads that writer’s version once it commits (not nothing: no 404)', async () => {
    const url = await cluster.createSchema();
    const s = await openPostgresStore({ connectionString: url });
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-pg-lock-'));
    const locked = join(dir, 'locked');
    try {
      await s.createRuleset(A, ruleset('waited', { kind: 'custom' }));
      const other = (v: string) => JSON.stringify({ ...ruleset('waited', { kind: 'custom' }), version: v, name: `other ${v}` });
      const moveTo = (v: number) => `UPDATE rulesets SET version = ${v} WHERE id = 'waited'; INSERT INTO ruleset_versions VALUES ('waited', ${v}, '${other(String(v))}');`;
      let holder: ReturnType<typeof spawn> | undefined;
      let calls = 0;
      const seen: string[] = [];
      const r = await s.updateRuleset(A, 'waited', (current) => {
        calls++;
        seen.push(current.version);
        if (calls === 1) execFileSync(process.execPath, ['--input-type=module', '-e', pgScript(url, moveTo(2))], { cwd: ROOT, stdio: 'pipe' });
        if (calls === 2) {
          // Moves the version to 3 and to 4 in a transaction it holds open ~0.5 s: this round's write
          // finds version 3 at once (its condition names 2), and the locked round waits for 4.
          execFileSync(process.execPath, ['--input-type=module', '-e', pgScript(url, moveTo(3))], { cwd: ROOT, stdio: 'pipe' });
          holder = spawn(process.execPath, ['--input-type=module', '-e', pgScript(url, `BEGIN; ${moveTo(4)}`, locked, 'COMMIT')], { cwd: ROOT, stdio: 'pipe' });
          const until = Date.now() + 20_000;
          while (!existsSync(locked) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
        return bump(current);
      });
      expect(existsSync(locked)).toBe(true);
      expect(seen).toEqual(['1', '2', '4']);
      expect(r).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '5', name: 'other 4+' }) }) });
      await new Promise((done) => (holder!.exitCode === null ? holder!.once('exit', done) : done(undefined)));
      expect(holder!.exitCode).toBe(0);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a replica that starts a group from the version it last saw finds another replica’s write: writes, dry runs, refusals and reads all see it', async () => {
    const url = await cluster.createSchema();
    const [a, b] = await Promise.all([openPostgresStore({ connectionString: url }), openPostgresStore({ connectionString: url })]);
    try {
      await a.createRuleset(A, ruleset('shared', { kind: 'custom' }));
      await a.updateRuleset(A, 'shared', bump);
      // a last saw version 2; b moves it to 3.
      expect(await b.updateRuleset(A, 'shared', bump)).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '3' }) }) });
      const seen: string[] = [];
      const record = (change: (r: StoredRuleset) => { next: StoredRuleset } | { refused: [] }) => (r: StoredRuleset) => {
        seen.push(r.version);
        return change(r);
      };
      // A dry run writes nothing, so no condition of a write checks its start: it is checked by a read.
      expect(await a.updateRuleset(A, 'shared', record(bump), { dryRun: true })).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '4', name: 'rs shared+++' }) }) });
      expect(await b.updateRuleset(A, 'shared', bump)).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '4' }) }) });
      // A refusal too (whether a PUT names a known rule id depends on the version it is checked against).
      expect(await a.updateRuleset(A, 'shared', record((r) => (r.version === '4' ? { refused: [] as [] } : bump(r))))).toEqual({ refused: [] });
      expect(await b.updateRuleset(A, 'shared', bump)).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '5' }) }) });
      // A write: its condition finds version 5, and the group is computed again on it.
      expect(await a.updateRuleset(A, 'shared', record(bump))).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '6', name: 'rs shared+++++' }) }) });
      expect(seen).toEqual(['2', '3', '3', '4', '4', '5']);
      expect((await a.getRuleset(A, 'shared'))!.record.version).toBe('6');
      await b.updateRuleset(A, 'shared', bump);
      expect((await a.getRuleset(A, 'shared'))!.record.version).toBe('7');
      // Deleted by the other replica: a group that starts from the cache finds no row, and answers not found.
      await b.deleteRuleset(A, 'shared');
      expect(await a.updateRuleset(A, 'shared', bump)).toEqual({ notFound: true });
      expect(await a.getRuleset(A, 'shared')).toBeUndefined();
      expect((await a.rulesetVersions(A, 'shared')).length).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a group computed on the record of the group before it writes nothing when that group lost to another replica, even at the same version number', async () => {
    const url = await cluster.createSchema();
    const s = await openPostgresStore({ connectionString: url });
    try {
      await s.createRuleset(A, ruleset('piped', { kind: 'custom' }));
      // Connections opened beforehand, as a busy server has them: the second group's statement then goes
      // out at once rather than after a new connection's handshake.
      await Promise.all(Array.from({ length: 4 }, () => s.listRulesets(A)));
      // Another replica moves version 1 to 2 while the first group is computed: that group's statement
      // (from version 1) writes nothing; the second group, launched meanwhile on the first group's
      // record (version 2), finds version 2 too, but not the first group's token.
      const otherWrites = () => execFileSync(process.execPath, ['--input-type=module', '-e', `
        import pg from 'pg';
        const c = new pg.Client({ connectionString: ${JSON.stringify(url)} });
        await c.connect();
        const { rows } = await c.query("UPDATE rulesets SET version = version + 1 WHERE id = 'piped' RETURNING version");
        const v = rows[0].version;
        await c.query('INSERT INTO ruleset_versions VALUES ($1, $2, $3)', ['piped', v, JSON.stringify({ ...${JSON.stringify(ruleset('piped', { kind: 'custom' }))}, version: String(v), name: 'other ' + v })]);
        await c.end();
      `], { cwd: ROOT, stdio: 'pipe' });
      const seenBySecond: string[] = [];
      let second: Promise<unknown> | undefined;
      let calls = 0;
      const first = s.updateRuleset(A, 'piped', (current) => {
        if (calls++ === 0) {
          otherWrites();
          second = s.updateRuleset(A, 'piped', (r) => {
            seenBySecond.push(`${r.version} ${r.name}`);
            return bump(r);
          });
        } else {
          // The first group's second round holds this thread a while, so the second group's statement,
          // sent already, is surely run by the database before this round's write.
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
        }
        return bump(current);
      });
      expect(await first).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '3', name: 'other 2+' }) }) });
      expect(await second).toEqual({ ok: expect.objectContaining({ record: expect.objectContaining({ version: '4', name: 'other 2++' }) }) });
      // The second group was computed on the first's record before it knew (pipelined), then again.
      expect(seenBySecond).toEqual(['2 rs piped+', '3 other 2+']);
      expect((await s.rulesetVersions(A, 'piped')).map((v) => `${v.version} ${v.name}`)).toEqual(['1 rs piped', '2 other 2', '3 other 2+', '4 other 2++']);
    } finally {
      await s.close();
    }
  });

  it('with more busy rulesets than connections, every update and read ends (a ruleset’s groups never wait for a second connection)', async () => {
    const url = await cluster.createSchema();
    const s = await openPostgresStore({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 });
    try {
      const ids = ['b0', 'b1', 'b2', 'b3', 'b4'];
      for (const id of ids) await s.createRuleset(A, ruleset(id, { kind: 'custom' }));
      // Waves of updates on every ruleset, arriving over several turns of the event loop (so groups
      // pipeline), with reads and dry runs between them.
      const pending: Promise<unknown>[] = [];
      for (let turn = 0; turn < 12; turn++) {
        for (const id of ids) {
          // Dry runs in turns of their own: groups of dry runs only read the version before they answer.
          pending.push(turn % 2 ? s.updateRuleset(A, id, bump, { dryRun: true }) : s.updateRuleset(A, id, bump), s.getRuleset(A, id));
        }
        await new Promise((r) => setImmediate(r));
      }
      await Promise.all(pending);
      for (const id of ids) {
        const versions = await s.rulesetVersions(A, id);
        expect(versions.map((v) => v.version)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
        versions.forEach((v, i) => expect(v.name).toBe(`rs ${id}${'+'.repeat(i)}`));
      }
    } finally {
      await s.close();
    }
  });

  it('sends a ruleset’s next group behind the one in the database on the same connection (pipelined), not through pg’s queue, which pg 9 removes', async () => {
    // In a process of its own: Node prints pg's deprecation of queued queries once per process.
    const url = await cluster.createSchema();
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', PIPELINE_WORKER, url], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve({ stdout: out, stderr: err }) : reject(new Error(`worker exited ${code}: ${err}`))));
    });
    expect(stderr).not.toMatch(/already executing a query/);
    // 20 updates over 20 turns, answered in order: versions 2..21.
    expect(JSON.parse(stdout)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  });

  it('refuses a database migrated by a newer rulekit', async () => {
    const url = await cluster.createDatabase();
    await (await openStore({ databaseUrl: url })).close();
    await sql(url, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '2030-01-01')");
    await expect(openStore({ databaseUrl: url })).rejects.toThrow(/schema version 99, newer/);
  });

  it('lists in creation order after updates move rows', async () => {
    await withStore(async (s) => {
      for (const id of ['c1', 'c2', 'c3']) await s.createRuleset(A, ruleset(id, { kind: 'custom' }));
      await s.updateRuleset(A, 'c1', bump);
      await s.updateRuleset(A, 'c2', bump);
      expect((await s.listRulesets(A)).map((r) => r.id)).toEqual(['c1', 'c2', 'c3']);
    });
  });

  it('answers a job id no BIGINT can hold as no job, as SQLite does', async () => {
    await withStore(async (s) => {
      expect(await s.getJob(A, 1.5)).toBeUndefined();
      expect(await s.getJob(A, Number.MAX_VALUE)).toBeUndefined();
      expect(await s.updateJob(A, Number.NaN, (j) => ({ next: j }))).toEqual({ notFound: true });
      expect(await s.deleteJob(A, 2 ** 64)).toBe(false);
    });
  });

  it('answers phase-exists to the loser of a create race (the unique index, not the check, refuses it)', async () => {
    const url = await cluster.createSchema();
    const s = await openPostgresStore({ connectionString: url });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      // Another writer's entry point, inserted but not committed: the store's check cannot see it, so
      // its insert waits on the index until that commits, then fails with a unique violation.
      await other.query('BEGIN');
      await other.query("INSERT INTO rulesets (id, scope, owner, kind, phase, version) VALUES ('winner', 'zones', 'z', 'zone', 'ddos_l7', 1)");
      const loser = s.createRuleset({ scope: 'zones', id: 'z' }, ruleset('loser', { kind: 'zone', phase: 'ddos_l7' }));
      await waitForLockWait(other);
      await other.query('COMMIT');
      expect(await loser).toEqual({ phaseExists: 'winner' });
      expect(await s.getRuleset({ scope: 'zones', id: 'z' }, 'loser')).toBeUndefined();
      // Two creates of one process racing: one created, one told which.
      const both = await Promise.all([
        s.createRuleset({ scope: 'zones', id: 'y' }, ruleset('y1', { kind: 'zone', phase: 'ddos_l7' })),
        s.createRuleset({ scope: 'zones', id: 'y' }, ruleset('y2', { kind: 'zone', phase: 'ddos_l7' })),
      ]);
      const created = both.filter((r) => 'created' in r).map((r) => (r as { created: Stored<StoredRuleset> }).created.record.id);
      expect(created).toHaveLength(1);
      expect(both.find((r) => 'phaseExists' in r)).toEqual({ phaseExists: created[0] });
    } finally {
      await other.end();
      await s.close();
    }
  });

  it('serializes updates from two processes: no lost update, versions 1..101 without gap or duplicate; one create wins per phase', async () => {
    const url = await cluster.createSchema();
    const s = await openPostgresStore({ connectionString: url });
    try {
      await s.createRuleset(RACE, ruleset('hot', { kind: 'custom' }));
      const N = 50;
      const updates = await race(['update', url, 'hot', String(N)]);
      for (const results of updates) {
        expect(results).toHaveLength(N);
        for (const r of results) expect(r).toHaveProperty('ok');
      }
      const done = await s.getRuleset(RACE, 'hot');
      expect(done!.record.version).toBe(String(1 + 2 * N));
      expect(done!.record.name).toBe(`rs hot${'+'.repeat(2 * N)}`);
      const versions = await s.rulesetVersions(RACE, 'hot');
      expect(versions.map((v) => Number(v.version))).toEqual(Array.from({ length: 2 * N + 1 }, (_, i) => i + 1));
      // Each version is the one before it plus one write: none was computed from a stale read.
      versions.forEach((v, i) => expect(v.name).toBe(`rs hot${'+'.repeat(i)}`));
      // Every version each process was answered is one the other was not.
      const answered = updates.flat().map((r) => Number((r as { ok: Stored<StoredRuleset> }).ok.record.version));
      expect(new Set(answered).size).toBe(2 * N);

      const owners = 20;
      const creates = await race(['create', url, 'owner', String(owners)]);
      for (let i = 0; i < owners; i++) {
        const pair = creates.map((results) => results[i] as { created: Stored<StoredRuleset> } | { phaseExists: string });
        const winners = pair.filter((r) => 'created' in r);
        expect(winners).toHaveLength(1);
        const winner = (winners[0] as { created: Stored<StoredRuleset> }).created.record.id;
        expect(pair.find((r) => 'phaseExists' in r)).toEqual({ phaseExists: winner });
        expect((await s.listRulesets({ scope: 'zones', id: `owner-${i}` })).map((r) => r.id)).toEqual([winner]);
      }
    } finally {
      await s.close();
    }
  });

  const withStore = async (fn: (s: Store) => Promise<void>) => {
    const s = await openPostgresStore({ connectionString: await cluster.createSchema() });
    try {
      await fn(s);
    } finally {
      await s.close();
    }
  };
});

const A: Owner = { scope: 'accounts', id: 'acc1' };
const RACE: Owner = { scope: 'accounts', id: 'race' };
/** A script that runs `sql`; with `signal`, writes that file once it has and runs `then` ~0.5 s later. */
const pgScript = (url: string, sql: string, signal?: string, then?: string) => `
  import pg from 'pg';
  import { writeFileSync } from 'node:fs';
  const c = new pg.Client({ connectionString: ${JSON.stringify(url)} });
  await c.connect();
  await c.query(${JSON.stringify(sql)});
  ${signal ? `writeFileSync(${JSON.stringify(signal)}, '');
  await new Promise((r) => setTimeout(r, 500));
  await c.query(${JSON.stringify(then)});` : ''}
  await c.end();
`;

const bump = (r: StoredRuleset) => ({ next: { ...r, version: String(Number(r.version) + 1), name: `${r.name}+` } });

async function sql(url: string, text: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

/** Wait until some other session of the database waits on a lock (the store's insert, on the index). */
async function waitForLockWait(c: pg.Client): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the store never waited on the uncommitted entry point');
}

/** Run the race worker in two processes, start both together, and answer each one's results. */
async function race(args: string[]): Promise<unknown[][]> {
  const workers = [0, 1].map(() => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.startsWith('ready\n') && resolve());
      child.on('close', (code) => reject(new Error(`worker exited ${code} before it was ready: ${err}`)));
    });
    const done = new Promise<unknown[]>((resolve, reject) => {
      child.on('close', (code) => {
        if (code !== 0) return reject(new Error(`worker exited ${code}: ${err}`));
        resolve(JSON.parse(out.slice('ready\n'.length)) as unknown[]);
      });
    });
    return { child, ready, done };
  });
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.child.stdin.end('go\n');
  return Promise.all(workers.map((w) => w.done));
}
