/**
 * The launcher of the shipped CLI (src/cli/launch.ts, dist/bundle/cli.js): the CLI's code runs as a
 * vm.Script with V8's code cache under the user's cache directory. What it must keep: the same output with
 * or without a cache, a cache of other code or a broken one never used, a cache directory that cannot be
 * written ignored without a word, and a command's own file (cli-NAME.cjs) doing what cli-main.cjs does.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'bundle');
const CLI = join(BUNDLE, 'cli.js');
const CHECK = ['check', 'tcp.dstport == 80', 'ip.src in {10.0.0.0/8} and tcp.dstprot == 1'];
const RULESET = join(mkdtempSync(join(tmpdir(), 'rulekit-launch-')), 'ruleset.json');
writeFileSync(RULESET, JSON.stringify({ name: 'launch', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'ip.proto == "tcp"' }] }));

/** Run the CLI with XDG_CACHE_HOME at `cache` (and more environment). */
function run(args: string[], cache: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The code caches written under `cache`. */
function caches(cache: string): string[] {
  const dir = join(cache, 'rulekit');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.v8cache')).sort() : [];
}

/** Run one of the CLI's CommonJS files directly (as the launcher does, without a cache). */
function runFile(file: string, args: string[]) {
  const path = join(BUNDLE, file);
  const code = `const vm = require('node:vm'), fs = require('node:fs'), { createRequire } = require('node:module');
const f = ${JSON.stringify(path)}; const m = { exports: {} };
vm.runInThisContext(fs.readFileSync(f, 'utf8'), { filename: f })(m.exports, createRequire(f), m, f, ${JSON.stringify(BUNDLE)});
m.exports.main([process.execPath, f, ...process.argv.slice(1)]);`;
  const r = spawnSync(process.execPath, ['-e', code, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the CLI launcher and its code cache', () => {
  it('writes one cache per command on the first run, and the next runs read it unchanged', () => {
    const cache = mkdtempSync(join(tmpdir(), 'rulekit-launch-'));
    const first = run(CHECK, cache);
    expect(first.code).toBe(1);
    expect(first.out).toContain('did you mean tcp.dstport?');
    const written = caches(cache);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(new RegExp(`^cli-[0-9a-f]{16}-check-${process.version}-${process.arch}\\.v8cache$`));
    const file = join(cache, 'rulekit', written[0]!);
    const before = statSync(file).mtimeMs;
    const bytes = readFileSync(file);
    expect(run(CHECK, cache)).toEqual(first);
    expect(statSync(file).mtimeMs).toBe(before);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    // Another command: a cache of its own beside.
    expect(run(['--version'], cache).code).toBe(0);
    expect(caches(cache)).toHaveLength(2);
    // Other V8 flags: a cache of their own too (V8 would reject the first), and the first one stays as it was.
    const flagged = spawnSync(process.execPath, ['--stack-size=2000', CLI, ...CHECK], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache } });
    expect(flagged.stdout).toBe(first.out);
    expect(caches(cache)).toHaveLength(3);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a broken cache is rejected by V8 and written again; the output is the same', () => {
    const cache = mkdtempSync(join(tmpdir(), 'rulekit-launch-'));
    const clean = run(CHECK, cache);
    const file = join(cache, 'rulekit', caches(cache)[0]!);
    const good = readFileSync(file);
    // Same length, other bytes: the kind of file a crash or another V8 would leave.
    writeFileSync(file, Buffer.alloc(good.length, 0x5a));
    expect(run(CHECK, cache)).toEqual(clean);
    expect(readFileSync(file).equals(Buffer.alloc(good.length, 0x5a))).toBe(false);
    expect(run(CHECK, cache)).toEqual(clean);
  });

  it('caches of other builds are removed when a cache is written', () => {
    const cache = mkdtempSync(join(tmpdir(), 'rulekit-launch-'));
    mkdirSync(join(cache, 'rulekit'));
    const stale = `cli-0123456789abcdef-check-${process.version}-${process.arch}.v8cache`;
    writeFileSync(join(cache, 'rulekit', stale), 'old');
    writeFileSync(join(cache, 'rulekit', 'unrelated.txt'), 'kept');
    expect(run(CHECK, cache).code).toBe(1);
    const names = readdirSync(join(cache, 'rulekit'));
    expect(names).not.toContain(stale);
    expect(names).toContain('unrelated.txt');
    expect(caches(cache)).toHaveLength(1);
  });

  it('runs the same, silently, when the cache directory cannot be made, and with RULEKIT_CODE_CACHE=0', () => {
    const base = mkdtempSync(join(tmpdir(), 'rulekit-launch-'));
    const clean = run(CHECK, mkdtempSync(join(tmpdir(), 'rulekit-launch-')));
    // A file where the directory should be: mkdir fails.
    const blocked = join(base, 'not-a-dir');
    writeFileSync(blocked, '');
    expect(run(CHECK, blocked)).toEqual(clean);
    const off = join(base, 'off');
    expect(run(CHECK, off, { RULEKIT_CODE_CACHE: '0' })).toEqual(clean);
    expect(existsSync(off)).toBe(false);
    // No HOME and no XDG_CACHE_HOME: no cache, same output.
    const r = spawnSync(process.execPath, [CLI, ...CHECK], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect({ code: r.status, out: r.stdout, err: r.stderr }).toEqual(clean);
  });

  it("a command's own file answers as cli-main.cjs does", () => {
    for (const [file, args] of [
      ['cli-check.cjs', CHECK],
      ['cli-check.cjs', ['check', '--format', 'json', 'tcp.dstport == 80 and']],
      ['cli-simulate.cjs', ['simulate', RULESET, join(import.meta.dirname, '..', 'fixtures', 'capture', 'ipv6-ext.pcap'), '--format', 'json']],
    ] as const) {
      expect(existsSync(join(BUNDLE, file)), file).toBe(true);
      const own = runFile(file, [...args]);
      expect(own.out.length, file).toBeGreaterThan(0);
      expect(own, file).toEqual(runFile('cli-main.cjs', [...args]));
    }
  });
});
