/**
 * How keys are kept and compared (auth.ts): a user's key is kept only as a salted SHA-256 digest, and every
 * sign-in, with a wrong key or an unknown email too, compares digests once with `timingSafeEqual`, so the
 * answer takes as long whatever was wrong. `node:crypto` is wrapped to count the comparisons: an `===`
 * compare, or an early answer for an unknown email, fails here.
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

const { authenticate, hashKey, loadUsers } = await import('../../src/server/auth.js');

const KEY = 'the-key-of-alice-01';

/** Every string and Buffer reachable from a value (what a heap dump of it would show). */
function contents(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Buffer.isBuffer(v)) out.push(v.toString('latin1'), v.toString('utf8'), v.toString('hex'));
  else if (v instanceof Set || v instanceof Map) for (const x of v) contents(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) contents(x, out);
  return out;
}

describe('keys', () => {
  beforeEach(() => {
    compared.n = 0;
  });

  it('a configured key is kept only as a salted SHA-256 digest', () => {
    const users = loadUsers([{ email: 'alice@example.com', key: KEY, accounts: ['a'] }, { email: 'bob@example.com', key: KEY, accounts: ['b'] }]);
    const alice = users.get('alice@example.com')!;
    const bob = users.get('bob@example.com')!;
    expect(contents(alice).some((s) => s.includes(KEY))).toBe(false);
    expect(alice.digest.equals(createHash('sha256').update(alice.salt).update(KEY, 'utf8').digest())).toBe(true);
    // Salted: the same key gives each user another digest.
    expect(alice.salt.equals(bob.salt)).toBe(false);
    expect(alice.digest.equals(bob.digest)).toBe(false);
  });

  it('a key_hash from hashKey signs in with its key, and the config holds no key', () => {
    const hash = hashKey(KEY);
    expect(hash).toMatch(/^sha256:[0-9a-f]{32}:[0-9a-f]{64}$/);
    expect(hash).not.toContain(KEY);
    const users = loadUsers([{ email: 'alice@example.com', key_hash: hash, accounts: ['a'] }]);
    expect(authenticate(users, 'Alice@Example.com', KEY)?.email).toBe('alice@example.com');
    expect(authenticate(users, 'alice@example.com', `${KEY}x`)).toBeUndefined();
  });

  it('every sign-in compares digests once in constant time: the right key, a wrong one, an unknown email', () => {
    const users = loadUsers([{ email: 'alice@example.com', key: KEY, accounts: ['a'] }]);
    for (const [email, key, ok] of [
      ['alice@example.com', KEY, true],
      ['alice@example.com', 'not-the-key-0000', false],
      ['alice@example.com', '', false],
      ['mallory@example.com', KEY, false],
      ['', '', false],
    ] as const) {
      const before = compared.n;
      expect(authenticate(users, email, key) !== undefined, `${email} / ${key}`).toBe(ok);
      expect(compared.n - before, `${email} / ${key}: timingSafeEqual calls`).toBe(1);
    }
  });
});
