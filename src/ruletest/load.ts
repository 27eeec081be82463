/**
 * Loading a test file and everything it names (Node only): the ruleset (a JSON body, or a
 * `cloudflare_ruleset` resource of a Terraform file with its interpolations filled from `vars`), lists,
 * the country/ASN table, captures, the base rulesets of diff cases (a file, or the ruleset at a git
 * revision) and Logpush jobs — relative to the test file. Everything a test would
 * trip over is found here, before anything runs, and reported where it is: a misspelt key or field, a
 * rule selector that names no rule, a ruleset or filter with errors, a file that is missing.
 * @module
 */
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { suggest, type Diagnostic, type Range } from '../diagnostics/index.js';
import { NETWORK_SCHEME, type Packet } from '../expression/index.js';
import { parseJsonText } from '../json/index.js';
import { decodeJsonString, extractTerraform, lintText, terraformResources, terraformRuleset, type TextItem } from '../lint/index.js';
import { compileLogFilter, getDataset, type LogFilter, type LogLineMatcher } from '../logpush/index.js';
import { rulesetProblems, type Rule } from '../ruleset/index.js';
import { checkPacketValues } from '../engine/index.js';
import { loadGeoIpFile } from '../simulation/index.js';
import type { GeoIpLookup } from '../capture/index.js';
import { parseTestDocument, type Path, type TestDocument } from './document.js';
import { validateTestFile, type DiffCaseSpec, type FilterTestSpec, type RuleSelector, type TestFileSpec } from './spec.js';

/** A problem that keeps a test file from running, in the file it is about. */
export interface TestProblem {
  file: string;
  /** The file's text, to show the line (absent for files that could not be read). */
  text?: string;
  range?: Range;
  code: string;
  message: string;
}

/** A rule as reports show it. */
export interface RuleInfo {
  index: number;
  action: string;
  enabled: boolean;
  terminating: boolean;
  expression: string;
  id?: string;
  ref?: string;
  description?: string;
}

/** A filter test ready to run. */
export interface LoadedFilter {
  spec: FilterTestSpec;
  /** Where the filter came from: `inline`, a job path, a Terraform address. */
  source: string;
  dataset: string;
  /** Undefined for a job without a filter (every line is pushed). */
  filter?: LogFilter;
  matcher?: LogLineMatcher;
}

/** A test file with everything it names loaded. */
export interface LoadedSuite {
  file: string;
  /** The test file's text. */
  text: string;
  name: string;
  spec: TestFileSpec;
  doc: TestDocument;
  ruleset?: { source: string; body: { rules: Rule[] }; rules: RuleInfo[] };
  lists?: Record<string, string[]>;
  geoip?: GeoIpLookup;
  serviceToken?: string;
  /** Resolved rule selectors by case path (`cases.3.rule`, `cases.4.counts.rules.0.rule`). */
  selectors: Map<string, number | null>;
  /** Capture paths resolved against the test file. */
  captures: Map<number, string>;
  /** The base rulesets of diff cases, by case index. */
  bases: Map<number, { source: string; body: { rules: Rule[] } }>;
  filters: LoadedFilter[];
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: false });

