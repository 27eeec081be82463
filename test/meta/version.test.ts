/**
 * One version: package.json's, written once in src/version.ts and read by the CLI, the LSP, the server and
 * reports; the VS Code extension's manifest, which vsce reads on its own, carries the same.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';

const root = join(import.meta.dirname, '..', '..');
const manifest = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8')) as { version: string };
const pkg = manifest('package.json');

describe('the version', () => {
  it("is package.json's, and the built CLI says it", () => {
    expect(VERSION).toBe(pkg.version);
    const r = spawnSync(process.execPath, [join(root, 'dist', 'bundle', 'cli.js'), '--version'], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("is the VS Code extension's too", () => {
    expect(manifest('editors/vscode/package.json').version).toBe(pkg.version);
  });

  it('is written nowhere else in src, scripts, editors or docs (a second literal would drift)', () => {
    // The version as a token of its own: 10.1.0.0 (an address) holds 0.1.0 but is not it.
    const version = `(^|[^0-9.])${pkg.version.replace(/\./g, '\\.')}($|[^0-9]|\\.[^0-9])`;
    const r = spawnSync('grep', ['-rnE', '--exclude=package.json', '--exclude-dir=node_modules', '--exclude-dir=dist', version, 'src', 'scripts', 'editors', 'docs', 'README.md'], { cwd: root, encoding: 'utf8' });
    const out = r.stdout.split('\n').filter(Boolean);
    expect(out).toEqual([`src/version.ts:6:export const VERSION = '${pkg.version}';`]);
  });
});
