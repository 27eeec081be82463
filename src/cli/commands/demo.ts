/** `rulekit demo`: its command line. @module */
import type { Command } from 'commander';
import { write } from './options.js';

export function register(program: Command): void {
  program.command('demo')
    .description('check a sample ruleset and run sample packets through it, offline')
    .action(async () => {
      const { runDemo } = await import('../demo.js');
      process.exitCode = runDemo(write);
    });
}
