/**
 * The shipped build. Bundling is what keeps start-up short: Node then loads a handful of files instead of
 * the hundreds of modules of the sources and of Chevrotain, which took ~0.3 s to link and evaluate.
 * - The library: one ES module per public entry point (and the simulation worker), the shared code in
 *   common chunks, so that a class is the same class whichever entry a program imports it from.
 * - The CLI: one file with its dependencies inside. commander and cli-progress are CommonJS that
 *   require() Node built-ins, so this bundle gets a `require` from createRequire; bundled, they are not
 *   scanned by Node's CommonJS export lexer at every start (~15 ms for commander).
 * - Deferred modules: a module that `require()`s another is bundled with that one wrapped in a function
 *   esbuild calls on the first require, so a dependency needed only by some calls is not evaluated at
 *   import. src/expression/deferred.ts and src/net/deferred.ts are such modules (their sources import
 *   plainly; see there).
 * Run after `tsc`, which emits the type declarations.
 */
import { dirname } from 'node:path';
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

/** What the server imports from node_modules at run time. */
const SERVER_PACKAGES = ['fastify', 'fastify-plugin', '@fastify/swagger', 'better-sqlite3', 'pg', '@duckdb/node-api', 'chdb', '@clickhouse/client'];

/** Modules replaced in the bundle by getters that require() what the source imports (see above). */
const DEFERRED = {
  'src/expression/deferred.ts': [
    "export function regexEngine() { return require('re2js').RE2JS; }",
    "export function grammarParser() { return require('./parser.ts'); }",
  ].join('\n'),
  'src/net/deferred.ts': "export function ipaddrLib() { return require('ipaddr.js'); }",
};

/** The esbuild plugin that swaps in the DEFERRED modules. @type {import('esbuild').Plugin} */
const deferred = {
  name: 'deferred',
  setup(b) {
    const paths = Object.keys(DEFERRED).map((p) => new URL(`../${p}`, import.meta.url).pathname);
    b.onLoad({ filter: /deferred\.ts$/ }, (args) => {
      const i = paths.indexOf(args.path);
      if (i < 0) return undefined;
      return { contents: Object.values(DEFERRED)[i], loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  sourcemap: true,
  // The maps name each line's source file and line (stack traces under --enable-source-maps, bug reports)
  // without carrying the sources themselves: with them the maps were 14.9 of the package's 20.9 MB.
  // A debugger wants the sources: it finds them in a clone of the repository, beside dist/.
  sourcesContent: false,
  // Node parses every byte of a module before running it (most of an import's cost here): minified, the
  // library's code is about half the bytes. The source maps keep stack traces readable.
  minify: true,
  logLevel: 'warning',
  plugins: [deferred],
};

// Chunk names carry content hashes: without a clean directory, every build would leave the old ones behind.
rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });

await build({
  ...common,
  entryPoints: {
    index: 'src/index.ts',
    logpush: 'src/logpush/index.ts',
    capture: 'src/capture/index.ts',
    http: 'src/http/index.ts',
    language: 'src/language/index.ts',
    node: 'src/simulation/index.ts',
    worker: 'src/simulation/worker.ts',
    server: 'src/server/index.ts',
  },
  outdir: 'dist/bundle',
  splitting: true,
  platform: 'neutral',
  mainFields: ['module', 'main'],
  conditions: ['import', 'module', 'default'],
  // mmdb-lib is CommonJS, loaded by import() only when a .mmdb table is read. The server's packages stay
  // packages: better-sqlite3 is a native addon, and fastify and pg are loaded only by the server entry.
  external: ['node:*', 'mmdb-lib', ...SERVER_PACKAGES],
  chunkNames: '[name]-[hash]',
});

await build({
  ...common,
  // The language server's full-check and diff-lens threads are modules of their own beside the CLI's chunks
  // (src/lsp/full-check.ts, src/lsp/diff-client.ts).
  entryPoints: { cli: 'src/cli/main.ts', 'lsp-worker': 'src/lsp/worker.ts', 'lsp-diff-worker': 'src/lsp/diff-worker.ts' },
  outdir: 'dist/bundle',
  platform: 'node',
  // `rulekit serve` is a chunk of its own, imported only by that command: the other commands never load
  // fastify or a database driver.
  splitting: true,
  chunkNames: 'cli-[name]-[hash]',
  // @cdktf/hcl2json loads its WebAssembly from its own directory at run time (and only for `rulekit lint`
  // of a .tf file): it stays a package.
  external: ['mmdb-lib', '@cdktf/hcl2json', ...SERVER_PACKAGES],
  // jsonc-parser's "main" is a UMD build whose require()s esbuild cannot follow: take the ES modules.
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire as __rulekitRequire } from 'node:module'; const require = __rulekitRequire(import.meta.url);" },
});
