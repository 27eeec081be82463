/**
 * The package as a user installs it (scripts/pack-install.ts: `npm pack`, then the tarball installed
 * into an empty project offline from npm's cache). The core must stay small — at most CORE_MAX_BYTES installed,
 * no native build, no install script — and everything a validator, a CI lint or an offline simulation
 * needs must work in it; the optional parts (the server, the SQL engines) must say the one line that
 * installs them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installLine } from '../../src/optional-parts.js';
import { bytesUnder, installedPackages, packAndInstall, type Installed } from '../../scripts/pack-install.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** The target for the core install (tarball unpacked and its dependencies). */
const CORE_MAX_BYTES = 15_000_000;

let dir = '';
let installed: Installed;

function run(args: string[], input?: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(dir, 'node_modules', 'rulekit', 'dist', 'bundle', 'cli.js'), ...args], { cwd: dir, encoding: 'utf8', input, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rulekit-install-'));
  installed = packAndInstall(dir);
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
    expect(installed.status, installed.output).toBe(0);
    const modules = join(dir, 'node_modules');
    const bytes = bytesUnder(modules);
    const lock = installedPackages(dir);
    const packages = Object.keys(lock);
    // Printed for the record (bench/install.ts reports them beside the parts).
    console.log(`core install: ${(bytes / 1e6).toFixed(1)} MB in ${packages.length} packages (tarball ${(installed.tarballBytes / 1e6).toFixed(1)} MB)`);
    expect(bytes).toBeLessThanOrEqual(CORE_MAX_BYTES);
    expect(packages.filter((p) => lock[p]!.hasInstallScript)).toEqual([]);
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

  it('runs the core commands: check, validate, lint (Terraform through HashiCorp\'s parser), test, logfilter, simulate, analyze, diff, export, demo', () => {
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
      [['diff', 'examples/ruleset.json', 'examples/ruleset.json', '--fail-on', 'any'], 0, /no packet changes/],
      [['export', '--wireshark', 'tcp.dstport in {22 443}'], 0, /tcp\.dstport/],
      [['demo'], 0, /block/],
    ];
    for (const [args, status, output] of cases) {
      const r = run(args);
      expect({ args, status: r.status, stderr: r.status === status ? '' : r.stderr }).toEqual({ args, status, stderr: '' });
      expect(r.stdout + r.stderr, args.join(' ')).toMatch(output);
    }
  });

  it('runs the language server (its protocol library is bundled into the CLI): rulekit lsp answers initialize', async () => {
    const frame = (o: object) => {
      const text = JSON.stringify(o);
      return `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    };
    const child = spawn(process.execPath, [join(dir, 'node_modules', 'rulekit', 'dist', 'bundle', 'cli.js'), 'lsp'], { cwd: dir });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.on('exit', done));
    child.stdin.write(frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } }));
    for (let i = 0; i < 100 && !out.includes('"id":1'); i++) await new Promise((r) => setTimeout(r, 100));
    child.stdin.write(frame({ jsonrpc: '2.0', id: 2, method: 'shutdown' }));
    for (let i = 0; i < 100 && !out.includes('"id":2'); i++) await new Promise((r) => setTimeout(r, 100));
    child.stdin.end(frame({ jsonrpc: '2.0', method: 'exit' }));
    // The protocol's exit code: 0 after a shutdown request.
    expect(await exited).toBe(0);
    expect(out).toMatch(/"id":1,"result":\{"capabilities":\{/);
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