async function readTextFile(path: string, shown: string, from: { file: string; text: string; range?: Range }, what: string): Promise<string | TestProblem> {
  try {
    const st = await stat(path);
    if (st.isDirectory()) return { ...from, code: 'unreadable-file', message: `${what} ${shown} is a directory, not a file` };
    return decoder.decode(await readFile(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ...from, code: 'unreadable-file', message: `${what} ${shown}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : `cannot read it (${code ?? (e as Error).message})`}` };
  }
}

/** Load a test file; the suite, or the problems that keep it from running. */
export async function loadSuite(file: string): Promise<{ suite?: LoadedSuite; problems: TestProblem[] }> {
  const problems: TestProblem[] = [];
  let text: string;
  try {
    text = decoder.decode(await readFile(file));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { problems: [{ file, code: 'unreadable-file', message: code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot read it (${code ?? (e as Error).message})` }] };
  }
  const parsed = parseTestDocument(text, file);
  const at = (range: Range | undefined, message: string, code = 'invalid-test-file'): TestProblem => ({ file, text, range, code, message });
  if (!parsed.doc || parsed.problems.length) return { problems: parsed.problems.map((p) => at(p.range, p.message)) };
  const doc = parsed.doc;
  const checked = validateTestFile(doc);
  if (!checked.spec) return { problems: checked.problems.map((p) => at(p.range, p.message)) };
  problems.push(...checked.problems.map((p) => at(p.range, p.message)));
  const spec = checked.spec;
  const dir = dirname(file);
  const here = (path: Path, part: 'value' | 'key' = 'value') => ({ file, text, range: doc.locate(path, part) });
  const suite: LoadedSuite = { file, text, name: spec.name ?? file, spec, doc, serviceToken: spec.serviceToken, selectors: new Map(), captures: new Map(), bases: new Map(), filters: [] };

  // Lists first: the ruleset is validated with them.
  if (typeof spec.lists === 'string') {
    const t = await readTextFile(resolve(dir, spec.lists), spec.lists, here(['lists']), 'the lists file');
    if (typeof t !== 'string') problems.push(t);
    else {
      const lists = listsOf(t, spec.lists, problems);
      if (lists) suite.lists = lists;
    }
  } else if (spec.lists) suite.lists = spec.lists;

  if (spec.geoip) {
    const path = resolve(dir, spec.geoip);
    try {
      const loaded = await loadGeoIpFile(path);
      const bad = loaded.diagnostics.filter((d) => d.severity === 'error');
      if (!loaded.lookup || bad.length) problems.push({ ...here(['geoip']), code: 'invalid-geoip', message: `the geoip table ${spec.geoip}: ${bad[0]?.message ?? 'not usable'}` });
      else suite.geoip = loaded.lookup;
    } catch (e) {
      problems.push({ ...here(['geoip']), code: 'unreadable-file', message: `the geoip table ${spec.geoip}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}` });
    }
  }

  if (spec.ruleset !== undefined) {
    const loaded = typeof spec.ruleset === 'string' ? await jsonRuleset(resolve(dir, spec.ruleset), spec.ruleset, here(['ruleset']), suite, problems) : await terraformRulesetOf(dir, spec.ruleset, here, suite, problems);
    if (loaded) suite.ruleset = loaded;
  }

  const rules = suite.ruleset?.rules;
  for (const c of spec.cases) {
    if (c.kind === 'diff') {
      const base = await loadBase(dir, c, here, suite, problems);
      if (base) suite.bases.set(spec.cases.indexOf(c), base);
    } else if (c.kind === 'packet') {
      packetProblems(c.packet, [...c.path, 'packet'], here, problems);
      if (c.rule !== undefined && rules) {
        const r = selectRule(c.rule, rules, [...c.path, 'rule'], here, problems);
        if (r !== undefined) suite.selectors.set(key([...c.path, 'rule']), r);
      }
    } else {
      const path = resolve(dir, c.capture);
      const st = await stat(path).catch(() => undefined);
      if (!st || !st.isFile()) problems.push({ ...here([...c.path, 'capture']), code: 'unreadable-file', message: `the capture ${c.capture}: ${st ? 'not a regular file' : 'no such file'}` });
      suite.captures.set(spec.cases.indexOf(c), path);
      if (rules) {
        for (const r of c.counts.rules) {
          const sel = selectRule(r.rule, rules, [...r.path, 'rule'], here, problems);
          if (sel !== undefined) suite.selectors.set(key([...r.path, 'rule']), sel);
        }
      }
    }
  }

  for (const f of spec.filters) {
    const loaded = await loadFilter(dir, doc, f, here, problems);
    if (loaded) suite.filters.push(loaded);
  }
  // The test file's own problems first, in text order; then those of the files it names.
  const order = (p: TestProblem) => (p.file === file ? 0 : 1);
  problems.sort((a, b) => order(a) - order(b) || (a.file === b.file ? (a.range?.start ?? 0) - (b.range?.start ?? 0) : 0));
  return problems.length ? { problems } : { suite, problems };
}

/** The key of a path in {@link LoadedSuite.selectors}. */
export function key(path: Path): string {
  return path.join('.');
}

function listsOf(text: string, shown: string, problems: TestProblem[]): Record<string, string[]> | undefined {
  const { doc, errors } = parseJsonText(text, 64);
  if (!doc) {
    problems.push({ file: shown, text, range: errors[0]?.range, code: 'invalid-list-file', message: `the lists file is not valid JSON: ${errors[0]?.message ?? 'unreadable'}` });
    return undefined;
  }
  const v = doc.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    problems.push({ file: shown, text, range: doc.valueRange(''), code: 'invalid-list-file', message: 'a lists file is a JSON object of arrays ({"name": ["192.0.2.0/24", ...]})' });
    return undefined;
  }
  let ok = true;
  for (const [name, items] of Object.entries(v)) {
    if (!Array.isArray(items) || !items.every((x) => typeof x === 'string')) {
      problems.push({ file: shown, text, range: doc.valueRange(`/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`), code: 'invalid-list-file', message: `list "${name}" must be an array of strings such as "192.0.2.0/24"` });
      ok = false;
    }
  }
  return ok ? (v as Record<string, string[]>) : undefined;
}

function ruleInfos(rules: readonly Rule[]): RuleInfo[] {
  return rules.map((r, index) => {
    const info: RuleInfo = {
      index,
      action: String(r.action),
      enabled: r.enabled !== false,
      terminating: r.action === 'block' || (r.action === 'skip' && (r.action_parameters as { ruleset?: unknown } | undefined)?.ruleset === 'current'),
      expression: String(r.expression),
    };
    if (r.id !== undefined) info.id = r.id;
    if (r.ref !== undefined) info.ref = r.ref;
    if (r.description !== undefined) info.description = r.description;
    return info;
  });
}

/**
 * The ruleset's diagnostics at their place in its JSON text. `prefix`: the pointer prefix the body adds
 * (`/rules` when the file is a bare array of rules, validated as `{rules: [...]}`).
 */
function bodyProblem(file: string, text: string, d: Diagnostic, prefix = ''): TestProblem {
  let range = d.rangeIn === 'value' ? undefined : d.range;
  if (prefix || d.rangeIn === 'value') {
    const pointer = prefix && d.pointer?.startsWith(prefix) ? d.pointer.slice(prefix.length) : d.pointer ?? '';
    const doc = parseJsonText(text, 256).doc;
    const at = doc?.valueRange(pointer);
    if (at && d.rangeIn === 'value' && d.range) range = decodeJsonString(text, at)?.toSource(d.range) ?? at;
    else if (at && (!range || prefix)) range = at;
  }
  return { file, text, range, code: d.code, message: `${d.message}${range ? '' : d.pointer ? ` (at ${d.pointer})` : ''}` };
}

async function jsonRuleset(path: string, shown: string, from: { file: string; text: string; range?: Range }, suite: LoadedSuite, problems: TestProblem[], given?: string): Promise<LoadedSuite['ruleset']> {
  const text = given ?? (await readTextFile(path, shown, from, 'the ruleset'));
  if (typeof text !== 'string') return void problems.push(text);
  // A bare array of rules is validated as the PUT body {rules: [...]}.
  const array = /^\s*\[/.test(text);
  let input: unknown = text;
  if (array) {
    try {
      input = { rules: JSON.parse(text) };
    } catch {
      // not JSON: validated as text, which reports where
    }
  }
  const found = rulesetProblems(input, { lists: suite.lists, serviceToken: suite.serviceToken }).filter((d) => d.severity === 'error' && d.code !== 'simulation-invalid-ruleset');
  if (found.length) {
    for (const d of found) problems.push(bodyProblem(shown, text, d, array && typeof input !== 'string' ? '/rules' : ''));
    return undefined;
  }
  const value = JSON.parse(text) as { rules: Rule[] } | Rule[];
  const body = Array.isArray(value) ? { rules: value } : value;
  return { source: shown, body, rules: ruleInfos(body.rules) };
}

/** The text of an interpolation, without `${` and `}`: `var.office_cidr`. */
const holeName = (text: string) => text.replace(/^[$%]\{~?\s*/, '').replace(/\s*~?\}$/, '');

async function terraformRulesetOf(
  dir: string,
  spec: { terraform: string; resource: string; vars?: Record<string, string | number | boolean> },
  here: (path: Path, part?: 'value' | 'key') => { file: string; text: string; range?: Range },
  suite: LoadedSuite,
  problems: TestProblem[],
  given?: { text: string; shown: string },
): Promise<LoadedSuite['ruleset']> {
  const text = given?.text ?? (await readTextFile(resolve(dir, spec.terraform), spec.terraform, here(['ruleset', 'terraform']), 'the Terraform file'));
  if (typeof text !== 'string') return void problems.push(text);
  const tf = given?.shown ?? spec.terraform;
  const read = terraformRuleset(text, spec.resource);
  if (!read) {
    const known = terraformResources(text, 'cloudflare_ruleset');
    const guess = suggest(spec.resource, known);
    problems.push({ ...here(['ruleset', 'resource']), code: 'invalid-test-file', message: `${tf} has no resource ${spec.resource}${guess ? `; did you mean ${guess}?` : known.length ? ` (it has ${known.join(', ')})` : ' (it has no cloudflare_ruleset resource)'}` });
    return undefined;
  }
  // What lint reports as an error inside this resource (HCL syntax anywhere in the file) keeps it from running.
  const linted = await lintText(text, 'terraform', true, { expression: { lists: suite.lists, serviceToken: suite.serviceToken } }, tf);
  const inside = (r: Range | undefined) => !r || (r.start >= read.range.start && r.end <= read.range.end);
  for (const d of linted.diagnostics) {
    if (d.severity === 'error' && (d.code === 'lint-parse-error' || inside(d.range))) problems.push({ file: tf, text, range: d.range, code: d.code, message: d.message });
  }
  for (const u of read.unreadable) problems.push({ file: tf, text, range: u.range, code: 'terraform-not-literal', message: `${u.message}; rulekit test runs rules written out` });
  const vars = spec.vars ?? {};
  const used = new Set<string>();
  const rules: Rule[] = [];
  for (const r of read.rules) {
    if (!r.action) problems.push({ file: tf, text, range: r.range, code: 'terraform-not-literal', message: `${r.label} has no literal "action"` });
    if (!r.expression) {
      problems.push({ file: tf, text, range: r.expressionNotLiteral ?? r.range, code: 'terraform-not-literal', message: `${r.label}.expression is ${r.expressionNotLiteral ? 'not a literal string' : 'missing'}` });
      continue;
    }
    // Fill the interpolations from `vars`, in the order they stand in the decoded text.
    let expression = '';
    let from = 0;
    for (const h of [...r.expression.holes].sort((a, b) => a.at - b.at)) {
      const name = holeName(h.text);
      expression += r.expression.map.text.slice(from, h.at);
      from = h.at;
      if (!Object.hasOwn(vars, name)) {
        problems.push({ file: tf, text, range: h.range, code: 'terraform-unknown-value', message: `${r.label}.expression interpolates ${name}; give its value in the test file's ruleset.vars ({"${name}": …})` });
        continue;
      }
      used.add(name);
      expression += String(vars[name]);
    }
    expression += r.expression.map.text.slice(from);
    const rule: Rule = { action: r.action as Rule['action'], expression };
    if (r.description !== undefined) rule.description = r.description;
    if (r.ref !== undefined) rule.ref = r.ref;
    if (r.id !== undefined) rule.id = r.id;
    if (r.enabled !== undefined) rule.enabled = r.enabled;
    if (r.skipRuleset !== undefined) rule.action_parameters = { ruleset: r.skipRuleset };
    rules.push(rule);
  }
  for (const name of Object.keys(vars)) if (!used.has(name)) problems.push({ ...here(['ruleset', 'vars', name], 'key'), code: 'invalid-test-file', message: `ruleset.vars.${name} is not interpolated by any rule of ${spec.resource}` });
  if (problems.length) return undefined;
  // The rules as Terraform would send them, with the values filled in: errors now come from those values.
  const body = { rules };
  const found = rulesetProblems(body, { lists: suite.lists, serviceToken: suite.serviceToken }).filter((d) => d.severity === 'error' && d.code !== 'simulation-invalid-ruleset');
  for (const d of found) {
    const m = /^\/rules\/(\d+)/.exec(d.pointer ?? '');
    const rule = m ? read.rules[Number(m[1])] : undefined;
    problems.push({ file: tf, text, range: rule?.expression?.range ?? rule?.range ?? read.range, code: d.code, message: `${rule?.label ?? spec.resource}: ${d.message} (with the vars filled in)` });
  }
  if (found.length) return undefined;
  return { source: `${tf} ${spec.resource}`, body, rules: ruleInfos(rules) };
}

/**
 * The base ruleset of a diff case: a JSON ruleset file, or the ruleset under test as it is at a git
 * revision (its JSON file, or its Terraform file with the same resource and vars).
 */
async function loadBase(dir: string, c: DiffCaseSpec, here: (path: Path, part?: 'value' | 'key') => { file: string; text: string; range?: Range }, suite: LoadedSuite, problems: TestProblem[]): Promise<{ source: string; body: { rules: Rule[] } } | undefined> {
  if (typeof c.base === 'string') return jsonRuleset(resolve(dir, c.base), c.base, here([...c.path, 'base']), suite, problems);
  const ruleset = suite.spec.ruleset;
  if (ruleset === undefined) return undefined;
  const rev = c.base.git;
  const file = typeof ruleset === 'string' ? ruleset : ruleset.terraform;
  const shown = `${rev}:${file}`;
  let text: string;
  try {
    text = await gitShow(resolve(dir, file), rev);
  } catch (e) {
    return void problems.push({ ...here([...c.path, 'base', 'git']), code: 'unreadable-file', message: `the ruleset ${file} at ${rev}: ${e instanceof Error ? e.message : String(e)}` });
  }
  return typeof ruleset === 'string' ? jsonRuleset(resolve(dir, file), shown, here([...c.path, 'base']), suite, problems, text) : terraformRulesetOf(dir, ruleset, here, suite, problems, { text, shown });
}

/** A file's text at a git revision (`git show REV:./name`, run in the file's folder); rejects with git's first line. */
function gitShow(path: string, rev: string): Promise<string> {
  return new Promise((done, fail) => {
    execFile('git', ['show', `${rev}:./${basename(path)}`], { cwd: dirname(path), encoding: 'utf8', maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      if (error) fail(new Error(String(stderr || error.message).trim().split('\n')[0]));
      else done(stdout);
    });
  });
}

/** A packet's fields: known to the scheme and of their type. */
function packetProblems(packet: Record<string, unknown>, path: Path, here: (path: Path, part?: 'value' | 'key') => { file: string; text: string; range?: Range }, problems: TestProblem[]): void {
  const names = [...NETWORK_SCHEME.names()];
  for (const name of Object.keys(packet)) {
    if (NETWORK_SCHEME.get(name)) continue;
    const guess = suggest(name, names);
    problems.push({ ...here([...path, name], 'key'), code: 'unknown-field', message: `unknown field ${name}${guess ? `; did you mean ${guess}?` : ''}` });
  }
  const found: Diagnostic[] = [];
  checkPacketValues(packet as Packet, Object.keys(packet), { text: 'the packet', pointer: '' }, found);
  for (const d of found) {
    const field = d.data?.['field'] as string;
    problems.push({ ...here([...path, field]), code: 'invalid-value', message: d.message.replace(/; the field is taken as missing$/, '') });
  }
}

/** A rule selector resolved to an index (null: none), or a problem. */
function selectRule(sel: RuleSelector, rules: readonly RuleInfo[], path: Path, here: (path: Path) => { file: string; text: string; range?: Range }, problems: TestProblem[]): number | null | undefined {
  if (sel === null) return null;
  if (typeof sel === 'number') {
    if (sel < rules.length) return sel;
    problems.push({ ...here(path), code: 'unknown-rule', message: `there is no rule ${sel}: the ruleset has ${rules.length} rule(s), 0 to ${rules.length - 1}` });
    return undefined;
  }
  for (const field of ['ref', 'id', 'description'] as const) {
    const found = rules.filter((r) => r[field] === sel);
    if (found.length === 1) return found[0]!.index;
    if (found.length > 1) {
      problems.push({ ...here(path), code: 'unknown-rule', message: `rules ${found.map((r) => r.index).join(', ')} all have the ${field} ${JSON.stringify(sel)}; name one by index` });
      return undefined;
    }
  }
  const names = rules.flatMap((r) => [r.ref, r.id, r.description].filter((x): x is string => x !== undefined));
  const guess = suggest(sel, names);
  problems.push({ ...here(path), code: 'unknown-rule', message: `no rule has the ref, id or description ${JSON.stringify(sel)}${guess ? `; did you mean ${JSON.stringify(guess)}?` : ''}` });
  return undefined;
}

async function loadFilter(dir: string, doc: TestDocument, f: FilterTestSpec, here: (path: Path, part?: 'value' | 'key') => { file: string; text: string; range?: Range }, problems: TestProblem[]): Promise<LoadedFilter | undefined> {
  let filterText: string | undefined;
  let dataset = f.dataset;
  let source = 'inline';
  // Where a filter diagnostic goes: the file and the range of a range in the filter's text.
  let place: (d: Diagnostic) => TestProblem;
  if (typeof f.filter === 'string') {
    filterText = f.filter;
    const map = doc.stringMap([...f.path, 'filter']);
    place = (d) => ({ ...here([...f.path, 'filter']), ...(map && d.range ? { range: map.toSource(d.range) } : {}), code: d.code, message: d.message });
  } else if (f.filter) {
    filterText = JSON.stringify(f.filter);
    place = (d) => ({ ...here([...f.path, 'filter', ...(d.pointer ?? '').split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')))]), code: d.code, message: d.message });
  } else if (typeof f.job === 'string') {
    source = f.job;
    const text = await readTextFile(resolve(dir, f.job), f.job, here([...f.path, 'job']), 'the Logpush job');
    if (typeof text !== 'string') return void problems.push(text);
    const { doc, errors } = parseJsonText(text, 64);
    const job = doc?.value as { filter?: unknown; dataset?: unknown } | undefined;
    if (!doc || typeof job !== 'object' || job === null || Array.isArray(job)) {
      return void problems.push({ file: f.job, text, range: errors[0]?.range, code: 'invalid-job', message: doc ? 'a Logpush job body is a JSON object' : `not valid JSON: ${errors[0]?.message}` });
    }
    if (typeof job.dataset === 'string') dataset ??= job.dataset;
    if (job.filter !== undefined && job.filter !== null && job.filter !== '') {
      if (typeof job.filter !== 'string') return void problems.push({ file: f.job, text, range: doc.valueRange('/filter'), code: 'invalid-job', message: 'the job\'s "filter" is a string of JSON' });
      filterText = job.filter;
      const range = doc.valueRange('/filter')!;
      const map = decodeJsonString(text, range);
      place = (d) => ({ file: f.job as string, text, range: d.range && map ? map.toSource(d.range) : range, code: d.code, message: d.message });
    } else place = () => ({ file: source, code: 'invalid-job', message: 'unreachable' });
  } else {
    const job = f.job!;
    source = `${job.terraform} ${job.resource}`;
    const text = await readTextFile(resolve(dir, job.terraform), job.terraform, here([...f.path, 'job', 'terraform']), 'the Terraform file');
    if (typeof text !== 'string') return void problems.push(text);
    const extracted = extractTerraform(text);
    const item = extracted.items.find((i): i is TextItem => 'map' in i && i.kind === 'filter' && i.label === `${job.resource}.filter`);
    if (!terraformResources(text, 'cloudflare_logpush_job').includes(job.resource)) {
      const known = terraformResources(text, 'cloudflare_logpush_job');
      const guess = suggest(job.resource, known);
      return void problems.push({ ...here([...f.path, 'job', 'resource']), code: 'invalid-test-file', message: `${job.terraform} has no resource ${job.resource}${guess ? `; did you mean ${guess}?` : ''}` });
    }
    if (item) {
      if (item.holes.length) return void problems.push({ file: job.terraform, text, range: item.holes[0]!.range, code: 'terraform-unknown-value', message: `${item.label} interpolates ${holeName(item.holes[0]!.text)}: rulekit test runs filters written out` });
      filterText = item.map.text;
      dataset ??= item.dataset;
      place = (d) => ({ file: job.terraform, text, range: d.range ? item.map.toSource(d.range) : item.range, code: d.code, message: d.message });
    } else place = () => ({ file: source, code: 'invalid-job', message: 'unreachable' });
  }
  dataset ??= 'http_requests';
  if (!getDataset(dataset)) {
    problems.push({ ...here([...f.path, f.dataset ? 'dataset' : 'name']), code: 'unknown-dataset', message: `unknown dataset ${JSON.stringify(dataset)}` });
    return undefined;
  }
  if (filterText === undefined) return { spec: f, source, dataset };
  const compiled = compileLogFilter(filterText, { dataset });
  const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length || !compiled.filter || !compiled.matcher) {
    for (const d of errors) problems.push(place(d));
    return undefined;
  }
  return { spec: f, source, dataset, filter: compiled.filter, matcher: compiled.matcher };
}
