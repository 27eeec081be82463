/**
 * The CLI's contract under misuse (README "Exit codes"): 0 fine, 1 the input has errors, 2 a usage problem;
 * one line naming the path for a file that cannot be read; never a stack trace. Runs the built CLI.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-exit-'));

function run(args: string[], input?: string | Buffer) {
  return runCli(args, { input, timeout: 30_000 });
}
const file = (name: string, text: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at |Error: E[A-Z]+|node:internal/);

const ruleset = file('ruleset.json', JSON.stringify({ name: 'x', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 23' }] }));
const rulesWithWarning = file('warn.json', JSON.stringify({ name: 'x', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport in {23 23}' }] }));

describe('exit code 0: fine', () => {
  it('a clean expression, a clean ruleset, --help, --version', () => {
    expect(run(['check', 'tcp.dstport == 22']).code).toBe(0);
    expect(run(['validate', ruleset]).code).toBe(0);
    expect(run(['--help']).code).toBe(0);
    expect(run(['--version']).code).toBe(0);
    expect(run(['check', '--help']).code).toBe(0);
  });
  it('warnings alone exit 0, and within --max-warnings', () => {
    expect(run(['check', 'tcp.dstport in {80 80}']).code).toBe(0);
    expect(run(['check', '--max-warnings', '1', 'tcp.dstport in {80 80}']).code).toBe(0);
    expect(run(['check', '--max-warnings', '-1', 'tcp.dstport in {80 80}']).code).toBe(0);
  });
});

describe('exit code 1: the input has errors', () => {
  it('an expression or a ruleset with an error', () => {
    expect(run(['check', 'tcp.dstport == 70000']).code).toBe(1);
    const bad = file('bad.json', JSON.stringify({ name: 'x', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dst_port == 1' }] }));
    expect(run(['validate', bad]).code).toBe(1);
    expect(run(['validate', file('notjson.json', '{"rules": [')]).code).toBe(1);
  });
  it('more warnings than --max-warnings (check and validate)', () => {
    const c = run(['check', '--max-warnings', '0', 'tcp.dstport in {80 80}']);
    expect(c.code).toBe(1);
    expect(c.err).toContain('--max-warnings 0');
    expect(run(['validate', '--max-warnings', '0', rulesWithWarning]).code).toBe(1);
    expect(run(['validate', rulesWithWarning]).code).toBe(0);
  });
  it('export of a part without an equivalent', () => {
    expect(run(['export', '--wireshark', 'ip.src.country == "BR"']).code).toBe(1);
  });
});

describe('exit code 2: usage problems, one line, no stack', () => {
  it.each([
    [['bogus'], /unknown command 'bogus'/],
    [['check', '--bogus', 'x'], /unknown option '--bogus'/],
    [['validate'], /missing required argument 'ruleset'/],
    [['check', '--format', 'xml', 'sip'], /'xml' is invalid/],
    [['validate', '--format', 'yaml', 'x.json'], /'yaml' is invalid/],
    [['validate', '--phase', 'bogus', 'x.json'], /'bogus' is invalid.*network_transit/],
    [['simulate', '--examples', '-5', 'a', 'b'], /--examples/],
    [['simulate', '--examples', 'many', 'a', 'b'], /--examples/],
    [['check', '--max-warnings', 'x', 'sip'], /--max-warnings/],
    [['check'], /give an expression or --file/],
    [[], /Usage: rulekit/],
  ] as [string[], RegExp][])('%j', (args, message) => {
    const r = run(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    noStack(r.err);
  });

  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const unreadable = file('unreadable.json', '{}');
  chmodSync(unreadable, 0o000);
  const asRoot = process.getuid?.() === 0; // root reads a mode-000 file
  it.each([
    ['a directory', dir, 'is a directory'],
    ['a missing file', join(dir, 'missing.json'), 'no such file'],
    ['a FIFO', fifo, 'named pipe'],
    ...(asRoot ? [] : [['an unreadable file', unreadable, 'permission denied']]),
  ])('%s for check -f, validate, --lists and simulate', (_what, path, problem) => {
    for (const args of [['check', '-f', path], ['validate', path], ['check', '--lists', path, 'sip'], ['validate', '--lists', path, ruleset], ['simulate', path, '-']]) {
      const r = run(args, '');
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim(), args.join(' ')).toBe(`rulekit: ${path}: ${r.err.trim().slice(`rulekit: ${path}: `.length)}`);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err).toContain(problem);
      noStack(r.err);
    }
  });

  it('a lists file that is not an object of arrays of strings: a diagnostic about the file', () => {
    for (const [text, message] of [
      ['[1, 2]', 'must be a JSON object of arrays'],
      ['{"x": "10.0.0.0/8"}', 'list "x" must be an array'],
      ['{"x": ["10.0.0.0/8", 5]}', 'item 1 of list "x" must be a string'],
      ['{"x": [', 'not valid JSON'],
    ]) {
      const lists = file('lists.json', text);
      const r = run(['check', '--lists', lists, 'ip.src in $x']);
      expect(r.code, text).toBe(2);
      expect(r.err, text).toMatch(/lists\.json:1:\d+( \/[^:]*)?: error\[invalid-list-file\]/);
      expect(r.err).toContain(message);
      noStack(r.err);
    }
  });
});

describe('text files as they come', () => {
  it('a UTF-8 byte order mark is skipped in expression files, rulesets and lists', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(run(['check', '-f', file('bom.txt', Buffer.concat([bom, Buffer.from('tcp.dstport == 80\n')]))]).code).toBe(0);
    expect(run(['validate', file('bom.json', Buffer.concat([bom, Buffer.from(JSON.stringify({ rules: [] }))])), '--update']).code).toBe(0);
    const lists = file('bomlists.json', Buffer.concat([bom, Buffer.from('{"x": ["10.0.0.0/8"]}')]));
    expect(run(['check', '--lists', lists, 'ip.src in $x']).code).toBe(0);
  });
  it('bytes that are not UTF-8 are errors at their line and column', () => {
    const f = file('latin1.txt', Buffer.concat([Buffer.from('tcp.dstport == 80\ncf.colo.name == "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]));
    const r = run(['check', '-f', f]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('latin1.txt:2:21: error[invalid-utf8]');
    const j = file('latin1.json', Buffer.concat([Buffer.from('{"rules": [], "description": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]));
    const v = run(['validate', '--update', j]);
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/latin1\.json:1:34: error\[invalid-utf8\]/);
  });
  it('check -f FILE --format json gives each entry its line number', () => {
    const f = file('lines.txt', '# comment\ntcp.dstport == 22\n\nip.src == 10.0.0.0/8\n');
    const json = JSON.parse(run(['check', '-f', f, '--format', 'json']).out) as { line: number; input: string }[];
    expect(json.map((e) => [e.line, e.input])).toEqual([
      [2, 'tcp.dstport == 22'],
      [4, 'ip.src == 10.0.0.0/8'],
    ]);
  });
  it('garbage on stdin: at most 100 diagnostics, then a count of the rest', () => {
    let seed = 7;
    const bytes = Buffer.alloc(200_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    const t = Date.now();
    const r = run(['check', '-f', '-'], bytes);
    expect(Date.now() - t).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    expect((r.out.match(/: error\[/g) ?? []).length).toBeLessThanOrEqual(100);
    expect(r.err).toMatch(/stopped after 100 diagnostics; .*not (shown|checked)/);
    noStack(r.err);
  });
});
