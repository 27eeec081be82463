/** docs/server.md says what the server does: its code table is SERVER_CODES, its route table every route. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createServer, SERVER_CODES } from '../../src/server/index.js';

const doc = readFileSync(new URL('../../docs/server.md', import.meta.url), 'utf8');

describe('docs/server.md', () => {
  it('lists every server code with its status and meaning, and no other', () => {
    const rows = [...doc.matchAll(/^\| `(server-[a-z0-9-]+)` \| (\d{3}) \| (.*) \|$/gm)].map((m) => [m[1], Number(m[2]), m[3]]);
    const table = Object.entries(SERVER_CODES).map(([code, info]) => [code, info.status, info.doc]);
    expect(rows).toEqual(table);
  });

  it('has a row for every route the server has', async () => {
    const app = await createServer({ users: [] });
    const api = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as { paths: Record<string, object> };
    await app.close();
    const documented = new Set([...doc.matchAll(/^\| `([A-Z]+) ([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]!.replace(/ \(.*$/, '')}`));
    for (const [path, ops] of Object.entries(api.paths)) {
      const shown = path.replace('/client/v4', '').replace(/^\/(accounts\/\{account_id\}|zones\/\{zone_id\})/, '/{scope}');
      for (const m of Object.keys(ops)) expect(documented, `${m.toUpperCase()} ${shown}`).toContain(`${m.toUpperCase()} ${shown}`);
    }
    expect(documented).toContain('GET /healthz');
  });
});
