/** A bounded slice of `npm run fuzz` in the suite: a few thousand generated bad inputs over every entry point. */
import { describe, expect, it } from 'vitest';
import { runFuzz } from './targets.js';

describe('fuzz (bounded slice)', () => {
  it('every public entry point and CLI command: diagnostics or success, no throw, no hang', async () => {
    const stats = await runFuzz(Number(process.env['FUZZ_SLICE'] ?? 4000), { seed: 20261123, spawns: 4 });
    console.log(`fuzz slice: ${stats.cases} cases, ${stats.spawned} spawned, slowest ${stats.maxMs.toFixed(1)} ms (${stats.slowest})`);
    expect(stats.cases).toBeGreaterThanOrEqual(4000);
  });
});
