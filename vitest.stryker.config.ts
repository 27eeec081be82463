import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import base from './vitest.config.js';

/**
 * The suite Stryker runs for every mutant. It leaves out the tests that exercise no mutated folder
 * directly but cost most of the time: the CLI tests spawn node on dist/ (built from the unmutated source,
 * so they cannot kill a mutant anyway), the browser-bundle tests run esbuild, the memory test measures the
 * heap, and the Wireshark export test runs tshark per expression. `npm test` still runs all of them.
 * test/logpush/codes.test.ts reads the source as text, which Stryker has instrumented.
 * Property tests run with fewer runs here (test/mutation/fast-check-scaled.ts).
 */
/** Set by `npm run mutate:folder` (stryker.folder.config.mjs): only that folder's tests run. */
const folder = process.env.RULEKIT_MUTATE_FOLDER;

export default defineConfig({
  resolve: {
    // Property tests run a fraction of their runs per mutant (see the module's comment).
    alias: [{ find: /^fast-check$/, replacement: fileURLToPath(new URL('./test/mutation/fast-check-scaled.ts', import.meta.url)) }],
  },
  test: {
    ...base.test,
    // Tests that spawn a system tool per fixture skip themselves (test/helpers/tools.ts): the goldens they
    // check against are read by the tests beside them.
    env: { ...base.test?.env, RULEKIT_MUTATION_RUN: '1' },
    include: [folder ? `test/${folder}/**/*.test.ts` : 'test/**/*.test.ts'],
    exclude: [
      'test/cli/**',
      'test/meta/**',
      'test/export/**',
      'test/capture/browser.test.ts',
      'test/capture/memory.test.ts',
      // Reads the source files as text to find Node globals; Stryker's instrumented copies contain some.
      'test/logpush/codes.test.ts',
      // Runs the CLI commands and the built binary (like test/cli), and times every call against a bound
      // that instrumented code cannot keep.
      'test/fuzz/**',
      // Whole simulations through files, worker threads and the built worker: the in-process tests of
      // test/ruleset and test/capture cover the same code.
      'test/simulation/**',
      // The server's tests start servers (processes on dist/, PostgreSQL clusters) and time load: no
      // mutated folder is theirs. Tests that spawn the built CLI cannot kill a mutant either.
      'test/server/**',
      'test/sql/query-cli.test.ts',
      // These run `dist/bundle/cli.js` too (rulekit simulate --engine, --clickhouse-url, rulekit playground):
      // Stryker's sandbox has no dist/, so in the full run's initial test run they failed; the engine
      // paths they also reach in process are the subject of test/sql's other files.
      'test/sql/simulate-engine.test.ts',
      'test/sql/clickhouse-server.test.ts',
      'test/playground/cli.test.ts',
      'test/analysis/witness-pcap.test.ts',
      'test/lint/cli.test.ts',
      'test/ruletest/**',
      // The language server through a client and through Neovim, on the built CLI.
      'test/lsp/server.test.ts',
      'test/lsp/neovim.test.ts',
      '**/node_modules/**',
    ],
  },
});
