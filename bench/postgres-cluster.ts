/**
 * A throwaway PostgreSQL cluster for the server bench: `initdb` into a temporary directory, `pg_ctl start`
 * on a free loopback port, one database, and `stop()` removes it all. Durability stays as a production
 * server has it (fsync, synchronous_commit and full_page_writes on, said explicitly), so a benchmarked
 * write costs its WAL flush. Run as root (as in CI containers), the cluster runs as the `postgres` user,
 * since PostgreSQL refuses root. The binaries: `$PG_BIN`, else the newest /usr/lib/postgresql/<n>/bin.
 * `$BENCH_POSTGRES_SETTINGS`: more `name=value` settings, separated by spaces (to study the server, e.g.
 * `log_min_duration_statement=10 log_lock_waits=on`).
 *
 * `warmWalMb` makes the cluster's WAL look like a server's that has been running: PostgreSQL writes WAL
 * into 16 MB segment files, and a fresh cluster creates each one new (writing 16 MB of zeros before
 * using it) until its first checkpoint, after which old segments are renamed and reused. Under the
 * bench's PUT load that is a new segment every ~2 s, and commits that wait behind its creation (a
 * standalone run: p99 32–36 ms fresh, 27 ms warmed). Warming writes that much WAL, checkpoints, and
 * keeps the segments for reuse (`min_wal_size`); `BENCH_POSTGRES_WARM_WAL_MB=0` leaves the cluster fresh.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** A running cluster. */
export interface Cluster {
  /** `postgres://…` of its database. */
  url: string;
  /** Stop the server and remove its directory. */
  stop(): void;
  /** The postmaster's process id (its backends and helpers are its children). */
  pid: number;
}

/** The directory of initdb and pg_ctl, or why there is none. */
export function postgresBinaries(): { dir: string } | { missing: string } {
  const given = process.env.PG_BIN;
  if (given) return existsSync(join(given, 'pg_ctl')) ? { dir: given } : { missing: `PG_BIN=${given} has no pg_ctl` };
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'pg_ctl')));
  return dir ? { dir } : { missing: `no initdb/pg_ctl under ${root} (Debian's postgresql package) and no PG_BIN` };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Start a cluster. `cpus`: a taskset CPU list the server and its backends are confined to (undefined: no
 * pinning). Throws with PostgreSQL's log when it does not start.
 */
export async function startCluster(options: { cpus?: string; warmWalMb?: number } = {}): Promise<Cluster> {
  const bins = postgresBinaries();
  if ('missing' in bins) throw new Error(bins.missing);
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-pg-'));
  const data = join(dir, 'data');
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()));
  // As root: run the tool as `postgres`; the CPU pinning is inherited by every process the server forks.
  const run = (tool: string, args: string[]) => {
    let argv = [join(bins.dir, tool), ...args];
    if (asRoot) argv = ['runuser', '-u', 'postgres', '--', ...argv];
    if (options.cpus !== undefined) argv = ['taskset', '-c', options.cpus, ...argv];
    return execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  const stop = () => {
    try {
      if (existsSync(join(data, 'postmaster.pid'))) run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    run('initdb', ['-D', data, '-U', 'rulekit', '-A', 'trust', '-E', 'UTF8', '--locale', 'C']);
    const port = await freePort();
    const warm = options.warmWalMb ?? 0;
    const settings = ['listen_addresses=127.0.0.1', `port=${port}`, `unix_socket_directories=${dir}`, 'fsync=on', 'synchronous_commit=on', 'full_page_writes=on', 'max_connections=200', ...(warm > 0 ? [`min_wal_size=${Math.max(80, warm)}MB`, `max_wal_size=${Math.max(1024, 2 * warm)}MB`] : []), ...(process.env.BENCH_POSTGRES_SETTINGS?.split(/\s+/).filter(Boolean) ?? [])];
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o', settings.map((s) => `-c ${s}`).join(' '), 'start']);
    run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'rulekit', 'rulekit']);
    if (warm > 0) {
      // ~1 KB rows: `warm` MB of table, a little more of WAL. The second checkpoint comes after every segment
      // written so far, which it renames for reuse (up to min_wal_size of them).
      const sql = [
        'CREATE TABLE bench_warm_wal (x text)',
        `INSERT INTO bench_warm_wal SELECT repeat(md5(g::text), 30) FROM generate_series(1, ${Math.round(warm * 1024)}) g`,
        'CHECKPOINT',
        'DROP TABLE bench_warm_wal',
        'SELECT pg_switch_wal()',
        'CHECKPOINT',
      ];
      run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'rulekit', '-d', 'rulekit', '-q', '-v', 'ON_ERROR_STOP=1', ...sql.flatMap((c) => ['-c', c])]);
    }
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return { url: `postgres://rulekit@127.0.0.1:${port}/rulekit`, stop, pid };
  } catch (e) {
    let log = '';
    try {
      log = execFileSync('tail', ['-n', '20', join(dir, 'log')], { encoding: 'utf8' });
    } catch {
      // no log yet
    }
    stop();
    const err = e as Error & { stderr?: string };
    throw new Error(`PostgreSQL did not start: ${err.stderr?.trim() || err.message}${log ? `\n${log}` : ''}`);
  }
}
