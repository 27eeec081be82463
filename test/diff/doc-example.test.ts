/**
 * docs/diff.md's examples, run as written: the command of its "A real change, counted on a capture"
 * block (two real files of the corpus and a capture) and of its HTTP block counted on an engine over
 * Logpush lines must print exactly the block's output, so the page cannot drift from what `rulekit diff`
 * says.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');

/** The command (its `\` continuations joined) and the output of the fenced block after `heading`. */
function example(heading: string): { args: string[]; output: string } {
  const page = readFileSync(join(ROOT, 'docs', 'diff.md'), 'utf8');
  const at = page.indexOf(heading);
  expect(at, `docs/diff.md has no "${heading}"`).toBeGreaterThan(0);
  const block = /```\n([\s\S]*?)```/.exec(page.slice(at))![1]!;
  const lines = block.split('\n');
  let n = 0;
  let command = '';
  do command += lines[n]!.replace(/\\$/, ' ');
  while (lines[n++]!.endsWith('\\'));
  const args = command.replace(/^\$ rulekit /, '').trim().split(/\s+/);
  return { args, output: lines.slice(n).join('\n') };
}

describe('docs/diff.md', () => {
  it('the real change counted on a capture prints what the page shows', () => {
    const { args, output } = example('### A real change, counted on a capture');
    expect(args.slice(0, 1)).toEqual(['diff']);
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } });
    expect(r.stderr.toString()).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe(output);
  });

  it('the HTTP change counted over Logpush lines on an engine prints what the page shows, on DuckDB and chdb', () => {
    const { args, output } = example('- HTTP phases: over Logpush `http_requests` lines');
    expect(args).toContain('--engine');
    for (const engine of ['duckdb', 'clickhouse']) {
      const r = spawnSync(process.execPath, [CLI, ...args.map((a) => (a === 'duckdb' ? engine : a))], { cwd: ROOT, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
      // The one line without BotScore leaves rule 0 of each side undecided there: warned of, as simulate warns.
      expect(r.stderr.toString().split('\n').filter(Boolean).every((l) => l.endsWith('[http-logpush-missing-field]')), engine).toBe(true);
      expect(r.status, engine).toBe(0);
      expect(r.stdout.toString(), engine).toBe(output);
      // The same lines counted in process give the same output.
      const here = spawnSync(process.execPath, [CLI, ...args.slice(0, args.indexOf('--engine'))], { cwd: ROOT, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
      expect(here.stdout.toString()).toBe(output);
    }
  });
});
