/** `rulekit export`: its command line. @module */
import type { Command } from 'commander';
import { write } from './options.js';

export function register(program: Command): void {
  program.command('export')
    .description('translate an expression to another tool\'s filter language')
    .argument('<expression>', 'network rule expression')
    .option('--wireshark', 'as a Wireshark display filter (tshark -Y)')
    .option('--lists <path>', 'JSON file of lists, to export $lists as sets')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .action(async (expression: string, opts) => {
      const { exportCommand } = await import('../export.js');
      process.exitCode = await exportCommand(expression, opts, write);
    });
}
