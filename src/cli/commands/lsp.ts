/** `rulekit lsp`: its command line. @module */
import { InvalidArgumentError, type Command } from 'commander';

export function register(program: Command): void {
  program.command('lsp')
    .description('run the language server for editors on standard input and output (docs/guides/editor-setup.md)')
    .option('--stdio', 'talk over standard input and output (the default, and the only transport)')
    .option('--full-check-delay <ms>', 'quiet time after a change before ruleset analysis runs (default 300)', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('give a number of milliseconds');
      return Number(v);
    })
    .action(async (opts: { fullCheckDelay?: number }) => {
      const { runStdio } = await import('../../lsp/index.js');
      runStdio({ fullCheckDelay: opts.fullCheckDelay });
    });
}
