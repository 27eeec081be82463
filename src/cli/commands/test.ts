/** `rulekit test`: its command line. @module */
import { Option, type Command } from 'commander';
import { write } from './options.js';

export function register(program: Command): void {
  program.command('test')
    .description('run rule unit tests: packets, captures and log lines with their expected outcome (*.ruletest.yaml|yml|json)')
    .argument('[files...]', 'test files, or directories walked for *.ruletest.yaml, *.ruletest.yml, *.ruletest.json (default: .)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'junit', 'github']).default('text'))
    .option('--verbose', 'text: the trace of passing cases too')
    .option('--no-times', 'json, junit: leave out durations (stable reports)')
    .option('--color', 'colour the text report (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (files: string[], opts) => {
      const { testCommand } = await import('../ruletest.js');
      process.exitCode = await testCommand(files, opts, write);
    });
}
