/**
 * `rulekit serve` (and `npm start`): the server on embedded defaults. Users (and API tokens) come from
 * `--users FILE` and/or the `RULEKIT_USERS` environment variable (JSON: an array of users, or `{"users": [...]}`), and a
 * demo user owning a demo account and zone is added unless `--no-demo`. SQLite under `./.rulekit-data`
 * unless `--data DIR` or `--database-url`. SIGTERM and SIGINT close it gracefully: requests in flight
 * finish, new ones are answered 503, then the store is closed.
 * @module
 */
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createServer, API_PREFIX } from './app.js';
import { openStoreWaiting } from './wait-for-store.js';
import type { UserConfig, UsersEntry } from './auth.js';
import { LogLines, type LogFormat } from './log-lines.js';

/** Options of {@link serve}, as the command line gives them. */
export interface ServeOptions {
  port?: number;
  host?: string;
  data?: string;
  databaseUrl?: string;
  users?: string;
  demo?: boolean;
  logLevel?: string;
  /** The request log: `json` lines, readable `pretty` lines, or `auto` (default: pretty on a terminal). */
  logFormat?: LogFormat | 'auto';
  /** Seconds to keep trying a database that does not answer at start (default {@link DEFAULT_DB_WAIT}). */
  dbWait?: number;
  /** Seconds a request (headers and body) may take to arrive (default 30; 0: no limit). */
  requestTimeout?: number;
  /** Directory standing for Logpush buckets (ownership challenge files, `file://` destinations). */
  logpushDir?: string;
}

/** How long requests in flight at SIGTERM get to finish, in ms, before their connections are closed. */
export const SHUTDOWN_GRACE_MS = 8000;

/** Seconds `rulekit serve` waits for its database at start by default. */
export const DEFAULT_DB_WAIT = 30;

/** The demo tenant: environment variables or these defaults. */
export function demoUser(env: NodeJS.ProcessEnv = process.env): Required<Pick<UserConfig, 'email' | 'key' | 'accounts' | 'zones'>> {
  return {
    email: env.RULEKIT_DEMO_EMAIL || 'demo@example.com',
    key: env.RULEKIT_DEMO_KEY || 'rulekit-demo-key',
    accounts: [env.RULEKIT_DEMO_ACCOUNT || '023e105f4ecef8ad9ca31a8372d0c353'],
    zones: [env.RULEKIT_DEMO_ZONE || '023e105f4ecef8ad9ca31a8372d0c354'],
  };
}

function usersFrom(text: string, where: string): UsersEntry[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON: ${(e as Error).message}`);
  }
  const list = Array.isArray(v) ? v : (v as { users?: unknown })?.users;
  if (!Array.isArray(list)) throw new Error(`${where} must be a JSON array of users or {"users": [...]}`);
  return list as UsersEntry[];
}

function readUsersFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`the users file ${path} does not exist (--users); rulekit hash-key prints a hashed key for one`);
    if (code === 'EISDIR') throw new Error(`the users file ${path} is a directory (--users takes a JSON file)`);
    if (code === 'EACCES') throw new Error(`the users file ${path} cannot be read: permission denied (--users)`);
    throw new Error(`the users file ${path} cannot be read (--users): ${(e as Error).message}`);
  }
}

/** The data directory: the one given, else ./.rulekit-data when the working directory is writable, else a temp dir. */
function dataDir(given: string | undefined): string {
  if (given) return resolve(given);
  const local = resolve('.rulekit-data');
  try {
    mkdirSync(local, { recursive: true });
    accessSync(local, constants.W_OK);
    return local;
  } catch {
    return mkdtempSync(join(tmpdir(), 'rulekit-data-'));
  }
}

/** Start the server; resolves once it listens, with its base URL. */
export async function serve(options: ServeOptions, write: (s: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<{ app: FastifyInstance; url: string }> {
  const users: UsersEntry[] = [];
  if (options.users) users.push(...usersFrom(readUsersFile(options.users), options.users));
  if (env.RULEKIT_USERS) users.push(...usersFrom(env.RULEKIT_USERS, 'RULEKIT_USERS'));
  const demo = options.demo !== false ? demoUser(env) : undefined;
  if (demo) users.push(demo);
  if (!users.length) throw new Error('no users: give --users FILE or RULEKIT_USERS, or leave the demo user on');
  const databaseUrl = options.databaseUrl ?? env.DATABASE_URL;
  const data = databaseUrl ? undefined : dataDir(options.data);
  const store = await openStoreWaiting({ databaseUrl, dataDir: data }, options.dbWait ?? DEFAULT_DB_WAIT, (line) => process.stderr.write(`${line}\n`));
  const format = !options.logFormat || options.logFormat === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : options.logFormat;
  // Held until the banner is written: fastify logs its "listening" line from inside listen().
  const logs = new LogLines(format, (text) => process.stdout.write(text));
  let app: FastifyInstance;
  try {
    app = await createServer({ users, store, logger: { level: options.logLevel ?? 'info', stream: logs }, requestTimeout: options.requestTimeout === undefined ? undefined : options.requestTimeout * 1000, logpushDir: options.logpushDir === undefined ? undefined : resolve(options.logpushDir) });
  } catch (e) {
    await store.close();
    throw e;
  }
  // A store given to createServer is the caller's to close: this one closes with the server.
  app.addHook('onClose', async () => store.close());
  let address: string;
  try {
    address = await app.listen({ port: options.port ?? 8787, host: options.host ?? '127.0.0.1' });
  } catch (e) {
    // The store opened above (its pool, its timers) would keep the process alive after the error is printed.
    await app.close().catch(() => {});
    throw e;
  }
  const url = `${address}${API_PREFIX}`;
  const lines = [
    `rulekit reference server on ${url}`,
    `  storage: ${databaseUrl ? 'PostgreSQL' : `SQLite in ${data}`}`,
    ...(options.logpushDir ? [`  Logpush buckets (ownership challenges, file:// destinations): ${resolve(options.logpushDir)}`] : []),
    `  OpenAPI: ${address}/openapi.json   health: ${address}/healthz`,
  ];
  if (demo) {
    const [account] = demo.accounts;
    const [zone] = demo.zones;
    lines.push(
      `  demo user ${demo.email}, key ${demo.key}, account ${account}, zone ${zone}`,
      '',
      'Try it:',
      `  curl -s ${url}/accounts/${account}/rulesets -H 'X-Auth-Email: ${demo.email}' -H 'X-Auth-Key: ${demo.key}' \\`,
      `    -H 'Content-Type: application/json' -d '{"name":"fw","kind":"root","phase":"network_transit","rules":[{"action":"skip","action_parameters":{"ruleset":"current"},"expression":"tcp.dstport == 8080"},{"action":"block","expression":"tcp.dstport in {1..65535}"}]}'`,
      '',
      'With the official client (npm i cloudflare):',
      `  const cf = new Cloudflare({ baseURL: '${url}', apiEmail: '${demo.email}', apiKey: '${demo.key}' });`,
      `  const list = await cf.rulesets.list({ account_id: '${account}' });`,
    );
  }
  write(lines.join('\n') + '\n');
  logs.release();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`rulekit: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'closing: finishing requests in flight');
    // Requests in flight get this long to finish; then their connections are cut and the process exits.
    setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    app.close().then(() => process.exit(0), (e: Error) => {
      process.stderr.write(`rulekit: closing failed: ${e.message}\n`);
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return { app, url };
}
