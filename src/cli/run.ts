/**
 * The `rulekit` command line's program and its run: what src/cli/main.ts starts, and what the launcher of the
 * Node bundle (src/cli/launch.ts) calls. Exit codes: 0 fine, 1 the input has errors, 2 a usage problem.
 *
 * Each command is a module of commands/ that declares it on the program; its action imports the module
 * that runs it, so a run evaluates only the code of its own command: `rulekit simulate` does not build
 * the YAML reader `rulekit lint` needs.
 * @module
 */
import { Command, CommanderError } from 'commander';
import * as analyze from './commands/analyze.js';
import * as check from './commands/check.js';
import * as demo from './commands/demo.js';
import * as diff from './commands/diff.js';
import * as exportCommand from './commands/export.js';
import * as hashKey from './commands/hash-key.js';
import * as lint from './commands/lint.js';
import * as logfilter from './commands/logfilter.js';
import * as lsp from './commands/lsp.js';
import * as playground from './commands/playground.js';
import * as query from './commands/query.js';
import * as serve from './commands/serve.js';
import * as simulate from './commands/simulate.js';
import * as test from './commands/test.js';
import * as token from './commands/token.js';
import * as validate from './commands/validate.js';
import { fileError, UsageError } from './io.js';
import { MissingPartError } from '../optional-parts.js';
import { VERSION } from '../version.js';

/** The commands, in the order `rulekit --help` lists them. */
const COMMANDS: readonly { register(program: Command): void }[] = [
  demo, serve, playground, lsp, hashKey, token, check, validate, lint, test, logfilter, analyze, diff, query, simulate, exportCommand,
];

/** Build the program (exported for tests). */
export function program(): Command {
  const p = new Command('rulekit')
    .description('Network rule expressions and Logpush filters: check, validate, simulate, export.')
    .version(VERSION)
    .showHelpAfterError('(rulekit --help for usage)')
    // Parser errors are thrown to main(), which exits 2 (usage) instead of commander's 1 (input has errors).
    .exitOverride();
  for (const command of COMMANDS) command.register(p);
  return p;
}

/** Run the CLI with process arguments. */
export async function main(argv: string[] = process.argv): Promise<void> {
  // `rulekit simulate … | head`: a closed pipe ends the program quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  try {
    await program().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander printed its message already; --help and --version end with exit code 0.
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    // An optional part that is not installed (the server, a SQL engine): the line that installs it.
    if (e instanceof UsageError || e instanceof MissingPartError || (e as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`rulekit: ${(e as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    // Any other file system error on a named file (raced with the checks before it): one line too.
    const fsError = e as NodeJS.ErrnoException;
    if (typeof fsError?.code === 'string' && /^E[A-Z]+$/.test(fsError.code) && typeof fsError.path === 'string') {
      process.stderr.write(`rulekit: ${fileError(fsError.path, e).message}\n`);
      process.exitCode = 2;
      return;
    }
    throw e;
  }
}
