/** `rulekit token create`: its command line. @module */
import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from '../io.js';
import { write } from './options.js';
import { loadPart } from '../../optional-parts.js';

type Permission = 'read' | 'edit';

/** `ID:read` or `ID:edit`, collected into an object of id → permission. */
const grant = (what: 'account' | 'zone') => (text: string, previous: Record<string, Permission> = {}): Record<string, Permission> => {
  const at = text.lastIndexOf(':');
  const id = at > 0 ? text.slice(0, at) : '';
  const permission = text.slice(at + 1);
  if (!id || (permission !== 'read' && permission !== 'edit')) {
    throw new InvalidArgumentError(`give ${what.toUpperCase()}_ID:read (GET only) or ${what.toUpperCase()}_ID:edit (every method)`);
  }
  return { ...previous, [id]: permission };
};

export function register(program: Command): void {
  const token = program.command('token').description('API tokens for the reference server (Authorization: Bearer)');
  token.command('create')
    .description('make a random API token: prints it once and adds only its hash to the users file')
    .option('--account <id:perm>', 'an account the token may use, with read or edit (repeatable)', grant('account'))
    .option('--zone <id:perm>', 'a zone the token may use, with read or edit (repeatable)', grant('zone'))
    .option('--users <path>', 'the users file of rulekit serve --users to add the token to (created when absent)')
    .option('--email <email>', "put the token in this user's tokens list (it may name only the user's accounts and zones)")
    .option('--name <name>', 'a name for messages and logs')
    .action(async (opts: { account?: Record<string, Permission>; zone?: Record<string, Permission>; users?: string; email?: string; name?: string }) => {
      if (!opts.account && !opts.zone) throw new UsageError('a token needs at least one --account ID:read|edit or --zone ID:read|edit');
      if (opts.email && !opts.users) throw new UsageError('--email names a user of a users file: give --users too');
      // The users file is the server's: the token is hashed and the file checked by the server's own code.
      const { addTokenToUsersFile, generateToken, hashToken } = await loadPart(['server'], () => import('../../server/index.js'));
      const value = generateToken();
      const entry = hashToken(value, { name: opts.name, accounts: opts.account, zones: opts.zone });
      if (opts.users) {
        try {
          addTokenToUsersFile(opts.users, entry, opts.email);
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        process.stderr.write(`rulekit: token ${entry.id} added to ${opts.users}${opts.email ? ` (user ${opts.email})` : ''}; it is shown once, keep it now\n`);
      } else {
        process.stderr.write(`rulekit: no --users file; add this entry to one (or to RULEKIT_USERS), and keep the token now, it is shown once:\n${JSON.stringify(entry)}\n`);
      }
      write(value + '\n');
    });
}
