/**
 * fast-check as the tests see it under Stryker (vitest.stryker.config.ts aliases `fast-check` here):
 * the same library with `fc.assert` running a fraction of each property's runs. A mutant that a property
 * catches is almost always caught in the first few dozen runs; running 20,000 per mutant made one folder
 * take hours on two cores. `npm test` uses fast-check unchanged.
 */
// The real module, by file path: the alias only replaces the bare name `fast-check`.
import * as real from '../../node_modules/fast-check/lib/fast-check.js';

/** Fraction of each property's runs (at least MIN_RUNS). */
const SCALE = Number(process.env.RULEKIT_MUTATION_FC_SCALE ?? '0.05');
const MIN_RUNS = 50;

export * from '../../node_modules/fast-check/lib/fast-check.js';

export const assert: typeof real.assert = ((property: never, params?: { numRuns?: number }) => {
  const numRuns = Math.max(MIN_RUNS, Math.ceil((params?.numRuns ?? 100) * SCALE));
  return real.assert(property, { ...params, numRuns: Math.min(numRuns, params?.numRuns ?? 100) } as never);
}) as never;

export default { ...real, assert };
