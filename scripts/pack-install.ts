/**
 * The package as a user installs it: `npm pack`, then the tarball installed into an empty project with
 * `npm ci --offline`, from npm's cache (the repository's own `npm ci` filled it) and a lockfile made from
 * the repository's (so the versions are those the tests ran). Shared by test/meta/install.test.ts, which
 * holds the core to its size and runs it, and bench/install.ts, which reports the sizes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  hasInstallScript?: boolean;
  [key: string]: unknown;
}

/** What {@link packAndInstall} made. */
export interface Installed {
  /** The consumer project (its node_modules holds rulekit and its dependencies). */
  dir: string;
  tarball: string;
  tarballBytes: number;
  /** The install's status and output (0 when it worked). */
  status: number | null;
  output: string;
}

/** Where Node finds `name` from the package at `from`: its own node_modules, then each enclosing one. */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string {
  for (let base = from; ; ) {
    const candidate = `${base}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    const up = base.lastIndexOf('/node_modules/');
    if (up < 0) return `node_modules/${name}`;
    base = base.slice(0, up);
  }
}

/** The repository's lockfile entries of `names` and everything they depend on, as npm placed them. */
export function lockClosure(names: readonly string[]): Record<string, LockEntry> {
  const root = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const out: Record<string, LockEntry> = {};
  const todo = names.map((name) => `node_modules/${name}`);
  while (todo.length) {
    const path = todo.pop()!;
    if (out[path]) continue;
    const entry = root.packages[path];
    if (!entry) throw new Error(`the repository's lockfile has no ${path}`);
    out[path] = entry;
    for (const name of Object.keys(entry.dependencies ?? {})) todo.push(resolveIn(root.packages, path, name));
    // npm installs a package's required peers, and those of its optional dependencies that fit the
    // platform (the lockfile lists every platform's; the ones installed here are those this machine took).
    for (const name of Object.keys(entry.peerDependencies ?? {})) if (!entry.peerDependenciesMeta?.[name]?.optional) todo.push(resolveIn(root.packages, path, name));
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      const at = resolveIn(root.packages, path, name);
      if (root.packages[at] && existsSync(join(ROOT, at))) todo.push(at);
    }
  }
  return out;
}

/** Pack the repository (its dist/ as built) into `dir` and install the tarball there, offline. */
export function packAndInstall(dir: string): Installed {
  const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_ignore_scripts: 'true' } });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const file = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename.replace(/^.*\//, '');
  const tarball = join(dir, file);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', dependencies: { rulekit: `file:${file}` } },
    'node_modules/rulekit': { version: pkg.version, resolved: `file:${file}`, integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`, dependencies: pkg.dependencies },
  };
  for (const [path, entry] of Object.entries(lockClosure(Object.keys(pkg.dependencies)))) {
    // The repository's flags (dev, peer, optional) describe its own tree, not the consumer's.
    const { dev: _dev, peer: _peer, devOptional: _devOptional, optional: _optional, ...kept } = entry;
    packages[path] = kept;
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { rulekit: `file:${file}` } }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 1));
  const installed = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { dir, tarball, tarballBytes: statSync(tarball).size, status: installed.status, output: installed.stdout + installed.stderr };
}

/** Bytes of the files under `path` (links not followed). */
export function bytesUnder(path: string): number {
  let total = 0;
  for (const name of readdirSync(path)) {
    const p = join(path, name);
    const s = lstatSync(p);
    total += s.isDirectory() ? bytesUnder(p) : s.isFile() ? s.size : 0;
  }
  return total;
}

/** The packages an install placed (node_modules/.package-lock.json), by lockfile path. */
export function installedPackages(dir: string): Record<string, LockEntry> {
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  return Object.fromEntries(Object.entries(lock.packages).filter(([p]) => p.startsWith('node_modules/')));
}
