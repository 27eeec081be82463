/**
 * The fuzz contract of every public entry point: given any value, it returns (diagnostics or success),
 * never throws, and answers within a time bound; every diagnostic has the documented shape and a code of
 * the code table. The CLI commands are run in process (their exit code: the returned 0/1, or 2 for a
 * UsageError) and, sparingly, as the built binary. Used by `npm run fuzz` (test/fuzz/run.ts, a million
 * cases and more) and by test/fuzz/fuzz.test.ts (a bounded slice in the suite).
 */
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  compileExpression, checkExpression, parseExpression, validateRuleset, compileLogFilter, checkLogFilter, validateLogpushJob,
  validateCustomFieldRules, toWireshark, DIAGNOSTIC_CODES, type Diagnostic,
} from '../../src/index.js';
import { validateCustomFieldRule } from '../../src/logpush/index.js';
import { CaptureParser, readCaptureAll } from '../../src/capture/index.js';
import { checkCommand } from '../../src/cli/check.js';
import { validateCommand } from '../../src/cli/validate.js';
import { exportCommand } from '../../src/cli/export.js';
import { UsageError } from '../../src/cli/io.js';
import { expression as validExpression } from '../expression/arbitraries.js';

/**
 * Longest time one call may take before the run fails. Generous: the machine may be shared, and a caller
 * may lift the expression length limit (`limits.maxLength`), which makes a 100k-character input cost
 * about a second of lexing and recovery.
 */
export const CALL_BOUND_MS = 5_000;

const SEVERITIES = new Set(['error', 'warning', 'info', 'hint']);

/** Throw unless `d` is a well-formed diagnostic of the code table. */
export function assertDiagnostic(d: unknown, where: string): void {
  const x = d as Diagnostic;
  const fail = (why: string) => {
    throw new Error(`${where}: ${why}: ${safeJson(d)}`);
  };
  if (typeof x !== 'object' || x === null) fail('not an object');
  if (typeof x.code !== 'string' || !Object.hasOwn(DIAGNOSTIC_CODES, x.code)) fail('code not in the table');
  if (!SEVERITIES.has(x.severity)) fail('bad severity');
  if (typeof x.message !== 'string' || x.message.length === 0) fail('empty message');
  if (x.range !== undefined && !(Number.isInteger(x.range.start) && Number.isInteger(x.range.end) && x.range.start >= 0 && x.range.end >= x.range.start)) fail('bad range');
  if (x.pointer !== undefined && typeof x.pointer !== 'string') fail('bad pointer');
}

function assertDiagnostics(ds: unknown, where: string): void {
  if (!Array.isArray(ds)) throw new Error(`${where}: diagnostics is not an array`);
  for (const d of ds) assertDiagnostic(d, where);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x))?.slice(0, 300) ?? String(v);
  } catch {
    return '<unprintable>';
  }
}

/** Time a call and fail over the bound. */
export function timed<T>(name: string, f: () => T, stats: FuzzStats): T {
  const t = performance.now();
  const r = f();
  const ms = performance.now() - t;
  if (ms > stats.maxMs) {
    stats.maxMs = ms;
    stats.slowest = name;
  }
  if (ms > CALL_BOUND_MS) throw new Error(`${name} took ${ms.toFixed(0)} ms (bound ${CALL_BOUND_MS} ms)`);
  return r;
}

/** Counts of a fuzz run. */
export interface FuzzStats {
  cases: number;
  perTarget: Record<string, number>;
  maxMs: number;
  slowest: string;
  spawned: number;
}

// --- generated bad input -------------------------------------------------------------------------

function deep(n: number, wrap: (x: unknown) => unknown, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < n; i++) v = wrap(v);
  return v;
}
const cyclic: Record<string, unknown> = { rules: [] };
cyclic['self'] = cyclic;
(cyclic['rules'] as unknown[]).push(cyclic);

