/**
 * Durability: the server runs as a child process on a SQLite data directory; writers create rulesets and
 * Logpush jobs and PUT them continuously; the server is killed with SIGKILL mid-stream, restarted on the
 * same directory, and every write it acknowledged (200) must be there with the acknowledged content,
 * while the one write per writer that was in flight may be there whole or not at all — never in part.
 * Three kill/restart cycles on one directory; each checks everything acknowledged in earlier cycles too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killAll, rules, startServer, writeUsers, type Running } from './process.js';

const EMAIL = 'durable@example.test';
const KEY = 'durable-key-0123456789';
const WRITERS = 4;
const CYCLES = 3;
const ACCOUNTS_PER_WRITER = 150;
const HEADERS = { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' };

const account = (c: number, w: number, k: number) => `acc-c${c}-w${w}-${k}`;
const zone = (c: number, w: number) => `zone-c${c}-w${w}`;

/** The body of a ruleset at `tag` in version v: its rules and name depend on both, so a mix-up shows. */
function rulesetBody(tag: string, v: number) {
  const n = [...tag].reduce((a, ch) => a + ch.charCodeAt(0), 0);
  return { name: `rs ${tag} v${v}`, rules: rules(2 + (v % 5), n * 100 + v) };
}

interface RulesetRecord {
  owner: string;
  tag: string;
  id: string;
  version: number;
  result: Record<string, unknown>;
}
interface JobRecord {
  zone: string;
  id: number;
  result: Record<string, unknown>;
}
type Pending =
  | { op: 'create-ruleset'; owner: string; tag: string }
  | { op: 'put-ruleset'; record: RulesetRecord }
  | { op: 'create-job'; zone: string; name: string }
  | { op: 'put-job'; record: JobRecord; name: string };

const rulesetsAcked = new Map<string, RulesetRecord>(); // by owner account
const jobsAcked = new Map<number | string, JobRecord>(); // by `${zone}/${id}`
const pendings: Pending[] = [];
const zonesUsed = new Set<string>();
const accountsUsed = new Set<string>();

let dir: string;
let usersFile: string;
let server: Running | undefined;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: { result: unknown; success: boolean } }> {
  const res = await fetch(server!.url + path, { method, headers: HEADERS, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) };
}

/** One writer: sequential writes on its own accounts and zone until `stop()`; at most one in flight. */
async function writer(c: number, w: number, stop: () => boolean, counts: { acked: number; failed: number }): Promise<void> {
  let k = 0;
  let jobN = 0;
  const mine: RulesetRecord[] = [];
  const myJobs: JobRecord[] = [];
  const z = zone(c, w);
  zonesUsed.add(z);
  let seed = c * 7919 + w * 104729 + 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  while (!stop()) {
    const r = rand();
    let pending: Pending;
    let req: { method: string; path: string; body: unknown };
    if ((mine.length === 0 || r < 0.25) && k < ACCOUNTS_PER_WRITER) {
      const owner = account(c, w, k++);
      accountsUsed.add(owner);
      pending = { op: 'create-ruleset', owner, tag: owner };
      req = { method: 'POST', path: `/accounts/${owner}/rulesets`, body: { ...rulesetBody(owner, 1), kind: 'root', phase: 'network_transit' } };
    } else if (mine.length > 0 && r < 0.6) {
      const record = mine[Math.floor(rand() * mine.length)]!;
      pending = { op: 'put-ruleset', record };
      req = { method: 'PUT', path: `/accounts/${record.owner}/rulesets/${record.id}`, body: rulesetBody(record.tag, record.version + 1) };
    } else if (myJobs.length === 0 || r < 0.8) {
      const name = `j-c${c}-w${w}-${jobN++}`;
      pending = { op: 'create-job', zone: z, name };
      req = { method: 'POST', path: `/zones/${z}/logpush/jobs`, body: { name, dataset: 'http_requests', destination_conf: `https://logs.example.com/${name}/{DATE}`, logpull_options: 'fields=ClientIP,RayID&timestamps=rfc3339' } };
    } else {
      const record = myJobs[Math.floor(rand() * myJobs.length)]!;
      const name = `${String(record.result['name']).replace(/-u\d+$/, '')}-u${jobN++}`;
      pending = { op: 'put-job', record, name };
      req = { method: 'PUT', path: `/zones/${z}/logpush/jobs/${record.id}`, body: { name, filter: `{"where":{"key":"ClientRequestPath","operator":"contains","value":"/${name}"}}` } };
    }
    let res: Awaited<ReturnType<typeof call>>;
    try {
      res = await call(req.method, req.path, req.body);
    } catch {
      // The server died with this request in flight: it may have been written, whole, or not at all.
      pendings.push(pending);
      counts.failed++;
      return;
    }
    expect(res.status, JSON.stringify(res.json).slice(0, 400)).toBe(200);
    counts.acked++;
    const result = res.json.result as Record<string, unknown>;
    switch (pending.op) {
      case 'create-ruleset': {
        const rec = { owner: pending.owner, tag: pending.tag, id: String(result['id']), version: 1, result };
        rulesetsAcked.set(pending.owner, rec);
        mine.push(rec);
        break;
      }
      case 'put-ruleset':
        expect(Number(result['version'])).toBe(pending.record.version + 1);
        pending.record.version++;
        pending.record.result = result;
        break;
      case 'create-job': {
        const rec = { zone: pending.zone, id: Number(result['id']), result };
        jobsAcked.set(`${pending.zone}/${rec.id}`, rec);
        myJobs.push(rec);
        break;
      }
      case 'put-job':
        expect(result['name']).toBe(pending.name);
        pending.record.result = result;
        break;
    }
  }
}

