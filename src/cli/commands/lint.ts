/** `rulekit lint`: its command line. @module */
import { Option, type Command } from 'commander';
import { maxWarningsOption, phaseOption, write } from './options.js';

export function register(program: Command): void {
  program.command('lint')
    .description('lint the rules where they live: Terraform (.tf), JSON or YAML bodies, .rules files; directories, globs, - for stdin')
    .argument('[paths...]', 'files, directories (walked for .tf .json .yaml .yml .rules), globs, or - (default: .)')
    .addOption(new Option('--kind <kind>', 'read every input as this kind (default: by extension, else by content)').choices(['terraform', 'json', 'yaml', 'rules']))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'sarif', 'github', 'junit']).default('text'))
    .addOption(new Option('--max-severity <severity>', 'exit 1 on findings at or above this severity (default: error, or the config\'s maxSeverity)').choices(['error', 'warning', 'info', 'hint']))
    .addOption(maxWarningsOption())
    .option('--quiet', 'report only the findings that fail the run (errors, unless --max-severity says otherwise)')
    .option('--fix', 'apply the safe fixes in place and print what changed')
    .option('--lists <path>', 'JSON file of lists: {"name": ["cidr", ...]}')
    .option('--scheme <path>', 'JSON file of the field scheme: {"field.name": "Type", ...}')
    .option('--service-token <token>', 'service token of the managed lists (default svc)')
    .option('--config <path>', 'config file (default: rulekit.config.json in this directory or above)')
    .option('--no-config', 'read no config file')
    .option('--exclude <pattern...>', '.gitignore-style patterns of paths to skip')
    .option('--severity <code=level...>', 'severity of a code: off, info, warn or error (after the config)')
    .option('--stdin-filename <name>', 'name (and so kind) of standard input in reports')
    .addOption(phaseOption('phase of rules whose file names none (a bare array of rules, a PUT body, a .rules file); resources and bodies with a phase keep theirs'))
    .option('--color', 'colour the text report (default: on a terminal, unless NO_COLOR)')
    .option('--no-color', 'no colour')
    .addHelpText('after', [
      '',
      'Suppressions: a comment line "# rulekit-disable-next-line CODE, CODE -- reason" (also // in Terraform)',
      'suppresses those codes (no codes: all) on the next line; in JSON, the config\'s "ignore":',
      '[{"file": "<glob>", "pointer": "/rules/0/expression", "code": "<code>"}]. Unused ones are reported.',
      'Exit codes: 0 clean, 1 findings at or above --max-severity or past --max-warnings, 2 usage.',
    ].join('\n'))
    .action(async (paths: string[], opts) => {
      const { lintCommand } = await import('../lint.js');
      process.exitCode = await lintCommand(paths, opts, write);
    });
}
