/**
 * editors/vscode: the TextMate grammar is the one the token table generates (`npm run vscode:grammar`),
 * its patterns compile and colour every spelling of the table, and the extension bundles with esbuild
 * (the `vscode` module left to the editor) and names files that exist.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { TM_LANGUAGE_PATH, tmLanguageText } from '../../scripts/tmlanguage.js';
import { options } from '../../editors/vscode/build.mjs';
import { COMPARE_OPERATORS, LOGICAL_OPERATORS, NETWORK_FIELDS } from '../../src/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXT = join(ROOT, 'editors', 'vscode');

type Rule = { name?: string; match?: string; begin?: string; end?: string; patterns?: Rule[]; include?: string };

describe('the VS Code extension', () => {
  it('its TextMate grammar is current with the token table (run `npm run vscode:grammar`)', () => {
    expect(readFileSync(join(ROOT, TM_LANGUAGE_PATH), 'utf8'), `${TM_LANGUAGE_PATH} is stale: run npm run vscode:grammar`).toBe(tmLanguageText());
  });

  it('the grammar\'s patterns compile, and each spelling of the operator table and each field gets its scope', () => {
    const grammar = JSON.parse(tmLanguageText()) as { patterns: Rule[]; repository: Record<string, Rule> };
    const rules: Rule[] = [];
    const walk = (r: Rule) => {
      rules.push(r);
      r.patterns?.forEach(walk);
    };
    Object.values(grammar.repository).forEach(walk);
    for (const r of rules) for (const re of [r.match, r.begin, r.end]) if (re) expect(() => new RegExp(re), re).not.toThrow();
    // The scope the first matching top-level rule gives a whole token (TextMate tries patterns in order).
    const top = grammar.patterns.map((p) => grammar.repository[p.include!.slice(1)]!);
    const scopeOf = (token: string) => {
      for (const group of top) {
        for (const r of group.patterns ?? [group]) {
          const m = r.match ? new RegExp(r.match).exec(token) : null;
          if (m && m.index === 0) return m[0] === token ? r.name : `${r.name} (only ${m[0]})`;
        }
      }
      return undefined;
    };
    for (const row of Object.values(COMPARE_OPERATORS)) {
      for (const s of row.spellings) for (const w of s.split(' ')) expect(scopeOf(w), w).toMatch(/^keyword\.operator\.(comparison|word)\.rulekit$/);
    }
    for (const row of Object.values(LOGICAL_OPERATORS)) for (const s of row.spellings) expect(scopeOf(s), s).toBe('keyword.operator.logical.rulekit');
    expect(scopeOf('not')).toBe('keyword.operator.logical.rulekit');
    expect(scopeOf('in')).toBe('keyword.operator.word.rulekit');
    for (const f of NETWORK_FIELDS) expect(scopeOf(f.name), f.name).toBe('variable.other.field.rulekit');
    expect(scopeOf('$svc.anonymizer')).toBe('support.variable.list.managed.rulekit');
    expect(scopeOf('$office')).toBe('variable.other.list.rulekit');
    expect(scopeOf('10.0.0.0/8')).toBe('constant.numeric.ip.rulekit');
    expect(scopeOf('# note')).toBe('comment.line.number-sign.rulekit');
  });

  it('bundles with esbuild into one CommonJS file that requires only vscode and Node built-ins', async () => {
    const result = await build({ ...options, write: false, metafile: true, logLevel: 'silent' });
    expect(result.errors).toEqual([]);
    const external = Object.values(result.metafile!.inputs).flatMap((i) => i.imports.filter((x) => x.external).map((x) => x.path));
    const allowed = new Set(['vscode', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(external.filter((p) => !allowed.has(p))).toEqual([]);
    expect(external).toContain('vscode');
    expect(result.outputFiles!.find((f) => f.path.endsWith('extension.js'))!.text).toMatch(/args: \["lsp"\]/);
  });

  it('its manifest names files that exist, and the language server it starts', () => {
    const pkg = JSON.parse(readFileSync(join(EXT, 'package.json'), 'utf8')) as {
      main: string; contributes: { languages: { configuration: string; extensions: string[] }[]; grammars: { path: string; scopeName: string }[]; configuration: { properties: Record<string, unknown> } };
    };
    expect(pkg.main).toBe('./dist/extension.js');
    expect(existsSync(join(EXT, pkg.contributes.languages[0]!.configuration))).toBe(true);
    JSON.parse(readFileSync(join(EXT, pkg.contributes.languages[0]!.configuration), 'utf8'));
    expect(pkg.contributes.languages[0]!.extensions).toEqual(['.rules']);
    expect(join(EXT, pkg.contributes.grammars[0]!.path)).toBe(join(ROOT, TM_LANGUAGE_PATH));
    expect(pkg.contributes.grammars[0]!.scopeName).toBe('source.rulekit');
    // The settings the server reads from the client's `rulekit` section.
    expect(Object.keys(pkg.contributes.configuration.properties).sort()).toEqual(['rulekit.diff.base', 'rulekit.diff.capture', 'rulekit.lists', 'rulekit.path', 'rulekit.scheme', 'rulekit.serviceToken', 'rulekit.severity']);
  });
});