/** Expected content of a ruleset in version v: name, and each rule's action, expression, description. */
function expectContent(r: Record<string, unknown>, tag: string, v: number): void {
  const body = rulesetBody(tag, v);
  expect(r['version']).toBe(String(v));
  expect(r['name']).toBe(body.name);
  const got = (r['rules'] as Record<string, unknown>[]).map((x) => ({ action: x['action'], expression: x['expression'], description: x['description'] }));
  expect(got).toEqual(body.rules);
  const ids = (r['rules'] as { id: string }[]).map((x) => x.id);
  expect(new Set(ids).size).toBe(ids.length);
}

/** Check the restarted server against what was acknowledged; fold the in-flight writes found into it. */
async function verify(): Promise<void> {
  const pendingPut = new Map<string, Pending>();
  const pendingCreate = new Map<string, Pending>();
  for (const p of pendings) {
    if (p.op === 'put-ruleset') pendingPut.set(p.record.owner, p);
    if (p.op === 'create-ruleset') pendingCreate.set(p.owner, p);
  }
  const allIds = new Set<string>();
  for (const owner of accountsUsed) {
    const list = await call('GET', `/accounts/${owner}/rulesets`);
    expect(list.status).toBe(200);
    const items = list.json.result as { id: string; version: string }[];
    const acked = rulesetsAcked.get(owner);
    if (!acked) {
      // Never acknowledged: only the in-flight create may have landed, whole.
      if (items.length === 0) continue;
      expect(pendingCreate.has(owner), `a ruleset in ${owner} that was never acknowledged nor in flight`).toBe(true);
      expect(items.length).toBe(1);
      const got = await call('GET', `/accounts/${owner}/rulesets/${items[0]!.id}`);
      expectContent(got.json.result as Record<string, unknown>, owner, 1);
      rulesetsAcked.set(owner, { owner, tag: owner, id: items[0]!.id, version: 1, result: got.json.result as Record<string, unknown> });
    } else {
      expect(items.map((x) => x.id), owner).toEqual([acked.id]);
    }
    const rec = rulesetsAcked.get(owner)!;
    expect(allIds.has(rec.id)).toBe(false);
    allIds.add(rec.id);
    const got = (await call('GET', `/accounts/${owner}/rulesets/${rec.id}`)).json.result as Record<string, unknown>;
    const v = Number(got['version']);
    if (v === rec.version) {
      expect(got, owner).toEqual(rec.result);
    } else {
      // Only the one PUT in flight may have landed on top of the acknowledged version.
      expect(v, `${owner}: stored version ${v}, acknowledged ${rec.version}`).toBe(rec.version + 1);
      expect(pendingPut.has(owner), `${owner}: version ${v} that was never acknowledged nor in flight`).toBe(true);
      rec.version = v;
      rec.result = got;
    }
    expectContent(got, rec.tag, v);
    // The history: every version from 1, each whole, the last one the current ruleset.
    const versions = (await call('GET', `/accounts/${owner}/rulesets/${rec.id}/versions`)).json.result as Record<string, unknown>[];
    expect(versions.map((x) => x['version'])).toEqual(Array.from({ length: v }, (_, i) => String(i + 1)));
    const { rules: _rules, ...summary } = got;
    expect(versions[v - 1]).toEqual(summary);
    for (const [i, x] of versions.entries()) expect(x['name']).toBe(rulesetBody(rec.tag, i + 1).name);
  }
  for (const z of zonesUsed) {
    const list = await call('GET', `/zones/${z}/logpush/jobs`);
    expect(list.status).toBe(200);
    const jobs = list.json.result as Record<string, unknown>[];
    const ids = jobs.map((j) => j['id'] as number);
    expect(new Set(ids).size, `${z}: duplicate job ids`).toBe(ids.length);
    for (const rec of [...jobsAcked.values()].filter((r) => r.zone === z)) {
      const got = jobs.find((j) => j['id'] === rec.id);
      expect(got, `${z}: acknowledged job ${rec.id} is gone`).toBeDefined();
      const put = pendings.find((p) => p.op === 'put-job' && p.record === rec) as Extract<Pending, { op: 'put-job' }> | undefined;
      if (put && got!['name'] === put.name) rec.result = got!;
      expect(got, `${z}: job ${rec.id}`).toEqual(rec.result);
    }
    for (const j of jobs) {
      if (jobsAcked.has(`${z}/${j['id']}`)) continue;
      const create = pendings.find((p) => p.op === 'create-job' && p.zone === z) as Extract<Pending, { op: 'create-job' }> | undefined;
      expect(create, `${z}: job ${j['id']} that was never acknowledged nor in flight`).toBeDefined();
      expect(j['name']).toBe(create!.name);
      expect(j['destination_conf']).toBe(`https://logs.example.com/${create!.name}/{DATE}`);
      jobsAcked.set(`${z}/${j['id']}`, { zone: z, id: j['id'] as number, result: j });
      pendings.splice(pendings.indexOf(create!), 1);
    }
  }
  pendings.length = 0;
}

