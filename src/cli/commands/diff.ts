/** `rulekit diff`: its command line. @module */
import { Option, type Command } from 'commander';
import { phaseOption, write } from './options.js';

export function register(program: Command): void {
  // --var and --var-file in the order given: a later one overrides an earlier one, as in Terraform.
  const vars: ({ var: string } | { file: string })[] = [];
  program.command('diff')
    .description('what a change to a ruleset or a Logpush filter does: the regions of packets whose verdict or deciding rule changes, or of log lines newly pushed or dropped, each with a witness (docs/diff.md)')
    .argument('<old>', 'the old ruleset (a JSON/YAML body, a Terraform file, a .rules file of expressions) or Logpush filter (a filter document or a job body); with --git: the one file, as it is now the new side')
    .argument('[new]', 'the new ruleset or filter, in any form the old one takes')
    .option('--git <rev>', 'the old side is the file as it is at this git revision')
    .option('--resource <address>', 'the ruleset to compare in each file: a Terraform address (cloudflare_ruleset.fw, cloudflare_logpush_job.errors) or a label')
    .option('--var <name=value>', 'a Terraform variable\'s value for rule expressions that interpolate it (office_cidr=198.51.100.0/24 fills ${var.office_cidr}); repeatable', (v: string, all: string[] = []) => (vars.push({ var: v }), [...all, v]))
    .option('--var-file <path>', 'Terraform variable values from a .tfvars (HCL) or .tfvars.json file; repeatable, a later --var or --var-file overriding an earlier one (as terraform -var-file)', (f: string, all: string[] = []) => (vars.push({ file: f }), [...all, f]))
    .option('--against <path>', 'count what changes: the packets of a capture (pcap, pcapng) or NDJSON packet objects or Parquet flows; for HTTP-phase rulesets, NDJSON request objects, Logpush http_requests lines (NDJSON or Parquet) or a HAR file; for filters, NDJSON log lines or Parquet; NDJSON and captures gzip or not; with --clickhouse-url, a table of flows on the server')
    .addOption(new Option('--engine <engine>', 'count --against on a SQL engine: flow files (NDJSON packet objects or Parquet, globs allowed) for network-phase rulesets, log lines (NDJSON, gzip or not, or Parquet) for filters').choices(['duckdb', 'clickhouse']))
    .option('--clickhouse-url <url>', 'with --engine clickhouse: a ClickHouse server (http://host:8123; user and password in the URL or CLICKHOUSE_USER, CLICKHOUSE_PASSWORD); --against is then a table of flows on it')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown', 'github']).default('text'))
    .addOption(new Option('--fail-on <change>', 'exit 1 when the diff has: any region; a region that blocks what was allowed, or one that allows what was blocked (rulesets); lines newly pushed, or newly dropped (filters); packets a line now matches that none did, or that no line matches any more (.rules files)').choices(['any', 'blocks-added', 'allows-added', 'newly-pushed', 'newly-dropped', 'newly-matched', 'newly-unmatched', 'none']).default('none'))
    .option('--dataset <name>', 'dataset of Logpush filters when neither side is a job that names it (default http_requests)')
    .addOption(phaseOption('phase of bodies that name none (a PUT body, a bare array of rules) and of .rules files (default network_transit, as lint reads them)'))
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]} (lists not given are unknown)')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .action(async (oldPath: string, newPath: string | undefined, opts) => {
      const { diffCommand } = await import('../diff.js');
      process.exitCode = await diffCommand(oldPath, newPath, { ...opts, vars }, write);
    });
}
