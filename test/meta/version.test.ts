/** One version: package.json's, written once in src/version.ts and read by the CLI, the LSP, the server and reports. */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

describe('the version', () => {
  it("is package.json's, and the built CLI says it", () => {
    expect(VERSION).toBe(pkg.version);
    const r = spawnSync(process.execPath, [join(root, 'dist', 'bundle', 'cli.js'), '--version'], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('is written nowhere else in src (a second literal would drift)', () => {
    const out = spawnSync('grep', ['-rn', '--include=*.ts', `'${pkg.version}'`, join(root, 'src')], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(out.map((l) => l.slice(root.length + 1))).toEqual([`src/version.ts:6:export const VERSION = '${pkg.version}';`]);
  });
});
