/** `rulekit query`: its command line. @module */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { write } from './options.js';

export function register(program: Command): void {
  program.command('query')
    .description('run a Logpush filter over stored log lines on DuckDB (NDJSON, .gz, Parquet; globs, s3://) or a ClickHouse server')
    .argument('<files...>', 'log files or globs (with --clickhouse-url: a table name)')
    .requiredOption('--filter <path>', 'the filter: a JSON document {"where": …}, or a job body with "filter"')
    .option('--dataset <name>', 'dataset of the lines', 'http_requests')
    .option('--count', 'print only the number of matching lines')
    .option('--limit <n>', 'matching lines shown in text and json output', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('give a whole number of lines');
      return Number(v);
    }, 10)
    .addOption(new Option('--format <format>', 'text (sample and counts), ndjson (every matching line), json').choices(['text', 'ndjson', 'json']).default('text'))
    .addOption(new Option('--scope <scope>', 'the job\'s scope, for a dataset both scopes offer with different fields (firewall_events)').choices(['zone', 'account']))
    .option('--clickhouse-url <url>', 'run on a ClickHouse server (http://host:8123; user and password in the URL or CLICKHOUSE_USER, CLICKHOUSE_PASSWORD); the argument is a table name')
    .action(async (files: string[], opts) => {
      const { queryCommand } = await import('../query.js');
      process.exitCode = await queryCommand(files, opts, write);
    });
}