/** Values no caller should pass, and some every caller does: deep, cyclic, odd prototypes, huge. */
const oddValues = fc.constantFrom<unknown>(
  undefined, null, 0, -0, NaN, Infinity, 1e400, 2n ** 70n, '', ' ', '\ufeff', '\ud800', true, Symbol('s'), () => 1,
  [], {}, Object.create(null), new Map([['a', 1]]), new Set([1]), new Uint8Array(3), new Date(0), /re/g, new Proxy({}, {}),
  deep(10_000, (x) => [x], []), deep(10_000, (x) => ({ a: x }), {}), deep(10_000, (x) => ({ and: [x] }), { key: 'EdgeResponseStatus', operator: 'eq', value: 1 }),
  cyclic, { __proto__: { rules: 'x' } }, JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {}}}'),
  'x'.repeat(1 << 20), '('.repeat(100_000), '{'.repeat(100_000), '['.repeat(100_000),
);

/** Mutate a text: insert, delete or replace a few characters with hostile ones. */
function mutated(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const hostile = fc.constantFrom('"', '\\', '{', '}', '[', ']', '(', ')', '=', '\u0000', '\ud800', '\udc00', '\ufeff', '\ufffd', '\t', '\n', '$', '..', '/', ':', ',', '😀', 'é', ' ', '0x', '#');
  const edit = fc.tuple(fc.nat(), fc.nat(3), fc.oneof(hostile, fc.string({ maxLength: 4, unit: 'binary' })));
  return fc.tuple(base, fc.array(edit, { minLength: 1, maxLength: 4 })).map(([s, edits]) => {
    for (const [at, del, ins] of edits) {
      const i = s.length ? at % (s.length + 1) : 0;
      s = s.slice(0, i) + ins + s.slice(i + del);
    }
    return s;
  });
}

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.anything({ maxDepth: 4, withBigInt: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true, withBoxedValues: true, withSparseArray: true, withDate: true }) },
  { weight: 2, arbitrary: oddValues },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
);

const expressionText = fc.oneof(
  { weight: 4, arbitrary: mutated(validExpression) },
  { weight: 1, arbitrary: validExpression },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'tcp.dstport in{80 443}$ip.src==10.0.0.0/8 and or not()"r#'.split('')), maxLength: 60 }) },
);

const rule = fc.record({ action: fc.oneof(fc.constantFrom('block', 'skip', 'log_custom_field', 'BLOCK'), anyValue), expression: fc.oneof(expressionText, anyValue) }, { requiredKeys: [] });
const rulesetValue = fc.oneof(
  fc.record({ name: fc.oneof(fc.string(), anyValue), kind: fc.constantFrom('root', 'zone', 'x'), phase: fc.constantFrom('network_transit', 'http_log_custom_fields', 'y'), rules: fc.oneof(fc.array(fc.oneof(rule, anyValue), { maxLength: 5 }), anyValue) }, { requiredKeys: [] }),
  anyValue,
);
const rulesetText = fc.oneof(rulesetValue.map((v) => safeJson(v)), mutated(rulesetValue.map((v) => safeJson(v))), fc.json());

const clause = fc.record({ key: fc.constantFrom('EdgeResponseStatus', 'ClientRequestHost', 'BotScore', 'ClientIP', 'x'), operator: fc.constantFrom('eq', '!eq', 'lt', 'geq', 'in', 'contains', 'neq', 'startsWith'), value: fc.oneof(fc.integer(), fc.string(), fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 3 }), anyValue) }, { requiredKeys: [] });
const whereValue = fc.letrec<{ node: unknown }>((tie) => ({ node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, clause, fc.record({ and: fc.array(tie('node'), { maxLength: 3 }) }), fc.record({ or: fc.array(tie('node'), { maxLength: 3 }) })) })).node;
const filterText = fc.oneof(whereValue.map((w) => safeJson({ where: w })), mutated(whereValue.map((w) => safeJson({ where: w }))), fc.json(), fc.string({ unit: 'binary', maxLength: 60 }));
const jobValue = fc.oneof(
  fc.record({ dataset: fc.constantFrom('http_requests', 'dns_logs', 'nope'), destination_conf: fc.oneof(fc.constantFrom('s3://b/p?region=us-east-1', 'r2://x', 'https://h', '://', ''), fc.string()), filter: fc.oneof(filterText, anyValue), logpull_options: fc.oneof(fc.constantFrom('fields=ClientIP&timestamps=rfc3339', 'sample=2', '&&=='), fc.string()), ownership_challenge: fc.string() }, { requiredKeys: [] }),
  anyValue,
);
const customRule = fc.oneof(fc.record({ action: fc.constantFrom('log_custom_field', 'x'), expression: fc.constantFrom('true', 'false'), action_parameters: fc.oneof(fc.record({ request_fields: fc.array(fc.oneof(fc.record({ name: fc.string() }), anyValue), { maxLength: 3 }) }), anyValue) }, { requiredKeys: [] }), anyValue);
const options = fc.oneof(fc.constant(undefined), fc.record({ lists: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.array(fc.oneof(fc.string(), anyValue), { maxLength: 3 }), anyValue), { maxKeys: 3 }), anyValue), scheme: fc.oneof(fc.constant(undefined), anyValue), serviceToken: fc.oneof(fc.string(), anyValue), limits: fc.oneof(fc.constant(undefined), fc.record({ maxLength: fc.oneof(fc.integer(), anyValue), maxDepth: fc.oneof(fc.integer(), anyValue) }, { requiredKeys: [] })), parser: fc.constantFrom('auto', 'chevrotain', undefined) }, { requiredKeys: [] }), anyValue);
const captureBytes = fc.oneof(
  fc.uint8Array({ maxLength: 512 }),
  // a pcap or pcapng magic number, then noise
  fc.tuple(fc.constantFrom([0xd4, 0xc3, 0xb2, 0xa1], [0xa1, 0xb2, 0xc3, 0xd4], [0x4d, 0x3c, 0xb2, 0xa1], [0x0a, 0x0d, 0x0d, 0x0a]), fc.uint8Array({ maxLength: 400 })).map(([m, rest]) => Uint8Array.from([...m, ...rest])),
);

