/**
 * `npm run bench`: every benchmark, each figure beside its baseline or peer from the same run, as a ratio.
 * No test asserts a time. Pass names to run some: `npm run bench -- expression ipset`.
 */
const SUITES: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  startup: () => import('./startup.js'),
  expression: () => import('./expression.js'),
  http: () => import('./http.js'),
  'http-simulate': () => import('./http-simulate.js'),
  ipset: () => import('./ipset.js'),
  logfilter: () => import('./logfilter.js'),
  'logfilter-stream': () => import('./logfilter-stream.js'),
  capture: () => import('./capture.js'),
  decide: () => import('./decide.js'),
  simulate: () => import('./simulate.js'),
  'simulate-sql': () => import('./simulate-sql.js'),
  analysis: () => import('./analysis.js'),
  diff: () => import('./diff.js'),
  lint: () => import('./lint.js'),
  lsp: () => import('./lsp.js'),
  server: () => import('./server.js'),
  sql: () => import('./sql.js'),
  install: () => import('./install.js'),
  stall: () => import('./stall.js'),
};

/** Flags that take a value (`--rows 10000000`): the value is not a bench's name. */
const VALUE_FLAGS = new Set(['--rows', '--before-cli', '--runs', '--before-dist', '--only']);
const argv = process.argv.slice(2);
const wanted = argv.filter((a, i) => !a.startsWith('-') && !VALUE_FLAGS.has(argv[i - 1] ?? ''));
const names = wanted.length ? wanted : Object.keys(SUITES);
console.log(`# rulekit benchmarks (node ${process.version}, ${new Date().toISOString()})`);
for (const name of names) {
  const load = SUITES[name];
  if (!load) {
    console.error(`unknown bench ${name}; known: ${Object.keys(SUITES).join(', ')}`);
    process.exitCode = 2;
    continue;
  }
  console.log(`\n## ${name}`);
  await (await load()).run();
}
