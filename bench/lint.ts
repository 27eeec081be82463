/**
 * `rulekit lint` of Terraform, whole processes: 1,000 generated rules in 10 `cloudflare_ruleset`
 * resources (v5 shape; quoted strings with escapes, heredocs, interpolations) beside `rulekit check -f`
 * of the same 1,000 expressions in a `.rules` file, and beside `node -e 0`. The difference is what
 * reading Terraform costs: the HCL parser's WebAssembly start-up (`@cdktf/hcl2json`), the position-keeping
 * reader and the stand-ins for interpolations. Target: well under a second after Node starts.
 * BENCH_LINT_RUNS sets the runs per command (default 10).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printTable } from './harness.js';
import { CLI_ENTRY } from './paths.js';
import { runInterleaved, type Command } from './processes.js';

const RUNS = Number(process.env.BENCH_LINT_RUNS ?? 10);
const RULES = 1000;
const PER_RESOURCE = 100;

/** The i-th generated expression (clean, varied). */
export function expression(i: number): string {
  switch (i % 5) {
    case 0: return `tcp.dstport in {${1 + (i % 1000)} ${2000 + i}} and ip.src in {10.${i % 256}.0.0/16}`;
    case 1: return `ip.proto == "udp" and udp.dstport == ${i % 65536}`;
    case 2: return `tcp.flags.syn and not tcp.flags.ack and ip.dst in {192.0.2.${i % 256}}`;
    case 3: return `ip.src.country in {"BR" "CN"} and tcp.dstport == ${i % 65536}`;
    default: return `ip.ttl < ${1 + (i % 255)} or icmp.type == 8`;
  }
}

/** A Terraform file of `count` rules, written as users write them. */
export function terraform(count: number): string {
  const out: string[] = ['variable "office" {\n  type = string\n}\n'];
  for (let r = 0; r * PER_RESOURCE < count; r++) {
    out.push(`resource "cloudflare_ruleset" "fw_${r}" {\n  account_id = var.account_id\n  name       = "fw ${r}"\n  kind       = "root"\n  phase      = "magic_transit"\n  rules = [`);
    for (let i = r * PER_RESOURCE; i < Math.min(count, (r + 1) * PER_RESOURCE); i++) {
      const e = expression(i);
      const value = i % 7 === 0 ? `<<-EOT\n        ${e}\n      EOT` : i % 11 === 0 ? JSON.stringify(e.replace(/ip\.ttl < \d+/, 'ip.ttl < ${var.ttl}')) : JSON.stringify(e);
      out.push(`    {\n      action      = "block"\n      description = "rule ${i}"\n      expression  = ${value}\n    },`);
    }
    out.push('  ]\n}\n');
  }
  return out.join('\n');
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-lint-'));
  const tf = join(dir, 'rules.tf');
  const rules = join(dir, 'rules.rules');
  writeFileSync(tf, terraform(RULES));
  writeFileSync(rules, Array.from({ length: RULES }, (_, i) => expression(i)).join('\n') + '\n');
  const node = process.execPath;
  const commands: Command[] = [
    { name: 'node -e 0', cmd: node, args: ['-e', '0'] },
    { name: `rulekit check -f rules.rules (${RULES} expressions)`, cmd: node, args: [CLI_ENTRY, 'check', '-f', rules] },
    { name: `rulekit lint rules.tf (${RULES} rules)`, cmd: node, args: [CLI_ENTRY, 'lint', '--no-config', tf] },
    { name: `rulekit lint rules.rules (${RULES} expressions)`, cmd: node, args: [CLI_ENTRY, 'lint', '--no-config', rules] },
  ];
  const { stats } = runInterleaved(commands, { runs: RUNS, warmup: 2 });
  const bare = stats[0]!;
  const check = stats[1]!;
  printTable(
    `Lint, whole processes (ms, ${RUNS} runs each, interleaved)`,
    ['command', 'median', 'min', 'after node starts (median)', '× check -f (median)'],
    commands.map((c, i) => {
      const t = stats[i]!;
      return [c.name, t.median.toFixed(1), t.min.toFixed(1), i === 0 ? '–' : `${(t.median - bare.median).toFixed(0)} ms`, i === 0 ? '–' : `${(t.median / check.median).toFixed(2)}×`];
    }),
    ['The lint of rules.tf reports its interpolations as info; every run exits 0.'],
  );
}
