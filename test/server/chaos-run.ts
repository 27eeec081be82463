/**
 * A chaos run of the reference server: `rulekit serve` processes (two replicas on one PostgreSQL, one on
 * SQLite) under write load while, at random, their database backends are terminated, PostgreSQL is
 * crashed and restarted, and the servers are killed (SIGKILL) or stopped (SIGTERM) and started again.
 *
 * Every write is a PUT whose ruleset description is a marker of its own. Afterwards each ruleset's history
 * is read: a write answered 200 must be in it (else it is lost), and a write answered 503
 * `server-unavailable` ("nothing was written") must not be (else the answer lied). A server process that
 * exits without having been signalled is counted too. Run by `npm run chaos` (scripts/chaos.ts) for
 * minutes, and by test/server/chaos.test.ts for seconds in CI.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, terminateBackends, type PostgresCluster } from '../helpers/postgres.js';
import { ensureBuilt, killAll, NO_DEMO_ENV, signal, startServer, type Running } from './process.js';

const DEMO = { 'x-auth-email': 'demo@example.com', 'x-auth-key': 'rulekit-demo-key' };
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';

export interface ChaosOptions {
  /** How long the load and the faults last. */
  seconds: number;
  /** Writers per server (default 2). */
  writersPerServer?: number;
  /** Where progress lines go (one every few seconds). */
  say?: (line: string) => void;
  /** Random seed (the faults' order and timing). */
  seed?: number;
  /** Take the faults in turn instead of at random (every kind within a short run), servers in turn too. */
  inTurn?: boolean;
}

export interface ChaosReport {
  seconds: number;
  writesSent: number;
  /** Answered 200. */
  acknowledged: number;
  /** Acknowledged writes missing from their ruleset's history afterwards. */
  lost: string[];
  /** Answered 503 server-unavailable ("nothing was written") but found in the history. */
  falseNothingWritten: string[];
  /** Answered 503 server-write-outcome-unknown (either is right). */
  outcomeUnknown: number;
  /** Answered 503 server-unavailable. */
  unavailable: number;
  /** No answer: the connection was refused or cut (a server being restarted). */
  unanswered: number;
  /** Answers other than 200 and those 503s. */
  otherAnswers: string[];
  /** Server processes that exited without being signalled. */
  unexpectedExits: string[];
  /** SIGTERMs after which the process did not exit 0 within 10 s. */
  badShutdowns: string[];
  faults: Record<string, number>;
}

/** A small deterministic generator (mulberry32), so a run can be repeated with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Server {
  name: string;
  args: string[];
  running: Running | undefined;
  /** Set while this run signals it, so its exit is not counted as unexpected. */
  signalled: boolean;
  rulesets: string[];
}

interface Sent {
  server: string;
  ruleset: string;
  marker: string;
  outcome: 'ok' | 'unavailable' | 'unknown' | 'unanswered' | 'other';
}

const body = (marker: string) => ({ description: marker, rules: [{ action: 'block', expression: `tcp.dstport == ${1 + (marker.length * 7919) % 65535}`, description: marker }] });


