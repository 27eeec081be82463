/**
 * A throwaway PostgreSQL cluster for tests: initdb into a temp dir, a server on a free port of 127.0.0.1
 * (and a unix socket in the same dir), everything removed by `stop()`. Each test file starts its own, so
 * files run in parallel without sharing state; start-up is about a second.
 *
 * PostgreSQL refuses to run as root, so as root (CI) the cluster is owned and run by the `postgres` user
 * the Debian package creates (`runuser`). Password authentication even on loopback: any local user
 * could otherwise connect to it while it runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresProgram } from './tools.js';

export interface PostgresOptions {
  /**
   * Keep fsync and synchronous commit on, as a real deployment does (a crash test needs them). Off by
   * default: a cluster that never syncs starts and writes much faster, and ordinary tests do not crash it.
   */
  durable?: boolean;
}

export interface PostgresCluster {
  /** URL of the database `rulekit` (created empty), as the superuser. */
  url: string;
  port: number;
  dataDir: string;
  /** Create an empty database and answer its URL. */
  createDatabase(): Promise<string>;
  /**
   * Create an empty schema in `rulekit` and answer a URL whose connections use it (`search_path`): what a
   * test that wants its own empty store should take, as it costs a millisecond where a database costs
   * a few hundred.
   */
  createSchema(): Promise<string>;
  /** Stop the server as a crash would (`pg_ctl stop -m immediate`: no checkpoint, the next start replays the WAL). */
  crash(): Promise<void>;
  /** Start the server again after `crash()`, on the same port and data. */
  start(): Promise<void>;
  /** Stop the server and remove the cluster; safe to call twice. */
  stop(): Promise<void>;
}

const USER = 'rulekit';

/** Start a fresh cluster. */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresCluster> {
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const password = randomBytes(18).toString('base64url');
  let running = false;
  let removed = false;

  const remove = () => {
    if (removed) return;
    removed = true;
    if (running) spawnSync(...command(runAs, postgresProgram('pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w']), { cwd: dir, stdio: 'ignore' });
    running = false;
    rmSync(dir, { recursive: true, force: true });
  };
  // A test file that dies before its afterAll must not leave a server behind.
  process.once('exit', remove);

  try {
    if (runAs) chownSync(dir, runAs.uid, runAs.gid);
    const pwFile = join(dir, 'pw');
    writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
    if (runAs) chownSync(pwFile, runAs.uid, runAs.gid);
    await run(runAs, dir, postgresProgram('initdb'), [
      '-D', dataDir, '-U', USER, `--pwfile=${pwFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-locale',
      ...(options.durable ? [] : ['--no-sync']),
    ]);
    rmSync(pwFile);
    appendFileSync(join(dataDir, 'postgresql.conf'), [
      '',
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'max_connections = 100',
      'shared_buffers = 32MB',
      ...(options.durable ? ['fsync = on', 'synchronous_commit = on', 'full_page_writes = on'] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
      '',
    ].join('\n'));

    let port = 0;
    const start = async () => {
      await run(runAs, dir, postgresProgram('pg_ctl'), ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port}`]);
      running = true;
    };
    // The free port is found before the server binds it, so another file's cluster may take it first:
    // try again with another.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await start();
        break;
      } catch (e) {
        if (attempt >= 5) throw e;
      }
    }

    const urlOf = (db: string) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
    const admin = async <T>(fn: (c: pg.Client) => Promise<T>, db = 'postgres'): Promise<T> => {
      const c = new pg.Client({ connectionString: urlOf(db) });
      await c.connect();
      try {
        return await fn(c);
      } finally {
        await c.end();
      }
    };
    // Identifiers cannot be parameters; the names below are made here, never from input.
    let databases = 0;
    const createDatabase = async () => {
      const name = `rulekit_${++databases}`;
      await admin((c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
      return urlOf(name);
    };
    let schemas = 0;
    const createSchema = async () => {
      const name = `s${++schemas}`;
      await admin((c) => c.query(`CREATE SCHEMA ${c.escapeIdentifier(name)}`), 'rulekit');
      return `${urlOf('rulekit')}?options=${encodeURIComponent(`-c search_path=${name}`)}`;
    };
    await admin((c) => c.query('CREATE DATABASE rulekit'));

    return {
      url: urlOf('rulekit'),
      port,
      dataDir,
      createDatabase,
      createSchema,
      crash: async () => {
        await run(runAs, dir, postgresProgram('pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
        running = false;
      },
      start,
      stop: async () => {
        if (running && !removed) {
          await run(runAs, dir, postgresProgram('pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w']).catch(() => {});
          running = false;
        }
        remove();
        process.removeListener('exit', remove);
      },
    };
  } catch (e) {
    remove();
    process.removeListener('exit', remove);
    throw e;
  }
}

/** Terminate every backend a rulekit server holds (its connections are named `rulekit`); how many. */
export async function terminateBackends(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'rulekit' AND pid <> pg_backend_pid()`);
    return rows.length;
  } finally {
    await c.end();
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

function postgresUser(): RunAs {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const u = id('-u');
  const g = id('-g');
  if (u.status !== 0 || g.status !== 0) {
    throw new Error('running as root: PostgreSQL must run as another user, and the user "postgres" (created by apt-get install postgresql) does not exist');
  }
  return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}

function command(runAs: RunAs | undefined, program: string, args: string[]): [string, string[]] {
  return runAs ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
}

/** Run a program to completion (as the cluster's user); fails with its output when it exits non-zero. */
function run(runAs: RunAs | undefined, cwd: string, program: string, args: string[]): Promise<void> {
  const [cmd, argv] = command(runAs, program, args);
  return new Promise((resolve, reject) => {
    // cwd: the cluster's dir, which the postgres user can enter (the caller's may be private to root).
    // stdout ignored: pg_ctl start leaves the server holding it, which would keep this pipe open.
    const child = spawn(cmd, argv, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} ${args.join(' ')} exited ${code}: ${err.trim()}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
