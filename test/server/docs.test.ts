/**
 * The server's docs say what the server does: docs/server-errors.md's code table is SERVER_CODES,
 * docs/server-routes.md has a row for every route, and docs/server.md stays the short entry that links them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createServer, SERVER_CODES } from '../../src/server/index.js';

const read = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
const entry = read('server.md');
const routes = read('server-routes.md');
const errors = read('server-errors.md');

describe('docs/server-errors.md', () => {
  it('lists every server code with its status and meaning, in the order of codes.ts, and no other', () => {
    const rows = [...errors.matchAll(/^\| `(server-[a-z0-9-]+)` \| (\d{3}) \| (.*) \|$/gm)].map((m) => [m[1], Number(m[2]), m[3]]);
    const table = Object.entries(SERVER_CODES).map(([code, info]) => [code, info.status, info.doc]);
    expect(rows).toEqual(table);
  });
});

describe('docs/server-routes.md', () => {
  it('has a row for every route the server has', async () => {
    const app = await createServer({ users: [] });
    const api = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as { paths: Record<string, object> };
    await app.close();
    const documented = new Set([...routes.matchAll(/^\| `([A-Z]+) ([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]!.replace(/ \(.*$/, '')}`));
    for (const [path, ops] of Object.entries(api.paths)) {
      const shown = path.replace('/client/v4', '').replace(/^\/(accounts\/\{account_id\}|zones\/\{zone_id\})/, '/{scope}');
      for (const m of Object.keys(ops)) expect(documented, `${m.toUpperCase()} ${shown}: add its row to docs/server-routes.md`).toContain(`${m.toUpperCase()} ${shown}`);
    }
    expect(documented).toContain('GET /healthz');
  });
});

describe('docs/server.md', () => {
  // Issue 32: the entry a user reads first stays short; routes and codes have pages of their own.
  it('stays the entry: at most 250 lines, no route or code table, links to both pages', () => {
    expect(entry.split('\n').length, 'docs/server.md is over 250 lines: move reference tables to server-routes.md or server-errors.md').toBeLessThanOrEqual(250);
    expect(entry).not.toMatch(/^\| `(GET|POST|PUT|PATCH|DELETE) /m);
    expect(entry).not.toMatch(/^\| `server-[a-z0-9-]+` \| \d{3} \|/m);
    expect(entry).toContain('](server-routes.md)');
    expect(entry).toContain('](server-errors.md)');
  });
});
