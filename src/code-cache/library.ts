/**
 * The loader of the library's Node entry points (dist/bundle/load-library.js). The code of every Node
 * entry point ('.', './logpush', './capture', './http', './language', './node', './server' and the
 * simulation's worker) is one CommonJS script (dist/bundle/library.cjs), run once a process with V8's code
 * cache (./run-script.ts); each entry point is a small ES module that re-exports its part of it
 * (scripts/bundle.mjs writes them). One script, run once, is what keeps a class the same class whichever
 * entry point a program imports it from: an `IpSet` of `rulekit/capture` is an `IpSet` of `rulekit`.
 *
 * Why: Node 20 keeps no compiled code of ES modules between runs, and compiling the library's ES chunks
 * was most of `import('rulekit')` (docs/performance.md, "Start-up").
 * @module
 */
import { createRequire } from 'node:module';
import { runCachedScript } from './run-script.js';

/** The library's script beside this file and the hash of its content: set by scripts/bundle.mjs. */
declare const LIBRARY_SCRIPT: { file: string; hash: string };

/** What the script exports: an entry point's module namespace (as a plain object), by the entry's name. */
type Library = (entry: string) => Record<string, unknown>;

const nodeRequire = createRequire(import.meta.url);
const path = nodeRequire('node:path') as typeof import('node:path');
const here = path.dirname((nodeRequire('node:url') as typeof import('node:url')).fileURLToPath(import.meta.url));

let library: Library | undefined;

/**
 * The exports of the entry point `name`: the script runs on the first call of the process (with the
 * cache named for that entry point, which holds what that kind of program compiles), then each entry's
 * modules are evaluated on its first call.
 */
export function libraryEntry(name: string): Record<string, unknown> {
  if (library) return library(name);
  // The simulation's worker threads are terminated by their pool, with no exit event: their cache is written
  // once the worker's modules are loaded.
  const run = runCachedScript<Library>({
    file: path.join(here, LIBRARY_SCRIPT.file),
    hash: LIBRARY_SCRIPT.hash,
    kind: 'lib',
    key: name,
    current: [LIBRARY_SCRIPT.hash],
    write: name === 'worker' ? 'by-caller' : 'at-exit',
  });
  library = run.exports;
  const entry = library(name);
  run.writeCache?.();
  return entry;
}
