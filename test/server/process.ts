/**
 * The server as a child process (`node dist/bundle/cli.js serve`), for the durability, load, shutdown and
 * banner tests: start it on a data directory, read the URL it prints, kill it. The bundle is rebuilt
 * first when it is older than the sources (npm test builds it before; this covers `vitest run` alone).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Build dist when it is missing or older than src (one build at a time across test files). */
export async function ensureBuilt(): Promise<void> {
  const stale = () => !existsSync(CLI) || statSync(CLI).mtimeMs < newest(join(ROOT, 'src'));
  if (!stale()) return;
  const lock = join(tmpdir(), `rulekit-build-lock-${Buffer.from(ROOT).toString('hex').slice(-40)}`);
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (i > 1200) throw new Error(`waited 2 minutes for ${lock}; remove it if no build runs`);
      await sleep(100);
    }
  }
  try {
    if (!stale()) return;
    const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The environment that leaves the demo tenant at its defaults (a caller's RULEKIT_DEMO_* cleared). */
export const NO_DEMO_ENV = { RULEKIT_DEMO_EMAIL: '', RULEKIT_DEMO_KEY: '', RULEKIT_DEMO_ACCOUNT: '', RULEKIT_DEMO_ZONE: '' };

export interface UserSpec {
  email: string;
  key: string;
  accounts: string[];
  zones: string[];
}

/** Write a users file into `dir`. */
export function writeUsers(dir: string, users: UserSpec[]): string {
  const file = join(dir, 'users.json');
  writeFileSync(file, JSON.stringify({ users }));
  return file;
}

export interface Running {
  child: ChildProcess;
  /** Base URL of the API (…/client/v4). */
  url: string;
  /** Origin (http://127.0.0.1:port). */
  origin: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Every child started here, so a failing test still kills it (call killAll in afterAll). */
const children = new Set<ChildProcess>();
/** Children that lead a process group of their own. */
const groups = new Set<ChildProcess>();

/** Send a signal to a child, or to its whole group when it leads one. */
export function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (groups.has(child) && child.pid !== undefined) {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // The group is gone already.
    }
  } else child.kill(sig);
}

/** Start `rulekit serve` with these arguments; resolves once it prints its URL. */
export async function startServer(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, cwd = ROOT): Promise<Running> {
  return start(process.execPath, [CLI, 'serve', '--port', '0', ...args], env, timeoutMs, cwd);
}

/**
 * Start any command that prints the server's banner (`npm start …`). A command that is not node itself
 * runs in its own process group, which killAll kills whole (npm's node child included).
 */
export async function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, cwd = ROOT): Promise<Running> {
  const group = command !== process.execPath;
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, RULEKIT_USERS: '', DATABASE_URL: '', PORT: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  if (group) groups.add(child);
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close', not 'exit': by then the output the process wrote has all been read (a test reading its
    // last lines right after the exit would otherwise race the pipe).
    child.once('close', (code, sig) => {
      children.delete(child);
      resolve({ code, signal: sig });
    });
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = /rulekit reference server on (http:\/\/\S+)/.exec(out);
    if (m) {
      const url = m[1]!;
      return { child, url, origin: new URL(url).origin, stdout: () => out, stderr: () => err, exited };
    }
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before printing its URL:\n${out}\n${err}`);
    if (Date.now() > deadline) {
      signal(child, 'SIGKILL');
      throw new Error(`the server printed no URL in ${timeoutMs} ms:\n${out}\n${err}`);
    }
    await sleep(20);
  }
}

/** SIGKILL every child still running. */
export async function killAll(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      waits.push(new Promise((r) => c.once('exit', r)));
    }
    signal(c, 'SIGKILL');
  }
  // A group whose leader (npm) exited may still hold the server: the group is killed all the same.
  for (const g of groups) signal(g, 'SIGKILL');
  await Promise.all(waits);
  children.clear();
  groups.clear();
}

/** A rule list of n rules, distinct per `tag`. */
export function rules(n: number, tag: number): { action: string; expression: string; description: string }[] {
  return Array.from({ length: n }, (_, i) => ({ action: 'block', expression: `tcp.dstport == ${1 + ((tag * 7 + i) % 65535)}`, description: `r${i} of ${tag}` }));
}
