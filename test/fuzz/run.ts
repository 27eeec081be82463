/**
 * `npm run fuzz`: every public entry point and CLI command with generated bad input (see targets.ts).
 * FUZZ_RUNS sets the number of in-process cases (default 1,000,000), FUZZ_SPAWNS the runs of the built
 * binary (default 50; `npm run build` first), FUZZ_SEED the seed. Prints the cases run and the time.
 */
import { runFuzz } from './targets.js';

const runs = Number(process.env['FUZZ_RUNS'] ?? 1_000_000);
const spawns = Number(process.env['FUZZ_SPAWNS'] ?? 50);
const seed = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);
const started = performance.now();
try {
  const stats = await runFuzz(runs, { seed, spawns, log: (s) => console.log(s) });
  const s = (performance.now() - started) / 1000;
  console.log(`fuzz: ${stats.cases.toLocaleString('en')} cases (${stats.spawned} spawned CLI runs) in ${s.toFixed(1)} s; slowest call ${stats.maxMs.toFixed(1)} ms (${stats.slowest}); no throw, no hang, every exit code 0/1/2`);
} catch (e) {
  // The counterexample can be megabytes (a 1 MB string): show its start, then the broken contract.
  console.error(e instanceof Error ? `${e.message.slice(0, 2000)}\n${(e.cause as Error | undefined)?.stack?.slice(0, 2000) ?? ''}` : e);
  process.exitCode = 1;
}
