/**
 * The one lookup of codes (KNOWN_CODES) that severity settings and suppressions are checked against holds
 * every code of every `*_CODES` table in src/: the tables are found by reading the sources, so a table
 * added later without joining the lookup fails here. Unknown codes in --severity and the config are usage
 * errors that name the nearest code.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ConfigError, KNOWN_CODES, loadConfig, unknownCodeMessage } from '../../src/lint/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');

/** Tables that are not codes of findings, each with its reason. */
const NOT_FINDINGS: Record<string, string> = {
  SERVER_CODES: 'HTTP errors of the reference server (with a status); no lint, check or editor finding carries them',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('KNOWN_CODES', () => {
  it('holds every code of every *_CODES table in src/', async () => {
    const tables: string[] = [];
    for (const file of sources(join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/^export const ([A-Z_]+_CODES)\b/gm)) {
        const mod = (await import(file)) as Record<string, unknown>;
        const table = mod[m[1]!];
        // Sets of code names (SAFE_FIX_CODES) and of country codes are not code tables.
        if (!table || typeof table !== 'object' || table instanceof Set) continue;
        const rows = Object.entries(table as Record<string, unknown>);
        if (!rows.every(([, v]) => typeof v === 'object' && v !== null && 'severity' in v && 'doc' in v)) continue;
        tables.push(`${m[1]} (${relative(ROOT, file)})`);
        if (NOT_FINDINGS[m[1]!]) continue;
        for (const [code] of rows) expect(KNOWN_CODES[code], `${code} of ${m[1]} in ${relative(ROOT, file)}`).toBeDefined();
      }
    }
    // The scan found the tables (a changed declaration style would make it find none and pass).
    expect(tables.length).toBeGreaterThanOrEqual(10);
    expect(tables.join('\n')).toMatch(/LINT_CODES/);
    expect(tables.join('\n')).toMatch(/EXPRESSION_CODES/);
  });

  it('names the nearest code of an unknown one', () => {
    expect(unknownCodeMessage('comma-in-sett')).toBe('unknown code "comma-in-sett"; did you mean comma-in-set?');
    expect(unknownCodeMessage('lint-unused-supression')).toContain('did you mean lint-unused-suppression?');
    expect(unknownCodeMessage('zzzzzzzzzzzz')).not.toContain('did you mean');
  });

  it('the config\'s severity rejects an unknown code (usage error), naming the nearest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-codes-'));
    const path = join(dir, 'rulekit.config.json');
    writeFileSync(path, JSON.stringify({ severity: { 'comma-in-sett': 'off' } }));
    expect(() => loadConfig(path)).toThrow(ConfigError);
    expect(() => loadConfig(path)).toThrow(/"severity": unknown code "comma-in-sett"; did you mean comma-in-set\?/);
    writeFileSync(path, JSON.stringify({ severity: { 'comma-in-set': 'off', 'lint-unused-suppression': 'error' } }));
    expect(loadConfig(path).severity).toEqual({ 'comma-in-set': 'off', 'lint-unused-suppression': 'error' });
  });

  it('rulekit lint --severity with an unknown code exits 2 with one line naming the nearest code', () => {
    const r = spawnSync(process.execPath, [CLI, 'lint', '--no-config', '--severity', 'comma-in-sett=off', '--kind', 'rules', '-'], { encoding: 'utf8', input: 'tcp.dstport in {1, 2}\n', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('rulekit: --severity comma-in-sett=off: unknown code "comma-in-sett"; did you mean comma-in-set?\n');
  });
});