/** Run the chaos; the servers and the cluster are stopped and removed at the end. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const say = options.say ?? (() => {});
  const rand = random(options.seed ?? 1);
  await ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-chaos-'));
  // Durable: a crash of a cluster without synchronous commit loses acknowledged commits by design.
  const cluster: PostgresCluster = await startPostgres({ durable: true });
  const report: ChaosReport = {
    seconds: options.seconds, writesSent: 0, acknowledged: 0, lost: [], falseNothingWritten: [], outcomeUnknown: 0, unavailable: 0,
    unanswered: 0, otherAnswers: [], unexpectedExits: [], badShutdowns: [], faults: {},
  };
  const fault = (name: string) => (report.faults[name] = (report.faults[name] ?? 0) + 1);
  try {
    const url = await cluster.createDatabase();
    const servers: Server[] = [
      { name: 'pg-a', args: ['--database-url', url, '--log-level', 'silent', '--db-wait', '60'], running: undefined, signalled: false, rulesets: [] },
      { name: 'pg-b', args: ['--database-url', url, '--log-level', 'silent', '--db-wait', '60'], running: undefined, signalled: false, rulesets: [] },
      { name: 'sqlite', args: ['--data', join(dir, 'sqlite'), '--log-level', 'silent'], running: undefined, signalled: false, rulesets: [] },
    ];
    const watch = (s: Server, r: Running) => {
      void r.exited.then(({ code, signal: sig }) => {
        if (!s.signalled) report.unexpectedExits.push(`${s.name} exited ${code ?? sig}: ${r.stderr().trim().split('\n').slice(-3).join(' | ')}`);
      });
    };
    const boot = async (s: Server) => {
      s.signalled = false;
      s.running = await startServer(s.args, NO_DEMO_ENV, 90_000);
      watch(s, s.running);
    };
    for (const s of servers) await boot(s);

    // One ruleset per writer; the two PostgreSQL replicas share theirs (each writer writes through both).
    const writers = options.writersPerServer ?? 2;
    for (const s of servers) {
      for (let w = 0; w < writers; w++) {
        const r = await fetch(`${s.running!.url}/accounts/${ACCOUNT}/rulesets`, {
          method: 'POST', headers: { ...DEMO, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `chaos ${s.name} ${w}`, kind: 'custom', phase: 'network_transit', rules: [] }),
        });
        if (r.status !== 200) throw new Error(`creating a ruleset on ${s.name}: ${r.status} ${await r.text()}`);
        s.rulesets.push(((await r.json()) as { result: { id: string } }).result.id);
      }
    }

    const sent: Sent[] = [];
    let writing = true;
    let seq = 0;
    const writer = async (home: Server, ruleset: string, via: Server[]) => {
      for (let i = 0; writing; i++) {
        const s = via[i % via.length]!;
        const target = s.running;
        if (!target || target.child.exitCode !== null || target.child.signalCode !== null) {
          await sleep(50);
          continue;
        }
        const marker = `m${++seq}-${home.name}`;
        const record: Sent = { server: s.name, ruleset, marker, outcome: 'unanswered' };
        sent.push(record);
        try {
          const r = await fetch(`${target.url}/accounts/${ACCOUNT}/rulesets/${ruleset}`, {
            method: 'PUT', headers: { ...DEMO, 'content-type': 'application/json' }, body: JSON.stringify(body(marker)), signal: AbortSignal.timeout(15_000),
          });
          const text = await r.text();
          const code = r.status === 200 ? '' : ((JSON.parse(text) as { errors?: { meta?: { code?: string } }[] }).errors?.[0]?.meta?.code ?? '');
          if (r.status === 200) record.outcome = 'ok';
          else if (r.status === 503 && code === 'server-unavailable') record.outcome = 'unavailable';
          else if (r.status === 503 && code === 'server-write-outcome-unknown') record.outcome = 'unknown';
          else {
            record.outcome = 'other';
            report.otherAnswers.push(`${s.name} ${r.status} ${code}`);
          }
          if (r.status === 503) await sleep(100);
        } catch {
          await sleep(50);
        }
      }
    };
    const [a, b, lite] = servers as [Server, Server, Server];
    const load = [
      ...a.rulesets.map((id) => writer(a, id, [a, b])),
      ...b.rulesets.map((id) => writer(b, id, [b, a])),
      ...lite.rulesets.map((id) => writer(lite, id, [lite])),
    ];

    let kills = 2;
    let stops = 0;
    const faults: (() => Promise<void>)[] = [
      async () => {
        fault('backends terminated');
        await terminateBackends(cluster.url).catch(() => 0);
      },
      async () => {
        fault('PostgreSQL crashed and restarted');
        await cluster.crash();
        await sleep(300 + rand() * 1500);
        await cluster.start();
      },
      async () => {
        const s = servers[options.inTurn ? kills++ % servers.length : Math.floor(rand() * servers.length)]!;
        fault(`SIGKILL ${s.name}`);
        s.signalled = true;
        signal(s.running!.child, 'SIGKILL');
        await s.running!.exited;
        await sleep(rand() * 500);
        await boot(s);
      },
      async () => {
        const s = servers[options.inTurn ? stops++ % servers.length : Math.floor(rand() * servers.length)]!;
        fault(`SIGTERM ${s.name}`);
        s.signalled = true;
        const signalledAt = Date.now();
        signal(s.running!.child, 'SIGTERM');
        const exit = await Promise.race([s.running!.exited, sleep(10_000).then(() => undefined)]);
        if (!exit || exit.code !== 0) {
          report.badShutdowns.push(`${s.name}: ${exit ? `exit ${exit.code ?? exit.signal}` : 'still running 10 s after SIGTERM'} (${Date.now() - signalledAt} ms)`);
          signal(s.running!.child, 'SIGKILL');
          await s.running!.exited;
        }
        await boot(s);
      },
    ];
    const started = Date.now();
    let lastSay = started;
    for (let turn = 0; Date.now() - started < options.seconds * 1000; turn++) {
      await sleep(500 + rand() * 2000);
      await faults[options.inTurn ? turn % faults.length : Math.floor(rand() * faults.length)]!();
      if (Date.now() - lastSay > 5000) {
        lastSay = Date.now();
        say(`${((Date.now() - started) / 1000).toFixed(0)} s: ${sent.length} writes sent, ${sent.filter((x) => x.outcome === 'ok').length} acknowledged; faults ${JSON.stringify(report.faults)}`);
      }
    }
    // The database and every server are up again before the load stops and the histories are read.
    writing = false;
    await Promise.all(load);
    for (const s of servers) if (!s.running || s.running.child.exitCode !== null || s.running.child.signalCode !== null) await boot(s);

    // The histories, read through each ruleset's own server (SQLite's are on the SQLite server alone).
    const history = new Map<string, Set<string>>();
    for (const s of [a, lite]) {
      const ids = s === a ? [...a.rulesets, ...b.rulesets] : lite.rulesets;
      for (const id of ids) {
        let versions: { description: string }[] | undefined;
        for (let attempt = 0; attempt < 40 && !versions; attempt++) {
          const r = await fetch(`${s.running!.url}/accounts/${ACCOUNT}/rulesets/${id}/versions`, { headers: DEMO }).catch(() => undefined);
          if (r?.status === 200) versions = ((await r.json()) as { result: { description: string }[] }).result;
          else await sleep(250);
        }
        if (!versions) throw new Error(`the history of ${id} could not be read from ${s.name}`);
        history.set(id, new Set(versions.map((v) => v.description)));
      }
    }
    report.writesSent = sent.length;
    for (const x of sent) {
      const written = history.get(x.ruleset)!.has(x.marker);
      if (x.outcome === 'ok') {
        report.acknowledged++;
        if (!written) report.lost.push(`${x.marker} via ${x.server}`);
      } else if (x.outcome === 'unavailable') {
        report.unavailable++;
        if (written) report.falseNothingWritten.push(`${x.marker} via ${x.server}`);
      } else if (x.outcome === 'unknown') report.outcomeUnknown++;
      else if (x.outcome === 'unanswered') report.unanswered++;
    }
    for (const s of servers) s.signalled = true;
    return report;
  } finally {
    await killAll();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
