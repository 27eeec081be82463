/**
 * The core runs in a browser: bundle src/index.ts for the browser platform with esbuild, fail on any Node
 * built-in it pulls in, then run the bundle in a bare V8 context (no process, Buffer, require) and use it.
 */
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { builtinModules } from 'node:module';
import vm from 'node:vm';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

describe('browser bundle of the core', () => {
  it('pulls in no Node built-in and works without Node globals', async () => {
    const result = await build({
      entryPoints: ['src/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'rulekit',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const imported = Object.values(result.metafile!.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(imported.filter((p) => NODE_BUILTINS.has(p))).toEqual([]);
    // The one code table holds the Node-only folders' codes: of those folders it reads their codes.ts only.
    expect(Object.keys(result.metafile!.inputs).filter((p) => /^src\/(cli|server|lsp|simulation|lint|ruletest|playground-host)\//.test(p) && !/^src\/[^/]+\/codes\.ts$/.test(p))).toEqual([]);

    const code = result.outputFiles[0]!.text;
    const context = vm.createContext({ TextDecoder, TextEncoder, console });
    vm.runInContext(`${code}; globalThis.rulekit = rulekit;`, context);
    const api = (context as { rulekit: typeof import('../../src/index.js') }).rulekit;
    const r = api.compileExpression('tcp.dstport in {80 443} and not ip.src in $svc.anonymizer', { lists: { 'svc.anonymizer': ['198.51.100.0/24'] } });
    expect(r.diagnostics).toEqual([]);
    expect(r.matcher!({ 'tcp.dstport': 443, 'ip.src': '192.0.2.1' })).toBe(true);
    expect(api.compileExpression('tcp.dst_port == 1').diagnostics[0]!.message).toContain('did you mean tcp.dstport?');
  });

  it('the completion module (rulekit/language) pulls in no Node built-in and completes without Node globals', async () => {
    const result = await build({
      entryPoints: ['src/language/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'language',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const imported = Object.values(result.metafile!.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(imported.filter((p) => NODE_BUILTINS.has(p))).toEqual([]);
    const context = vm.createContext({ TextDecoder, TextEncoder, console });
    vm.runInContext(`${result.outputFiles[0]!.text}; globalThis.language = language;`, context);
    const api = (context as { language: typeof import('../../src/language/index.js') }).language;
    expect(api.completeExpression('tcp.d', 5).items.map((i) => i.label)).toContain('tcp.dstport');
    expect(api.completeLogFilter('{"where": {"key": }}', 18, { dataset: 'dns_logs' }).items.map((i) => i.label)).toContain('QueryName');
  });
});

/** The playground's script today is about 1.22 MB (CodeMirror, the core, the semantic diff); room for a little more. */
const PLAYGROUND_MAX_BYTES = 1_350_000;

describe('browser bundle of the playground', () => {
  it('pulls in no Node built-in and none of the Node-only folders (what scripts/bundle-playground.mjs builds)', async () => {
    const result = await build({
      entryPoints: ['src/playground/main.ts'],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      write: false,
      metafile: true,
      logLevel: 'silent',
      mainFields: ['browser', 'module', 'main'],
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile!.inputs);
    const imported = Object.values(result.metafile!.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(imported.filter((p) => NODE_BUILTINS.has(p))).toEqual([]);
    expect(inputs.filter((p) => /^src\/(cli|server|lsp|simulation|lint|ruletest|playground-host)\//.test(p) && !/^src\/[^/]+\/codes\.ts$/.test(p))).toEqual([]);
    // The bundle holds what the page is made of: CodeMirror, the core, the completion module.
    expect(inputs.some((p) => p.includes('node_modules/@codemirror/view/'))).toBe(true);
    expect(inputs).toContain('src/language/index.ts');
    expect(inputs).toContain('src/capture/index.ts');
  });

  it('the build wrote the page (index.html loads the bundle, the stylesheet and the favicon that sit beside it)', () => {
    const dir = join(import.meta.dirname, '..', '..', 'dist', 'playground');
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.sort()).toEqual(['favicon.svg', 'playground.css', 'playground.js']);
    for (const r of refs) expect(existsSync(join(dir, r))).toBe(true);
    expect(readFileSync(join(dir, 'playground.js'), 'utf8')).not.toMatch(/\brequire\(["']node:/);
  });

  it(`the page's script stays under ${PLAYGROUND_MAX_BYTES / 1e6} MB minified (drawings are inline SVG, no chart library)`, () => {
    const bytes = statSync(join(import.meta.dirname, '..', '..', 'dist', 'playground', 'playground.js')).size;
    console.log(`playground.js: ${(bytes / 1e6).toFixed(2)} MB`);
    expect(bytes).toBeLessThanOrEqual(PLAYGROUND_MAX_BYTES);
  });
});
