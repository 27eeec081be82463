/**
 * Tests that need a program outside Node (tshark, util-linux `script`, chromium, PostgreSQL, Neovim, strace) declare it
 * with {@link needsTool} / {@link describeNeedsTool} instead of returning early or skipping quietly:
 * - the tool is there: the test runs;
 * - it is not, outside CI: the test is skipped and its title ends with "(skipped: TOOL not installed)";
 * - it is not, in CI (`CI` set, as .ci/run does): the test runs and fails, naming the tool and how to
 *   install it, so a CI image that lost a tool cannot turn a cross-check into a silent pass.
 * Under mutation testing (`RULEKIT_MUTATION_RUN`, set by vitest.stryker.config.ts; never in CI) these tests
 * are skipped and their titles say so: they spawn the tool for every mutant, and what they compare with is
 * committed as goldens that the tests beside them read (a mutant they would kill, those kill too).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';

/**
 * Where the PostgreSQL server programs (initdb, pg_ctl, postgres) are: `PG_BIN` when set, else the newest
 * /usr/lib/postgresql/VERSION/bin (Debian keeps them there, off PATH), else '' (whatever PATH finds).
 */
export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  let versions: string[] = [];
  try {
    versions = readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v)).sort((a, b) => Number(b) - Number(a));
  } catch {
    // not Debian's layout
  }
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (['initdb', 'pg_ctl', 'postgres'].every((p) => existsSync(join(bin, p)))) return bin;
  }
  return '';
}

/** The path of a PostgreSQL server program (see {@link postgresBinDir}). */
export function postgresProgram(name: 'initdb' | 'pg_ctl' | 'postgres'): string {
  const dir = postgresBinDir();
  return dir ? join(dir, name) : name;
}

export type Tool = 'tshark' | 'script' | 'chromium' | 'postgres' | 'git' | 'nvim' | 'strace';

/** How each tool is probed (a command that exits 0 when it works) and installed (Debian 12). */
const TOOLS: Record<Tool, { probe: [string, string[]][]; install: string }> = {
  tshark: { probe: [['tshark', ['-v']]], install: 'apt-get install tshark' },
  script: { probe: [['script', ['--version']]], install: 'apt-get install util-linux (bsdutils)' },
  chromium: { probe: [['chromium', ['--version']], ['chromium-browser', ['--version']]], install: 'apt-get install chromium' },
  // The tests start their own cluster, so they need the server programs themselves, not a client or a running server.
  postgres: { probe: [[postgresProgram('postgres'), ['--version']]], install: 'apt-get install postgresql' },
  git: { probe: [['git', ['--version']]], install: 'apt-get install git' },
  nvim: { probe: [['nvim', ['--version']]], install: 'apt-get install neovim' },
  // Probed by tracing a program, not by --version: a container without ptrace rights has strace but cannot use it.
  strace: { probe: [['strace', ['-f', '-o', '/dev/null', 'true']]], install: 'apt-get install strace' },
};

const found = new Map<Tool, boolean>();

/** Whether the tool runs here (probed once per test file). */
export function toolAvailable(tool: Tool): boolean {
  let ok = found.get(tool);
  if (ok === undefined) {
    ok = TOOLS[tool].probe.some(([cmd, args]) => {
      try {
        return spawnSync(cmd, args, { stdio: 'ignore', timeout: 20_000 }).status === 0;
      } catch {
        return false;
      }
    });
    found.set(tool, ok);
  }
  return ok;
}

/** True when running in CI (`CI` set to anything but "" / "0" / "false"). */
export function inCi(): boolean {
  const v = process.env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function missingMessage(tool: Tool): string {
  return `${tool} is not installed: this test needs it and CI must run it (${TOOLS[tool].install})`;
}

type TestFn = () => unknown;
type ItLike = (name: string, fn: TestFn, timeout?: number) => void;

/** Whether this is a mutation-testing run outside CI (see the module comment). */
export function mutationRun(): boolean {
  return !inCi() && process.env.RULEKIT_MUTATION_RUN === '1';
}

/** `it` for a test that needs `tool` (see the module comment for what happens when it is missing). */
export function needsTool(tool: Tool): ItLike {
  if (mutationRun()) return (name, fn, timeout) => it.skip(`${name} (skipped under mutation testing: runs ${tool})`, fn, timeout);
  if (toolAvailable(tool)) return (name, fn, timeout) => it(name, fn, timeout);
  if (inCi()) {
    return (name, _fn, timeout) =>
      it(name, () => {
        throw new Error(missingMessage(tool));
      }, timeout);
  }
  return (name, fn, timeout) => it.skip(`${name} (skipped: ${tool} not installed)`, fn, timeout);
}

/**
 * `describe` for a group of tests that all need `tool`. Missing in CI: the group holds one failing test
 * that names the tool (its body is not run, so no test fails for another reason first).
 */
export function describeNeedsTool(tool: Tool): (name: string, body: () => void) => void {
  if (mutationRun()) return (name, body) => describe.skip(`${name} (skipped under mutation testing: runs ${tool})`, body);
  if (toolAvailable(tool)) return (name, body) => describe(name, body);
  if (inCi()) {
    return (name) =>
      describe(name, () => {
        it(`needs ${tool}`, () => {
          throw new Error(missingMessage(tool));
        });
      });
  }
  return (name, body) => describe.skip(`${name} (skipped: ${tool} not installed)`, body);
}

/**
 * `it` for a test too slow to run once per mutant: under mutation testing (never in CI) it is skipped and
 * its title says why; everywhere else it is a plain `it`. The code only it reaches then counts as "no
 * coverage" in the mutation score, which keeps the score honest instead of timing the run out.
 */
export function slowUnderMutation(why: string): ItLike {
  if (mutationRun()) return (name, fn, timeout) => it.skip(`${name} (skipped under mutation testing: ${why})`, fn, timeout);
  return (name, fn, timeout) => it(name, fn, timeout);
}
