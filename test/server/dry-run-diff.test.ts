/**
 * A dry run of a ruleset write answers, beside the would-be ruleset, what the write changes in traffic
 * against the stored version (src/server/dry-run-diff.ts): the regions of the semantic diff as messages.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, openSqliteStore, type Store } from '../../src/server/index.js';
import { DRY_RUN_DIFF_MAX_RULES } from '../../src/server/dry-run-diff.js';

const USER = { email: 'diff@example.test', key: 'diff-key-0123456789', accounts: ['a1'], zones: [] };
const H = { 'x-auth-email': USER.email, 'x-auth-key': USER.key, 'content-type': 'application/json' };
const BASE = '/client/v4/accounts/a1/rulesets';

interface Entry { code: number; message: string; source?: { pointer: string }; meta: { code: string; severity: string } }

describe('dry runs answer what the write changes in traffic', () => {
  let app: FastifyInstance;
  let store: Store;
  let id: string;
  const call = async (method: 'POST' | 'PUT' | 'PATCH', url: string, payload: unknown) => {
    const r = await app.inject({ method, url, headers: H, payload: payload as object });
    return { status: r.statusCode, body: r.json() as { result: { version: string; rules: { id: string }[] }; messages: Entry[] } };
  };
  const diffs = (messages: Entry[]) => messages.filter((m) => m.meta.code.startsWith('diff-'));

  beforeAll(async () => {
    store = openSqliteStore({ path: ':memory:' });
    app = await createServer({ users: [USER], store, playground: false });
    const created = await call('POST', BASE, { name: 'fw', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport in {22 80}', ref: 'web' }] });
    id = created.body.result.rules.length ? (await app.inject({ method: 'GET', url: BASE, headers: H })).json().result[0].id : '';
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it('a PUT dry run lists the regions whose verdict changes, with a witness; nothing is stored', async () => {
    const r = await call('PUT', `${BASE}/${id}?dry_run=true`, { rules: [{ action: 'block', expression: 'tcp.dstport in {22 80 443}', ref: 'web' }] });
    expect(r.status).toBe(200);
    const d = diffs(r.body.messages);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ meta: { code: 'diff-region', severity: 'info' }, source: { pointer: '/rules/0' } });
    expect(d[0]!.message).toMatch(/^against version 1: tcp\.dstport 443.*allow → block by rule 0 "web"; for example \{.*"tcp\.dstport":443/);
    expect(r.body.result.version).toBe('2');
    const stored = (await app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: H })).json().result;
    expect(stored.version).toBe('1');
  });

  it('a dry run that changes no verdict says so; a write that is not a dry run answers no diff', async () => {
    const same = await call('PUT', `${BASE}/${id}?dry_run=true`, { rules: [{ action: 'block', expression: 'tcp.dstport in {80 22}', ref: 'web', description: 'reworded' }] });
    expect(diffs(same.body.messages).map((m) => m.meta.code)).toEqual(['diff-no-change']);
    const real = await call('PUT', `${BASE}/${id}`, { rules: [{ action: 'block', expression: 'tcp.dstport in {22 80 8080}', ref: 'web' }] });
    expect(real.status).toBe(200);
    expect(diffs(real.body.messages)).toEqual([]);
  });

  it('a single-rule dry run answers its diff too', async () => {
    const r = await call('POST', `${BASE}/${id}/rules?dry_run=true`, { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {10.0.0.0/8}', position: { index: 1 } });
    expect(r.status).toBe(200);
    const d = diffs(r.body.messages);
    expect(d.length).toBeGreaterThan(0);
    expect(d.every((m) => m.meta.code === 'diff-region' && m.source === undefined)).toBe(true);
    expect(d.some((m) => /ip\.src 10\.0\.0\.0\/8: block by rule 0 "web" → allow by rule 0/.test(m.message)), JSON.stringify(d)).toBe(true);
  });

  it('past the rule count the server diffs, it says where the diff is computed instead', async () => {
    const rules = Array.from({ length: DRY_RUN_DIFF_MAX_RULES + 1 }, (_, i) => ({ action: 'block', expression: `tcp.dstport == ${i + 1}` }));
    const r = await call('PUT', `${BASE}/${id}?dry_run=true`, { rules });
    expect(diffs(r.body.messages).map((m) => [m.meta.code, m.message])).toEqual([['diff-not-computed', expect.stringContaining('rulekit diff')]]);
  });
});
