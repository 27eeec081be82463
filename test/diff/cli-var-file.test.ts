/**
 * `rulekit diff --var-file` (dist/bundle/cli.js): Terraform variable values from `.tfvars` (HCL, read by
 * HashiCorp's parser) and `.tfvars.json`, in command-line order with `--var` (a later one overrides an
 * earlier one, as `terraform plan` has it); a bad file named at its line and column (exit 1), a missing
 * one exit 2.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-var-file-'));

function run(...args: string[]) {
  return runCli(['diff', 'old.tf', 'new.tf', ...args], { cwd: dir, timeout: 30_000 });
}
const file = (name: string, text: string) => writeFileSync(join(dir, name), text);

const resource = (rule: string) => `resource "cloudflare_ruleset" "fw" {
  account_id = "023e105f4ecef8ad9ca31a8372d0c353"
  name  = "fw"
  kind  = "root"
  phase = "magic_transit"
  rules = [{
    ${rule}
    expression = "ip.src in {\${var.office_cidr}} and tcp.dstport == \${var.port}"
  }]
}
`;
file('old.tf', resource('action = "skip"\n    action_parameters = { ruleset = "current" }'));
file('new.tf', resource('action = "block"'));
file('office.tfvars', '# the office\noffice_cidr = "198.51.100.0/24"\nport        = 22\nzones       = ["a", "b"]\n');
file('other.tfvars.json', '{"office_cidr": "203.0.113.0/24", "port": 443}\n');
const region = (cidr: string, port: number) => `  = ip.src ${cidr}, tcp.dstport ${port}: allow by rule 0 → block by rule 0\n`;

describe('rulekit diff --var-file', () => {
  it('a .tfvars fills ${var.NAME}: strings as they are, numbers as Terraform prints them', () => {
    const r = run('--var-file', 'office.tfvars');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(region('198.51.100.0/24', 22));
  });

  it('a .tfvars.json too; later --var and --var-file override earlier ones, in the order given', () => {
    expect(run('--var-file', 'other.tfvars.json').out).toContain(region('203.0.113.0/24', 443));
    expect(run('--var-file', 'office.tfvars', '--var', 'port=80').out).toContain(region('198.51.100.0/24', 80));
    expect(run('--var', 'port=80', '--var-file', 'office.tfvars').out).toContain(region('198.51.100.0/24', 22));
    expect(run('--var-file', 'office.tfvars', '--var-file', 'other.tfvars.json').out).toContain(region('203.0.113.0/24', 443));
  });

  it('a bad file: its first error at its line and column, exit 1; a file of no object, too', () => {
    file('bad.tfvars', 'port = 22\noffice_cidr = = "198.51.100.0/24"\n');
    const hcl = run('--var-file', 'bad.tfvars');
    expect(hcl.code).toBe(1);
    expect(hcl.err).toMatch(/^bad\.tfvars:2:\d+: error\[diff-var-file\]: not valid HCL: /);
    expect(hcl.out).toBe('');
    file('bad.tfvars.json', '{"port": 22,}');
    expect(run('--var-file', 'bad.tfvars.json')).toMatchObject({ code: 1, err: 'bad.tfvars.json:1:13: error[diff-var-file]: not valid JSON: a property name in double quotes was expected (a trailing comma?)\n  {"port": 22,}\n              ^\n' });
    file('list.tfvars.json', '["198.51.100.0/24"]');
    expect(run('--var-file', 'list.tfvars.json')).toMatchObject({ code: 1 });
  });

  it('a missing file exits 2; a list value is not interpolated (the rule names the --var to give)', () => {
    expect(run('--var-file', 'nope.tfvars')).toMatchObject({ code: 2, err: 'rulekit: nope.tfvars: no such file\n' });
    file('list.tfvars', 'office_cidr = ["198.51.100.0/24"]\nport = 22\n');
    const r = run('--var-file', 'list.tfvars');
    expect(r.code).toBe(2);
    expect(r.err).toContain('interpolates var.office_cidr');
    expect(r.err).toContain('give --var office_cidr=VALUE');
  });
});
