/**
 * Security: credentials and tenancy on every route (tenancy-suite.ts, on SQLite here and on PostgreSQL
 * in security.postgres.test.ts); failed logins limited per client; users and their keys.
 */
import { describe, expect, it } from 'vitest';
import { createServer, hashKey, openSqliteStore } from '../../src/server/index.js';
import { FailureLimiter } from '../../src/server/auth.js';
import { USERS } from './sdk-suite.js';
import { ALICE, envelope, tenancySuite } from './tenancy-suite.js';
import { bearer, TOKENS, tokenSuite, USERS_WITH_TOKENS } from './token-suite.js';

tenancySuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));
tokenSuite('SQLite', async () => openSqliteStore({ path: ':memory:' }));

describe('failed logins are limited per client', () => {
  it('after the limit every request of that client is 429 with Retry-After; other clients are not affected', async () => {
    const app = await createServer({ users: USERS, failedAuthLimit: { max: 3, windowMs: 10_000 } });
    const bad = { ...ALICE, 'x-auth-key': 'guess-00000' };
    for (let i = 0; i < 3; i++) {
      expect((await app.inject({ method: 'GET', url: '/client/v4/accounts/acc-alice/rulesets', headers: bad, remoteAddress: '192.0.2.7' })).statusCode).toBe(403);
    }
    const limited = await app.inject({ method: 'GET', url: '/client/v4/accounts/acc-alice/rulesets', headers: ALICE, remoteAddress: '192.0.2.7' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(envelope(limited).errors[0]!.meta.code).toBe('server-too-many-failed-logins');
    const other = await app.inject({ method: 'GET', url: '/client/v4/accounts/acc-alice/rulesets', headers: ALICE, remoteAddress: '192.0.2.8' });
    expect(other.statusCode).toBe(200);
    await app.close();
  });

  it('wrong API tokens count as keys do: after the limit even a good token is 429', async () => {
    const app = await createServer({ users: USERS_WITH_TOKENS, failedAuthLimit: { max: 3, windowMs: 10_000 } });
    const url = '/client/v4/accounts/acc-alice/rulesets';
    for (const headers of [bearer(`${TOKENS.aliceEdit.slice(0, -1)}x`), bearer('unknownX-0123456789abcdefghijklmnopqrstuv'), { authorization: 'Basic abc' }]) {
      expect((await app.inject({ method: 'GET', url, headers, remoteAddress: '192.0.2.9' })).statusCode).toBeGreaterThanOrEqual(400);
    }
    const limited = await app.inject({ method: 'GET', url, headers: bearer(TOKENS.aliceEdit), remoteAddress: '192.0.2.9' });
    expect(limited.statusCode).toBe(429);
    expect(envelope(limited).errors[0]!.meta.code).toBe('server-too-many-failed-logins');
    // A key from the same client is limited too: the limit is the client's, whatever it sends.
    expect((await app.inject({ method: 'GET', url, headers: ALICE, remoteAddress: '192.0.2.9' })).statusCode).toBe(429);
    expect((await app.inject({ method: 'GET', url, headers: bearer(TOKENS.aliceEdit), remoteAddress: '192.0.2.10' })).statusCode).toBe(200);
    await app.close();
  });

  it('the window ends: the client may try again, and counting starts afresh', () => {
    let now = 0;
    const limiter = new FailureLimiter({ max: 2, windowMs: 1000 }, () => now);
    limiter.fail('c');
    expect(limiter.blockedFor('c')).toBe(0);
    limiter.fail('c');
    expect(limiter.blockedFor('c')).toBe(1);
    now = 999;
    expect(limiter.blockedFor('c')).toBe(1);
    now = 1000;
    expect(limiter.blockedFor('c')).toBe(0);
    limiter.fail('c');
    expect(limiter.blockedFor('c')).toBe(0);
  });
});

describe('users and keys', () => {
  it('takes a hashed key and never a short one', async () => {
    const app = await createServer({ users: [{ email: 'h@example.com', key_hash: hashKey('hashed-key-01'), accounts: ['a'] }] });
    expect((await app.inject({ method: 'GET', url: '/client/v4/accounts/a/rulesets', headers: { 'x-auth-email': 'h@example.com', 'x-auth-key': 'hashed-key-01' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/client/v4/accounts/a/rulesets', headers: { 'x-auth-email': 'H@Example.com', 'x-auth-key': 'hashed-key-01' } })).statusCode).toBe(200);
    await app.close();
    await expect(createServer({ users: [{ email: 'h@example.com', key: 'short' }] })).rejects.toThrow(/at least 8/);
    await expect(createServer({ users: [{ email: 'h@example.com', key_hash: 'md5:abc' }] })).rejects.toThrow(/key_hash/);
    await expect(createServer({ users: [{ email: 'h@example.com', key: 'long-enough-1' }, { email: 'H@example.com', key: 'long-enough-2' }] })).rejects.toThrow(/twice/);
  });
});
