/**
 * `rulekit test` run as a user runs it (the built bundle; npm test builds first) on its own examples in
 * examples/: the passing files exit 0, the deliberately failing one exits 1 with golden reports
 * (UPDATE_GOLDEN=1 rewrites them); test files that cannot run exit 2 with positioned problems; a capture
 * case on a fixture capture; the published JSON Schema against the examples and against the validator.
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import Ajv2020Module from 'ajv/dist/2020.js';
import { loadSuite, parseTestDocument, validateTestFile } from '../../src/ruletest/index.js';
import { ROOT, runCli } from '../helpers/cli.js';

type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (options: object) => { compile(schema: object): Validator };

const EXAMPLES = join(ROOT, 'examples');
const GOLDEN = join(import.meta.dirname, 'golden');
const CAPTURES = join(ROOT, 'test', 'fixtures', 'capture');

function run(args: string[], cwd = ROOT) {
  return runCli(args, { cwd });
}

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env['UPDATE_GOLDEN'] || !existsSync(path)) writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

const dir = mkdtempSync(join(tmpdir(), 'rulekit-ruletest-'));
for (const f of ['ruleset.json', 'lists.json', 'firewall.tf', 'errors.job.json']) copyFileSync(join(EXAMPLES, f), join(dir, f));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return name;
};

describe('rulekit test: the examples', () => {
  it('the passing examples exit 0 and every case passes', () => {
    const r = run(['test', 'examples/firewall.ruletest.yaml', 'examples/terraform.ruletest.yaml']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/18 case\(s\) in 2 file\(s\): 18 passed, 0 failed\n$/);
    expect(r.out).not.toContain('✗');
  });

  it('the failing example exits 1; its text report is golden', () => {
    const r = run(['test', 'examples/failing.ruletest.yaml']);
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    golden('failing.txt', r.out);
    // What the report must show: expected against actual, and the trace with the deciding rule.
    expect(r.out).toContain('verdict: expected block, got allow');
    expect(r.out).toContain('#0 "office-ssh" skip: matched, decided: allow');
  });

  it('the failing example as JUnit is golden (durations left out with --no-times)', () => {
    const r = run(['test', '--format', 'junit', '--no-times', 'examples/failing.ruletest.yaml']);
    expect(r.code).toBe(1);
    golden('failing.junit.xml', r.out);
    expect(r.out).toMatch(/<testsuites name="rulekit test" tests="4" failures="3" errors="0">/);
    // With durations by default.
    expect(run(['test', '--format', 'junit', 'examples/failing.ruletest.yaml']).out).toMatch(/<testcase [^>]* time="\d+\.\d{3}"/);
  });

  it('--format json carries every case with checks and trace; --format github annotates the failing expectations', () => {
    const json = JSON.parse(run(['test', '--format', 'json', 'examples/failing.ruletest.yaml']).out);
    expect(json).toMatchObject({ ok: false, cases: 4, passed: 1, failed: 3 });
    const blocked = json.suites[0].cases[1];
    expect(blocked.checks).toEqual([
      { what: 'verdict', expected: 'block', actual: 'allow', ok: false, line: 16, column: 14 },
      { what: 'rule', expected: '#2 "no-ssh"', actual: '#0 "office-ssh"', ok: false, line: 17, column: 11 },
    ]);
    expect(blocked.detail.steps).toEqual([{ index: 0, rule: '#0 "office-ssh"', action: 'skip', expression: 'ip.src in $office and tcp.dstport == 22', result: 'matched', decided: true }]);
    const gh = run(['test', '--format', 'github', 'examples/failing.ruletest.yaml']);
    expect(gh.code).toBe(1);
    expect(gh.out.split('\n')[0]).toMatch(/^::error file=examples\/failing\.ruletest\.yaml,line=16,col=14,title=rulekit test%3A ssh from the office is blocked::verdict: expected block, got allow%0Atrace:%0A/);
  });

  it('a directory is walked for *.ruletest.* files: the examples together exit 1 (one fails on purpose)', () => {
    const r = run(['test', 'examples']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('22 case(s) in 3 file(s): 19 passed, 3 failed');
  });
});

describe('rulekit test: cases on a fixture capture', () => {
  const vlan = join(CAPTURES, 'vlan.pcap');
  const rules = file('cap-ruleset.json', JSON.stringify({ rules: [
    { action: 'block', ref: 'web', expression: 'tcp.dstport == 80' },
    { action: 'block', ref: 'udp', expression: 'ip.proto == "udp"' },
  ] }));
  it('counts per verdict and per rule pass when right (exit 0) and fail with expected vs actual when wrong (exit 1)', () => {
    const right = file('cap.ruletest.yaml', `ruleset: ${rules}\ncases:\n  - name: vlan\n    capture: ${JSON.stringify(vlan)}\n    counts: { packets: 5, block: 3, allow: 2, defaultAllowed: 2, rules: [{ rule: web, matched: 1, decided: 1 }, { rule: 1, decided: 2 }] }\n`);
    const ok = run(['test', right], dir);
    expect(ok.out).toContain('1 passed, 0 failed');
    expect(ok.code).toBe(0);
    const wrong = file('cap-wrong.ruletest.yaml', `ruleset: ${rules}\ncases:\n  - name: vlan\n    capture: ${JSON.stringify(vlan)}\n    counts: { block: 4, rules: [{ rule: udp, decided: 3 }] }\n`);
    const bad = run(['test', wrong], dir);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('block:                 expected 4, got 3');
    expect(bad.out).toContain('rule #1 "udp" decided: expected 3, got 2');
    expect(bad.out).toContain('#0 "web" block: matched 1, decided 1');
  });

  it('a capture that is not one fails its case with the reader\'s error', () => {
    const notCapture = file('not-a-capture.pcap', 'hello');
    const t = file('cap-garbage.ruletest.yaml', `ruleset: ${rules}\ncases:\n  - name: garbage\n    capture: ${notCapture}\n    counts: { packets: 0 }\n`);
    const r = run(['test', t], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/capture: +expected a readable capture, got /);
  });
});

describe('rulekit test: test files that cannot run exit 2 with positions', () => {
  const cases: [string, string, RegExp[]][] = [
    [
      'typos.ruletest.yaml',
      'ruleset: ruleset.json\nlists: lists.json\ncases:\n  - name: a\n    packet: { ip.src: 192.0.2.1, tcp.dstprot: 22 }\n    verdict: block\n    rule: no-sshh\n  - name: b\n    pakcet: {}\n',
      [
        /^typos\.ruletest\.yaml:5:34: error\[unknown-field\]: unknown field tcp\.dstprot; did you mean tcp\.dstport\?$/m,
        /^typos\.ruletest\.yaml:7:11: error\[unknown-rule\]: no rule has the ref, id or description "no-sshh"; did you mean "no-ssh"\?$/m,
        /^typos\.ruletest\.yaml:9:5: error\[invalid-test-file\]: unknown key "pakcet" in cases\[1\]; did you mean packet\?$/m,
      ],
    ],
    ['verdict.ruletest.yaml', 'ruleset: ruleset.json\ncases:\n  - name: a\n    packet: {}\n    verdict: blok\n', [/^verdict\.ruletest\.yaml:5:14: error\[invalid-test-file\]: cases\[0\]\.verdict is allow or block, not the string "blok"; did you mean block\?$/m]],
    ['value.ruletest.yaml', 'ruleset: ruleset.json\ncases:\n  - name: a\n    packet: { tcp.dstport: 70000 }\n    verdict: allow\n', [/^value\.ruletest\.yaml:4:28: error\[invalid-value\]: the packet: tcp\.dstport is 70000, outside 0\.\.65535 \(Int\)$/m]],
    ['syntax.ruletest.json', '{ "ruleset": "ruleset.json", "cases": [ { "name": "a", "packet": {}, "verdict": "allow" }, ] }\n', [/^syntax\.ruletest\.json:1:92: error\[invalid-test-file\]: not valid JSON: /m]],
    ['yaml.ruletest.yaml', 'ruleset: ruleset.json\ncases:\n  - name: a\n   packet: {}\n', [/^yaml\.ruletest\.yaml:\d+:\d+: error\[invalid-test-file\]: not valid YAML: /m]],
    ['missing.ruletest.yaml', 'ruleset: nothing.json\ncases: [{ name: a, packet: {}, verdict: allow }]\n', [/^missing\.ruletest\.yaml:1:10: error\[unreadable-file\]: the ruleset nothing\.json: no such file$/m]],
    ['resource.ruletest.yaml', 'ruleset: { terraform: firewall.tf, resource: cloudflare_ruleset.edg }\ncases: [{ name: a, packet: {}, verdict: allow }]\n', [/^resource\.ruletest\.yaml:1:46: error\[invalid-test-file\]: firewall\.tf has no resource cloudflare_ruleset\.edg; did you mean cloudflare_ruleset\.edge\?$/m]],
    ['vars.ruletest.yaml', 'ruleset: { terraform: firewall.tf, resource: cloudflare_ruleset.edge }\ncases: [{ name: a, packet: {}, verdict: allow }]\n', [/^firewall\.tf:20:32: error\[terraform-unknown-value\]: cloudflare_ruleset\.edge\.rules\[0\]\.expression interpolates var\.office_cidr; give its value/m]],
    ['filter.ruletest.yaml', 'filters:\n  - name: f\n    filter: \'{"where":{"key":"EdgeResponseStatu","operator":"geq","value":500}}\'\n    lines: [{ line: {}, kept: true }]\n', [/^filter\.ruletest\.yaml:3:30: error\[filter-unknown-field\]: "EdgeResponseStatu" is not a field of http_requests/m]],
    ['capture.ruletest.yaml', 'ruleset: ruleset.json\ncases:\n  - name: c\n    capture: none.pcap\n    counts: { rules: [{ rule: 9, decided: 1 }] }\n', [/^capture\.ruletest\.yaml:4:14: error\[unreadable-file\]: the capture none\.pcap: no such file$/m, /^capture\.ruletest\.yaml:5:31: error\[unknown-rule\]: there is no rule 9: the ruleset has 6 rule\(s\), 0 to 5$/m]],
    ['empty.ruletest.yaml', 'name: nothing\n', [/^empty\.ruletest\.yaml:1:1: error\[invalid-test-file\]: a test file has "cases" \(with a "ruleset"\) or "filters", or both$/m]],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      file(name, text);
      const r = run(['test', name], dir);
      expect(r.code, r.out + r.err).toBe(2);
      for (const e of expected) expect(r.err).toMatch(e);
      expect(r.err).toMatch(/no test was run\n$/);
      expect(r.err).not.toMatch(/\n\s+at /);
    });
  }

  it('a ruleset with errors is reported in its own file', () => {
    file('broken.json', '{"rules": [{"action": "block", "expression": "tcp.dstprt == 1"}]}');
    const r = run(['test', file('broken.ruletest.yaml', 'ruleset: broken.json\ncases: [{ name: a, packet: {}, verdict: allow }]\n')], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^broken\.json:1:47: error\[unknown-field\]: unknown field tcp\.dstprt; did you mean tcp\.dstport\?$/m);
  });

  it('--format github gives the problems as annotations; --format json as data', () => {
    file('verdict.ruletest.yaml', 'ruleset: ruleset.json\ncases:\n  - name: a\n    packet: {}\n    verdict: blok\n');
    const gh = run(['test', '--format', 'github', 'verdict.ruletest.yaml'], dir);
    expect(gh.code).toBe(2);
    expect(gh.out).toMatch(/^::error file=verdict\.ruletest\.yaml,line=5,col=14,title=rulekit test invalid-test-file::cases\[0\]\.verdict is allow or block/);
    const json = JSON.parse(run(['test', '--format', 'json', 'verdict.ruletest.yaml'], dir).out);
    expect(json.problems[0]).toMatchObject({ file: 'verdict.ruletest.yaml', line: 5, column: 14, code: 'invalid-test-file' });
  });

  it('bad usage: a missing path, no test files, an unknown format', () => {
    expect(run(['test', 'no-such-dir'], dir)).toMatchObject({ code: 2, err: 'rulekit: no-such-dir: no such file or directory\n' });
    const empty = mkdtempSync(join(tmpdir(), 'rulekit-ruletest-empty-'));
    expect(run(['test'], empty).code).toBe(2);
    expect(run(['test', '--format', 'xml', 'examples/firewall.ruletest.yaml']).code).toBe(2);
  });
});

describe('the JSON Schema of test files', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'schemas', 'rulekit-test.schema.json'), 'utf8'));
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  const validate = ajv.compile(schema);
  const examples = readdirSync(EXAMPLES).filter((f) => /\.ruletest\.(ya?ml|json)$/.test(f));

  it('every example validates, and loads without problems', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const f of examples) {
      const value = parseYaml(readFileSync(join(EXAMPLES, f), 'utf8'));
      expect(validate(value), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const loaded = await loadSuite(join(EXAMPLES, f));
      expect(loaded.problems, f).toEqual([]);
    }
  });

  // Counter-examples: the schema and the validator reject each (so neither is a schema that accepts all).
  const invalid: Record<string, unknown> = {
    'no cases or filters': { ruleset: 'r.json' },
    'cases without a ruleset': { cases: [{ name: 'a', packet: {}, verdict: 'allow' }] },
    'an unknown top-level key': { ruleset: 'r.json', case: [] },
    'a packet case expecting nothing': { ruleset: 'r.json', cases: [{ name: 'a', packet: {} }] },
    'a bad verdict': { ruleset: 'r.json', cases: [{ name: 'a', packet: {}, verdict: 'drop' }] },
    'a negative rule index': { ruleset: 'r.json', cases: [{ name: 'a', packet: {}, rule: -1 }] },
    'a packet value that is an object': { ruleset: 'r.json', cases: [{ name: 'a', packet: { 'ip.src': {} }, verdict: 'allow' }] },
    'packet and capture': { ruleset: 'r.json', cases: [{ name: 'a', packet: {}, capture: 'c.pcap', verdict: 'allow' }] },
    'a capture without counts': { ruleset: 'r.json', cases: [{ name: 'a', capture: 'c.pcap' }] },
    'empty counts': { ruleset: 'r.json', cases: [{ name: 'a', capture: 'c.pcap', counts: {} }] },
    'a rule count without figures': { ruleset: 'r.json', cases: [{ name: 'a', capture: 'c.pcap', counts: { rules: [{ rule: 0 }] } }] },
    'a fractional count': { ruleset: 'r.json', cases: [{ name: 'a', capture: 'c.pcap', counts: { packets: 1.5 } }] },
    'a Terraform ruleset of another type': { ruleset: { terraform: 'a.tf', resource: 'cloudflare_logpush_job.x' }, cases: [{ name: 'a', packet: {}, verdict: 'allow' }] },
    'filter and job': { filters: [{ name: 'f', filter: '{}', job: 'j.json', lines: [{ line: {}, kept: true }] }] },
    'neither filter nor job': { filters: [{ name: 'f', lines: [{ line: {}, kept: true }] }] },
    'no lines': { filters: [{ name: 'f', filter: '{}', lines: [] }] },
    'kept as a string': { filters: [{ name: 'f', filter: '{}', lines: [{ line: {}, kept: 'yes' }] }] },
    'a diff case without a base': { ruleset: 'r.json', cases: [{ name: 'a', diff: 'no-unblock' }] },
    'a diff case with an unknown shorthand': { ruleset: 'r.json', cases: [{ name: 'a', base: 'b.json', diff: 'no-unblocks' }] },
    'a diff figure that is negative': { ruleset: 'r.json', cases: [{ name: 'a', base: 'b.json', diff: { 'allows-added': -1 } }] },
    'an empty diff': { ruleset: 'r.json', cases: [{ name: 'a', base: 'b.json', diff: {} }] },
    'a diff base of another form': { ruleset: 'r.json', cases: [{ name: 'a', base: { rev: 'HEAD' }, diff: 'no-change' }] },
    'a diff case with a packet': { ruleset: 'r.json', cases: [{ name: 'a', base: 'b.json', diff: 'no-change', packet: {} }] },
    'lists of numbers': { lists: { a: [1] }, filters: [{ name: 'f', filter: '{}', lines: [{ line: {}, kept: true }] }] },
  };
  for (const [what, value] of Object.entries(invalid)) {
    it(`rejects ${what} (schema and validator alike)`, () => {
      expect(validate(value), 'schema').toBe(false);
      const doc = parseTestDocument(JSON.stringify(value), 'x.json').doc!;
      expect(validateTestFile(doc).problems.length, 'validator').toBeGreaterThan(0);
    });
  }

  it('accepts what the validator accepts (minimal files of each kind)', () => {
    const valid = [
      { ruleset: 'r.json', cases: [{ name: 'a', packet: { 'tcp.dstport': 22 }, rule: null }] },
      { ruleset: { terraform: 'a.tf', resource: 'cloudflare_ruleset.fw', vars: { 'var.x': 1 } }, lists: 'l.json', cases: [{ name: 'a', capture: 'c.pcap', counts: { rules: [{ rule: 'x', matched: 0 }] } }] },
      { filters: [{ name: 'f', job: { terraform: 'a.tf', resource: 'cloudflare_logpush_job.j' }, dataset: 'dns_logs', lines: [{ name: 'n', line: { a: 1 }, kept: false }] }] },
      { $schema: 'x', name: 'n', filters: [{ name: 'f', filter: { where: { key: 'a', operator: 'eq', value: 1 } }, lines: [{ line: {}, kept: true }] }] },
      { ruleset: 'r.json', cases: [{ name: 'a', base: { git: 'HEAD~1' }, diff: 'no-unblock' }, { name: 'b', base: 'b.json', diff: { regions: 2, 'blocks-added': 'none', 'allows-added': 0, unknown: 'none' } }] },
    ];
    for (const v of valid) {
      expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
      expect(validateTestFile(parseTestDocument(JSON.stringify(v), 'x.json').doc!).problems).toEqual([]);
    }
  });
});
