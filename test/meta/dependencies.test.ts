/**
 * The module structure, held by dependency-cruiser: no import cycles in src/; a folder is entered only
 * through its index.ts (src/codes.ts also reads each folder's codes.ts, which imports nothing but types);
 * the browser-safe core imports no Node built-in and nothing of the Node-only folders (the CLI, the
 * simulation of files and the server).
 */
import { describe, expect, it } from 'vitest';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/** Folders that run in a browser (everything but the Node-only entry points). */
const CORE = '^src/(diagnostics|expression|net|ruleset|engine|capture|logpush|export|json|codegen|language|playground|http|diff)/';
/** Node-only folders. */
const NODE_ONLY = '^src/(cli|simulation|server|lint|ruletest|lsp|playground-host|threads)/';

/**
 * Dependencies loaded only when first needed: outside the modules that hold them behind getters (see
 * src/expression/deferred.ts and src/net/deferred.ts), nothing imports them but for types, or the
 * shipped bundle would evaluate them at import again.
 */
const DEFERRED = 'node_modules/(re2js|chevrotain|ipaddr\\.js)/|^src/expression/parser\\.ts$';
const DEFERRED_HOLDERS = ['^src/expression/(deferred|parser|grammar-doc)\\.ts$', '^src/net/deferred\\.ts$', '^src/simulation/worker\\.ts$'];

/**
 * A table of diagnostic codes: a folder's codes.ts (src/codes.ts reads each, a Node-only folder's too, as
 * data), or one beside src/codes.ts (src/lint-codes.ts: lint reads src/codes.ts back, so its table lives
 * outside the folder).
 */
const CODE_TABLE = '^src/([^/]+/codes|[a-z]+-codes)\\.ts$';

/** Planted violations the rules must report (so that a rule that matches nothing fails this test). */
const PLANTS = '^test/meta/dependency-plants/';

const RULES: IConfiguration = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'an import cycle', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'enter-folders-through-index',
      severity: 'error',
      comment: 'another folder is reached only through its index.ts',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/([^/]+)/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'top-level-through-index',
      severity: 'error',
      comment: 'the top-level modules (src/index.ts, src/codes.ts) reach folders through their index.ts, or a folder\'s code table',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/[^/]+/', pathNot: [CODE_TABLE, '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'code-tables-are-data',
      severity: 'error',
      comment: 'a code table imports nothing but types and other code tables, so that src/codes.ts may read it without loading the folder',
      from: { path: CODE_TABLE },
      to: { dependencyTypesNot: ['type-only'], pathNot: CODE_TABLE },
    },
    {
      name: 'core-without-node-builtins',
      severity: 'error',
      comment: 'the core runs in a browser: no node: imports',
      from: { path: CORE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'deferred-behind-getters',
      severity: 'error',
      comment: 're2js, Chevrotain, the Chevrotain grammar and ipaddr.js are reached through the deferred.ts getters (types aside)',
      from: { path: '^src/', pathNot: DEFERRED_HOLDERS },
      to: { path: DEFERRED, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'answers-without-the-store',
      severity: 'error',
      comment: 'what sends answers takes the text it sends as a value: it does not reach into the store',
      from: { path: '^src/server/envelope\\.ts$' },
      to: { path: '^src/server/store/' },
    },
    {
      name: 'core-without-node-only-folders',
      severity: 'error',
      comment: 'the core does not reach into the CLI or the simulation of files',
      from: { path: CORE },
      to: { path: NODE_ONLY },
    },
    {
      name: 'ruleset-below-the-engine',
      severity: 'error',
      comment: 'the ruleset model and validation know nothing of the packet engine or the capture decoders',
      from: { path: '^src/ruleset/' },
      to: { path: '^src/(engine|capture)/' },
    },
    {
      name: 'engine-below-its-users',
      severity: 'error',
      comment: 'the packet engine is run by the simulation of files, HTTP records, SQL, tests and the server, never the reverse',
      from: { path: '^src/engine/' },
      to: { path: '^src/(simulation|http|sql|server|cli|lint|ruletest|lsp|playground|playground-host|analysis|language)/' },
    },
  ],
};

describe('module structure (dependency-cruiser)', () => {
  it('src/ has no cycles, no deep imports across folders and a core free of Node', async () => {
    const result = await cruise(
      ['src'],
      {
        validate: true,
        ruleSet: RULES,
        tsPreCompilationDeps: true,
        doNotFollow: { path: 'node_modules' },
        exclude: { path: '\\.d\\.ts$' },
      },
      undefined,
      { tsConfig: extractTSConfig('tsconfig.build.json') },
    );
    const output = result.output as ICruiseResult;
    // The cruise saw the whole tree (a broken resolution would see nothing and pass).
    expect(output.summary.totalCruised).toBeGreaterThan(80);
    const violations = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
    expect(violations).toEqual([]);
    // The deferred rule's pattern names real dependencies (a renamed package would make it match nothing).
    const deferred = output.modules.find((m) => m.source === 'src/expression/deferred.ts');
    expect(deferred?.dependencies.filter((d) => new RegExp(DEFERRED).test(d.resolved)).length).toBe(2);
    // The layer rules name folders that hold modules and arrows that exist (a moved folder would make them match nothing).
    const engineUsers = output.modules.filter((m) => /^src\/(simulation|http|server)\//.test(m.source) && m.dependencies.some((d) => d.resolved === 'src/engine/index.ts'));
    expect(engineUsers.length).toBeGreaterThanOrEqual(3);
    expect(output.modules.find((m) => m.source === 'src/engine/simulate.ts')?.dependencies.some((d) => d.resolved === 'src/ruleset/index.ts')).toBe(true);
    const net = output.modules.find((m) => m.source === 'src/net/deferred.ts');
    expect(net?.dependencies.filter((d) => new RegExp(DEFERRED).test(d.resolved)).length).toBe(1);
  });

  it('the rules catch what they are for (a planted deep import, cycle and node: import are reported)', async () => {
    const result = await cruise(
      ['test/meta/dependency-plants'],
      {
        validate: true,
        ruleSet: {
          forbidden: [
            { name: 'no-cycles', from: { path: PLANTS }, to: { circular: true } },
            { name: 'enter-folders-through-index', from: { path: `${PLANTS}a/` }, to: { path: `${PLANTS}b/`, pathNot: `${PLANTS}b/index\\.ts$` } },
            { name: 'core-without-node-builtins', from: { path: PLANTS }, to: { dependencyTypes: ['core'] } },
          ],
        },
        tsPreCompilationDeps: true,
      },
      undefined,
      { tsConfig: extractTSConfig('tsconfig.json') },
    );
    const names = new Set((result.output as ICruiseResult).summary.violations.map((v) => v.rule.name));
    expect(names).toContain('no-cycles');
    expect(names).toContain('enter-folders-through-index');
    expect(names).toContain('core-without-node-builtins');
  });
});
