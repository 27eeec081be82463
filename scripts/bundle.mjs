/**
 * The shipped build. Bundling is what keeps start-up short: Node then loads a handful of files instead of
 * the hundreds of modules of the sources and of Chevrotain, which took ~0.3 s to link and evaluate.
 * - The library, twice: for Node (dist/bundle/, the export map's `node` condition) and portable
 *   (dist/bundle/portable/, every other runtime: browsers, bundlers, workers). Each is one ES module per
 *   public entry point (and the simulation worker), the shared code in common chunks, so that a class is
 *   the same class whichever entry a program imports it from.
 * - The CLI: its commands' modules with their dependencies inside, as CommonJS scripts (cli-main.cjs, and
 *   cli-NAME.cjs for the commands whose start-up counts) that dist/bundle/cli.js runs with V8's code cache
 *   (src/cli/launch.ts); bundled, commander and cli-progress are not scanned by Node's CommonJS export
 *   lexer at every start (~15 ms for commander). The language server's threads stay ES modules.
 * - Deferred modules: src/expression/deferred.ts and src/net/deferred.ts hold the large dependencies that
 *   only some calls need (re2js, the Chevrotain grammar, ipaddr.js) behind getters; their sources import
 *   plainly. Node parses every byte of a module file before running it, and V8 compiles a large module
 *   more than linearly slower (the expression chunk with these inside: ~40 ms; without: ~6 ms), so for
 *   Node the getters require() files of their own (dist/bundle/lazy/*.cjs, re2js from its package), read
 *   on the first call. The portable build, which has no synchronous file loading, keeps them inside,
 *   wrapped in functions esbuild evaluates on the first call.
 * Run after `tsc`, which emits the type declarations.
 */
import { createHash } from 'node:crypto';
import { basename, dirname, relative } from 'node:path';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { barrelImports } from './barrel-imports.mjs';

/** What the server imports from node_modules at run time. */
const SERVER_PACKAGES = ['fastify', 'fastify-plugin', '@fastify/swagger', 'better-sqlite3', 'pg', '@duckdb/node-api', 'chdb', '@clickhouse/client'];

/** Where a path of the checkout is. @type {(p: string) => string} */
const here = (p) => new URL(`../${p}`, import.meta.url).pathname;

/**
 * Files loaded by Node on first use, beside the chunks (dist/bundle/lazy/NAME.cjs): the code of `entry`
 * (a source file or a package) with its dependencies, but for the `host` modules, which are the calling
 * bundle's own instances handed to `load(host)` (the grammar's token types must be the lexer's).
 */
/** @type {{ name: string, entry: string, host: string[] }[]} */
const LAZY = [
  { name: 'expression-grammar', entry: 'src/expression/parser.ts', host: ['src/expression/tokens.ts', 'src/expression/diagnostics.ts'] },
  { name: 'ipaddr', entry: 'ipaddr.js', host: [] },
];

/** The LAZY file of that name. @type {(name: string) => (typeof LAZY)[number]} */
function lazyFile(name) {
  const lazy = LAZY.find((l) => l.name === name);
  if (!lazy) throw new Error(`no lazy file ${name}`);
  return lazy;
}

/** The line of a Node bundle that loads a LAZY file with its host modules (bound to `host${i}`). @type {(name: string) => string} */
function lazyLoad(name) {
  const lazy = lazyFile(name);
  const host = lazy.host.map((h, i) => `${JSON.stringify(h)}: host${i}`).join(', ');
  return `lazyRequire('./lazy/${name}.cjs').load({ ${host} })`;
}

/** The imports of a LAZY file's host modules, from a deferred module in `dir`. @type {(name: string, dir: string) => string} */
function hostImports(name, dir) {
  const lazy = lazyFile(name);
  return lazy.host.map((h, i) => `import * as host${i} from './${relative(dir, h)}';`).join('\n');
}

/** A Node deferred module's `require`: esbuild leaves a call of it alone (the file is read at run time). */
const LAZY_REQUIRE = "import { createRequire } from 'node:module';\nconst lazyRequire = createRequire(import.meta.url);";

/**
 * Modules replaced in the bundles by getters (see above): for Node, and for the portable build.
 * @type {Record<string, { node: string, portable: string }>}
 */
