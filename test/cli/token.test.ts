/**
 * `rulekit token create`, run as a user runs it (the shipped bundle dist/bundle/cli.js; npm test builds
 * first): the token is printed once, only its hash lands in the users file, and a server started on that
 * file takes the token with the scopes given.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServer, type TokenConfig, type UsersEntry } from '../../src/server/index.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-token-'));

function run(args: string[]) {
  return runCli(args);
}

const alice = { email: 'alice@example.com', key_hash: 'sha256:00000000000000000000000000000000:0000000000000000000000000000000000000000000000000000000000000000', accounts: ['acc-a'], zones: ['zone-a'] };

async function statusWith(entries: UsersEntry[], token: string, method: 'GET' | 'POST', url: string): Promise<number> {
  const app = await createServer({ users: entries });
  try {
    const r = await app.inject({ method, url: `/client/v4${url}`, headers: { authorization: `Bearer ${token}` }, payload: method === 'POST' ? { name: 'x', kind: 'root', phase: 'network_transit', rules: [] } : undefined });
    return r.statusCode;
  } finally {
    await app.close();
  }
}

describe('rulekit token create', () => {
  it('prints a new token once and appends only its hash to the users file; the server takes it with its scopes', async () => {
    const file = join(dir, 'users.json');
    writeFileSync(file, JSON.stringify({ users: [alice] }, null, 2));
    const r = run(['token', 'create', '--account', 'acc-a:edit', '--zone', 'zone-a:read', '--users', file, '--name', 'ci']);
    expect(r.code, r.err).toBe(0);
    const token = r.out.trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(r.err).toContain(`token ${token.slice(0, 8)} added to ${file}`);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token.slice(8));
    const doc = JSON.parse(text) as { users: UsersEntry[] };
    expect(doc.users).toHaveLength(2);
    expect(doc.users[1]).toEqual({ name: 'ci', id: token.slice(0, 8), token_hash: expect.stringMatching(/^sha256:/), accounts: { 'acc-a': 'edit' }, zones: { 'zone-a': 'read' } });
    expect(await statusWith(doc.users, token, 'POST', '/accounts/acc-a/rulesets')).toBe(200);
    expect(await statusWith(doc.users, token, 'GET', '/zones/zone-a/rulesets')).toBe(200);
    expect(await statusWith(doc.users, token, 'POST', '/zones/zone-a/rulesets')).toBe(403);
    expect(await statusWith(doc.users, token, 'GET', '/accounts/acc-b/rulesets')).toBe(403);
    // A second run makes another token.
    const again = run(['token', 'create', '--zone', 'zone-a:edit', '--users', file]);
    expect(again.code, again.err).toBe(0);
    expect(again.out.trim()).not.toBe(token);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { users: unknown[] }).users).toHaveLength(3);
  });

  it('--email puts the token in that user’s list, and only over what the user owns; nothing is written on an error', async () => {
    const file = join(dir, 'users-list.json');
    writeFileSync(file, JSON.stringify([alice]));
    const r = run(['token', 'create', '--account', 'acc-a:read', '--users', file, '--email', 'Alice@Example.com']);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as (typeof alice & { tokens: TokenConfig[] })[];
    expect(doc).toHaveLength(1);
    expect(doc[0]!.tokens).toEqual([expect.objectContaining({ id: r.out.trim().slice(0, 8), accounts: { 'acc-a': 'read' } })]);
    expect(await statusWith(doc, r.out.trim(), 'GET', '/accounts/acc-a/rulesets')).toBe(200);

    const before = readFileSync(file, 'utf8');
    const foreign = run(['token', 'create', '--account', 'acc-b:edit', '--users', file, '--email', 'alice@example.com']);
    expect(foreign.code).toBe(2);
    expect(foreign.out).toBe('');
    expect(foreign.err).toMatch(/would not load with this token, nothing written: .*account acc-b, which its user does not own/);
    const nobody = run(['token', 'create', '--account', 'acc-a:edit', '--users', file, '--email', 'bob@example.com']);
    expect(nobody.code).toBe(2);
    expect(nobody.err).toContain('has no user bob@example.com');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('usage errors: a grant without its permission, no scope at all; without --users the entry is printed', () => {
    const bad = run(['token', 'create', '--account', 'acc-a']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('ACCOUNT_ID:read (GET only) or ACCOUNT_ID:edit');
    const none = run(['token', 'create']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('at least one --account');
    const bare = run(['token', 'create', '--zone', 'z1:edit']);
    expect(bare.code).toBe(0);
    const entry = JSON.parse(bare.err.trim().split('\n').at(-1)!) as { id: string; zones: unknown };
    expect(entry).toMatchObject({ id: bare.out.trim().slice(0, 8), zones: { z1: 'edit' } });
    // A new file is created, readable by its owner only.
    const file = join(dir, 'new-users.json');
    expect(run(['token', 'create', '--zone', 'z1:read', '--users', file]).code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
