/**
 * `rulekit playground`: serves the built page and prints its URL (`--port 0`: a free port); a taken port
 * or a bad value is a usage error (exit 2) in one line. Runs the built CLI.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { CLI, ensureBuilt } from '../server/process.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

/** Start `rulekit playground ARGS` and resolve with the URL it prints. */
function start(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'playground', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^rulekit playground on (http:\/\/\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

describe('rulekit playground', () => {
  it('--port 0: listens on a free port, prints the URL, serves the page and its bundle', async () => {
    await ensureBuilt();
    const url = await start(['--port', '0']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<script src="playground.js"></script>');
    const js = await fetch(new URL('playground.js', url));
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    expect((await fetch(new URL('../package.json', url))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
  });

  it('a port in use, or not a port: exit 2 and one line', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    const busy = spawnSync(process.execPath, [CLI, 'playground', '--port', String(port)], { encoding: 'utf8', timeout: 20_000 });
    taken.close();
    expect(busy.status).toBe(2);
    expect(busy.stderr).toBe(`rulekit: port ${port} is in use; give another with --port (0: any free port)\n`);
    const bad = spawnSync(process.execPath, [CLI, 'playground', '--port', 'http'], { encoding: 'utf8', timeout: 20_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('give a port number 0..65535');
  });
});