const DEFERRED = {
  'src/expression/deferred.ts': {
    node: [
      LAZY_REQUIRE,
      hostImports('expression-grammar', 'src/expression'),
      'let grammar;',
      "export function regexEngine() { return lazyRequire('re2js').RE2JS; }",
      `export function grammarParser() { return grammar ??= ${lazyLoad('expression-grammar')}; }`,
    ].join('\n'),
    portable: [
      "export function regexEngine() { return require('re2js').RE2JS; }",
      "export function grammarParser() { return require('./parser.ts'); }",
    ].join('\n'),
  },
  'src/net/deferred.ts': {
    node: `${LAZY_REQUIRE}\nlet ipaddr;\nexport function ipaddrLib() { return ipaddr ??= ${lazyLoad('ipaddr')}; }`,
    portable: "export function ipaddrLib() { return require('ipaddr.js'); }",
  },
};

/** The esbuild plugin that swaps in the DEFERRED modules of a `target`. @type {(target: 'node' | 'portable') => import('esbuild').Plugin} */
function deferred(target) {
  /** @type {import('esbuild').Plugin} */
  return {
    name: 'deferred',
    setup(b) {
      b.onLoad({ filter: /deferred\.ts$/ }, (args) => {
        const replaced = Object.keys(DEFERRED).find((p) => here(p) === args.path);
        if (!replaced) return undefined;
        return { contents: DEFERRED[replaced]?.[target], loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * The esbuild plugin of a LAZY file: its host modules become `host[path]`, and any other of the
 * project's modules reached from its entry fails the build (a second copy of a module is a second state).
 * @type {(lazy: (typeof LAZY)[number]) => import('esbuild').Plugin}
 */
function lazyHost(lazy) {
  return {
    name: 'lazy-host',
    setup(b) {
      b.onResolve({ filter: /^rulekit-lazy:/ }, (args) => ({ path: args.path.slice('rulekit-lazy:'.length), namespace: 'rulekit-lazy' }));
      b.onLoad({ filter: /^entry$/, namespace: 'rulekit-lazy' }, () => ({
        // `load` sets the host before requiring the entry, whose module code runs on that require.
        contents: `import { setHost } from 'rulekit-lazy:holder';\nexport function load(host) { setHost(host); return require(${JSON.stringify(lazy.entry.startsWith('src/') ? here(lazy.entry) : lazy.entry)}); }`,
        loader: 'js',
        resolveDir: here('.'),
      }));
      b.onLoad({ filter: /^holder$/, namespace: 'rulekit-lazy' }, () => ({ contents: 'export let host;\nexport function setHost(h) { host = h; }', loader: 'js' }));
      b.onLoad({ filter: /^host\//, namespace: 'rulekit-lazy' }, (args) => ({
        contents: `module.exports = require('rulekit-lazy:holder').host[${JSON.stringify(args.path.slice('host/'.length))}];`,
        loader: 'js',
        resolveDir: here('.'),
      }));
      b.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData?.lazyHost || args.namespace !== 'file') return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { lazyHost: true } });
        if (r.errors.length) return { errors: r.errors };
        const path = relative(here('.'), r.path);
        if (lazy.host.includes(path)) return { path: `host/${path}`, namespace: 'rulekit-lazy' };
        if (path.startsWith('src/') && path !== lazy.entry) {
          return { errors: [{ text: `${lazy.name}: ${path} would be copied into the lazy file; hand it in as a host module` }] };
        }
        return { path: r.path };
      });
    },
  };
}

/**
 * commander requires node:child_process at import for the subcommands it can run as programs, which
 * rulekit has none of; loading it (with net, dgram and the stream code) is ~10 ms of every command's start.
 * In the CLI's bundle commander gets it through a getter, read if it ever spawns.
 * @type {import('esbuild').Plugin}
 */
const commanderSpawnsLazily = {
  name: 'commander-spawns-lazily',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy-builtin' } : undefined);
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, () => ({
      contents: "let m;\nmodule.exports = new Proxy({}, { get: (_, k) => (m ??= require('node:child_process'))[k] });",
      loader: 'js',
    }));
  },
};

/**
 * The esbuild plugin that sends named imports of folder indexes to the defining modules
 * (scripts/barrel-imports.mjs). The DEFERRED modules are deferred()'s.
 * @type {import('esbuild').Plugin}
 */
const directImports = (() => {
  const barrel = barrelImports(here('src/'));
  return {
    name: 'direct-imports',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(here('src/')) || Object.keys(DEFERRED).some((p) => here(p) === args.path)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        const contents = barrel(args.path, source);
        return contents === source ? undefined : { contents, loader: 'ts' };
      });
    },
  };
})();

/** Node built-ins that only some commands use, and whose loading costs (zlib ~4 ms; fs/promises loads readline and the streams). */
const LAZY_BUILTINS = ['zlib', 'worker_threads', 'os', 'stream', 'stream/promises', 'fs/promises', 'readline', 'perf_hooks', 'v8', 'crypto'];

