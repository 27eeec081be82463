import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { DataDirLockedError, rulesetJson, MIGRATIONS, openSqliteStore, openStore, type StoredRuleset } from '../../src/server/store/index.js';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { newRuleset, replaceRules } from '../../src/server/records.js';
import { ruleset, storeSuite } from './store-suite.js';
import { storeLogpushExtraSuite } from './store-logpush-extra-suite.js';

storeSuite('sqlite in memory', async () => openSqliteStore({ path: ':memory:' }));
storeLogpushExtraSuite('sqlite in memory', async () => openSqliteStore({ path: ':memory:' }));

describe('sqlite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('one store per data directory at a time: a second open is refused naming the holder; a lock left by a dead process is taken over', async () => {
    const data = mkdtempSync(join(tmpdir(), 'rulekit-store-lock-'));
    try {
      const s1 = await openStore({ dataDir: data });
      const refused = await openStore({ dataDir: data }).then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(DataDirLockedError);
      expect((refused as Error).message).toContain(`rulekit process ${process.pid}`);
      expect((refused as Error).message).toMatch(/one process per SQLite data directory/);
      await s1.close();
      expect(existsSync(join(data, 'rulekit.lock'))).toBe(false);
      // A process that died holding the lock (SIGKILL): its pid is no process now.
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
      writeFileSync(join(data, 'rulekit.lock'), `${dead}\n`);
      const s2 = await openStore({ dataDir: data });
      await s2.createRuleset({ scope: 'accounts', id: 'a' }, ruleset('r1'));
      await s2.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('keeps what it stored across a reopen, and migrates once', async () => {
    const s1 = await openStore({ dataDir: dir });
    await s1.createRuleset({ scope: 'accounts', id: 'a' }, ruleset('r1'));
    await s1.close();
    const file = new Database(join(dir, 'rulekit.sqlite'), { readonly: true });
    expect(file.pragma('page_size', { simple: true })).toBe(16384);
    file.close();
    const s2 = await openStore({ dataDir: dir });
    expect((await s2.getRuleset({ scope: 'accounts', id: 'a' }, 'r1'))!.record.name).toBe('rs r1');
    await s2.close();
  });

  it('keeps the rules of records made from bodies once (compact history rows), and reads back every version byte for byte', async () => {
    const data = mkdtempSync(join(tmpdir(), 'rulekit-store-compact-'));
    try {
      const A = { scope: 'accounts', id: 'a' } as const;
      const rules = Array.from({ length: 20 }, (_, i) => ({ action: i % 4 ? 'block' : 'skip', expression: `tcp.dstport == ${i} and ip.src in {10.${i}.0.0/16}`, description: `rule "${i}" é\u2028`, ...(i % 4 ? {} : { action_parameters: { ruleset: 'current' } }) }));
      const body = Object.freeze({ name: 'fw', kind: 'root', phase: 'network_transit', rules: Object.freeze(rules.map((r) => Object.freeze(r))) });
      const s1 = await openStore({ dataDir: data });
      const created = await s1.createRuleset(A, newRuleset(body, '2026-01-01T00:00:00.000Z'));
      if (!('created' in created)) throw new Error('not created');
      const texts = [created.created.json];
      for (let i = 0; i < 3; i++) {
        // The same rules again (new ids), then some kept by id with one changed.
        const put = (current: StoredRuleset) => (i === 1 ? { rules: [{ ...rules[0], id: current.rules[0]!.id }, { ...rules[1], ref: 'mine', description: 'changed' }] } : body);
        const out = await s1.updateRuleset(A, created.created.record.id, (current) => replaceRules(current, put(current), `2026-01-0${i + 2}T00:00:00.000Z`) as { next: StoredRuleset });
        if (!('ok' in out)) throw new Error('not updated');
        texts.push(out.ok.json);
      }
      await s1.close();
      const file = new Database(join(data, 'rulekit.sqlite'), { readonly: true });
      const rows = file.prepare('SELECT body, contents FROM ruleset_versions ORDER BY version').all() as { body: string; contents: string | null }[];
      // Rule contents seen once are written whole (an edit's need not repeat); from their second time on
      // as contents and the compact row.
      expect(rows.map((r) => r.contents !== null)).toEqual([false, true, false, true]);
      expect(rows[0]!.body).toBe(texts[0]);
      expect(rows[1]!.body.length).toBeLessThan(texts[1]!.length / 2);
      expect(file.prepare('SELECT COUNT(*) FROM rule_contents').pluck().get()).toBe(1);
      file.close();
      const s2 = await openStore({ dataDir: data });
      const versions = await s2.rulesetVersions(A, created.created.record.id);
      expect(versions.map((v) => JSON.stringify(v))).toEqual(texts);
      expect((await s2.getRuleset(A, created.created.record.id))!.json).toBe(texts[3]);
      expect((await s2.listRulesets(A)).map((v) => JSON.stringify(v))).toEqual([texts[3]]);
      await s2.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('checkpoints the WAL on its own thread while the store is open (not in a COMMIT), and removes the WAL on closing', async () => {
    const data = mkdtempSync(join(tmpdir(), 'rulekit-store-checkpoint-'));
    try {
      const store = await openStore({ dataDir: data });
      const file = join(data, 'rulekit.sqlite');
      // The migrations are in the WAL: the database file holds only its header page until a checkpoint.
      const before = statSync(file).size;
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.createRuleset({ scope: 'accounts', id: `a${i}` }, ruleset(`r${i}`))));
      // The writer alone (wal_autocheckpoint's 1,000 pages) would not checkpoint this little before closing.
      const deadline = Date.now() + 5000;
      while (statSync(file).size === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(statSync(file).size).toBeGreaterThan(before);
      await store.close();
      expect(existsSync(`${file}-wal`)).toBe(false);
      const reopened = await openStore({ dataDir: data });
      expect((await reopened.listRulesets({ scope: 'accounts', id: 'a39' })).map((r) => r.id)).toEqual(['r39']);
      await reopened.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('writes rule contents again after a write failed on ones it took as stored (removed behind its back)', async () => {
    const data = mkdtempSync(join(tmpdir(), 'rulekit-store-contents-'));
    try {
      const A = { scope: 'accounts', id: 'a' } as const;
      const body = Object.freeze({ name: 'fw', kind: 'root', phase: 'network_transit', rules: Object.freeze([Object.freeze({ action: 'block', expression: 'tcp.dstport == 23' })]) });
      const s = await openStore({ dataDir: data });
      const made = newRuleset(body, '2026-01-01T00:00:00.000Z');
      await s.createRuleset(A, made);
      const put = (current: StoredRuleset) => replaceRules(current, body, '2026-01-02T00:00:00.000Z') as { next: StoredRuleset };
      // The contents' second time: written as contents, which the store then takes as stored.
      const second = await s.updateRuleset(A, made.id, put);
      if (!('ok' in second)) throw new Error('not updated');
      const other = new Database(join(data, 'rulekit.sqlite'));
      other.pragma('foreign_keys = OFF');
      other.exec('DELETE FROM ruleset_versions; DELETE FROM rule_contents');
      const insert = other.prepare('INSERT INTO ruleset_versions (ruleset_id, version, body) VALUES (?, ?, ?)');
      insert.run(made.id, 1, rulesetJson(made));
      insert.run(made.id, 2, second.ok.json);
      other.close();
      await expect(s.updateRuleset(A, made.id, put)).rejects.toThrow(/FOREIGN KEY/);
      const again = await s.updateRuleset(A, made.id, put);
      expect(again).toHaveProperty('ok.record.version', '3');
      expect((await s.rulesetVersions(A, made.id)).map((v) => v.version)).toEqual(['1', '2', '3']);
      await s.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('opens a data directory an earlier rulekit wrote (schema version 1: the text in both tables) and migrates it', async () => {
    const old = mkdtempSync(join(tmpdir(), 'rulekit-store-v1-'));
    try {
      const A = { scope: 'accounts', id: 'a' } as const;
      const v1 = ruleset('old');
      const v2 = { ...v1, version: '2', name: 'rs old, second' };
      const db = new Database(join(old, 'rulekit.sqlite'));
      db.pragma('journal_mode = WAL');
      db.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL); ${MIGRATIONS[0]!.sqlite}`);
      db.prepare("INSERT INTO schema_migrations VALUES (1, 'v1', '2026-01-01')").run();
      db.prepare("INSERT INTO rulesets (id, scope, owner, kind, phase, version, body) VALUES ('old', 'accounts', 'a', 'root', 'network_transit', 2, ?)").run(JSON.stringify(v2));
      db.prepare('INSERT INTO ruleset_versions VALUES (?, ?, ?)').run('old', 1, JSON.stringify(v1));
      db.prepare('INSERT INTO ruleset_versions VALUES (?, ?, ?)').run('old', 2, JSON.stringify(v2));
      db.close();
      const s = await openStore({ dataDir: old });
      expect((await s.getRuleset(A, 'old'))?.record).toEqual(v2);
      expect(await s.listRulesets(A)).toEqual([v2]);
      expect(await s.updateRuleset(A, 'old', (r) => ({ next: { ...r, version: '3', name: 'third' } }))).toEqual({ ok: { record: { ...v2, version: '3', name: 'third' }, json: JSON.stringify({ ...v2, version: '3', name: 'third' }) } });
      expect((await s.rulesetVersions(A, 'old')).map((r) => r.version)).toEqual(['1', '2', '3']);
      await s.close();
      const check = new Database(join(old, 'rulekit.sqlite'), { readonly: true });
      // Its page size stays what it was (new databases get 16 KiB pages).
      expect(check.pragma('page_size', { simple: true })).toBe(4096);
      expect(check.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual(MIGRATIONS.map((m) => m.version));
      check.close();
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
});