// --- targets ---------------------------------------------------------------------------------------

/** One fuzz target: a name, a generator and a check that throws on a broken contract. */
export interface Target {
  name: string;
  /** Relative share of the cases. */
  weight: number;
  property(stats: FuzzStats): fc.IRawProperty<unknown[], boolean> | fc.IAsyncPropertyWithHooks<unknown[]>;
  async?: boolean;
}

const sync = <T>(name: string, weight: number, arb: fc.Arbitrary<T>, run: (v: T, stats: FuzzStats) => void): Target => ({
  name,
  weight,
  property: (stats) =>
    fc.property(arb, (v) => {
      stats.cases++;
      stats.perTarget[name] = (stats.perTarget[name] ?? 0) + 1;
      timed(name, () => run(v, stats), stats);
    }) as unknown as fc.IRawProperty<unknown[], boolean>,
});

let tmp: string | undefined;
function tempFile(text: string | Uint8Array): string {
  tmp ??= mkdtempSync(join(tmpdir(), 'rulekit-fuzz-'));
  const p = join(tmp, 'input');
  writeFileSync(p, text);
  return p;
}

/** Exit code of an in-process command: its return value, or 2 for a usage error; anything else fails. */
async function exitOf(f: () => Promise<number>): Promise<number> {
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    return await f();
  } catch (e) {
    if (e instanceof UsageError) return 2;
    throw e;
  } finally {
    process.stderr.write = write;
  }
}

const asyncTarget = <T>(name: string, weight: number, arb: fc.Arbitrary<T>, run: (v: T, stats: FuzzStats) => Promise<void>): Target => ({
  name,
  weight,
  async: true,
  property: (stats) =>
    fc.asyncProperty(arb, async (v) => {
      stats.cases++;
      stats.perTarget[name] = (stats.perTarget[name] ?? 0) + 1;
      const t = performance.now();
      await run(v, stats);
      const ms = performance.now() - t;
      if (ms > stats.maxMs) (stats.maxMs = ms), (stats.slowest = name);
      if (ms > CALL_BOUND_MS) throw new Error(`${name} took ${ms.toFixed(0)} ms`);
    }) as unknown as fc.IAsyncPropertyWithHooks<unknown[]>,
});

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'bundle', 'cli.js');

