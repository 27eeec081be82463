/**
 * `rulekit serve` when what it needs is not there: a port another process holds, a database that does not
 * answer. Each ends the process promptly with one line and exit code 2, never a hang or a stack trace (a
 * database that comes up late is waited for: faults.postgres.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, killAll, NO_DEMO_ENV, startServer } from './process.js';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'rulekit-faults-'));
});
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** Run `rulekit serve ARGS` to its exit (killed after `timeoutMs`): its code, stdout, stderr and time taken. */
export function serveToExit(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { env: { ...process.env, RULEKIT_USERS: '', DATABASE_URL: '', PORT: '', ...NO_DEMO_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe('rulekit serve on a port already taken', () => {
  it('prints one line and exits 2 promptly (the store it opened does not keep it alive)', async () => {
    const first = await startServer(['--data', join(dir, 'first'), '--log-level', 'warn']);
    const port = new URL(first.origin).port;
    const second = await serveToExit(['--port', port, '--data', join(dir, 'second')]);
    expect(second.stderr).toBe(`rulekit: port ${port} is in use; give another with --port (0: any free port)\n`);
    expect(second.code).toBe(2);
    expect(second.ms).toBeLessThan(10_000);
  }, 60_000);
});

/** A port of 127.0.0.1 nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('rulekit serve with its database down', () => {
  it('prints one line per attempt, then exits 2 with one line after --db-wait seconds (no stack trace)', async () => {
    const port = await closedPort();
    const run = await serveToExit(['--port', '0', '--database-url', `postgres://u:p@127.0.0.1:${port}/db`, '--db-wait', '2']);
    const lines = run.stderr.trimEnd().split('\n');
    expect(run.code, run.stderr).toBe(2);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines.slice(0, -1)) expect(l).toMatch(/^rulekit: the database does not answer \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); attempt \d+, trying again in \d\.\d s$/);
    expect(lines.at(-1)).toMatch(/^rulekit: the database did not answer in 2 s \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); is it running\? \(--db-wait sets how long to wait\)$/);
    expect(run.stdout).toBe('');
    expect(run.ms).toBeLessThan(10_000);
  }, 60_000);
});
