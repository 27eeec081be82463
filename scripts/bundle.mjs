/**
 * The shipped build: one ES module per public entry point (and the CLI, and the simulation worker), with
 * the shared code in common chunks so that a class is the same class whichever entry a program imports
 * it from. Bundling is what keeps start-up short: Node then loads a handful of files instead of the
 * hundreds of modules of the sources and of Chevrotain, which took ~0.3 s to link and evaluate.
 * The CLI's own dependencies (commander, cli-progress: CommonJS that require Node built-ins) stay
 * external and load from node_modules as usual. Run after `tsc`, which emits the type declarations.
 */
import { build } from 'esbuild';

await build({
  entryPoints: {
    index: 'src/index.ts',
    logpush: 'src/logpush/index.ts',
    capture: 'src/capture/index.ts',
    node: 'src/simulation/index.ts',
    cli: 'src/cli/main.ts',
    worker: 'src/simulation/worker.ts',
  },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  mainFields: ['module', 'main'],
  conditions: ['import', 'module', 'default'],
  external: ['node:*', 'commander', 'cli-progress', 'mmdb-lib'],
  chunkNames: '[name]-[hash]',
  sourcemap: true,
  logLevel: 'warning',
});
