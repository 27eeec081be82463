/**
 * The library's Node build (dist/bundle/NAME.js, src/code-cache/library.ts): every Node entry point is a
 * small ES module re-exporting its part of one CommonJS script run with V8's code cache. What it must keep:
 * each entry point's names, one instance of every module whichever entry points a program loads (and by
 * import or require), the same answers with a cache, with a cache of another build or a broken one, with
 * no cache directory to write and with RULEKIT_CODE_CACHE=0, without a word on stderr.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flagsKey } from '../../src/code-cache/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The Node entry points, by the name the package exports them under, and their sources. */
const ENTRIES: Record<string, string> = {
  rulekit: 'src/index.ts',
  'rulekit/logpush': 'src/logpush/index.ts',
  'rulekit/capture': 'src/capture/index.ts',
  'rulekit/http': 'src/http/index.ts',
  'rulekit/language': 'src/language/index.ts',
  'rulekit/node': 'src/simulation/index.ts',
  'rulekit/server': 'src/server/index.ts',
};

/**
 * A program that loads every entry point (the one named first first) and prints what it saw: each one's
 * names, the names two entry points share that are not the same object, whether require() gives the
 * objects import gives, and an expression compiled and run (re2js, the Chevrotain grammar, ipaddr.js).
 */
const PROGRAM = `
const { createRequire } = await import('node:module');
const require = createRequire(process.cwd() + '/');
const names = ${JSON.stringify(Object.keys(ENTRIES))};
const first = process.env.FIRST ?? 'rulekit';
const mods = { [first]: await import(first) };
for (const n of names) mods[n] ??= await import(n);
const out = { names: {}, different: [], shared: 0, required: true };
for (const n of names) out.names[n] = Object.keys(mods[n]).sort();
for (const a of names) for (const b of names) for (const k of a < b ? Object.keys(mods[a]) : []) {
  if (!(k in mods[b])) continue;
  if (mods[a][k] === mods[b][k]) out.shared++; else out.different.push(a + ' ' + b + ' ' + k);
}
for (const n of names) for (const k of Object.keys(mods[n])) if (require(n)[k] !== mods[n][k]) out.required = false;
const m = mods.rulekit;
const c = m.compileExpression('http.host matches "^a" and ip.src in {2001:db8::/32}', { scheme: m.HTTP_SCHEME });
out.matches = c.matcher({ 'http.host': 'ab', 'ip.src': '2001:db8::1' });
out.errors = m.parseExpression('tcp.dstport == = 3').diagnostics.map((d) => d.code);
console.log(JSON.stringify(out));`;

