/**
 * How API tokens are kept and compared (tokens.ts), as auth-keys.test.ts checks keys: a token is kept only
 * as a salted SHA-256 digest, found by its non-secret id (its first 8 characters), and every check — the
 * right token, a wrong secret, an unknown id — compares digests once with `timingSafeEqual`. `node:crypto`
 * is wrapped to count the comparisons: an `===` compare, or an early answer for an unknown id, fails here.
 * Then the checks a users file's token entries get at start.
 */
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const compared = vi.hoisted(() => ({ n: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    compared.n++;
    return real.timingSafeEqual(a, b);
  };
  return { ...real, default: { ...real, timingSafeEqual }, timingSafeEqual };
});

const { loadUsers } = await import('../../src/server/auth.js');
const { authenticateToken, generateToken, hashToken, loadTokens, tokenPermission } = await import('../../src/server/tokens.js');

const TOKEN = 'alicetok-0123456789abcdefghijklmnopqrstuv';
const load = (entries: Parameters<typeof loadUsers>[0]) => loadTokens(entries, loadUsers(entries));

/** Every string and Buffer reachable from a value (what a heap dump of it would show). */
function contents(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Buffer.isBuffer(v)) out.push(v.toString('latin1'), v.toString('utf8'), v.toString('hex'));
  else if (v instanceof Set || v instanceof Map) for (const x of v) contents(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) contents(x, out);
  return out;
}

describe('API tokens', () => {
  beforeEach(() => {
    compared.n = 0;
  });

  it('a configured token is kept only as a salted SHA-256 digest of the whole token, keyed by its first 8 characters', () => {
    const tokens = load([{ token: TOKEN, accounts: { a: 'edit' } }]);
    const t = tokens.get('alicetok')!;
    expect([...tokens.keys()]).toEqual(['alicetok']);
    expect(contents(t).some((s) => s.includes(TOKEN.slice(8)))).toBe(false);
    expect(t.digest.equals(createHash('sha256').update(t.salt).update(TOKEN, 'utf8').digest())).toBe(true);
  });

  it('generated tokens are 40 random base64url characters; hashToken writes an entry without the token that signs in with it', () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(generateToken()).not.toBe(a);
    const entry = hashToken(a, { name: 'ci', accounts: { acc: 'read' }, zones: { z: 'edit' } });
    expect(entry).toEqual({ name: 'ci', id: a.slice(0, 8), token_hash: expect.stringMatching(/^sha256:[0-9a-f]{32}:[0-9a-f]{64}$/), accounts: { acc: 'read' }, zones: { z: 'edit' } });
    expect(JSON.stringify(entry)).not.toContain(a.slice(8));
    const tokens = load([entry]);
    const t = authenticateToken(tokens, a)!;
    expect(t.label).toBe('ci');
    expect(tokenPermission(t, 'accounts', 'acc')).toBe('read');
    expect(tokenPermission(t, 'zones', 'z')).toBe('edit');
    expect(tokenPermission(t, 'zones', 'acc')).toBeUndefined();
    expect(authenticateToken(tokens, `${a}x`)).toBeUndefined();
  });

  it('every check compares digests once in constant time: the right token, a wrong secret, an unknown id, nothing', () => {
    const tokens = load([{ token: TOKEN, accounts: { a: 'edit' } }]);
    for (const [value, ok] of [
      [TOKEN, true],
      [`${TOKEN.slice(0, -1)}x`, false],
      [`unknownX${TOKEN.slice(8)}`, false],
      ['alicetok', false],
      ['', false],
    ] as const) {
      const before = compared.n;
      expect(authenticateToken(tokens, value) !== undefined, value).toBe(ok);
      expect(compared.n - before, `${value}: timingSafeEqual calls`).toBe(1);
    }
  });

  it('a users file’s token entries are checked at start, each error naming its entry', () => {
    const alice = { email: 'alice@example.com', key: 'alice-key-0001', accounts: ['acc-a'], zones: ['zone-a'] };
    expect(load([{ ...alice, tokens: [{ token: TOKEN, accounts: { 'acc-a': 'read' } }] }]).get('alicetok')?.owner).toBe('alice@example.com');
    for (const [entries, message] of [
      [[{ ...alice, tokens: [{ token: TOKEN, accounts: { 'acc-b': 'edit' } }] }], /user 0 \(alice@example.com\) token 0: the token names account acc-b, which its user does not own/],
      [[{ token: TOKEN, accounts: { a: 'write' } }], /entry 0 \(token\): accounts\.a is "write"; give "read" or "edit"/],
      [[{ token: TOKEN, accounts: ['a'] }], /"accounts" must be an object of id → "read" or "edit"/],
      [[{ token: TOKEN }], /names no account or zone/],
      [[{ token: 'too-short-token' , zones: { z: 'read' } }], /at least 24 characters/],
      [[{ token: `${TOKEN} x`, zones: { z: 'read' } }], /at least 24 characters of A-Z/],
      [[{ token_hash: 'sha256:00', zones: { z: 'read' } }], /"token_hash" must look like/],
      [[{ token_hash: hashToken(TOKEN).token_hash, zones: { z: 'read' } }], /goes with "id"/],
      [[{ token: TOKEN, zones: { z: 'read' } }, alice, { token: `${TOKEN.slice(0, 8)}-another-secret-0123456789`, zones: { z: 'edit' } }], /entry 2 \(token\): another token starts with the same 8 characters \(alicetok\)/],
      [[{ ...alice, tokens: {} }], /"tokens" must be a list/],
    ] as const) {
      expect(() => load(entries as never), JSON.stringify(entries)).toThrow(message);
    }
  });
});
