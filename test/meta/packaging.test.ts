/** The package as a consumer loads it (the built dist/; npm test builds first). */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';

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
  it('the export map sends Node to the Node build and every other runtime to the portable one, import and require alike', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };
    for (const [path, entry] of Object.entries(pkg.exports)) {
      if (typeof entry === 'string') continue;
      expect(entry, path).toMatchObject({ import: entry['default'], require: entry['default'] });
      // Conditions are matched in order: bundlers (which match `module`, as Node does not) take the
      // portable ES build, which they can follow; then `node` before the others, or Node would take it too.
      const conditions = Object.keys(entry).filter((c) => c !== 'types');
      const name = /^\.\/dist\/bundle\/portable\/([a-z]+)\.js$/.exec(entry['module'] ?? '')?.[1];
      expect(conditions[0], path).toBe('module');
      expect(name, path).toBeDefined();
      if (entry['node'] === undefined) {
        expect(entry['default'], path).toBe(`./dist/bundle/${name}.js`);
        continue;
      }
      expect(conditions[1], path).toBe('node');
      expect(entry['node'], path).toBe(`./dist/bundle/${name}.js`);
      expect(entry['default'], path).toBe(`./dist/bundle/portable/${name}.js`);
    }
  });
  it('Node resolves each entry point to the Node build, whose lazy files are in the package', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
      const out = {};
      for (const e of ['rulekit', 'rulekit/logpush', 'rulekit/capture', 'rulekit/http', 'rulekit/language']) out[e] = import.meta.resolve(e);
      const m = await import('rulekit');
      // The first matches (re2js), the first parse error (the Chevrotain grammar) and an IPv6 address (ipaddr.js).
      const c = m.compileExpression('http.host matches "^a" and ip.src in {2001:db8::/32}', { scheme: m.HTTP_SCHEME });
      out.matches = c.matcher({ 'http.host': 'ab', 'ip.src': '2001:db8::1' });
      out.errors = m.parseExpression('tcp.dstport == = 3').diagnostics.map((d) => d.code);
      console.log(JSON.stringify(out));`], { encoding: 'utf8', cwd: ROOT });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out['rulekit']).toMatch(/\/dist\/bundle\/index\.js$/);
    expect(out['rulekit/language']).toMatch(/\/dist\/bundle\/language\.js$/);
    expect(out['matches']).toBe(true);
    expect((out['errors'] as string[]).length).toBeGreaterThan(0);
    const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    expect(files).toEqual(expect.arrayContaining(['dist/bundle/lazy/*.cjs', 'dist/bundle/portable/*.js']));
  });
  it('a bundler building for Node follows the library: the bundle runs from another directory', async () => {
    // Node's own entry points read dist/bundle/library.cjs at run time, a file a bundle does not carry.
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-bundled-'));
    try {
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(ROOT, join(dir, 'node_modules', 'rulekit'));
      writeFileSync(join(dir, 'app.mjs'), [
        "import { compileExpression, IpSet } from 'rulekit';",
        "import { runSimulation } from 'rulekit/node';",
        "import * as logpush from 'rulekit/logpush';",
        "const c = compileExpression('http.host matches \"^a\" and ip.src in {2001:db8::/32}', { scheme: (await import('rulekit')).HTTP_SCHEME });",
        "console.log(JSON.stringify({ match: c.matcher({ 'http.host': 'ab', 'ip.src': '2001:db8::1' }), simulate: typeof runSimulation, ipset: typeof IpSet, logpush: typeof logpush.checkLogFilter }));",
      ].join('\n'));
      const out = join(dir, 'out', 'app.mjs');
      await build({ entryPoints: [join(dir, 'app.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent', external: ['@duckdb/*', 'chdb', 'better-sqlite3', 'pg', 'fastify', '@fastify/*', 'mmdb-lib'] });
      rmSync(join(dir, 'node_modules'), { recursive: true });
      const r = spawnSync(process.execPath, [out], { cwd: join(dir, 'out'), encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ match: true, simulate: 'function', ipset: 'function', logpush: 'function' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('the portable build runs without Node: bundled for a browser it pulls in no built-in, and works in a bare V8 context', async () => {
    const r = await build({ entryPoints: [join(ROOT, 'dist/bundle/portable/index.js')], bundle: true, platform: 'browser', format: 'iife', globalName: 'rulekit', write: false, metafile: true, logLevel: 'silent' });
    const imported = Object.values(r.metafile!.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(imported.filter((p) => p.startsWith('node:'))).toEqual([]);
    const context = vm.createContext({ TextDecoder, TextEncoder, console });
    vm.runInContext(`${r.outputFiles[0]!.text}; globalThis.rulekit = rulekit;`, context);
    const api = (context as { rulekit: typeof import('../../src/index.js') }).rulekit;
    // re2js, the Chevrotain grammar and ipaddr.js, which the Node build requires from files, are inside.
    const c = api.compileExpression('http.host matches "^a" and ip.src in {2001:db8::/32}', { scheme: api.HTTP_SCHEME });
    expect(c.diagnostics).toEqual([]);
    expect(c.matcher!({ 'http.host': 'ab', 'ip.src': '2001:db8::1' })).toBe(true);
    expect(api.parseExpression('tcp.dstport == = 3').diagnostics.length).toBeGreaterThan(0);
  });
  it('the README cites the package\'s own docs, not a spec file a user does not have', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toContain('shared/spec');
    expect(readme).toContain('docs/expressions.md');
    expect(readFileSync(join(ROOT, 'docs', 'expressions.md'), 'utf8')).toContain('## Missing fields');
  });
});
