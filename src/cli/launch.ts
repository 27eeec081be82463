#!/usr/bin/env node
/**
 * The `rulekit` command of the Node bundle (dist/bundle/cli.js): it runs the CLI's code, which the build
 * puts in one CommonJS file beside it (CLI_MAIN, already wrapped in the function of Node's CommonJS loader),
 * through a `vm.Script` with V8's code cache.
 *
 * Why: most of a short command's own cost was V8 parsing and compiling the bundle's code, again at every
 * start (Node 20 has no `module.enableCompileCache`, and no code cache for ES modules). A script compiled
 * with the cache of an earlier run skips both: `rulekit check` of one expression went from ~2.9× to ~1.7× the
 * instructions of `node -e 0` (docs/performance.md, "Start-up").
 *
 * The cache is a file under the user's cache directory named for the CLI file's content hash (a build of
 * other code never reads it), the command (each caches what its own runs compile), Node's version and
 * architecture and the run's options (flagsKey); V8 itself rejects a cache made by
 * another V8 or with other flags, and the run then compiles as usual and writes a new one. It is written
 * when the process exits (so it holds the functions that run compiled, not only the top level), through a
 * temporary file and a rename (two runs at once never leave half a file), and any failure (a read-only
 * home, no HOME) is ignored: the command runs the same without it. RULEKIT_CODE_CACHE=0 turns it off.
 * @module
 */
import { createRequire } from 'node:module';

/**
 * The CLI's CommonJS files beside this one and the hashes of their contents, by the command each is for
 * ('' the file of every command): set by scripts/bundle.mjs.
 */
declare const CLI_SCRIPTS: Record<string, { file: string; hash: string }>;

// Node's built-ins through require(): an ES import of node:fs builds a module facade of its ~100 exports.
const nodeRequire = createRequire(import.meta.url);
const fs = nodeRequire('node:fs') as typeof import('node:fs');
const path = nodeRequire('node:path') as typeof import('node:path');
const vm = nodeRequire('node:vm') as typeof import('node:vm');

/** The directory of the code caches, or undefined when there is none to use. */
function cacheDir(): string | undefined {
  const env = process.env;
  if (env['RULEKIT_CODE_CACHE'] === '0') return undefined;
  const base = env['XDG_CACHE_HOME'] || (env['HOME'] ? path.join(env['HOME'], '.cache') : undefined);
  return base && path.isAbsolute(base) ? path.join(base, 'rulekit') : undefined;
}

/**
 * Node's and V8's options of this run, as part of the cache's name: V8 rejects a cache made under other
 * flags, so runs with and without, say, --enable-source-maps would otherwise rewrite each other's cache
 * at every run. Empty without options; else `-` and an FNV-1a hash of them.
 */
function flagsKey(): string {
  const flags = `${process.execArgv.join('\0')}\0${process.env['NODE_OPTIONS'] ?? ''}`;
  if (flags === '\0') return '';
  let h = 0x811c9dc5;
  for (let i = 0; i < flags.length; i++) h = Math.imul(h ^ flags.charCodeAt(i), 0x01000193);
  return `-${(h >>> 0).toString(16)}`;
}

/** Read a file, or undefined when it cannot be read. */
function readOrUndefined(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Write the script's cache as `file` (atomically) and remove the caches of other builds; errors are ignored. */
function writeCache(script: import('node:vm').Script, dir: string, file: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, file);
    const current = new Set(Object.values(CLI_SCRIPTS).map((s) => `cli-${s.hash}-`));
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith('cli-') && name.endsWith('.v8cache') && !current.has(name.slice(0, 21))) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // No cache this time: the next run compiles again.
  }
}

const here = path.dirname((nodeRequire('node:url') as typeof import('node:url')).fileURLToPath(import.meta.url));
const first = process.argv[2] ?? '';
const cli = Object.hasOwn(CLI_SCRIPTS, first) && first !== '' ? CLI_SCRIPTS[first]! : CLI_SCRIPTS['']!;
const filename = path.join(here, cli.file);
const source = fs.readFileSync(filename, 'utf8');
const dir = cacheDir();
// One cache per command: each holds the functions its own runs compile (a `check` cache lacks simulate's).
const command = /^[a-z][a-z-]{0,31}$/.test(first) ? first : 'other';
const cacheFile = dir && path.join(dir, `cli-${cli.hash}-${command}-${process.version}-${process.arch}${flagsKey()}.v8cache`);
const cachedData = cacheFile ? readOrUndefined(cacheFile) : undefined;
// The script has no import(): the build made those of packages require()s (a vm.Script's import() needs
// --experimental-vm-modules in Node 20).
const script = new vm.Script(source, { filename, ...(cachedData ? { cachedData } : {}) });
if (dir && cacheFile && (!cachedData || script.cachedDataRejected)) process.once('exit', () => writeCache(script, dir, cacheFile));
const module = { exports: {} as { main(): Promise<void> } };
(script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(filename), module, filename, here);
await module.exports.main();
