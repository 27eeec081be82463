/** `rulekit analyze`: its command line. @module */
import { Option, type Command } from 'commander';
import { maxWarningsOption, write } from './options.js';

export function register(program: Command): void {
  program.command('analyze')
    .description('find rules that can never decide (shadowed, redundant) and expressions never or always true, with witness packets')
    .argument('<ruleset>', 'ruleset JSON file (a create body, {"rules": [...]}, or an array of rules); - for stdin')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]} (lists not given are unknown, not empty)')
    .option('--witness-pcap <path>', 'write the witness packets as a pcap file, to replay in tshark, tcpreplay or rulekit simulate')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'sarif']).default('text'))
    .addOption(maxWarningsOption())
    .option('--color', 'colour the findings (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (path: string, opts) => {
      const { analyzeCommand } = await import('../analyze.js');
      process.exitCode = await analyzeCommand(path, opts, write);
    });
}
