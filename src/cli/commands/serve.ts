/** `rulekit serve`: its command line, and the listening errors it turns into usage errors. @module */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from '../io.js';
import { loadPart, MissingPartError, type OptionalPartName } from '../../optional-parts.js';
import { PORT_DESCRIPTION, portNumber, write } from './options.js';

function seconds(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('give a whole number of seconds');
  return n;
}

export function register(program: Command): void {
  program.command('serve')
    .description('run the reference server of the configuration API (what npm start runs)')
    .option('--port <n>', PORT_DESCRIPTION, portNumber)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--data <dir>', 'directory of the SQLite database (default ./.rulekit-data)')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite: postgres://user:pass@host/db (or DATABASE_URL)')
    .option('--users <path>', 'JSON file of users: [{"email", "key" or "key_hash", "accounts": [...], "zones": [...]}] (or RULEKIT_USERS)')
    .option('--no-demo', 'no demo user, account and zone')
    .option('--request-timeout <seconds>', 'most time a request (headers and body) may take to arrive; slower ones are answered 408 (0: no limit)', seconds, 30)
    .option('--logpush-dir <dir>', 'directory standing for Logpush buckets: ownership challenge files are written under it, and file:// destinations inside it are taken')
    .option('--db-wait <seconds>', 'how long to keep trying a database that does not answer at start (0: once)', seconds, 30)
    .addOption(new Option('--log-format <format>', 'request log on stdout: readable lines (pretty), JSON lines (json), or pretty on a terminal and JSON otherwise (auto)').choices(['auto', 'pretty', 'json']).default('auto'))
    .addOption(new Option('--log-level <level>', 'log level of the request log on stdout').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
    .action(async (opts) => {
      // The server (fastify and the database drivers) is loaded by this command only: optional parts,
      // which a missing one names with the line that installs the server and its store together.
      const parts: OptionalPartName[] = ['server', opts.databaseUrl || process.env.DATABASE_URL ? 'postgres' : 'sqlite'];
      const { serve } = await loadPart(parts, () => import('../../server/index.js'));
      const port = opts.port ?? (process.env.PORT ? Number(process.env.PORT) : undefined);
      try {
        await loadPart(parts, () => serve({ ...opts, port }, write));
      } catch (e) {
        if (e instanceof MissingPartError) throw e;
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`port ${port ?? 8787} is in use; give another with --port (0: any free port)`);
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === undefined) throw new UsageError((e as Error).message);
        throw e;
      }
    });
}
