/** `rulekit logfilter`: its command line. @module */
import { Option, type Command } from 'commander';
import { write } from './options.js';

export function register(program: Command): void {
  program.command('logfilter')
    .description('dry-run a Logpush filter on sample log lines: which lines would be pushed, and why')
    .argument('<filter>', 'filter document ({"where": …}) or Logpush job body (JSON); - for stdin')
    .argument('<lines>', 'log lines, one JSON object a line (NDJSON), gzip-compressed or not; - for stdin')
    .option('--dataset <name>', 'the dataset the filter is checked against (default: the job\'s, else http_requests)')
    .option('--explain', 'why each line was kept or dropped: the clause that decided, and every clause')
    .addOption(new Option('--format <format>', 'output format; ndjson: the kept lines as they are').choices(['text', 'json', 'ndjson']).default('text'))
    .option('--color', 'colour the filter diagnostics (on stderr; default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (filter: string, lines: string, opts) => {
      const { logfilterCommand } = await import('../logfilter.js');
      process.exitCode = await logfilterCommand(filter, lines, opts, write);
    });
}
