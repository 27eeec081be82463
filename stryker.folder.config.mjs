// @ts-check
/**
 * Quick mutation run of one folder against that folder's own tests only:
 *   RULEKIT_MUTATE_FOLDER=net npm run mutate:folder
 * mutates src/net/** and runs only test/net/** per mutant. Every mutant this run kills, the full run
 * (`npm run mutate`, every test) kills too, so the score it prints is a lower bound of the full run's
 * score for that folder, reached in a fraction of the time. Survivors here may be killed by another
 * folder's tests; check them against the full run before calling one a gap.
 *
 * RULEKIT_MUTATE_FILE=ip-set.ts mutates one file of the folder (its own report and incremental file under
 * reports/folder/<folder>/<file>/), so that a folder can be measured a file at a time on a busy machine
 * and the counts added up.
 *
 * RULEKIT_MUTATE_SAMPLE=3 mutates a fixed sample of the folder (or file): in each file, the lines of every
 * third block of 10 (lines 1–10, 31–40, …), chosen by position only, so that a folder too large for the
 * time at hand is measured on about a third of its mutants, the same third before and after a change
 * (report and incremental file under reports/folder/<folder>/sample-3/). Scores of a sample say so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import base from './stryker.config.mjs';

const folder = process.env.RULEKIT_MUTATE_FOLDER;
if (!folder || !/^[a-z-]+$/.test(folder)) throw new Error('set RULEKIT_MUTATE_FOLDER to a folder of src/ (net, logpush, expression, ruleset, engine, capture)');
const file = process.env.RULEKIT_MUTATE_FILE;
if (file !== undefined && !/^[a-z0-9/-]+\.ts$/.test(file)) throw new Error('RULEKIT_MUTATE_FILE is a .ts file of the folder (ip-set.ts, datasets/http.ts)');
const sample = process.env.RULEKIT_MUTATE_SAMPLE;
if (sample !== undefined && !/^[1-9]$/.test(sample)) throw new Error('RULEKIT_MUTATE_SAMPLE is the number of 10-line blocks of which one is mutated (1–9)');
const out = `reports/folder/${folder}${file ? `/${file.replace(/\.ts$/, '')}` : ''}${sample ? `/sample-${sample}` : ''}`;

const SAMPLE_BLOCK = 10;
/** The `mutate` patterns: the folder or file, as line ranges of the sample when one is asked for. */
function mutatePatterns() {
  const whole = file ? [`src/${folder}/${file}`] : [`src/${folder}/**/*.ts`, '!src/**/codes.ts'];
  if (!sample) return whole;
  const files = file
    ? [`src/${folder}/${file}`]
    : readdirSync(`src/${folder}`, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts') && !f.endsWith('codes.ts'))
        .map((f) => join('src', /** @type {string} */ (folder), f).replaceAll('\\', '/'))
        .sort();
  return files.flatMap((f) => {
    const lines = readFileSync(f, 'utf8').split('\n').length;
    const ranges = [];
    for (let start = 1; start <= lines; start += SAMPLE_BLOCK * Number(sample)) ranges.push(`${f}:${start}-${Math.min(lines, start + SAMPLE_BLOCK - 1)}`);
    return ranges;
  });
}

// Fewer property runs per mutant (test/mutation/fast-check-scaled.ts): a survivor runs every property
// that covers it to the end, which made survivors cost half a minute each. Fewer runs can only kill
// fewer mutants, so the score stays a lower bound; the initial run still has to pass with them.
process.env.RULEKIT_MUTATION_FC_MIN_RUNS ??= '300';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: mutatePatterns(),
  // vitest.stryker.config.ts reads RULEKIT_MUTATE_FOLDER too and includes only test/<folder>/.
  incrementalFile: `${out}/stryker-incremental.json`,
  // The event recorder writes each mutant's result as it comes (events/NNNNN-onMutantTested.json), so
  // that a run stopped part-way still says which mutants survived (scripts/mutation-survivors.mjs).
  reporters: [...(base.reporters ?? []), 'event-recorder'],
  eventReporter: { baseDir: `${out}/events` },
  htmlReporter: { fileName: `${out}/index.html` },
  jsonReporter: { fileName: `${out}/mutation.json` },
  concurrency: 1,
  // One folder's tests run in seconds, so a mutant still running after this is a hang (counted as
  // detected, as in the full run), not a slow test.
  timeoutMS: 15_000,
};
