// @ts-check
/**
 * Quick mutation run of one folder against that folder's own tests only:
 *   RULEKIT_MUTATE_FOLDER=net npm run mutate:folder
 * mutates src/net/** and runs only test/net/** per mutant. Every mutant this run kills, the full run
 * (`npm run mutate`, every test) kills too, so the score it prints is a lower bound of the full run's
 * score for that folder, reached in a fraction of the time (src/net: minutes instead of an hour on two
 * cores). Survivors here may be killed by another folder's tests; check them against the full run before
 * calling one a gap. Its own incremental file and report, so it never mixes with the full run's.
 */
import base from './stryker.config.mjs';

const folder = process.env.RULEKIT_MUTATE_FOLDER;
if (!folder || !/^[a-z-]+$/.test(folder)) throw new Error('set RULEKIT_MUTATE_FOLDER to a folder of src/ (net, logpush, expression, ruleset, capture)');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: [`src/${folder}/**/*.ts`, '!src/**/codes.ts'],
  // vitest.stryker.config.ts reads RULEKIT_MUTATE_FOLDER too and includes only test/<folder>/.
  incrementalFile: `reports/folder/${folder}/stryker-incremental.json`,
  htmlReporter: { fileName: `reports/folder/${folder}/index.html` },
  jsonReporter: { fileName: `reports/folder/${folder}/mutation.json` },
  concurrency: 1,
  // One folder's tests run in seconds, so a mutant still running after this is a hang (counted as
  // detected, as in the full run), not a slow test.
  timeoutMS: 15_000,
};
