/**
 * The reference server serves the playground at `/` (the built page of dist/playground, or a directory
 * given), outside the API: no credentials, the API's envelope and routes untouched.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/server/index.js';

const USERS = [{ email: 'p@example.com', key: 'playground-key-1', accounts: ['acc1'] }];

/** A stand-in for the built playground. */
function fakePlayground(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-playground-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script src="playground.js"></script>');
  writeFileSync(join(dir, 'playground.js'), 'console.log(1)');
  writeFileSync(join(dir, 'playground.css'), 'body{}');
  writeFileSync(join(dir, 'notes.txt'), 'not served');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'x.js'), 'not served');
  return dir;
}

describe('the playground at /', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createServer({ users: USERS, dataDir: ':memory:', playground: fakePlayground() });
  });
  afterAll(async () => app.close());

  it('serves the page and its files, without credentials', async () => {
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<script src="playground.js">');
    const js = await app.inject({ method: 'GET', url: '/playground.js?v=1' });
    expect([js.statusCode, js.headers['content-type'], js.body]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log(1)']);
    expect((await app.inject({ method: 'GET', url: '/playground.css' })).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
  });

  it('nothing else: other files, paths and methods get the API\'s envelope', async () => {
    for (const url of ['/notes.txt', '/sub/x.js', '/../package.json', '/%2e%2e/package.json']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(JSON.parse(res.body).errors[0].meta.code).toBe('server-not-found');
    }
    const post = await app.inject({ method: 'POST', url: '/', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
  });

  it('the API is unchanged: credentials still required under /client/v4', async () => {
    const res = await app.inject({ method: 'GET', url: '/client/v4/accounts/acc1/rulesets' });
    expect(res.statusCode).toBe(401);
    const ok = await app.inject({ method: 'GET', url: '/client/v4/accounts/acc1/rulesets', headers: { 'x-auth-email': 'p@example.com', 'x-auth-key': 'playground-key-1' } });
    expect(ok.statusCode).toBe(200);
  });

  it('playground: false, or a directory without a built page: / is not found', async () => {
    for (const playground of [false, join(tmpdir(), 'rulekit-no-such-playground')]) {
      const other = await createServer({ users: USERS, dataDir: ':memory:', playground });
      expect((await other.inject({ method: 'GET', url: '/' })).statusCode).toBe(404);
      await other.close();
    }
  });
});
