/**
 * What each kind of user installs: the core from the packed tarball (scripts/pack-install.ts: npm pack,
 * then npm ci offline into an empty project), and each optional part on top of it (its packages'
 * closure in the repository's lockfile, measured in the repository's node_modules). Beside them, the
 * package as one install of everything the core and the parts hold (what `npm install rulekit` gave when
 * they were all dependencies), and the browser bundles: the playground's and the library entry's.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { printTable, ratio } from './harness.js';
import { bytesUnder, installedPackages, lockClosure, packAndInstall } from '../scripts/pack-install.js';
import { OPTIONAL_PARTS, installLine, type OptionalPartName } from '../src/optional-parts.js';

const ROOT = resolve(import.meta.dirname, '..');
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** The bundle files an ES module entry loads: itself and its static imports, transitively. */
function moduleClosure(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|[;}])\s*import\s*(?:[\w*${}\s,]+from\s*)?["'](\.\/[^"']+)["']/g)) todo.push(join(file, '..', m[1]!));
  }
  return [...seen];
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-install-'));
  try {
    const core = packAndInstall(dir);
    if (core.status !== 0) throw new Error(`the install failed: ${core.output}`);
    const coreBytes = bytesUnder(join(dir, 'node_modules'));
    const corePackages = new Set(Object.keys(installedPackages(dir)));
    const rows: (string | number)[][] = [['core (rulekit alone)', 'npm install rulekit', mb(coreBytes), String(corePackages.size), '1.00×']];
    let everything = coreBytes;
    const everythingPackages = new Set(corePackages);
    for (const part of Object.keys(OPTIONAL_PARTS) as OptionalPartName[]) {
      const added = Object.keys(lockClosure(Object.keys(OPTIONAL_PARTS[part].packages))).filter((p) => !corePackages.has(p));
      const bytes = added.reduce((sum, p) => sum + bytesUnder(join(ROOT, p)), 0);
      rows.push([`+ ${part}`, installLine(part), `+${mb(bytes)}`, `+${added.length}`, ratio(coreBytes + bytes, coreBytes)]);
      // chdb was a development dependency before the parts were optional: not part of the one install.
      if (part !== 'chdb') {
        for (const p of added) if (!everythingPackages.has(p)) (everythingPackages.add(p), (everything += bytesUnder(join(ROOT, p))));
      }
    }
    rows.push(['everything but chdb, as one install', '(the package before its parts were optional)', mb(everything), String(everythingPackages.size), ratio(everything, coreBytes)]);
    printTable('Installed size by kind of user (bytes of files on disk)', ['install', 'line', 'size', 'packages', '× core'], rows, [
      `tarball ${mb(core.tarballBytes)}; the core's size is held at most 15 MB by test/meta/install.test.ts`,
    ]);

    const playground = readFileSync(join(ROOT, 'dist', 'playground', 'playground.js'));
    const library = moduleClosure(join(ROOT, 'dist', 'bundle', 'index.js')).map((f) => readFileSync(f));
    const libraryBytes = library.reduce((s, b) => s + b.length, 0);
    const libraryGzip = library.reduce((s, b) => s + gzipSync(b).length, 0);
    printTable('Browser bundles (minified; gzip level 6)', ['bundle', 'bytes', 'gzip', '× library entry'], [
      ["library entry: import('rulekit') and its chunks", libraryBytes, libraryGzip, '1.00×'],
      ['playground (dist/playground/playground.js: the library, CodeMirror and the page)', playground.length, gzipSync(playground).length, ratio(playground.length, libraryBytes)],
    ], [`${statSync(join(ROOT, 'dist', 'bundle', 'index.js')).size} bytes in index.js itself; test/meta/browser-bundle.test.ts holds both free of Node built-ins`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
