/**
 * A write is answered only once its commit is on disk: the server runs under strace, and in the trace the
 * thread that wrote the commit into SQLite's WAL syncs the WAL (fsync or fdatasync) after its last write
 * there and before it writes the 200 answer to the socket. The SIGKILL test (durability.test.ts) cannot
 * see this: the kernel keeps what the process wrote, synced or not; a power cut would lose an unsynced
 * commit that was already acknowledged. With `synchronous=NORMAL` (or OFF) this test fails.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { needsTool } from '../helpers/tools.js';
import { CLI, ensureBuilt, killAll, NO_DEMO_ENV, signal, start } from './process.js';

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'rulekit-fsync-order-'));
});
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

const DEMO = { 'X-Auth-Email': 'demo@example.com', 'X-Auth-Key': 'rulekit-demo-key', 'content-type': 'application/json' };
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';

/** One traced system call: its thread, its name, the file or socket of its first argument, and its text. */
interface Call {
  tid: string;
  name: string;
  target: string;
  line: string;
}

/** The calls of an `strace -f -y` trace, in the order they started (a call split by another thread's line starts where it is `<unfinished ...>`). */
function calls(trace: string): Call[] {
  const out: Call[] = [];
  for (const line of trace.split('\n')) {
    const m = /^(\d+)\s+(\w+)\(\d+<([^>]*)>/.exec(line);
    if (m) out.push({ tid: m[1]!, name: m[2]!, target: m[3]!, line });
  }
  return out;
}

needsTool('strace')('every write is answered after the thread that committed it synced the WAL', async () => {
  const data = join(dir, 'data');
  const trace = join(dir, 'trace.txt');
  const server = await start('strace', ['-f', '-y', '-s', '24', '-e', 'trace=pwrite64,write,writev,fsync,fdatasync', '-o', trace, process.execPath, CLI, 'serve', '--port', '0', '--data', data, '--log-level', 'warn'], NO_DEMO_ENV);
  let id: string;
  try {
    const created = await fetch(`${server.url}/accounts/${ACCOUNT}/rulesets`, { method: 'POST', headers: DEMO, body: JSON.stringify({ name: 'fw', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] }) });
    expect(created.status).toBe(200);
    id = ((await created.json()) as { result: { id: string } }).result.id;
    for (let v = 0; v < 3; v++) {
      const put = await fetch(`${server.url}/accounts/${ACCOUNT}/rulesets/${id}`, { method: 'PUT', headers: DEMO, body: JSON.stringify({ rules: [{ action: 'block', expression: `tcp.dstport == ${23 + v}` }] }) });
      expect(put.status).toBe(200);
    }
  } finally {
    signal(server.child, 'SIGTERM');
    await server.exited;
  }
  const all = calls(readFileSync(trace, 'utf8'));
  // The answers, in order: the create and the three PUTs (no other request was made).
  const answers = all.map((c, i) => ({ c, i })).filter(({ c }) => (c.name === 'writev' || c.name === 'write') && c.target.startsWith('socket:') && c.line.includes('HTTP/1.1 200'));
  expect(answers.length, 'four answers in the trace').toBe(4);
  for (const [n, { c: answer, i }] of answers.entries()) {
    const before = all.slice(0, i);
    const walWrite = before.map((c, k) => ({ c, k })).filter(({ c }) => c.name === 'pwrite64' && c.target.endsWith('.sqlite-wal')).at(-1);
    expect(walWrite, `answer ${n + 1}: a commit was written to the WAL before it`).toBeDefined();
    expect(walWrite!.c.tid, `answer ${n + 1}: written by the thread that commits`).toBe(answer.tid);
    const synced = before.slice(walWrite!.k + 1).some((c) => (c.name === 'fsync' || c.name === 'fdatasync') && c.target.endsWith('.sqlite-wal') && c.tid === answer.tid);
    expect(synced, `answer ${n + 1}: the WAL synced between its last write (${walWrite!.c.line.slice(0, 80)}) and the answer`).toBe(true);
  }
}, 60_000);
