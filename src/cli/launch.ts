#!/usr/bin/env node
/**
 * The `rulekit` command of the Node bundle (dist/bundle/cli.js): it runs the CLI's code, which the build
 * puts in CommonJS files beside it, through src/code-cache/ (a `vm.Script` with V8's code cache, one cache
 * per command: each holds the functions its own runs compile, a `check` cache lacks simulate's).
 * `rulekit check` of one expression went from ~2.9× to ~1.7× the instructions of `node -e 0` with it
 * (docs/performance.md, "Start-up").
 * @module
 */
import { createRequire } from 'node:module';
import { runCachedScript } from '../code-cache/index.js';

/**
 * The CLI's CommonJS files beside this one and the hashes of their contents, by the command each is for
 * ('' the file of every command): set by scripts/bundle.mjs.
 */
declare const CLI_SCRIPTS: Record<string, { file: string; hash: string }>;

// node:url through require(): an ES import of a built-in builds a module facade of all its exports.
const { fileURLToPath } = createRequire(import.meta.url)('node:url') as typeof import('node:url');
const first = process.argv[2] ?? '';
const cli = Object.hasOwn(CLI_SCRIPTS, first) && first !== '' ? CLI_SCRIPTS[first]! : CLI_SCRIPTS['']!;
const command = /^[a-z][a-z-]{0,31}$/.test(first) ? first : 'other';
const { main } = runCachedScript<{ main(): Promise<void> }>({
  file: fileURLToPath(new URL(cli.file, import.meta.url)),
  hash: cli.hash,
  kind: 'cli',
  key: command,
  current: Object.values(CLI_SCRIPTS).map((s) => s.hash),
}).exports;
await main();
