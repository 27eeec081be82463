/**
 * The package as a user installs it: `npm pack`, then the tarball installed into an empty project, offline
 * from npm's cache (the repository's `npm ci` filled it), with a lockfile made from the repository's own
 * (so the versions are those the tests ran). The core must stay small — at most CORE_MAX_BYTES installed,
 * no native build, no install script — and everything a validator, a CI lint or an offline simulation
 * needs must work in it; the optional parts (the server, the SQL engines) must say the one line that
 * installs them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installLine } from '../../src/optional-parts.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** The target for the core install (tarball unpacked and its dependencies). */
const CORE_MAX_BYTES = 15_000_000;

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

let dir = '';
let tarball = '';
let installed: SpawnSyncReturns<string>;

/** The consumer's lockfile: rulekit from the tarball, its dependencies as the repository's lockfile pins them. */
function consumerLock(pkg: { version: string; dependencies: Record<string, string> }, tgz: Buffer, file: string): object {
  const root = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', dependencies: { rulekit: `file:${file}` } },
    'node_modules/rulekit': { version: pkg.version, resolved: `file:${file}`, integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`, dependencies: pkg.dependencies },
  };
  const todo = Object.keys(pkg.dependencies).map((name) => `node_modules/${name}`);
  while (todo.length) {
    const path = todo.pop()!;
    if (packages[path]) continue;
    const entry = root.packages[path];
    if (!entry) throw new Error(`the repository's lockfile has no ${path}`);
    const { dev: _dev, peer: _peer, devOptional: _devOptional, optional: _optional, ...kept } = entry;
    packages[path] = kept;
    for (const name of Object.keys(entry.dependencies ?? {})) {
      const nested = `${path}/node_modules/${name}`;
      todo.push(root.packages[nested] ? nested : `node_modules/${name}`);
    }
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

/** Bytes of the files under `path` (what the install puts on disk, links not followed). */
function bytesUnder(path: string): number {
  let total = 0;
  for (const name of readdirSync(path)) {
    const p = join(path, name);
    const s = lstatSync(p);
    total += s.isDirectory() ? bytesUnder(p) : s.isFile() ? s.size : 0;
  }
  return total;
}

function run(args: string[], input?: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(dir, 'node_modules', 'rulekit', 'dist', 'bundle', 'cli.js'), ...args], { cwd: dir, encoding: 'utf8', input, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rulekit-install-'));
  const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_ignore_scripts: 'true' } });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const file = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename.replace(/^.*\//, '');
  tarball = join(dir, file);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { rulekit: `file:${file}` } }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(consumerLock(pkg, readFileSync(tarball), file), null, 1));
  installed = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  writeFileSync(join(dir, 'filter.json'), '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}');
  writeFileSync(
    join(dir, 'bad.tf'),
    ['resource "cloudflare_ruleset" "edge" {', '  name  = "edge"', '  kind  = "root"', '  phase = "magic_transit"', '  rules = [', '    { action = "block", expression = "tcp.dstport == 22 and" },', '  ]', '}', ''].join('\n'),
  );
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the installed package (npm pack, then npm ci offline in an empty project)', () => {
  it(`installs the core in at most ${CORE_MAX_BYTES / 1e6} MB, with no native build and no install script`, () => {
    expect(installed.status, installed.stderr).toBe(0);
    const modules = join(dir, 'node_modules');
    const bytes = bytesUnder(modules);
    const lock = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry & { hasInstallScript?: boolean }> };
    const packages = Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/'));
    // Printed for the record: the figures the README's install section gives.
    console.log(`core install: ${(bytes / 1e6).toFixed(1)} MB in ${packages.length} packages (tarball ${(statSync(tarball).size / 1e6).toFixed(1)} MB)`);
    expect(bytes).toBeLessThanOrEqual(CORE_MAX_BYTES);
    expect(packages.filter((p) => lock.packages[p]!.hasInstallScript)).toEqual([]);
    const native = (function find(path: string): string[] {
      return readdirSync(path, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? find(join(path, e.name)) : e.name.endsWith('.node') ? [join(path, e.name)] : []));
    })(modules);
    expect(native).toEqual([]);
    // None of the optional parts came along.
    for (const name of ['fastify', 'better-sqlite3', 'pg', '@duckdb/node-api', 'chdb', '@clickhouse/client', 'chevrotain']) expect(packages, name).not.toContain(`node_modules/${name}`);
  });

  it('runs the library entry points: compileExpression, validateRuleset, checkLogFilter, rulekit/language, rulekit/capture', () => {
    const script = [
      "import { compileExpression, validateRuleset, checkLogFilter } from 'rulekit';",
      "import { completeExpression } from 'rulekit/language';",
      "import { readCapture, decodePacket } from 'rulekit/capture';",
      "import { readFileSync } from 'node:fs';",
      "const m = compileExpression('tcp.dstport in {80 443}');",
      'const out = {',
      "  match: m.matcher({ 'tcp.dstport': 443 }), miss: m.matcher({ 'tcp.dstport': 22 }),",
      "  ruleset: validateRuleset({ name: 'x', kind: 'root', phase: 'magic_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] }).length,",
      "  filter: checkLogFilter('{\"where\":{\"key\":\"EdgeResponseStatus\",\"operator\":\"geq\",\"value\":500}}', { dataset: 'http_requests' }).diagnostics.length,",
      "  completions: completeExpression('tcp.dst', 7).items.length > 0,",
      '  frames: 0,',
      '};',
      "for await (const record of readCapture(readFileSync('examples/capture.pcap'))) if (decodePacket(record).packet['tcp.dstport'] !== undefined) out.frames++;",
      'console.log(JSON.stringify(out));',
    ].join('\n');
    writeFileSync(join(dir, 'entry.mjs'), script);
    const r = spawnSync(process.execPath, ['entry.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ match: true, miss: false, ruleset: 0, filter: 0, completions: true, frames: expect.any(Number) });
    expect((JSON.parse(r.stdout) as { frames: number }).frames).toBeGreaterThan(0);
  });

  it('runs the core commands: check, validate, lint (Terraform through HashiCorp\'s parser), test, logfilter, simulate, analyze, export, demo, playground', () => {
    const cases: [string[], number, RegExp][] = [
      [['check', 'tcp.dstport == 80'], 0, /0 error/],
      [['check', 'tcp.dstport == 80 and'], 1, /error/],
      [['validate', 'examples/ruleset.json'], 0, /0 error/],
      [['lint', 'examples/firewall.tf'], 0, /0 error\(s\), 0 warning/],
      [['lint', 'bad.tf'], 1, /bad\.tf:6:\d+/],
      [['test', 'examples/firewall.ruletest.yaml'], 0, /pass/i],
      [['logfilter', 'filter.json', 'examples/logs.ndjson'], 0, /push/i],
      [['simulate', 'examples/ruleset.json', 'examples/capture.pcap'], 0, /block/],
      [['analyze', 'examples/ruleset.json'], 0, /rule/],
      [['export', '--wireshark', 'tcp.dstport in {22 443}'], 0, /tcp\.dstport/],
      [['demo'], 0, /block/],
    ];
    for (const [args, status, output] of cases) {
      const r = run(args);
      expect({ args, status: r.status, stderr: r.status === status ? '' : r.stderr }).toEqual({ args, status, stderr: '' });
      expect(r.stdout + r.stderr, args.join(' ')).toMatch(output);
    }
  });

  it('says the one line that installs an optional part, exit 2: serve, query, simulate --engine', () => {
    const cases: [string[], string][] = [
      [['serve', '--port', '0'], installLine('server', 'sqlite')],
      [['serve', '--port', '0', '--database-url', 'postgres://localhost/x'], installLine('server', 'postgres')],
      [['query', '--filter', 'filter.json', 'examples/logs.ndjson', '--count'], installLine('duckdb')],
      [['simulate', 'examples/ruleset.json', 'examples/logs.ndjson', '--engine', 'duckdb'], installLine('duckdb')],
      [['simulate', 'examples/ruleset.json', 'examples/logs.ndjson', '--engine', 'clickhouse'], installLine('chdb')],
    ];
    for (const [args, line] of cases) {
      const r = run(args);
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
      const lines = r.stderr.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0], args.join(' ')).toContain(line);
    }
  });
});
