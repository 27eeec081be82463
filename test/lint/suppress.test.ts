/**
 * Suppressions (`# rulekit-disable-next-line`, `//` in Terraform, the config's `ignore` for JSON), the
 * unused and unknown ones reported, and `--quiet` / `--max-warnings`: through the built CLI.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applySuppressions, findDirectives, type LintDiagnostic } from '../../src/lint/index.js';
import { CLI, runCli } from '../helpers/cli.js';


function run(args: string[], opts: { cwd?: string; input?: string } = {}) {
  return runCli(['lint', ...args], opts);
}

type Finding = { code: string; severity: string; line: number; message: string; fix?: { title: string; applicable: boolean } };
function findings(r: { out: string }): Finding[] {
  return JSON.parse(r.out).files.flatMap((f: { diagnostics: Finding[] }) => f.diagnostics);
}
const codes = (r: { out: string }) => findings(r).map((d) => `${d.line}:${d.code}`);

describe('rulekit-disable-next-line', () => {
  it('suppresses the named codes on the next line only, in .rules files', () => {
    const input = 'tcp.dstport in {1, 2}\n# rulekit-disable-next-line comma-in-set -- legacy list\ntcp.dstport in {3, 4}\ntcp.dstport in {5, 6}\n';
    const r = run(['--no-config', '--format', 'json', '--kind', 'rules', '-'], { input });
    expect(codes(r)).toEqual(['1:comma-in-set', '4:comma-in-set']);
    // Another code on the same line is not suppressed by a comment that names comma-in-set.
    const other = run(['--no-config', '--format', 'json', '--kind', 'rules', '-'], { input: '# rulekit-disable-next-line comma-in-set\ntcp.dstport in {3, 4} AND ip.ttl > 1\n' });
    expect(codes(other)).toEqual(['2:uppercase-keyword']);
  });

  it('without codes suppresses every code of the next line', () => {
    const r = run(['--no-config', '--format', 'json', '--kind', 'rules', '-'], { input: '# rulekit-disable-next-line\ntcp.dstport in {3, 4} AND ip.ttl > 1\n' });
    expect(r.code).toBe(0);
    expect(codes(r)).toEqual([]);
  });

  it('works with # and // in Terraform and # in YAML', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-suppress-'));
    writeFileSync(
      join(dir, 'fw.tf'),
      'resource "cloudflare_ruleset" "fw" {\n  phase = "magic_transit"\n  rules = [{\n    action = "block"\n    // rulekit-disable-next-line comma-in-set\n    expression = "tcp.dstport in {1, 2}"\n  }, {\n    action = "block"\n    # rulekit-disable-next-line uppercase-keyword\n    expression = "tcp.dstport == 3 AND ip.ttl > 1"\n  }]\n}\n',
    );
    writeFileSync(join(dir, 'rs.yaml'), 'rules:\n  - action: block\n    # rulekit-disable-next-line comma-in-set\n    expression: "tcp.dstport in {1, 2}"\n  - action: block\n    expression: "tcp.dstport in {1, 2}"\n');
    const r = run(['--no-config', '--format', 'json', 'fw.tf', 'rs.yaml'], { cwd: dir });
    const byFile = JSON.parse(r.out).files.map((f: { path: string; diagnostics: Finding[] }) => [f.path, f.diagnostics.map((d) => `${d.line}:${d.code}`)]);
    expect(byFile).toEqual([['fw.tf', []], ['rs.yaml', ['6:comma-in-set']]]);
  });

  it('reports an unused suppression (warning) whose fix --fix applies, and an unknown code with the nearest one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-suppress-'));
    const text = 'tcp.dstport == 1\n# rulekit-disable-next-line comma-in-set\ntcp.dstport == 2\n# rulekit-disable-next-line comma-in-set, octal-literal\ntcp.dstport in {1, 2}\n# rulekit-disable-next-line comma-in-sett\ntcp.dstport == 3\n';
    writeFileSync(join(dir, 'a.rules'), text);
    const r = run(['--no-config', '--format', 'json', 'a.rules'], { cwd: dir });
    const ds = findings(r);
    expect(ds.map((d) => `${d.line}:${d.code}:${d.severity}`)).toEqual(['2:lint-unused-suppression:warning', '4:lint-unused-suppression:warning', '6:lint-unknown-code:error']);
    expect(ds[0]!.message).toBe('comma-in-set is not reported on line 3; this suppression is unused');
    expect(ds[0]!.fix).toMatchObject({ title: 'remove the suppression comment', applicable: true });
    expect(ds[1]!.message).toBe('octal-literal is not reported on line 5; this suppression is unused');
    expect(ds[1]!.fix).toMatchObject({ title: 'keep only comma-in-set in the comment', applicable: true });
    expect(ds[2]!.message).toBe('rulekit-disable-next-line names an unknown code "comma-in-sett"; did you mean comma-in-set?');
    expect(r.code).toBe(1);
    run(['--no-config', '--fix', 'a.rules'], { cwd: dir });
    expect(readFileSync(join(dir, 'a.rules'), 'utf8')).toBe('tcp.dstport == 1\ntcp.dstport == 2\n# rulekit-disable-next-line comma-in-set\ntcp.dstport in {1, 2}\n# rulekit-disable-next-line comma-in-sett\ntcp.dstport == 3\n');
  });

  it('a suppressed finding is not fixed by --fix, and a suppression of a code turned off still counts as used', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-suppress-'));
    const text = '# rulekit-disable-next-line comma-in-set\ntcp.dstport in {1, 2}\n';
    writeFileSync(join(dir, 'a.rules'), text);
    expect(run(['--no-config', '--fix', 'a.rules'], { cwd: dir }).code).toBe(0);
    expect(readFileSync(join(dir, 'a.rules'), 'utf8')).toBe(text);
    expect(codes(run(['--no-config', '--format', 'json', 'a.rules', '--severity', 'comma-in-set=off'], { cwd: dir }))).toEqual([]);
  });

  it('a comment is a directive only on a line of its own that starts with the marker', () => {
    expect(findDirectives('x\n  # rulekit-disable-next-line a, b -- why\ny', 'rules').map((d) => [d.line, d.codes.map((c) => c.code)])).toEqual([[2, ['a', 'b']]]);
    expect(findDirectives('# rulekit-disable-next-lines a\n', 'rules')).toEqual([]);
    expect(findDirectives('// rulekit-disable-next-line a\n', 'yaml')).toEqual([]);
    expect(findDirectives('// rulekit-disable-next-line a\n', 'terraform')).toHaveLength(1);
    expect(findDirectives('{"x": "# rulekit-disable-next-line"}', 'json')).toEqual([]);
  });
});

describe('the config\'s ignore (JSON pointers)', () => {
  it('suppresses findings at the pointer and below in matching files; an entry that suppresses nothing is named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-ignore-'));
    const body = { name: 'fw', kind: 'root', phase: 'magic_transit', rules: [{ action: 'block', expression: 'tcp.dstport in {1, 2}' }, { action: 'block', expression: 'tcp.dstport in {3, 4}' }] };
    writeFileSync(join(dir, 'a.json'), JSON.stringify(body, null, 2));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(body, null, 2));
    writeFileSync(join(dir, 'rulekit.config.json'), JSON.stringify({ ignore: [{ file: 'a.json', pointer: '/rules/0', code: 'comma-in-set' }, { file: '*.json', pointer: '/rules/1/expression' }, { file: 'b.json', pointer: '/name' }] }));
    const r = run(['--format', 'json', 'a.json', 'b.json'], { cwd: dir });
    const files = JSON.parse(r.out).files.map((f: { path: string; diagnostics: { pointer?: string; code: string }[] }) => [f.path, f.diagnostics.map((d) => `${d.pointer}:${d.code}`)]);
    expect(files).toEqual([['a.json', []], ['b.json', ['/rules/0/expression:comma-in-set']]]);
    expect(r.err).toBe(`rulekit: ${join(dir, 'rulekit.config.json')}: the ignore entry {"file":"b.json","pointer":"/name"} suppressed nothing in the files linted; remove it\n`);
  });

  it('an entry with an unknown code or a pointer without a leading / is a usage error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-ignore-'));
    writeFileSync(join(dir, 'a.rules'), 'tcp.dstport == 1\n');
    writeFileSync(join(dir, 'rulekit.config.json'), JSON.stringify({ ignore: [{ file: 'a.json', pointer: '/rules', code: 'comma-in-sett' }] }));
    const r = run(['a.rules'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.err).toContain('ignore[0]: "code": unknown code "comma-in-sett"; did you mean comma-in-set?');
    writeFileSync(join(dir, 'rulekit.config.json'), JSON.stringify({ ignore: [{ file: 'a.json', pointer: 'rules/0' }] }));
    expect(run(['a.rules'], { cwd: dir }).code).toBe(2);
  });

  it('applySuppressions keeps findings outside the pointer (a prefix of a member name is not below it)', () => {
    const d = (pointer: string): LintDiagnostic => ({ code: 'comma-in-set', severity: 'error', message: 'x', pointer });
    const kept = applySuppressions([d('/rules/1'), d('/rules/10/expression'), d('/rules/1/expression')], '', 'json', { ignores: [{ pointer: '/rules/1' }] });
    expect(kept.map((k) => k.pointer)).toEqual(['/rules/10/expression']);
  });
});

describe('--quiet and --max-warnings', () => {
  const input = 'tcp.dstport == 0123\ntcp.dstport == 0124\ntcp.dstport in {1, 2}\n';
  it('--quiet reports only what fails the run; the exit code is the same', () => {
    const loud = run(['--no-config', '--format', 'json', '--kind', 'rules', '-'], { input });
    const quiet = run(['--no-config', '--quiet', '--format', 'json', '--kind', 'rules', '-'], { input });
    expect(codes(loud)).toEqual(['1:octal-literal', '2:octal-literal', '3:comma-in-set']);
    expect(codes(quiet)).toEqual(['3:comma-in-set']);
    expect(quiet.code).toBe(loud.code);
    const warnings = run(['--no-config', '--quiet', '--max-severity', 'warning', '--format', 'json', '--kind', 'rules', '-'], { input });
    expect(codes(warnings)).toEqual(['1:octal-literal', '2:octal-literal', '3:comma-in-set']);
  });

  it('--max-warnings N fails the run past N warnings (counted even when --quiet hides them)', () => {
    const only = 'tcp.dstport == 0123\ntcp.dstport == 0124\n';
    expect(run(['--no-config', '--kind', 'rules', '-'], { input: only }).code).toBe(0);
    expect(run(['--no-config', '--max-warnings', '2', '--kind', 'rules', '-'], { input: only }).code).toBe(0);
    const over = run(['--no-config', '--quiet', '--max-warnings', '1', '--kind', 'rules', '-'], { input: only });
    expect(over.code).toBe(1);
    expect(over.err).toBe('rulekit: 2 warning(s), more than --max-warnings 1\n');
    expect(run(['--no-config', '--max-warnings', 'x', '--kind', 'rules', '-'], { input: only }).code).toBe(2);
  });
});