describe('durability: SIGKILL mid-write, restart on the same data', () => {
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'rulekit-durable-'));
    const accounts: string[] = [];
    const zones: string[] = [];
    for (let c = 0; c < CYCLES; c++) {
      for (let w = 0; w < WRITERS; w++) {
        zones.push(zone(c, w));
        for (let k = 0; k < ACCOUNTS_PER_WRITER; k++) accounts.push(account(c, w, k));
      }
    }
    usersFile = writeUsers(dir, [{ email: EMAIL, key: KEY, accounts, zones }]);
  });

  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every acknowledged write survives, nothing half-written appears', async () => {
    const args = ['--no-demo', '--users', usersFile, '--data', join(dir, 'data'), '--log-level', 'warn'];
    let totalAcked = 0;
    let totalInFlight = 0;
    for (let c = 0; c < CYCLES; c++) {
      server = await startServer(args);
      if (c > 0) await verify();
      let stopped = false;
      const counts = { acked: 0, failed: 0 };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(c, w, () => stopped, counts));
      // Let the writers run until a fair number of writes were acknowledged (bounded in time), then kill.
      const started = Date.now();
      while (counts.acked < 150 + c * 50 && Date.now() - started < 20_000) await sleep(10);
      await sleep(Math.floor(Math.random() * 40));
      server.child.kill('SIGKILL');
      const exit = await server.exited;
      expect(exit.signal).toBe('SIGKILL');
      stopped = true;
      await Promise.all(writers);
      expect(counts.acked).toBeGreaterThan(50);
      totalAcked += counts.acked;
      totalInFlight += counts.failed;
    }
    server = await startServer(args);
    await verify();
    // The restarted server still writes: a PUT on an old ruleset moves its version by one.
    const rec = rulesetsAcked.values().next().value!;
    const put = await call('PUT', `/accounts/${rec.owner}/rulesets/${rec.id}`, rulesetBody(rec.tag, rec.version + 1));
    expect(put.status).toBe(200);
    expect(put.json.result).toMatchObject({ version: String(rec.version + 1) });
    server.child.kill('SIGKILL');
    await server.exited;
    expect(totalAcked).toBeGreaterThan(150 * CYCLES);
    // At least some writes were cut off mid-flight (the kill came while the writers were busy).
    expect(totalInFlight).toBeGreaterThan(0);
  });
});
