/** `rulekit check`: its command line. @module */
import type { Command } from 'commander';
import { UsageError } from '../io.js';
import { formatOption, maxWarningsOption, phaseOption, write } from './options.js';

export function register(program: Command): void {
  program.command('check')
    .description('lint network rule expressions (arguments, or one per line of --file)')
    .argument('[expression...]', 'expressions to check')
    .option('-f, --file <path>', 'a file with one expression per line (# comments), - for stdin')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .addOption(phaseOption('check with the fields and functions of this ruleset phase (http_request_firewall_custom: HTTP fields)'))
    .addOption(formatOption())
    .addOption(maxWarningsOption())
    .option('--color', 'colour the diagnostics (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (expressions: string[], opts) => {
      if (!expressions.length && !opts.file) throw new UsageError('give an expression or --file');
      const { checkCommand } = await import('../check.js');
      process.exitCode = await checkCommand(expressions, opts, write);
    });
}