export const TARGETS: Target[] = [
  sync('compileExpression', 8, fc.tuple(fc.oneof(expressionText, anyValue), options), ([t, o]) => {
    const r = compileExpression(t as string, o as never);
    assertDiagnostics(r.diagnostics, 'compileExpression');
    if (r.matcher && r.diagnostics.some((d) => d.severity === 'error')) throw new Error('a matcher despite errors');
    if (r.matcher) r.matcher({ 'tcp.dstport': 80, 'ip.src': '192.0.2.1', 'ip.proto': 'tcp' });
  }),
  sync('checkExpression', 2, fc.tuple(expressionText, options), ([t, o]) => assertDiagnostics(checkExpression(t, o as never).diagnostics, 'checkExpression')),
  sync('parseExpression', 2, fc.tuple(fc.oneof(expressionText, anyValue), anyValue), ([t, o]) => assertDiagnostics(parseExpression(t as string, o as never).diagnostics, 'parseExpression')),
  sync('toWireshark', 3, fc.tuple(fc.oneof(expressionText, anyValue), options), ([t, o]) => {
    const r = toWireshark(t as string, o as never);
    assertDiagnostics(r.diagnostics, 'toWireshark');
    if (r.filter !== undefined && typeof r.filter !== 'string') throw new Error('filter is not a string');
  }),
  sync('validateRuleset', 6, fc.tuple(fc.oneof(rulesetValue, rulesetText), fc.oneof(fc.constant(undefined), fc.record({ operation: fc.constantFrom('create', 'update', 'x'), phase: fc.constantFrom('network_transit', 'nope', undefined), maxRules: fc.oneof(fc.integer(), anyValue) }, { requiredKeys: [] }), anyValue)), ([b, c]) =>
    assertDiagnostics(validateRuleset(b, c as never), 'validateRuleset')),
  sync('compileLogFilter', 6, fc.tuple(fc.oneof(filterText, anyValue, whereValue), fc.oneof(fc.constant({ dataset: 'http_requests' }), fc.record({ dataset: fc.oneof(fc.constantFrom('firewall_events', 'dns_logs', 'x'), anyValue), mode: fc.constantFrom('auto', 'codegen', 'closures', 'x') }, { requiredKeys: [] }), anyValue)), ([f, o]) => {
    const r = compileLogFilter(f as string, o as never);
    assertDiagnostics(r.diagnostics, 'compileLogFilter');
    if (r.matcher) r.matcher({ EdgeResponseStatus: 503, ClientRequestHost: 'a' });
  }),
  sync('checkLogFilter', 1, fc.tuple(fc.oneof(filterText, anyValue), anyValue), ([f, o]) => assertDiagnostics(checkLogFilter(f as string, o as never).diagnostics, 'checkLogFilter')),
  sync('validateLogpushJob', 4, fc.tuple(fc.oneof(jobValue, jobValue.map((j) => safeJson(j))), fc.oneof(fc.constant(undefined), anyValue)), ([j, c]) => assertDiagnostics(validateLogpushJob(j, c as never), 'validateLogpushJob')),
  sync('validateCustomFieldRule', 2, fc.tuple(customRule, anyValue), ([r, o]) => assertDiagnostics(validateCustomFieldRule(r, o as never), 'validateCustomFieldRule')),
  sync('validateCustomFieldRules', 1, fc.oneof(fc.array(customRule, { maxLength: 3 }), anyValue), (rs) => assertDiagnostics(validateCustomFieldRules(rs as never), 'validateCustomFieldRules')),
  sync('CaptureParser', 3, fc.tuple(captureBytes, fc.nat(64)), ([bytes, split]) => {
    const p = new CaptureParser();
    p.push(bytes.subarray(0, split));
    p.push(bytes.subarray(split));
    p.end();
    while (p.read());
    const s = p.summary();
    if (!Array.isArray(s.diagnostics)) throw new Error('capture summary without diagnostics');
    for (const d of s.diagnostics) if (!Object.hasOwn(DIAGNOSTIC_CODES, d.code)) throw new Error(`capture code ${d.code} not in the table`);
  }),
  asyncTarget('readCaptureAll', 1, fc.oneof(captureBytes.map((b) => b as unknown), anyValue), async (source) => {
    const r = await readCaptureAll(source as never);
    for (const d of r.summary.diagnostics) if (!Object.hasOwn(DIAGNOSTIC_CODES, d.code)) throw new Error(`capture code ${d.code} not in the table`);
  }),
  asyncTarget('cli check', 1, fc.tuple(fc.array(expressionText, { maxLength: 3 }), fc.oneof(fc.constant(undefined), expressionText.map((t) => tempFile(t))), fc.constantFrom('text', 'json'), fc.constantFrom(undefined, 0, -1, 3)), async ([exprs, file, format, maxWarnings]) => {
    let out = '';
    const code = await exitOf(() => checkCommand(exprs, { file, format: format as 'text', maxWarnings }, (s) => (out += s)));
    if (![0, 1, 2].includes(code)) throw new Error(`check exit ${code}`);
    if (format === 'json' && code !== 2) JSON.parse(out);
  }),
  asyncTarget('cli validate', 1, fc.tuple(fc.oneof(rulesetText, fc.uint8Array({ maxLength: 200 })), fc.oneof(fc.constant(undefined), fc.json().map((t) => t)), fc.constantFrom('text', 'json', 'envelope')), async ([body, lists, format]) => {
    const path = tempFile(body);
    const listsPath = lists === undefined ? undefined : (writeFileSync(path + '.lists', lists), path + '.lists');
    let out = '';
    const code = await exitOf(() => validateCommand(path, { lists: listsPath, format: format as 'text' }, (s) => (out += s)));
    if (![0, 1, 2].includes(code)) throw new Error(`validate exit ${code}`);
    if (format !== 'text' && code !== 2) JSON.parse(out);
  }),
  asyncTarget('cli export', 1, fc.oneof(expressionText, fc.string()), async (e) => {
    const code = await exitOf(() => exportCommand(e, { wireshark: true }, () => {}));
    if (![0, 1, 2].includes(code)) throw new Error(`export exit ${code}`);
  }),
];

