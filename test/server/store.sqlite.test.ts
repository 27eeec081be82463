import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { MIGRATIONS, openSqliteStore, openStore } from '../../src/server/store/index.js';
import { ruleset, storeSuite } from './store-suite.js';

storeSuite('sqlite in memory', async () => openSqliteStore({ path: ':memory:' }));

describe('sqlite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps what it stored across a reopen, and migrates once', async () => {
    const s1 = await openStore({ dataDir: dir });
    await s1.createRuleset({ scope: 'accounts', id: 'a' }, ruleset('r1'));
    await s1.close();
    const file = new Database(join(dir, 'rulekit.sqlite'), { readonly: true });
    expect(file.pragma('page_size', { simple: true })).toBe(16384);
    file.close();
    const s2 = await openStore({ dataDir: dir });
    expect((await s2.getRuleset({ scope: 'accounts', id: 'a' }, 'r1'))!.name).toBe('rs r1');
    await s2.close();
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
      expect(await s.getRuleset(A, 'old')).toEqual(v2);
      expect(await s.listRulesets(A)).toEqual([v2]);
      expect(await s.updateRuleset(A, 'old', (r) => ({ next: { ...r, version: '3', name: 'third' } }))).toEqual({ ok: { ...v2, version: '3', name: 'third' } });
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
