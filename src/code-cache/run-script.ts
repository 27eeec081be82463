/**
 * Runs a CommonJS file of the build as a `vm.Script` with V8's code cache: the CLI's scripts
 * (src/cli/launch.ts) and the library's (./library.ts) go through here.
 *
 * Why: most of a short process's own cost was V8 parsing and compiling the bundle's code, again at every
 * start (Node 20 has no `module.enableCompileCache`, and no code cache for ES modules). A script compiled
 * with the cache of an earlier run skips both (docs/performance.md, "Start-up").
 *
 * The file is already wrapped in the function of Node's CommonJS loader (the build's banner), so it is
 * compiled as it is. The cache is a file under the user's cache directory named for the script's kind
 * (`cli`, `lib`), its content hash (a build of other code never reads it), a key of the caller's (the
 * command, the entry point: each caches what its own runs compile), Node's version and architecture and
 * the run's options (flagsKey); V8 itself rejects a cache made by another V8 or with other flags, and the
 * run then compiles as usual and writes a new one. It is written when the process exits (so it holds the
 * functions that ran, not only the top level), through a temporary file and a rename (two runs at once
 * never leave half a file), and any failure (a read-only home, no HOME) is ignored: the code runs the same
 * without it. RULEKIT_CODE_CACHE=0 turns it off.
 * @module
 */
import { createRequire } from 'node:module';

// Node's built-ins through require(): an ES import of node:fs builds a module facade of its ~100 exports.
const nodeRequire = createRequire(import.meta.url);
const fs = nodeRequire('node:fs') as typeof import('node:fs');
const path = nodeRequire('node:path') as typeof import('node:path');
const vm = nodeRequire('node:vm') as typeof import('node:vm');

/** A script of the build and how its cache is named. */
export interface CachedScript {
  /** The script's absolute path. */
  file: string;
  /** The content hash of the script (16 hex digits, from the build). */
  hash: string;
  /** What kind of script: the first part of its caches' names, and the caches this kind's writer may remove. */
  kind: 'cli' | 'lib';
  /** What this run does with it (a command, an entry point): one cache each. */
  key: string;
  /** The hashes of this build's scripts of the same kind: caches of any other are removed. */
  current: readonly string[];
  /**
   * When to write a missing cache: at the process's exit (the default: it then holds what the whole run
   * compiled), or when the caller calls the `writeCache` it is handed (a worker thread, which its pool
   * terminates: a terminated thread has no exit event).
   */
  write?: 'at-exit' | 'by-caller';
}

/** What running a script gives: its `module.exports`, and the writer of its cache when one is to be written by the caller. */
export interface ScriptRun<T> {
  exports: T;
  writeCache?: () => void;
}

/** The directory of the code caches, or undefined when there is none to use. */
export function cacheDir(): string | undefined {
  const env = process.env;
  if (env['RULEKIT_CODE_CACHE'] === '0') return undefined;
  const base = env['XDG_CACHE_HOME'] || (env['HOME'] ? path.join(env['HOME'], '.cache') : undefined);
  return base && path.isAbsolute(base) ? path.join(base, 'rulekit') : undefined;
}

/** Options of Node's that carry the program's own text or say how to read it, not how V8 compiles: not in flagsKey. */
const PROGRAM_OPTIONS = new Set(['-e', '--eval', '-p', '--print']);

/**
 * Node's and V8's options of this run, as part of the cache's name: V8 rejects a cache made under other
 * flags, so runs with and without, say, --enable-source-maps would otherwise rewrite each other's cache
 * at every run. The text of `node -e` is left out (each program given that way would otherwise write a
 * cache of its own). Empty without options; else `-` and an FNV-1a hash of them.
 */
export function flagsKey(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): string {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (PROGRAM_OPTIONS.has(arg)) i++;
    else if (!/^--(eval|print|input-type)=/.test(arg) && arg !== '--input-type') kept.push(arg);
  }
  const flags = `${kept.join('\0')}\0${nodeOptions}`;
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
function writeCache(script: import('node:vm').Script, s: CachedScript, dir: string, file: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    // The threads of one process (the simulation's workers) share its pid.
    const tmp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, file);
    const current = new Set(s.current.map((h) => `${s.kind}-${h}-`));
    const start = `${s.kind}-`.length + 16 + 1;
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(`${s.kind}-`) && name.endsWith('.v8cache') && !current.has(name.slice(0, start))) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // No cache this time: the next run compiles again.
  }
}

/**
 * Compile the script (with its cache when there is a usable one), run it, and return what it put in
 * `module.exports`. The cache is written when there was none or V8 rejected it: at exit, or by the caller.
 */
export function runCachedScript<T>(s: CachedScript): ScriptRun<T> {
  const source = fs.readFileSync(s.file, 'utf8');
  const dir = cacheDir();
  const cacheFile = dir && path.join(dir, `${s.kind}-${s.hash}-${s.key}-${process.version}-${process.arch}${flagsKey()}.v8cache`);
  const cachedData = cacheFile ? readOrUndefined(cacheFile) : undefined;
  // The script has no import(): the build made those of packages require()s (a vm.Script's import() needs
  // --experimental-vm-modules in Node 20).
  const script = new vm.Script(source, { filename: s.file, ...(cachedData ? { cachedData } : {}) });
  const write = dir && cacheFile && (!cachedData || script.cachedDataRejected) ? () => writeCache(script, s, dir, cacheFile) : undefined;
  if (write && s.write !== 'by-caller') process.once('exit', write);
  const module = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(s.file), module, s.file, path.dirname(s.file));
  return s.write === 'by-caller' && write ? { exports: module.exports, writeCache: write } : { exports: module.exports };
}