/** Generated command lines for the built binary: the exit code is 0, 1 or 2 and stderr has no stack. */
export const cliArgs = fc.oneof(
  fc.tuple(fc.constantFrom('check', 'validate', 'export', 'simulate', 'bogus', '--format', '-f', '--lists'), fc.array(fc.oneof(fc.constantFrom('--format', 'json', 'xml', '-f', '-', '--max-warnings', '-5', '--phase', '--examples', '--lists', '/', '/nonexistent'), fc.string({ maxLength: 12 }).filter((s) => !s.includes('\u0000'))), { maxLength: 4 })).map(([c, rest]) => [c, ...rest]),
  fc.tuple(expressionText.filter((s) => !s.includes('\u0000')), fc.constantFrom('check', 'export')).map(([e, c]) => (c === 'export' ? ['export', '--wireshark', e] : ['check', e])),
);

/** Run the built CLI once; throws when the contract breaks. */
export function spawnCli(args: string[], stats: FuzzStats, input = ''): void {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', timeout: 30_000 });
  stats.spawned++;
  if (![0, 1, 2].includes(r.status ?? -1)) throw new Error(`rulekit ${safeJson(args)} exited ${r.status} (${r.signal ?? ''}): ${r.stderr.slice(0, 400)}`);
  if (/\n\s+at |node:internal/.test(r.stderr)) throw new Error(`rulekit ${safeJson(args)} printed a stack: ${r.stderr.slice(0, 400)}`);
}

/** Run every target for about `runs` cases in all (split by weight), and `spawns` runs of the binary. */
export async function runFuzz(runs: number, options: { seed?: number; spawns?: number; log?: (s: string) => void } = {}): Promise<FuzzStats> {
  const stats: FuzzStats = { cases: 0, perTarget: {}, maxMs: 0, slowest: '', spawned: 0 };
  const total = TARGETS.reduce((n, t) => n + t.weight, 0);
  const seed = options.seed ?? Date.now() % 2 ** 31;
  options.log?.(`seed ${seed}`);
  for (const t of TARGETS) {
    const numRuns = Math.max(1, Math.round((runs * t.weight) / total));
    const started = performance.now();
    const params = { numRuns, seed, endOnFailure: true };
    if (t.async) await fc.assert(t.property(stats) as fc.IAsyncPropertyWithHooks<unknown[]>, params);
    else fc.assert(t.property(stats) as fc.IRawProperty<unknown[], boolean>, params);
    options.log?.(`${t.name}: ${stats.perTarget[t.name] ?? 0} cases in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const spawns = options.spawns ?? 0;
  if (spawns > 0) {
    fc.assert(
      fc.property(cliArgs, (args) => {
        stats.cases++;
        stats.perTarget['rulekit (spawned)'] = (stats.perTarget['rulekit (spawned)'] ?? 0) + 1;
        spawnCli(args, stats);
      }),
      { numRuns: spawns, seed },
    );
  }
  return stats;
}
