// @ts-check
/**
 * Mutation testing (StrykerJS): `npm run mutate`. Not run in CI: a full run takes hours on two cores.
 * One folder: `npm run mutate -- --mutate 'src/net/**\/*.ts'`. Incremental: the second run tests only
 * the mutants whose code or covering tests changed (state in reports/, not committed).
 * Survivors judged equivalent are listed, each with its reason, in test/mutation/equivalent-mutants.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  // A config that leaves out the tests that cannot kill a mutant here (see the file's comment).
  vitest: { configFile: 'vitest.stryker.config.ts' },
  coverageAnalysis: 'perTest',
  // Static mutants (in code run when a module loads: lookup tables, constants) can only be tested by
  // running the whole suite for each of them; on two cores that is hours per folder. They are left out of
  // the score (reported as ignored); the tables they build are pinned by the tests that read them.
  ignoreStatic: true,
  checkers: [],
  mutate: [
    'src/expression/**/*.ts',
    'src/logpush/**/*.ts',
    'src/net/**/*.ts',
    'src/ruleset/**/*.ts',
    'src/engine/**/*.ts',
    'src/capture/**/*.ts',
    'src/analysis/**/*.ts',
    'src/sql/**/*.ts',
    'src/language/**/*.ts',
    // Code tables are documentation strings keyed by code; mutating the prose tells nothing (the keys and
    // severities are pinned by test/meta/codes.test.ts and test/logpush/codes.test.ts).
    '!src/**/codes.ts',
  ],
  ignorePatterns: ['dist', 'docs/api', 'reports', 'bench/.cache', 'scratch'],
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['html', 'clear-text', 'progress', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The machine has two cores shared with other work.
  concurrency: 2,
  timeoutMS: 60_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85, break: null },
};
