/** The package as a consumer loads it (the built dist/; npm test builds first). */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

describe('packaging', () => {
  it("require('rulekit') from a CommonJS script loads the ES module build (Node >= 20.19)", () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    if (major === 20 && minor < 19) return; // require() of an ES module needs Node 20.19 or 22.12
    const r = spawnSync(process.execPath, [join(ROOT, 'test', 'fixtures', 'cjs', 'require.cjs')], { encoding: 'utf8', cwd: ROOT });
    expect(r.stderr).not.toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED|ERR_REQUIRE_ESM/);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { matcher: string; matches: boolean; exports: number };
    expect(out).toMatchObject({ matcher: 'function', matches: true });
    expect(out.exports).toBeGreaterThan(30);
  });
  it('the export map has import, require and default conditions on the ES module build', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };
    for (const [path, entry] of Object.entries(pkg.exports)) {
      if (typeof entry === 'string') continue;
      expect(entry, path).toMatchObject({ import: entry['default'], require: entry['default'] });
      expect(entry['default'], path).toMatch(/^\.\/dist\/bundle\/[a-z]+\.js$/);
    }
  });
  it('the README cites the package\'s own docs, not a spec file a user does not have', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toContain('shared/spec');
    expect(readme).toContain('docs/expressions.md');
    expect(readFileSync(join(ROOT, 'docs', 'expressions.md'), 'utf8')).toContain('## Missing fields');
  });
});
