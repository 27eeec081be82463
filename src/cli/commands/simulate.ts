/** `rulekit simulate`: its command line. @module */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from '../io.js';
import { write } from './options.js';

export function register(program: Command): void {
  program.command('simulate')
    .description('run packets (pcap, pcapng, NDJSON or Parquet flows; - for stdin) through a ruleset, or HTTP requests (HAR, NDJSON request objects, Logpush http_requests lines as NDJSON or Parquet) through an HTTP-phase ruleset, and summarise per rule; gzip-compressed inputs are read as what they hold')
    .argument('<ruleset>', 'ruleset JSON file (a create body, or {"rules": [...]}); its phase says whether it reads packets or HTTP requests')
    .argument('<input>', 'capture (.pcap/.pcapng), NDJSON packet objects or Parquet flows; for an HTTP phase a HAR file, NDJSON request objects or Logpush http_requests lines (NDJSON or Parquet); gzip or not; - for stdin (not Parquet)')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--geoip <path>', 'country/ASN table: CSV of cidr,country,asn or a MaxMind .mmdb')
    .option('--colo <name>', 'data center name for cf.colo.name')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .option('--examples <n>', 'example packets per rule in the summary', (v: string) => {
      if (!/^\d+$/.test(v) || Number(v) > 1000) throw new InvalidArgumentError('give a whole number of examples, 0..1000');
      return v;
    }, '3')
    .option('--no-progress', 'no progress bar')
    .option('--stats', 'print packets/s and peak memory to stderr')
    .option('--threads <n>', 'worker threads for a pcap file (default: up to 2 for files of 96 MB and more; 0: this thread only)', (v: string) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n > 64) throw new UsageError(`--threads takes a whole number 0..64, not ${JSON.stringify(v)}`);
      return n;
    })
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'ndjson']).default('text'))
    .option('--ndjson-diagnostics', 'with --format ndjson: diagnostics also as {"diagnostic": …} lines on stdout, after the summary line')
    .addOption(new Option('--engine <engine>', 'run the ruleset as SQL on DuckDB or ClickHouse embedded (chdb) over flow files: NDJSON packet objects or Parquet, globs allowed').choices(['duckdb', 'clickhouse']))
    .option('--clickhouse-url <url>', 'with --engine clickhouse: a ClickHouse server (http://host:8123; user and password in the URL or CLICKHOUSE_USER, CLICKHOUSE_PASSWORD); the input is a table name')
    .option('--color', 'colour the ruleset diagnostics (on stderr; default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (ruleset: string, input: string, opts) => {
      const { simulateCommand } = await import('../simulate.js');
      process.exitCode = await simulateCommand(ruleset, input, opts, write);
    });
}
