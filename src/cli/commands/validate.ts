/** `rulekit validate`: its command line. @module */
import { Option, type Command } from 'commander';
import { maxWarningsOption, phaseOption, write } from './options.js';

export function register(program: Command): void {
  program.command('validate')
    .description('validate one request body: a ruleset (create or PUT), an array of rules or a Logpush job, in JSON or YAML (- for stdin); Terraform files: rulekit lint')
    .argument('<ruleset>', 'body file (.json, .yaml, .yml; by content for stdin)')
    .option('--update', 'the body is a PUT that replaces rules (needs only "rules")')
    .addOption(phaseOption('phase of the stored ruleset, for --update bodies'))
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--service-token <token>', 'service token of the managed lists', 'svc')
    .addOption(new Option('--format <format>', 'output format; envelope: the service\'s response envelope').choices(['text', 'json', 'envelope']).default('text'))
    .addOption(maxWarningsOption())
    .option('--color', 'colour the diagnostics (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .action(async (path: string, opts) => {
      const { validateCommand } = await import('../validate.js');
      process.exitCode = await validateCommand(path, opts, write);
    });
}
