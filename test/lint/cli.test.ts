/**
 * `rulekit lint` run as a user runs it (the built bundle, npm test builds first) over the fixtures in
 * test/fixtures/lint: golden reports in every format (UPDATE_GOLDEN=1 rewrites them), the SARIF report
 * validated against the official SARIF 2.1.0 schema, exit codes, and the --fix round trip.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import { parse as hclParse } from '@cdktf/hcl2json';
import { applyEdits } from '../../src/lint/index.js';
import { ROOT, runCli } from '../helpers/cli.js';

// ajv-draft-04 is CommonJS with its class on `default`: the official SARIF 2.1.0 schema is draft-04.
type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };
const Ajv = ((AjvDraft04 as unknown as { default?: unknown }).default ?? AjvDraft04) as new (options: object) => { compile(schema: object): Validator };

const FIXTURES = join(ROOT, 'test', 'fixtures', 'lint');
const GOLDEN = join(import.meta.dirname, 'golden');

function run(args: string[], opts: { cwd?: string; input?: string } = {}) {
  return runCli(['lint', ...args], { cwd: opts.cwd ?? FIXTURES, input: opts.input });
}

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env['UPDATE_GOLDEN'] || !existsSync(path)) writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

const FORMATS = { text: 'report.txt', json: 'report.json', sarif: 'report.sarif', github: 'report.github.txt', junit: 'report.junit.xml' } as const;

describe('rulekit lint: reports', () => {
  for (const [format, file] of Object.entries(FORMATS)) {
    it(`--format ${format} matches golden/${file}`, () => {
      const r = run(['--no-config', '--format', format, 'terraform', 'bodies']);
      expect(r.err).toBe('');
      expect(r.code).toBe(1);
      golden(file, r.out);
    });
  }

  it('the SARIF report is valid SARIF 2.1.0 (the official schema)', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'sarif-schema-2.1.0.json'), 'utf8'));
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    const validate = ajv.compile(schema);
    const log = JSON.parse(run(['--no-config', '--format', 'sarif', 'terraform', 'bodies']).out);
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    expect(log.runs[0].results.length).toBeGreaterThan(20);
    // The schema does check something: a log without its version is rejected.
    expect(validate({ ...log, version: undefined })).toBe(false);
    // A clean run is valid too (no results).
    expect(validate(JSON.parse(run(['--no-config', '--format', 'sarif', 'clean']).out))).toBe(true);
  });

  it('GitHub annotations escape what workflow commands need escaped', () => {
    const r = run(['--no-config', '--format', 'github', '--stdin-filename', 'a,b:c.rules', '-'], { input: 'tcp.dstport in {80, 443}\n' });
    expect(r.out).toBe('::error file=a%2Cb%3Ac.rules,line=1,endLine=1,col=19,endColumn=20,title=rulekit comma-in-set::set items are separated by spaces, not commas (fix: remove the comma)\n');
  });
});

describe('rulekit lint: exit codes', () => {
  it('0 when clean, 1 on errors, --max-severity lowers the bar', () => {
    expect(run(['--no-config', 'clean']).code).toBe(0);
    expect(run(['--no-config', 'terraform/legacy_v4.tf']).code).toBe(1);
    // Only a warning: clean by default, a failure at --max-severity warning.
    const input = 'tcp.dstport == 0123\n';
    expect(run(['--no-config', '--kind', 'rules', '-'], { input }).code).toBe(0);
    expect(run(['--no-config', '--kind', 'rules', '--max-severity', 'warning', '-'], { input }).code).toBe(1);
    // A code turned off no longer counts; one raised to error does.
    expect(run(['--no-config', '--severity', 'octal-literal=error', '--kind', 'rules', '-'], { input }).code).toBe(1);
    expect(run(['--no-config', '--severity', 'comma-in-set=off', '--kind', 'rules', '-'], { input: 'tcp.dstport in {1, 2}\n' }).code).toBe(0);
  });

  it('2 for bad usage or unreadable input, with one line', () => {
    for (const args of [['no-such-file.tf'], ['--format', 'xml', 'clean'], ['--kind', 'hcl', 'clean'], ['nothing/*.tf'], ['--severity', 'x', 'clean'], ['--lists', 'no-such.json', 'clean']]) {
      const r = run(['--no-config', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(/^(rulekit: |error: )/);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });

  it('invalid HCL, JSON and YAML are findings (exit 1) at their place', () => {
    const tf = run(['--no-config', '--stdin-filename', 'x.tf', '-'], { input: 'resource "cloudflare_ruleset" "x" {\n  name = "unterminated\n}\n' });
    expect(tf.code).toBe(1);
    expect(tf.out).toMatch(/^x\.tf:2:23: error\[lint-parse-error\]: not valid HCL: Invalid multi-line string/);
    expect(tf.out.match(/lint-parse-error/g)).toHaveLength(1);
    const json = run(['--no-config', '--kind', 'json', '-'], { input: '{"rules": [}' });
    expect(json.out).toMatch(/^<stdin>:1:12: error\[lint-parse-error\]/);
    const yaml = run(['--no-config', '--kind', 'yaml', '-'], { input: 'rules:\n  - expression: "x\n' });
    expect(yaml.out).toContain('error[lint-parse-error]: not valid YAML');
  });
});

describe('rulekit lint: config, lists, directories', () => {
  it('finds rulekit.config.json upward: lists, severities, excludes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-lint-cfg-'));
    mkdirSync(join(dir, 'infra', 'generated'), { recursive: true });
    writeFileSync(join(dir, 'lists.json'), JSON.stringify({ office: ['198.51.100.0/24'] }));
    writeFileSync(join(dir, 'rulekit.config.json'), JSON.stringify({ lists: 'lists.json', severity: { 'uppercase-protocol': 'error' }, exclude: ['generated/'] }));
    writeFileSync(join(dir, 'infra', 'a.rules'), 'ip.src in $office and ip.proto == "UDP"\n');
    writeFileSync(join(dir, 'infra', 'generated', 'b.rules'), 'this is not an expression\n');
    const r = run(['--format', 'json', '.'], { cwd: join(dir, 'infra') });
    const report = JSON.parse(r.out);
    expect(report.files.map((f: { path: string }) => f.path)).toEqual(['a.rules']);
    expect(report.files[0].diagnostics.map((d: { code: string; severity: string }) => `${d.code}:${d.severity}`)).toEqual(['uppercase-protocol:error']);
    expect(r.code).toBe(1);
    writeFileSync(join(dir, 'rulekit.config.json'), '{"colour": true}');
    expect(run(['.'], { cwd: join(dir, 'infra') }).code).toBe(2);
  });
});

describe('rulekit lint --fix', () => {
  it('fixes in place, prints what changed, leaves the rest byte-identical, and a second run changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-lint-fix-'));
    cpSync(join(FIXTURES, 'terraform'), join(dir, 'terraform'), { recursive: true });
    cpSync(join(FIXTURES, 'bodies'), join(dir, 'bodies'), { recursive: true });
    const files = ['terraform', 'bodies'].flatMap((d) => readdirSync(join(dir, d)).map((f) => `${d}/${f}`));
    const before = new Map(files.map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    // The applicable edits the report announces, applied here, give exactly what --fix writes.
    const report = JSON.parse(run(['--no-config', '--format', 'json', 'terraform', 'bodies'], { cwd: dir }).out);
    const fixed = run(['--no-config', '--fix', 'terraform', 'bodies'], { cwd: dir });
    expect(fixed.out).toMatch(/^fixed terraform\/firewall\.tf:26:75 comma-in-set: remove the comma$/m);
    for (const f of report.files) {
      const edits = f.diagnostics.filter((d: { fix?: { applicable: boolean } }) => d.fix?.applicable).flatMap((d: { fix: { edits: unknown[] } }) => d.fix.edits);
      expect(readFileSync(join(dir, f.path), 'utf8'), f.path).toBe(applyEdits(before.get(f.path)!, edits as never));
    }
    // Lint again: nothing left to fix; the files still parse.
    const again = JSON.parse(run(['--no-config', '--format', 'json', 'terraform', 'bodies'], { cwd: dir }).out);
    expect(again.summary.fixable).toBe(0);
    expect(again.files.flatMap((f: { diagnostics: { code: string }[] }) => f.diagnostics.map((d) => d.code))).not.toContain('lint-parse-error');
    for (const f of files.filter((x) => x.endsWith('.tf'))) await hclParse(f, readFileSync(join(dir, f), 'utf8'));
    for (const f of files.filter((x) => x.endsWith('.json'))) JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const snapshot = new Map(files.map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    const second = run(['--no-config', '--fix', 'terraform', 'bodies'], { cwd: dir });
    expect(second.out).not.toContain('fixed ');
    for (const f of files) expect(readFileSync(join(dir, f), 'utf8')).toBe(snapshot.get(f));
  });

  it('keeps Terraform escapes and quoting: a fix inside a quoted HCL string is written escaped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-lint-esc-'));
    const tf = 'resource "cloudflare_ruleset" "r" {\n  phase = "magic_transit"\n  rules = [{ action = "block", expression = "ip.proto == \\"TCP\\" AND ip.src.country in {\\"\\u0062r\\"}" }]\n}\n';
    writeFileSync(join(dir, 'a.tf'), tf);
    run(['--no-config', '--fix', 'a.tf'], { cwd: dir });
    expect(readFileSync(join(dir, 'a.tf'), 'utf8')).toBe(tf.replace('\\"TCP\\"', '\\"tcp\\"').replace('AND', 'and').replace('\\"\\u0062r\\"', '\\"BR\\"'));
  });
});
