/**
 * fast-check as the tests see it under Stryker (vitest.stryker.config.ts aliases `fast-check` here):
 * the same library with `fc.assert` running a fraction of the longest properties' runs. A mutant that a
 * property catches is almost always caught in its first runs; running 20,000 per mutant made one folder
 * take hours on two cores. `npm test` uses fast-check unchanged.
 */
// The real module, by file path: the alias only replaces the bare name `fast-check`.
import * as real from '../../node_modules/fast-check/lib/fast-check.js';

/**
 * Properties of more than MIN_RUNS runs keep a fraction of them, never fewer than MIN_RUNS: some tests
 * assert that their generator covered every case (a field, a flag), which needs a couple of thousand runs.
 * `npm run mutate:folder` lowers it (stryker.folder.config.mjs): one folder's tests have no such
 * assertion, and a surviving mutant runs every property that covers it to the end.
 */
const SCALE = Number(process.env.RULEKIT_MUTATION_FC_SCALE ?? '0.05');
const MIN_RUNS = Number(process.env.RULEKIT_MUTATION_FC_MIN_RUNS ?? '2000');

export * from '../../node_modules/fast-check/lib/fast-check.js';

export const assert: typeof real.assert = ((property: never, params?: { numRuns?: number }) => {
  const asked = params?.numRuns ?? 100;
  const numRuns = Math.min(asked, Math.max(MIN_RUNS, Math.ceil(asked * SCALE)));
  return real.assert(property, { ...params, numRuns } as never);
}) as never;

const scaled: typeof real = { ...real, assert };
export default scaled;
