/**
 * The repository suite every store passes (SQLite here, PostgreSQL in store.postgres.test.ts): the same
 * calls, the same answers. Each test opens a fresh store from `open` and closes it.
 */
import { describe, expect, it } from 'vitest';
import { rulesetJson, type Owner, type Store, type Stored, type StoredJob, type StoredRuleset } from '../../src/server/store/index.js';
import { newRuleset, replaceRules } from '../../src/server/records.js';

const A: Owner = { scope: 'accounts', id: 'acc1' };
const B: Owner = { scope: 'accounts', id: 'acc2' };
const Z: Owner = { scope: 'zones', id: 'zone1' };

export function ruleset(id: string, extra: Partial<StoredRuleset> = {}): StoredRuleset {
  return {
    id, name: `rs ${id}`, description: '', kind: 'root', phase: 'network_transit', version: '1', last_updated: '2026-01-01T00:00:00.000Z',
    rules: [{ id: `${id}r1`, version: '1', action: 'block', expression: 'tcp.dstport == 23', description: '', last_updated: '2026-01-01T00:00:00.000Z', ref: `${id}r1`, enabled: true }],
    ...extra,
  };
}

export function job(extra: Partial<StoredJob> = {}): Omit<StoredJob, 'id'> {
  return {
    name: 'job', dataset: 'http_requests', destination_conf: 's3://bucket/logs?region=us-east-1', logpull_options: 'fields=ClientIP&timestamps=rfc3339',
    filter: null, enabled: false, frequency: 'high', kind: '', max_upload_bytes: null, max_upload_interval_seconds: null, max_upload_records: null,
    output_options: null, error_message: null, last_complete: null, last_error: null, ...extra,
  };
}

const bump = (r: StoredRuleset) => ({ next: { ...r, version: String(Number(r.version) + 1), name: `${r.name}+` } });

