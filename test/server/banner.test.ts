/**
 * What `rulekit serve` and `npm start` print works as printed: the curl line, run as curl would run it
 * (same URL, headers and body), answers 200 and creates the ruleset; the SDK snippet's values reach the
 * server with the official client; and RULEKIT_DEMO_EMAIL / _KEY / _ACCOUNT / _ZONE replace the demo
 * user's email, key, account and zone everywhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killAll, NO_DEMO_ENV, type Running, signal, start, startServer } from './process.js';

let dir: string;

/** Split a shell command line the way sh does for what the banner uses: words, '…' quotes, \ newlines. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === '\\' && line[i + 1] === '\n') {
      i++;
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === '"' || ch === '$' || ch === '`' || ch === '\\') {
      throw new Error(`the banner's curl line uses ${ch}, which this test does not interpret: ${line}`);
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The printed curl command as a fetch: curl -s URL -H 'Name: value'… -d 'body' (POST, as curl -d does). */
async function runCurl(banner: string): Promise<{ status: number; body: { success: boolean; result: Record<string, unknown> | null; errors: unknown[] } }> {
  const lines = banner.split('\n');
  let at = lines.findIndex((l) => /^\s*curl /.test(l));
  expect(at, `no curl line in:\n${banner}`).toBeGreaterThanOrEqual(0);
  let command = lines[at]!.trim();
  while (command.endsWith('\\')) command += '\n' + lines[++at]!;
  const words = shellWords(command);
  expect(words[0]).toBe('curl');
  let url: string | undefined;
  const headers: Record<string, string> = {};
  let data: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-s') continue;
    if (w === '-H') {
      const h = words[++i]!;
      const at = h.indexOf(':');
      headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
    } else if (w === '-d' || w === '--data') data = words[++i];
    else if (w.startsWith('-')) throw new Error(`curl option ${w} is not interpreted here`);
    else url = w;
  }
  expect(url).toBeDefined();
  const res = await fetch(url!, { method: data === undefined ? 'GET' : 'POST', headers, body: data });
  return { status: res.status, body: (await res.json()) as never };
}

/** The SDK snippet's baseURL, apiEmail, apiKey and account_id. */
function snippet(banner: string): { baseURL: string; apiEmail: string; apiKey: string; account: string } {
  const ctor = /new Cloudflare\(\{ baseURL: '([^']+)', apiEmail: '([^']+)', apiKey: '([^']+)' \}\)/.exec(banner);
  const list = /cf\.rulesets\.list\(\{ account_id: '([^']+)' \}\)/.exec(banner);
  expect(ctor, banner).not.toBeNull();
  expect(list, banner).not.toBeNull();
  return { baseURL: ctor![1]!, apiEmail: ctor![2]!, apiKey: ctor![3]!, account: list![1]! };
}

async function checkBanner(server: Running, expected: { email: string; key: string; account: string; zone: string }): Promise<void> {
  const banner = server.stdout();
  expect(banner).toContain(`demo user ${expected.email}, key ${expected.key}, account ${expected.account}, zone ${expected.zone}`);
  expect(banner).toMatch(/^rulekit reference server on http:\/\/127\.0\.0\.1:\d+\/client\/v4$/m);
  const curl = await runCurl(banner);
  expect(curl.status, JSON.stringify(curl.body)).toBe(200);
  expect(curl.body.success).toBe(true);
  expect(curl.body.result).toMatchObject({ kind: 'root', phase: 'network_transit', version: '1' });
  expect((curl.body.result!['rules'] as unknown[]).length).toBe(2);
  // Printed a second time, the same line finds the phase taken: it did write, to the printed account.
  expect((await runCurl(banner)).status).toBe(409);
  const s = snippet(banner);
  expect(s).toEqual({ baseURL: server.url, apiEmail: expected.email, apiKey: expected.key, account: expected.account });
  const cf = new Cloudflare({ baseURL: s.baseURL, apiEmail: s.apiEmail, apiKey: s.apiKey, maxRetries: 0 });
  const listed: { id: string }[] = [];
  for await (const r of cf.rulesets.list({ account_id: s.account })) listed.push(r as { id: string });
  expect(listed.map((r) => r.id)).toEqual([curl.body.result!['id']]);
  // The demo zone is the user's too.
  const zone = await fetch(`${server.url}/zones/${expected.zone}/rulesets`, { headers: { 'X-Auth-Email': expected.email, 'X-Auth-Key': expected.key } });
  expect(zone.status).toBe(200);
  // And the defaults are not a second way in when overridden.
  if (expected.key !== 'rulekit-demo-key') {
    const old = await fetch(`${server.url}/accounts/${expected.account}/rulesets`, { headers: { 'X-Auth-Email': 'demo@example.com', 'X-Auth-Key': 'rulekit-demo-key' } });
    expect(old.status).toBe(403);
  }
}


describe('the banner of rulekit serve / npm start', () => {
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'rulekit-banner-'));
  });

  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rulekit serve: the default demo tenant; the curl line and the SDK snippet work as printed', async () => {
    const server = await startServer(['--data', join(dir, 'default'), '--log-level', 'warn'], NO_DEMO_ENV);
    try {
      await checkBanner(server, { email: 'demo@example.com', key: 'rulekit-demo-key', account: '023e105f4ecef8ad9ca31a8372d0c353', zone: '023e105f4ecef8ad9ca31a8372d0c354' });
    } finally {
      signal(server.child, 'SIGTERM');
      expect((await server.exited).code).toBe(0);
    }
  });

  it('RULEKIT_DEMO_EMAIL, _KEY, _ACCOUNT and _ZONE replace the demo tenant, in the banner and in the server', async () => {
    const env = { RULEKIT_DEMO_EMAIL: 'ops@corp.example', RULEKIT_DEMO_KEY: 'k3y-from-the-env-0042', RULEKIT_DEMO_ACCOUNT: 'aaaabbbbccccddddeeeeffff00001111', RULEKIT_DEMO_ZONE: 'zzzzbbbbccccddddeeeeffff00002222' };
    const server = await startServer(['--data', join(dir, 'env'), '--log-level', 'warn'], env);
    try {
      expect(server.stdout()).not.toContain('demo@example.com');
      expect(server.stdout()).not.toContain('023e105f4ecef8ad9ca31a8372d0c353');
      await checkBanner(server, { email: env.RULEKIT_DEMO_EMAIL, key: env.RULEKIT_DEMO_KEY, account: env.RULEKIT_DEMO_ACCOUNT, zone: env.RULEKIT_DEMO_ZONE });
    } finally {
      signal(server.child, 'SIGTERM');
      expect((await server.exited).code).toBe(0);
    }
  });

  it('npm start (scripts as package.json has them) serves the same banner', async () => {
    const env = { ...NO_DEMO_ENV, RULEKIT_DEMO_ACCOUNT: 'npmstartaccount000000000000000001' };
    // --ignore-scripts skips only prestart's build (ensureBuilt did it), not start itself.
    const server = await start('npm', ['start', '--silent', '--ignore-scripts', '--', '--port', '0', '--data', join(dir, 'npm'), '--log-level', 'warn'], env);
    try {
      await checkBanner(server, { email: 'demo@example.com', key: 'rulekit-demo-key', account: env.RULEKIT_DEMO_ACCOUNT, zone: '023e105f4ecef8ad9ca31a8372d0c354' });
    } finally {
      signal(server.child, 'SIGTERM');
      await Promise.race([server.exited, sleep(15_000)]);
    }
  });
});