/** Run PROGRAM from the checkout (so `rulekit` is this package) with XDG_CACHE_HOME at `cache`. */
function run(cache: string | undefined, env: Record<string, string> = {}) {
  const base: Record<string, string | undefined> = cache === undefined ? { PATH: process.env['PATH'] } : { ...process.env, XDG_CACHE_HOME: cache };
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROGRAM], { cwd: ROOT, encoding: 'utf8', env: { ...base, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The library's code caches written under `cache`. */
function caches(cache: string): string[] {
  const dir = join(cache, 'rulekit');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('lib-') && n.endsWith('.v8cache')).sort() : [];
}

const tmp = () => mkdtempSync(join(tmpdir(), 'rulekit-library-'));

describe("the library's Node entry points and their code cache", () => {
  it("each entry point has its source's names; a name two entry points share is one object; require() gives import()'s", async () => {
    const r = run(tmp());
    expect(r.err).toBe('');
    const out = JSON.parse(r.out) as { names: Record<string, string[]>; different: string[]; shared: number; required: boolean; matches: boolean; errors: string[] };
    for (const [name, source] of Object.entries(ENTRIES)) {
      const own = Object.keys((await import(join(ROOT, source))) as object).sort();
      expect(out.names[name], name).toEqual(own);
    }
    expect(out.different).toEqual([]);
    expect(out.shared).toBeGreaterThan(5);
    expect(out.required).toBe(true);
    expect(out.matches).toBe(true);
    expect(out.errors.length).toBeGreaterThan(0);
  });

  it('a class is one class whichever entry point loads the script first', () => {
    // rulekit/capture first: the script runs under its cache; rulekit's objects made later are instances
    // of the classes rulekit/capture's code sees.
    const program = `
      const capture = await import('rulekit/capture');
      const m = await import('rulekit');
      const http = await import('rulekit/http');
      const { createRequire } = await import('node:module');
      const required = createRequire(process.cwd() + '/')('rulekit');
      const set = m.IpSet.fromItems(['10.0.0.0/8']).set;
      console.log(JSON.stringify({ ipset: set instanceof required.IpSet, same: http.requestRecord === m.requestRecord, capture: typeof capture.Slots }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: tmp() } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ ipset: true, same: true, capture: 'function' });
  });

  it('writes one cache per first entry point; the next runs read it unchanged and answer the same', () => {
    const cache = tmp();
    const first = run(cache);
    expect(first.err).toBe('');
    const written = caches(cache);
    expect(written).toHaveLength(1);
    // --input-type is not part of the key: the text of -e neither.
    expect(written[0]).toMatch(new RegExp(`^lib-[0-9a-f]{16}-index-${process.version}-${process.arch}\\.v8cache$`));
    const file = join(cache, 'rulekit', written[0]!);
    const bytes = readFileSync(file);
    const before = statSync(file).mtimeMs;
    expect(run(cache)).toEqual(first);
    expect(statSync(file).mtimeMs).toBe(before);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(run(cache, { FIRST: 'rulekit/capture' })).toEqual(first);
    expect(caches(cache)).toHaveLength(2);
  });

  it('a broken cache is rejected and written again; a cache of another build is removed; the answers are the same', () => {
    const cache = tmp();
    const clean = run(cache);
    const file = join(cache, 'rulekit', caches(cache)[0]!);
    const good = readFileSync(file);
    writeFileSync(file, Buffer.alloc(good.length, 0x5a));
    expect(run(cache)).toEqual(clean);
    expect(readFileSync(file).equals(Buffer.alloc(good.length, 0x5a))).toBe(false);
    writeFileSync(file, 'not a cache');
    expect(run(cache)).toEqual(clean);
    const stale = `lib-0123456789abcdef-index-${process.version}-${process.arch}.v8cache`;
    writeFileSync(join(cache, 'rulekit', stale), 'old');
    writeFileSync(join(cache, 'rulekit', 'unrelated.txt'), 'kept');
    // A cache is written only when none was usable: remove this build's to have one written.
    writeFileSync(file, '');
    expect(run(cache)).toEqual(clean);
    const names = readdirSync(join(cache, 'rulekit'));
    expect(names).not.toContain(stale);
    expect(names).toContain('unrelated.txt');
  });

  it('runs the same, silently, when the cache directory cannot be made, with RULEKIT_CODE_CACHE=0 and with no HOME', () => {
    const clean = run(tmp());
    const base = tmp();
    const blocked = join(base, 'not-a-dir');
    writeFileSync(blocked, '');
    expect(run(blocked)).toEqual(clean);
    const off = join(base, 'off');
    expect(run(off, { RULEKIT_CODE_CACHE: '0' })).toEqual(clean);
    expect(existsSync(off)).toBe(false);
    expect(run(undefined)).toEqual(clean);
  });

  it("rulekit/node's worker threads run the simulation from the same script (dist/bundle/worker.js)", () => {
    const program = `
      const { runSimulation } = await import('rulekit/node');
      const ruleset = { name: 'w', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport in {80 443} or ip.proto == "icmp"' }] };
      const file = ${JSON.stringify(join(ROOT, 'test', 'fixtures', 'capture', 'mixed-le-usec.pcap'))};
      const one = await runSimulation(ruleset, file, { threads: 0 });
      const two = await runSimulation(ruleset, file, { threads: 2, chunkBytes: 1 });
      console.log(JSON.stringify({ threads: two.threads, same: JSON.stringify(one.summary) === JSON.stringify(two.summary), packets: one.summary.packets }));`;
    const cache = tmp();
    for (let i = 0; i < 2; i++) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache } });
      expect(r.stderr).toBe('');
      const out = JSON.parse(r.stdout) as { threads: number; same: boolean; packets: number };
      expect(out).toMatchObject({ threads: 2, same: true });
      expect(out.packets).toBeGreaterThan(0);
    }
  });

  it('a worker thread of the simulation (dist/bundle/worker.js) writes a cache of its own', () => {
    const cache = tmp();
    const worker = join(ROOT, 'dist', 'bundle', 'worker.js');
    const program = `const { Worker } = require('node:worker_threads');
      const w = new Worker(${JSON.stringify(worker)});
      w.on('exit', () => {});`;
    const r = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache } });
    expect(r.stderr).toBe('');
    expect(caches(cache)).toEqual([expect.stringMatching(/^lib-[0-9a-f]{16}-worker-/)]);
  });

  it("the cache's options key leaves out the program text of -e/-p, and keeps V8's options", () => {
    expect(flagsKey([], '')).toBe('');
    expect(flagsKey(['-e', 'import("rulekit")'], '')).toBe('');
    expect(flagsKey(['--input-type=module', '--eval=0', '-p', '1'], '')).toBe('');
    expect(flagsKey(['--stack-size=2000'], '')).toMatch(/^-[0-9a-f]+$/);
    expect(flagsKey(['--stack-size=2000', '-e', 'a'], '')).toBe(flagsKey(['--stack-size=2000', '-e', 'b'], ''));
    expect(flagsKey([], '--max-old-space-size=100')).not.toBe('');
  });
});