export function storeSuite(name: string, open: () => Promise<Store>): void {
  describe(`store: ${name}`, () => {
    const withStore = (fn: (s: Store) => Promise<void>) => async () => {
      const s = await open();
      try {
        await fn(s);
      } finally {
        await s.close();
      }
    };

    it('creates, reads back exactly, and lists rulesets per owner in creation order', withStore(async (s) => {
      const r1 = ruleset('a1');
      expect(await s.createRuleset(A, r1)).toEqual({ created: { record: r1, json: JSON.stringify(r1) } });
      await s.createRuleset(A, ruleset('a2', { kind: 'custom' }));
      await s.createRuleset(B, ruleset('b1'));
      expect((await s.getRuleset(A, 'a1'))?.record).toEqual(r1);
      expect((await s.listRulesets(A)).map((r) => r.id)).toEqual(['a1', 'a2']);
      expect((await s.listRulesets(B)).map((r) => r.id)).toEqual(['b1']);
      expect(await s.listRulesets(Z)).toEqual([]);
    }));

    it('reads back records made from bodies (kept as compact rows) byte for byte, every version', withStore(async (s) => {
      const rules = Array.from({ length: 12 }, (_, i) => ({ action: i % 3 ? 'block' : 'skip', expression: `tcp.dstport == ${i}`, description: `"${i}" é\u2028`, ...(i % 3 ? {} : { action_parameters: { ruleset: 'current' } }) }));
      const body = Object.freeze({ name: 'fw', kind: 'root', phase: 'network_transit', rules: Object.freeze(rules.map((r) => Object.freeze(r))) });
      const made = newRuleset(body, '2026-01-01T00:00:00.000Z');
      const created = await s.createRuleset(A, made);
      expect(created).toHaveProperty('created');
      const texts = [rulesetJson(made)];
      const other = { rules: [{ ...rules[1], ref: 'kept' }] };
      for (const [i, b] of [body, other, body, other].entries()) {
        const out = await s.updateRuleset(A, made.id, (current) => replaceRules(current, b, `2026-01-0${i + 2}T00:00:00.000Z`) as { next: StoredRuleset });
        if (!('ok' in out)) throw new Error('not updated');
        texts.push(out.ok.json);
      }
      // A dry run stores nothing, contents included.
      await s.updateRuleset(A, made.id, (current) => replaceRules(current, { rules: [{ action: 'block', expression: 'udp' }] }, '2026-02-01T00:00:00.000Z') as { next: StoredRuleset }, { dryRun: true });
      expect((await s.rulesetVersions(A, made.id)).map((v) => JSON.stringify(v))).toEqual(texts);
      expect((await s.listRulesets(A)).map((v) => JSON.stringify(v))).toEqual([texts.at(-1)]);
      expect((await s.getRuleset(A, made.id))!.json).toBe(texts.at(-1));
    }));

    it('never answers another owner’s ruleset', withStore(async (s) => {
      await s.createRuleset(A, ruleset('a1'));
      expect(await s.getRuleset(B, 'a1')).toBeUndefined();
      expect(await s.updateRuleset(B, 'a1', bump)).toEqual({ notFound: true });
      expect(await s.deleteRuleset(B, 'a1')).toBe(false);
      expect(await s.rulesetVersions(B, 'a1')).toEqual([]);
      expect(await s.getRuleset(A, 'a1')).toBeDefined();
    }));

    it('keeps one entry point per phase and owner', withStore(async (s) => {
      await s.createRuleset(Z, ruleset('z1', { kind: 'zone', phase: 'http_log_custom_fields' }));
      expect(await s.createRuleset(Z, ruleset('z2', { kind: 'zone', phase: 'http_log_custom_fields' }))).toEqual({ phaseExists: 'z1' });
      expect(await s.createRuleset({ scope: 'zones', id: 'zone2' }, ruleset('z3', { kind: 'zone', phase: 'http_log_custom_fields' }))).toHaveProperty('created');
      expect((await s.listRulesets(Z)).map((r) => r.id)).toEqual(['z1']);
    }));

    it('updates move the version, keep every version, and refusals change nothing', withStore(async (s) => {
      await s.createRuleset(A, ruleset('a1'));
      const u = await s.updateRuleset(A, 'a1', bump);
      expect(u).toHaveProperty('ok.record.version', '2');
      expect(await s.updateRuleset(A, 'a1', () => ({ refused: 'no' }))).toEqual({ refused: 'no' });
      expect((await s.getRuleset(A, 'a1'))!.record.version).toBe('2');
      expect((await s.rulesetVersions(A, 'a1')).map((r) => [r.version, r.name])).toEqual([['1', 'rs a1'], ['2', 'rs a1+']]);
      await expect(s.updateRuleset(A, 'a1', (r) => ({ next: r }))).rejects.toThrow(/version/);
      expect((await s.getRuleset(A, 'a1'))!.record.version).toBe('2');
    }));

    it('concurrent updates of one ruleset (writes, dry runs, refusals, failures, reads) each see every write before them', withStore(async (s) => {
      await s.createRuleset(A, ruleset('hot'));
      const kinds = ['write', 'dry', 'write', 'refuse', 'write', 'throw', 'read', 'write', 'dry', 'write'] as const;
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => {
        const kind = kinds[i % kinds.length]!;
        if (kind === 'read') return s.getRuleset(A, 'hot').then((r) => ({ read: r!.record.version }));
        return s.updateRuleset(A, 'hot', (r) => {
          if (kind === 'refuse') return { refused: i };
          if (kind === 'throw') throw new Error(`update ${i} fails`);
          return { next: { ...r, version: String(Number(r.version) + 1), name: `${r.name}+` } };
        }, { dryRun: kind === 'dry' }).catch((e: Error) => ({ failed: e.message }));
      }));
      const written = answers.filter((_, i) => kinds[i % kinds.length] === 'write').map((a) => (a as { ok: Stored<StoredRuleset> }).ok.record);
      // Writes in the order they were asked for, each one up from the one before: none computed from a stale record.
      expect(written.map((r) => [r.version, r.name])).toEqual(written.map((_, k) => [String(k + 2), `rs hot${'+'.repeat(k + 1)}`]));
      answers.forEach((a, i) => {
        const kind = kinds[i % kinds.length]!;
        if (kind === 'refuse') expect(a).toEqual({ refused: i });
        if (kind === 'throw') expect(a).toEqual({ failed: `update ${i} fails` });
        if (kind === 'dry') expect(Number((a as { ok: Stored<StoredRuleset> }).ok.record.version)).toBeLessThanOrEqual(written.length + 2);
      });
      const stored = await s.getRuleset(A, 'hot');
      expect(stored!.record).toEqual(written[written.length - 1]);
      expect((await s.rulesetVersions(A, 'hot')).map((r) => r.name)).toEqual(Array.from({ length: written.length + 1 }, (_, k) => `rs hot${'+'.repeat(k)}`));
    }));

    it('dry runs answer as the write would and store nothing', withStore(async (s) => {
      expect(await s.createRuleset(A, ruleset('a1'), { dryRun: true })).toHaveProperty('created');
      expect(await s.getRuleset(A, 'a1')).toBeUndefined();
      await s.createRuleset(A, ruleset('a1'));
      expect(await s.updateRuleset(A, 'a1', bump, { dryRun: true })).toHaveProperty('ok.record.version', '2');
      expect((await s.getRuleset(A, 'a1'))!.record.version).toBe('1');
      expect(await s.deleteRuleset(A, 'a1', { dryRun: true })).toBe(true);
      expect(await s.getRuleset(A, 'a1')).toBeDefined();
      const j = await s.createJob(Z, job(), { dryRun: true });
      expect(j.name).toBe('job');
      expect(await s.listJobs(Z)).toEqual([]);
    }));

    it('deletes a ruleset with its history; the phase is free again', withStore(async (s) => {
      await s.createRuleset(A, ruleset('a1'));
      await s.updateRuleset(A, 'a1', bump);
      expect(await s.deleteRuleset(A, 'a1')).toBe(true);
      expect(await s.getRuleset(A, 'a1')).toBeUndefined();
      expect(await s.rulesetVersions(A, 'a1')).toEqual([]);
      expect(await s.deleteRuleset(A, 'a1')).toBe(false);
      expect(await s.createRuleset(A, ruleset('a3'))).toHaveProperty('created');
    }));

    it('reads one version, deletes old versions but never the current one, and numbers never come back', withStore(async (s) => {
      const r1 = ruleset('v1');
      await s.createRuleset(A, r1);
      await s.updateRuleset(A, 'v1', bump);
      await s.updateRuleset(A, 'v1', bump);
      expect(await s.getRulesetVersion(A, 'v1', 1)).toEqual(r1);
      expect((await s.getRulesetVersion(A, 'v1', 3))?.name).toBe('rs v1++');
      expect(await s.getRulesetVersion(A, 'v1', 4)).toBeUndefined();
      expect(await s.getRulesetVersion(B, 'v1', 1)).toBeUndefined();
      expect(await s.deleteRulesetVersion(A, 'v1', 3)).toBe('current');
      expect(await s.deleteRulesetVersion(B, 'v1', 1)).toBe('no-ruleset');
      expect(await s.deleteRulesetVersion(A, 'v1', 9)).toBe('no-version');
      expect(await s.deleteRulesetVersion(A, 'v1', 2, { dryRun: true })).toBe('deleted');
      expect((await s.rulesetVersions(A, 'v1')).map((v) => v.version)).toEqual(['1', '2', '3']);
      expect(await s.deleteRulesetVersion(A, 'v1', 2)).toBe('deleted');
      expect(await s.deleteRulesetVersion(A, 'v1', 2)).toBe('no-version');
      expect(await s.getRulesetVersion(A, 'v1', 2)).toBeUndefined();
      expect((await s.rulesetVersions(A, 'v1')).map((v) => v.version)).toEqual(['1', '3']);
      const next = await s.updateRuleset(A, 'v1', bump);
      expect('ok' in next && next.ok.record.version).toBe('4');
      expect((await s.getRuleset(A, 'v1'))?.record.version).toBe('4');
    }));

    it('finds the entry point of a phase, not a custom ruleset of it', withStore(async (s) => {
      await s.createRuleset(A, ruleset('c1', { kind: 'custom' }));
      expect(await s.entryPointId(A, 'network_transit')).toBeUndefined();
      await s.createRuleset(A, ruleset('e1'));
      expect(await s.entryPointId(A, 'network_transit')).toBe('e1');
      expect(await s.entryPointId(B, 'network_transit')).toBeUndefined();
      expect(await s.entryPointId(A, 'http_request_firewall_custom')).toBeUndefined();
    }));

    it('keeps strings exactly (unicode, quotes, key order)', withStore(async (s) => {
      const r = ruleset('u1', { description: 'naïve “quotes” \u{1F600} \\ "x"', name: 'z' });
      await s.createRuleset(A, r);
      const back = await s.getRuleset(A, 'u1');
      expect(back!.json).toBe(JSON.stringify(r));
      expect(JSON.stringify(back!.record)).toBe(JSON.stringify(r));
    }));

    it('assigns job ids, scopes them to the owner, updates and deletes', withStore(async (s) => {
      const j1 = await s.createJob(Z, job({ name: 'one' }));
      const j2 = await s.createJob(Z, job({ name: 'two' }));
      expect(j2.id).toBeGreaterThan(j1.id);
      expect(await s.getJob(Z, j1.id)).toEqual(j1);
      expect(await s.getJob({ scope: 'zones', id: 'other' }, j1.id)).toBeUndefined();
      expect((await s.listJobs(Z)).map((j) => j.name)).toEqual(['one', 'two']);
      const u = await s.updateJob(Z, j1.id, (j) => ({ next: { ...j, enabled: true } }));
      expect(u).toEqual({ ok: { ...j1, enabled: true } });
      expect(await s.updateJob(Z, 999999, (j) => ({ next: j }))).toEqual({ notFound: true });
      expect(await s.updateJob(Z, j1.id, () => ({ refused: 7 }))).toEqual({ refused: 7 });
      expect(await s.deleteJob(Z, j1.id)).toBe(true);
      expect(await s.deleteJob(Z, j1.id)).toBe(false);
      expect((await s.listJobs(Z)).map((j) => j.name)).toEqual(['two']);
    }));

    it('answers list revisions asked together, each account its own, and a revision asked after a list write sees it', withStore(async (s) => {
      const limits = { maxLists: 10, maxListsOfKind: 10, maxItemsOfKind: 10 };
      const list = (name: string) => ({ id: `${name}0000000000000000000000000000`.slice(0, 32), name, kind: 'ip' as const, description: '', created_on: '2024-01-01T00:00:00Z', modified_on: '2024-01-01T00:00:00Z' });
      expect(await Promise.all([s.lists.revision('acc1'), s.lists.revision('acc2'), s.lists.revision('acc1')])).toEqual([0, 0, 0]);
      await s.lists.createList('acc1', list('one'), limits);
      const asked = [s.lists.revision('acc1'), s.lists.revision('acc2'), s.lists.revision('acc1')];
      await s.lists.createList('acc2', list('two'), limits);
      await s.lists.createList('acc2', list('three'), limits);
      const after = s.lists.revision('acc2');
      const [a1, b, a1again] = await Promise.all(asked);
      expect(a1).toBeGreaterThan(0);
      expect(a1again).toBe(a1);
      // Asked before acc2's writes: it may see them or not, but never a revision past what was written.
      expect(b).toBeLessThanOrEqual(await after);
      expect(await after).toBeGreaterThan(0);
      expect(await s.lists.revision('nobody')).toBe(0);
    }));

    it('answers ping', withStore(async (s) => {
      await expect(s.ping()).resolves.toBeUndefined();
    }));
  });
}
