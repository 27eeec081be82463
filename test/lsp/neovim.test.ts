/**
 * A real editor on `rulekit lsp`: Neovim (Debian's `neovim`) headless, its built-in LSP client started by
 * test/lsp/nvim/smoke.lua on a `.rules` file with errors; the diagnostics it shows and a completion list
 * come back as JSON.
 */
import { describe, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsTool } from '../helpers/tools.js';
import { CLI } from '../helpers/lsp-client.js';

describe('Neovim', () => {
  needsTool('nvim')('shows rulekit\'s diagnostics for a .rules file and completes fields', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-nvim-'));
    const file = join(dir, 'edge.rules');
    const out = join(dir, 'result.json');
    writeFileSync(file, 'tcp.dstport in {80, 443}\nip.src == 10.0.0.0/8 and tcp.d\n');
    const r = spawnSync('nvim', ['--headless', '--clean', '-n', '-c', `luafile ${join(import.meta.dirname, 'nvim', 'smoke.lua')}`], {
      env: { ...process.env, RULEKIT_FILE: file, RULEKIT_OUT: out, RULEKIT_CLI: CLI, RULEKIT_NODE: process.execPath },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8')) as { diagnostics: { lnum: number; col: number; severity: number; code: string; message: string; source: string }[]; completion: string[] };
    expect(result.diagnostics.map((d) => [d.lnum, d.col, d.code, d.severity])).toEqual([
      [0, 18, 'comma-in-set', 1],
      [1, 10, 'cidr-outside-set', 1],
      [1, 25, 'unknown-field', 1],
    ]);
    expect(result.diagnostics.every((d) => d.source === 'rulekit')).toBe(true);
    expect(result.completion).toContain('tcp.dstport');
  }, 90_000);
});
