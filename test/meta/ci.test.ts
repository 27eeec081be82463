/**
 * What CI runs and what it checks: `.ci/run` sets CI=true itself (so a test whose tool is missing fails,
 * test/helpers/tools.ts) and runs `npm run typecheck`, whose two TypeScript programs together hold every
 * source file of the repository: src, test, bench and the scripts, the JavaScript ones included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { PartialStrykerOptions } from '@stryker-mutator/api/core';

const root = resolve(import.meta.dirname, '..', '..');
// By a path in a variable: tsconfig.json does not type-check JavaScript (tsconfig.scripts.json does).
const STRYKER_CONFIG = '../../stryker.config.mjs';
const stryker = ((await import(STRYKER_CONFIG)) as { default: PartialStrykerOptions }).default;

/** The files of the program a tsconfig describes, relative to the repository. */
function programFiles(config: string): Set<string> {
  const path = join(root, config);
  const read = ts.readConfigFile(path, ts.sys.readFile);
  expect(read.error, config).toBeUndefined();
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, path);
  expect(parsed.errors, config).toEqual([]);
  return new Set(parsed.fileNames.map((f) => relative(root, f)));
}

/** Every file under `dir` whose name ends with one of `exts` (node_modules left out). */
function filesUnder(dir: string, exts: string[]): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => !f.split('/').includes('node_modules') && exts.some((e) => f.endsWith(e)))
    .map((f) => join(dir, f));
}

describe('CI', () => {
  const run = readFileSync(join(root, '.ci/run'), 'utf8');
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

  it('.ci/run sets CI=true before it runs anything, and runs the typecheck and the tests', () => {
    const lines = run.split('\n').map((l) => l.trim());
    const ci = lines.indexOf('export CI=true');
    expect(ci, '.ci/run exports CI=true').toBeGreaterThan(0);
    expect(lines.indexOf('npm run typecheck')).toBeGreaterThan(ci);
    expect(lines.indexOf('npm test')).toBeGreaterThan(ci);
  });

  it('npm run typecheck checks both programs', () => {
    expect(scripts['typecheck']).toBe('tsc --noEmit -p tsconfig.json && tsc -p tsconfig.scripts.json');
  });

  it('the two programs hold every TypeScript and JavaScript source of src, test, bench and scripts', () => {
    const checked = new Set([...programFiles('tsconfig.json'), ...programFiles('tsconfig.scripts.json')]);
    const wanted = [
      ...filesUnder('src', ['.ts']).filter((f) => !f.endsWith('.d.ts')),
      ...filesUnder('test', ['.ts']),
      ...filesUnder('bench', ['.ts']),
      ...filesUnder('scripts', ['.ts', '.mjs']),
      'stryker.config.mjs',
      'stryker.folder.config.mjs',
    ];
    expect(wanted.length).toBeGreaterThan(300);
    expect(wanted.filter((f) => !checked.has(f)), 'files no typecheck program includes').toEqual([]);
  });
});

describe('npm run mutate (stryker.config.mjs)', () => {
  const mutate = (stryker.mutate ?? []) as string[];
  it('mutates the folders of issue 16 and more, each pattern naming a folder of src/ with TypeScript in it', () => {
    const folders = mutate.filter((p) => !p.startsWith('!')).map((p) => /^src\/([a-z-]+)\/\*\*\/\*\.ts$/.exec(p)?.[1]);
    expect(folders).not.toContain(undefined);
    for (const f of ['expression', 'logpush', 'net', 'ruleset', 'capture']) expect(folders).toContain(f);
    for (const f of folders) expect(filesUnder(`src/${f}`, ['.ts']).length, `src/${f}`).toBeGreaterThan(0);
  });
  it('is incremental, and writes its state and reports where docs/testing.md says', () => {
    const docs = readFileSync(join(root, 'docs/testing.md'), 'utf8');
    expect(stryker.incremental).toBe(true);
    const paths = [stryker.incrementalFile, (stryker['htmlReporter'] as { fileName?: string } | undefined)?.fileName, (stryker['jsonReporter'] as { fileName?: string } | undefined)?.fileName];
    expect(paths).toEqual(['reports/stryker-incremental.json', 'reports/mutation/index.html', 'reports/mutation/mutation.json']);
    for (const p of paths) expect(docs, p).toContain(p);
  });
});
