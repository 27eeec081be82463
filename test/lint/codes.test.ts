/**
 * Severity settings and suppressions name codes of the one table (DIAGNOSTIC_CODES; test/meta/codes.test.ts
 * holds every `*_CODES` table in it). Unknown codes in --severity and the config are usage errors that name
 * the nearest code.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig, unknownCodeMessage } from '../../src/lint/index.js';
import { CLI } from '../helpers/cli.js';


describe('code names in settings and suppressions', () => {
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
