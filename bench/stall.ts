/**
 * How long one large body holds the server's thread: the longest the event loop went without a turn
 * while a ruleset of 200 rules × 300 addresses (~730 KB, near the 1 MiB body limit) was answered, as a
 * dry run (validation and its 50 ms of analysis), by the same server code with large bodies validated on
 * the server's thread (`validationThread: false`, the baseline) and on their own thread (the default).
 * Each body is new (a memo would otherwise answer it); 12 rounds after 3 to warm up, alternating.
 */
import { createServer, openSqliteStore } from '../dist/server/index.js';
import { printTable, ratio } from './harness.js';

const USER = { email: 'bench@example.test', key: 'bench-key-0123456789', accounts: ['a1'], zones: [] };
const H = { 'x-auth-email': USER.email, 'x-auth-key': USER.key, 'content-type': 'application/json' };
const ips = (m: number, k: number) => Array.from({ length: m }, (_, i) => `10.${k % 250}.${(i >> 8) & 255}.${i & 255}`).join(' ');
let n = 0;
const body = () => JSON.stringify({ name: 'big', kind: 'custom', phase: 'network_transit', rules: Array.from({ length: 200 }, (_, k) => ({ action: 'block', expression: `ip.src in {${ips(300, k + ++n)}} and tcp.dstport in {1..1024}` })) });

type App = Awaited<ReturnType<typeof createServer>>;
async function stall(app: App, text: string): Promise<number> {
  let last = performance.now();
  let longest = 0;
  let done = false;
  const spin = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (!done) setImmediate(spin);
  };
  setImmediate(spin);
  const r = await app.inject({ method: 'POST', url: '/client/v4/accounts/a1/rulesets?dry_run=true', headers: H, payload: text });
  done = true;
  if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${r.body.slice(0, 200)}`);
  return longest;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  const store = openSqliteStore({ path: ':memory:' });
  const inline = await createServer({ users: [USER], store, playground: false, validationThread: false });
  const threaded = await createServer({ users: [USER], store, playground: false });
  try {
    const here: number[] = [];
    const there: number[] = [];
    for (let i = 0; i < 15; i++) {
      const a = await stall(inline, body());
      const b = await stall(threaded, body());
      if (i >= 3) {
        here.push(a);
        there.push(b);
      }
    }
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    printTable('longest stall of the event loop while a 730 KB ruleset is answered (dry run)', ['validated', 'median', 'max', 'vs the server’s thread'], [
      ['on the server’s thread (baseline)', ms(median(here)), ms(Math.max(...here)), '1.00×'],
      ['on a thread of their own (default)', ms(median(there)), ms(Math.max(...there)), ratio(median(there), median(here))],
    ], [`${(body().length / 1024).toFixed(0)} KiB bodies, each new; the analysis of a dry run keeps 50 ms of the server's thread`]);
  } finally {
    await inline.close();
    await threaded.close();
    await store.close();
  }
}