/**
 * In the CLI's CommonJS file, rulekit's imports of LAZY_BUILTINS are required on the first use of one of
 * their exports instead of when the importing module is evaluated. esbuild's import of a CommonJS module
 * copies its member names (from this proxy: the names the built-in has at build time, without loading it)
 * as getters that read the module at each use, and the proxy requires the built-in on the first read.
 * Packages' own require()s are left alone.
 * @type {import('esbuild').Plugin}
 */
const builtinsLazily = {
  name: 'builtins-lazily',
  setup(b) {
    const filter = new RegExp(`^node:(${LAZY_BUILTINS.map((n) => n.replace('/', '\\/')).join('|')})$`);
    b.onResolve({ filter }, (args) => (args.importer.startsWith(here('src/')) ? { path: args.path, namespace: 'lazy-builtin-module' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin-module' }, async (args) => {
      const names = Object.getOwnPropertyNames(await import(args.path)).filter((n) => n !== 'default');
      return {
        contents: [
          `const names = ${JSON.stringify(names)};`,
          `let m;\nconst load = () => (m ??= require(${JSON.stringify(args.path)}));`,
          'module.exports = new Proxy({}, {',
          '  get: (_, k) => load()[k],',
          '  has: (_, k) => k in load(),',
          '  ownKeys: () => (m ? Reflect.ownKeys(m) : names),',
          '  getOwnPropertyDescriptor: (_, k) => {',
          '    if (!m) return names.includes(k) ? { value: undefined, writable: true, enumerable: true, configurable: true } : undefined;',
          '    const d = Reflect.getOwnPropertyDescriptor(m, k);',
          '    return d && { ...d, configurable: true };',
          '  },',
          '});',
        ].join('\n'),
        loader: 'js',
      };
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
};

// Chunk names carry content hashes: without a clean directory, every build would leave the old ones behind.
rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });

/** The library's entry points: those that run anywhere, then the Node-only ones. */
const PORTABLE_ENTRIES = {
  index: 'src/index.ts',
  logpush: 'src/logpush/index.ts',
  capture: 'src/capture/index.ts',
  http: 'src/http/index.ts',
  language: 'src/language/index.ts',
};
const NODE_ENTRIES = { node: 'src/simulation/index.ts', worker: 'src/simulation/worker.ts', server: 'src/server/index.ts' };

/** What every library build leaves outside. */
const library = {
  ...common,
  splitting: true,
  mainFields: ['module', 'main'],
  chunkNames: '[name]-[hash]',
  // mmdb-lib is CommonJS, loaded by import() only when a .mmdb table is read. The server's packages stay
  // packages: better-sqlite3 is a native addon, and fastify and pg are loaded only by the server entry.
  external: ['node:*', 'mmdb-lib', ...SERVER_PACKAGES],
};

/**
 * How the build's CommonJS scripts are written for src/code-cache/run-script.ts, which runs them as
 * vm.Scripts with V8's code cache (scripts, not modules: Node 20 caches no compiled code of ES modules).
 * @type {import('esbuild').BuildOptions}
 */
const cachedScript = {
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // import() of a package becomes require(): a vm.Script's import() needs a loader callback, which Node 20
  // gives only behind --experimental-vm-modules or with a warning printed. The optional parts (DuckDB, chdb,
  // pg, fastify…) and mmdb-lib all have a CommonJS entry.
  supported: { 'dynamic-import': false },
  // No source maps: Node does not apply them to a vm.Script's stack traces (they would be ~1.8 MB a file).
  sourcemap: false,
  // import.meta.url: this file's URL, from the __filename the loader hands in.
  define: { 'import.meta.url': '__rulekitUrl' },
  // The file is the function Node's CommonJS loader would wrap it in, so the loader compiles it as it
  // is (no second copy of the text). It is not require()d.
  banner: { js: "(function (exports, require, module, __filename, __dirname) {\nvar __rulekitUrl = require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: '})' },
  write: false,
};

/** The content hash of a script, the key of its code caches (a cache made for other code is never offered to V8). @type {(bytes: Uint8Array) => string} */
const scriptHash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** The library's Node entry points, by the name of their file in dist/bundle/. @type {Record<string, string>} */
const LIBRARY_ENTRIES = { ...PORTABLE_ENTRIES, ...NODE_ENTRIES };

/**
 * The library's entry of library.cjs: a function of an entry point's name that evaluates that entry's
 * modules on its first call (esbuild wraps a require()d module in a function run once) and returns its
 * exports. An import('rulekit') then evaluates neither the simulation nor the server.
 * @type {import('esbuild').Plugin}
 */
const libraryEntries = {
  name: 'library-entries',
  setup(b) {
    b.onResolve({ filter: /^rulekit-library$/ }, () => ({ path: 'entry', namespace: 'rulekit-library' }));
    b.onLoad({ filter: /.*/, namespace: 'rulekit-library' }, () => ({
      contents: [
        'const entries = {',
        ...Object.entries(LIBRARY_ENTRIES).map(([name, file]) => `  ${JSON.stringify(name)}: () => require(${JSON.stringify(here(file))}),`),
        '};',
        'const loaded = {};',
        'module.exports = (name) => (loaded[name] ??= entries[name]());',
      ].join('\n'),
      loader: 'js',
      resolveDir: here('.'),
    }));
  },
};

// The library for Node (the export map's `node` condition): every Node entry point's code in one CommonJS
// script, dist/bundle/library.cjs, that dist/bundle/load-library.js (src/code-cache/library.ts) runs once a
// process with V8's code cache; each entry point (dist/bundle/NAME.js) is an ES module of a few lines that
// re-exports its part. Compiling the library's ES chunks at every import was most of `import('rulekit')`.
const libraryScript = await build({
  ...common,
  ...cachedScript,
  entryPoints: { library: 'rulekit-library' },
  outdir: 'dist/bundle',
  platform: 'node',
  mainFields: ['module', 'main'],
  // re2js is a dependency of the package: Node requires it on the first `matches` or `wildcard`.
  external: [...library.external, 're2js'],
  plugins: [libraryEntries, deferred('node'), builtinsLazily],
});
const libraryFile = (libraryScript.outputFiles ?? []).find((o) => o.path.endsWith('.cjs'));
if (!libraryFile) throw new Error('no library.cjs');
mkdirSync(dirname(libraryFile.path), { recursive: true });
writeFileSync(libraryFile.path, libraryFile.contents);
await build({
  ...common,
  entryPoints: { 'load-library': 'src/code-cache/library.ts' },
  outdir: 'dist/bundle',
  platform: 'node',
  define: { LIBRARY_SCRIPT: JSON.stringify({ file: basename(libraryFile.path), hash: scriptHash(libraryFile.contents) }) },
});

// The library for the rest (browsers, and bundlers, which follow imports rather than the file library.cjs
// that load-library.js reads at run time: esbuild, webpack, Rollup and Vite match the export map's `module`
// condition, Node does not): ES modules in which no file is loaded by require(), the deferred modules
// inside. The Node-only entry points are here too, for bundlers building for Node, in chunks of their own:
// one build of every entry point, so that a class is one class across them. Its metafile lists each entry
// point's names for the Node stubs below.
const exportsOf = await build({
  ...library,
  entryPoints: LIBRARY_ENTRIES,
  outdir: 'dist/bundle/portable',
  platform: 'neutral',
  conditions: ['import', 'module', 'default'],
  plugins: [deferred('portable')],
  metafile: true,
});
const wrapped = new Set();
for (const [out, meta] of Object.entries(exportsOf.metafile.outputs)) {
  const entryPoint = meta.entryPoint;
  const name = entryPoint && Object.keys(LIBRARY_ENTRIES).find((n) => LIBRARY_ENTRIES[n] === entryPoint);
  if (!name) continue;
  const names = meta.exports.filter((n) => n !== 'default');
  const lines = [
    `// rulekit's ${name} entry point for Node: its part of library.cjs (src/code-cache/library.ts, scripts/bundle.mjs).`,
    "import { libraryEntry } from './load-library.js';",
    names.length ? `const entry = libraryEntry(${JSON.stringify(name)});` : `libraryEntry(${JSON.stringify(name)});`,
    ...(names.length ? [`export const { ${names.join(', ')} } = entry;`] : []),
    ...(meta.exports.includes('default') ? ['export default entry.default;'] : []),
  ];
  writeFileSync(here(`dist/bundle/${basename(out)}`), `${lines.join('\n')}\n`);
  wrapped.add(name);
}
for (const name of Object.keys(LIBRARY_ENTRIES)) if (!wrapped.has(name)) throw new Error(`no entry module written for ${name}`);

// The files the Node builds' deferred getters require().
for (const lazy of LAZY) {
  await build({
    ...common,
    entryPoints: { [lazy.name]: 'rulekit-lazy:entry' },
    outdir: 'dist/bundle/lazy',
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    platform: 'node',
    mainFields: ['module', 'main'],
    plugins: [lazyHost(lazy)],
  });
}

/** What the CLI's builds share. @type {import('esbuild').BuildOptions} */
const cli = {
  ...common,
  platform: 'node',
  // @cdktf/hcl2json loads its WebAssembly from its own directory at run time (and only for `rulekit lint`
  // of a .tf file): it stays a package. re2js as in the library.
  external: ['mmdb-lib', '@cdktf/hcl2json', 're2js', ...SERVER_PACKAGES],
  // jsonc-parser's "main" is a UMD build whose require()s esbuild cannot follow: take the ES modules.
  mainFields: ['module', 'main'],
  plugins: [deferred('node'), directImports, commanderSpawnsLazily],
};

/**
 * Commands with a CommonJS file of their own (cli-NAME.cjs): the program with every command declared but
 * only NAME's implementation inside (the other commands' actions import an empty module there). The
 * launcher runs the file of the command named first on the command line; any other command line (help, a
 * misspelt command, the server's and the editor's commands, whose start-up is not what their user waits
 * on) runs cli-main.cjs, which holds all of them.
 */
// Those run in loops and pipelines, whose own code is small beside the rest: 0.25–0.5 MB each against the
// 1.4 MB of cli-main.cjs. Each file is ~0.3 MB more in the package, whose core must stay under 15 MB
// installed (test/meta/install.test.ts): validate, lint, test and diff (the YAML and Terraform readers,
// ~0.7 MB each) and analyze, export and query run from cli-main.cjs.
const CLI_COMMAND_FILES = ['check', 'simulate', 'logfilter'];

/**
 * The esbuild plugin of a command's file: the import() of another command's implementation (in its
 * src/cli/commands/ file) loads an empty module.
 * @type {(command: string) => import('esbuild').Plugin}
 */
const onlyCommand = (command) => ({
  name: 'only-command',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.startsWith(here('src/cli/commands/')) && basename(args.importer) !== `${command}.ts`
        ? { path: 'other-command', namespace: 'only-command' }
        : undefined);
    b.onLoad({ filter: /.*/, namespace: 'only-command' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
});

/**
 * The CLI's code as CommonJS files (cli-main.cjs, cli-NAME.cjs), which dist/bundle/cli.js
 * (src/cli/launch.ts) runs as a vm.Script with V8's code cache. Scripts, not modules: Node 20 caches no
 * compiled code of ES modules. Each command's modules stay behind its action's import(), which esbuild
 * turns into a function run on the first call. A file of one command is a fifth to a third of cli-main.cjs:
 * the launcher reads the whole file, and a fresh process pays for its pages (`rulekit check` from the 1.4 MB
 * of cli-main.cjs took ~40 ms of CPU more than from the 0.25 MB of cli-check.cjs).
 * @type {(name: string, plugins: import('esbuild').Plugin[]) => Promise<{ file: string, hash: string }>}
 */
async function cliScript(name, plugins) {
  const result = await build({
    ...cli,
    ...cachedScript,
    entryPoints: { [name]: 'src/cli/run.ts' },
    outdir: 'dist/bundle',
    plugins: [...plugins, ...(cli.plugins ?? []), builtinsLazily],
  });
  const outputs = result.outputFiles ?? [];
  for (const out of outputs) writeFileSync(out.path, out.contents);
  const main = outputs.find((o) => o.path.endsWith('.cjs'));
  if (!main) throw new Error(`no ${name}.cjs`);
  // The code cache's key: a cache made for other code is never offered to V8 (its own check is the length).
  return { file: basename(main.path), hash: scriptHash(main.contents) };
}
/** @type {Record<string, { file: string, hash: string }>} */
const cliScripts = { '': await cliScript('cli-main', []) };
for (const command of CLI_COMMAND_FILES) cliScripts[command] = await cliScript(`cli-${command}`, [onlyCommand(command)]);

// The `rulekit` command (the launcher): one small module that imports nothing but node:module.
await build({
  ...common,
  entryPoints: { cli: 'src/cli/launch.ts' },
  outdir: 'dist/bundle',
  platform: 'node',
  define: { CLI_SCRIPTS: JSON.stringify(cliScripts) },
});

// The language server's full-check and diff-lens threads, modules of their own beside their chunks
// (src/lsp/full-check.ts, src/lsp/diff-client.ts).
await build({
  ...cli,
  entryPoints: { 'lsp-worker': 'src/lsp/worker.ts', 'lsp-diff-worker': 'src/lsp/diff-worker.ts' },
  outdir: 'dist/bundle',
  splitting: true,
  chunkNames: 'cli-[name]-[hash]',
  banner: { js: "import { createRequire as __rulekitRequire } from 'node:module'; const require = __rulekitRequire(import.meta.url);" },
});
