import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore, openStore } from '../../src/server/store/index.js';
import { ruleset, storeSuite } from './store-suite.js';

storeSuite('sqlite in memory', async () => openSqliteStore({ path: ':memory:' }));

describe('sqlite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps what it stored across a reopen, and migrates once', async () => {
    const s1 = await openStore({ dataDir: dir });
    await s1.createRuleset({ scope: 'accounts', id: 'a' }, ruleset('r1'));
    await s1.close();
    const s2 = await openStore({ dataDir: dir });
    expect((await s2.getRuleset({ scope: 'accounts', id: 'a' }, 'r1'))!.name).toBe('rs r1');
    await s2.close();
  });
});
