/**
 * The built CLI (`dist/bundle/cli.js`, what `npm run build` writes and users run) in a child process, as the
 * CLI tests call it: the exit code and both streams as text. `NO_COLOR` is set so text output is plain unless
 * a test passes `--color`; stdout and stderr are pipes, so nothing is a terminal either way.
 */
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');

export interface CliRun {
  /** The exit code; null when the process was killed (a timeout). */
  code: number | null;
  out: string;
  err: string;
}

export interface CliOptions {
  /** Default: the project's root. */
  cwd?: string;
  input?: string | Buffer;
  /** Added to this process's environment (and `NO_COLOR=1`). */
  env?: Record<string, string>;
  /** Milliseconds before the child is killed (default 60 s: a hung CLI fails its test, not the run). */
  timeout?: number;
  /** Node's own flags, before the script (`--max-old-space-size=20`). */
  nodeArgs?: readonly string[];
}

function childEnv(env: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', ...env };
}

/** `rulekit ARGS…` to its end. */
export function runCli(args: readonly string[], options: CliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    input: options.input,
    env: childEnv(options.env),
    timeout: options.timeout ?? 60_000,
    maxBuffer: 256 << 20,
  });
  return { code: r.status, out: r.stdout?.toString('utf8') ?? '', err: r.stderr?.toString('utf8') ?? '' };
}

/**
 * `rulekit ARGS…` without blocking this process: for tests that serve something (an HTTP server, a
 * database's wire protocol) from the test's own event loop, which `spawnSync` would stall.
 */
export function runCliAsync(args: readonly string[], options: Omit<CliOptions, 'input' | 'nodeArgs'> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: options.cwd ?? ROOT, env: childEnv(options.env), timeout: options.timeout ?? 60_000, maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, out: stdout, err: stderr });
    });
  });
}
