/**
 * The test file format of `rulekit test` and its validation. The format is published as a JSON Schema
 * (docs/schemas/rulekit-test.schema.json) for editors; this module checks the same rules by hand so that
 * each problem gets a sentence and a position (the nearest key or value) rather than a schema keyword,
 * and unknown keys a did-you-mean. test/ruletest holds both to the same examples and counter-examples.
 * @module
 */
import { suggest, type Range } from '../diagnostics/index.js';
import type { Path, TestDocument } from './document.js';

/** A rule as a test names it: index (0-based), ref, id or description; null: none decided. */
export type RuleSelector = number | string | null;

/** A ruleset given as a Terraform resource. */
export interface TerraformRulesetSpec {
  terraform: string;
  resource: string;
  vars?: Record<string, string | number | boolean>;
}

/** A packet and what the ruleset should do with it. */
export interface PacketCaseSpec {
  kind: 'packet';
  name: string;
  packet: Record<string, string | number | boolean>;
  verdict?: 'allow' | 'block';
  /** Present (possibly null) when the deciding rule is expected. */
  rule?: RuleSelector;
  path: Path;
}

/** Expected per-rule figures of a capture. */
export interface RuleCountSpec {
  rule: number | string;
  matched?: number;
  decided?: number;
  path: Path;
}

/** A capture and the figures its simulation should give. */
export interface CaptureCaseSpec {
  kind: 'capture';
  name: string;
  capture: string;
  counts: { packets?: number; allow?: number; block?: number; defaultAllowed?: number; rules: RuleCountSpec[] };
  path: Path;
}

/** The figures of a diff a case can expect, by the name the test file gives them. */
export const DIFF_FIGURES = ['regions', 'blocks-added', 'allows-added', 'unknown'] as const;
/** A figure of a diff: regions that change, that block what was allowed, that allow what was blocked, that are unknown. */
export type DiffFigure = (typeof DIFF_FIGURES)[number];

/** The words a diff case may give instead of figures, and the figure each sets to none. */
export const DIFF_SHORTHANDS = { 'no-change': 'regions', 'no-unblock': 'allows-added', 'no-new-blocks': 'blocks-added' } as const satisfies Record<string, DiffFigure>;

/**
 * A diff of the ruleset under test against a base ruleset, and the figures expected of it: each a number
 * of regions (`none` is 0). The base is a JSON ruleset file, or the ruleset under test as it is at a git
 * revision.
 */
export interface DiffCaseSpec {
  kind: 'diff';
  name: string;
  base: string | { git: string };
  /** Expected figures; `path` is where each is written (the shorthand's place for a shorthand). */
  expect: { figure: DiffFigure; regions: number; path: Path }[];
  path: Path;
}

/** One log line and whether the filter keeps it. */
export interface FilterLineSpec {
  name?: string;
  line: Record<string, unknown>;
  kept: boolean;
  path: Path;
}

/** A Logpush filter (inline or a job's) and lines it must keep or drop. */
export interface FilterTestSpec {
  name: string;
  filter?: string | Record<string, unknown>;
  job?: string | { terraform: string; resource: string };
  dataset?: string;
  lines: FilterLineSpec[];
  path: Path;
}

/** A valid test file. */
export interface TestFileSpec {
  name?: string;
  ruleset?: string | TerraformRulesetSpec;
  lists?: string | Record<string, string[]>;
  geoip?: string;
  serviceToken?: string;
  cases: (PacketCaseSpec | CaptureCaseSpec | DiffCaseSpec)[];
  filters: FilterTestSpec[];
}

/** A problem of a test file: a sentence and where. */
export interface SpecProblem {
  message: string;
  range?: Range;
}

const TOP = ['$schema', 'name', 'ruleset', 'lists', 'geoip', 'serviceToken', 'cases', 'filters'];
const TF_RULESET = ['terraform', 'resource', 'vars'];
const PACKET_CASE = ['name', 'packet', 'verdict', 'rule'];
const CAPTURE_CASE = ['name', 'capture', 'counts'];
const DIFF_CASE = ['name', 'base', 'diff'];
const COUNTS = ['packets', 'allow', 'block', 'defaultAllowed', 'rules'];
const RULE_COUNT = ['rule', 'matched', 'decided'];
const FILTER_TEST = ['name', 'filter', 'job', 'dataset', 'lines'];
const TF_JOB = ['terraform', 'resource'];
const LINE = ['name', 'line', 'kept'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const what = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : typeof v === 'string' ? `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}` : `${typeof v} ${String(v)}`);
const where = (path: Path) => path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '') || 'the file';

/**
 * The checks of one test file's values, each reporting what it finds at its path in the file (every
 * problem, so that one run shows them all).
 */
class SpecChecks {
  readonly problems: SpecProblem[] = [];

  constructor(private readonly doc: TestDocument) {}

  problem(path: Path, message: string, part: 'value' | 'key' = 'value'): void {
    this.problems.push({ message, range: this.doc.locate(path, part) });
  }

  /** An object whose keys are all in `known` (an unknown key names the nearest known one). */
  object(v: unknown, path: Path, known: readonly string[], what_: string): v is Record<string, unknown> {
    if (!isObject(v)) {
      this.problem(path, `${where(path)} must be ${what_}, not ${what(v)}`);
      return false;
    }
    for (const k of Object.keys(v)) {
      if (known.includes(k)) continue;
      const guess = suggest(k, known);
      this.problem([...path, k], `unknown key ${JSON.stringify(k)} in ${where(path)}${guess ? `; did you mean ${guess}?` : ` (known: ${known.join(', ')})`}`, 'key');
    }
    return true;
  }

  /** A non-empty string; an absent optional one is no problem (and not a string). */
  string(v: unknown, path: Path, optional = true): v is string {
    if (v === undefined && optional) return false;
    if (typeof v !== 'string' || v === '') {
      this.problem(path, v === undefined ? `${where(path.slice(0, -1))} needs "${path[path.length - 1]}"` : `${where(path)} must be a non-empty string, not ${what(v)}`);
      return false;
    }
    return true;
  }

  /** A whole number 0 or more, or absent. */
  count(v: unknown, path: Path): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) this.problem(path, `${where(path)} must be a whole number 0 or more, not ${what(v)}`);
    return v as number;
  }

  /** A rule named by index, ref, id or description (or null for none, where that is allowed). */
  ruleSelector(v: unknown, path: Path, allowNull: boolean): void {
    if ((typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && v !== '') || (v === null && allowNull)) return;
    this.problem(path, `${where(path)} names a rule by index (0, 1, …)${allowNull ? ', ref, id or description, or null for none' : ', ref, id or description'}; not ${what(v)}`);
  }
}

/**
 * Validate a parsed test file: the problems (all of them) and the spec of its valid parts — a case or
 * filter test with a problem is left out of it — so that the loader can check those parts further.
 */
export function validateTestFile(doc: TestDocument): { spec?: TestFileSpec; problems: SpecProblem[] } {
  const check = new SpecChecks(doc);
  const { problems } = check;
  const v = doc.value;
  if (!check.object(v, [], TOP, 'an object with "ruleset" and "cases", or "filters"')) return { problems };
  const spec: TestFileSpec = { cases: [], filters: [] };
  if (v.$schema !== undefined) check.string(v.$schema, ['$schema']);
  if (check.string(v.name, ['name'])) spec.name = v.name;
  if (v.ruleset !== undefined) {
    const ruleset = rulesetSpec(v.ruleset, check);
    if (ruleset !== undefined) spec.ruleset = ruleset;
  }
  if (v.lists !== undefined) {
    const lists = listsSpec(v.lists, check);
    if (lists !== undefined) spec.lists = lists;
  }
  if (check.string(v.geoip, ['geoip'])) spec.geoip = v.geoip;
  if (check.string(v.serviceToken, ['serviceToken'])) spec.serviceToken = v.serviceToken;

  if (v.cases !== undefined) {
    if (!Array.isArray(v.cases)) check.problem(['cases'], `cases must be a list of cases, not ${what(v.cases)}`);
    else {
      if (v.ruleset === undefined) check.problem(['cases'], 'cases need a ruleset: give "ruleset" (a JSON body path, or {terraform, resource})', 'key');
      v.cases.forEach((c: unknown, i) => {
        const path = ['cases', i];
        const before = problems.length;
        const found = caseSpec(c, path, check);
        if (found && problems.length === before) spec.cases.push(found);
      });
    }
  }

  if (v.filters !== undefined) {
    if (!Array.isArray(v.filters)) check.problem(['filters'], `filters must be a list of filter tests, not ${what(v.filters)}`);
    else
      v.filters.forEach((f: unknown, i) => {
        const path = ['filters', i];
        const before = problems.length;
        const found = filterTestSpec(f, path, check);
        if (found && problems.length === before) spec.filters.push(found);
      });
  }
  if (v.cases === undefined && v.filters === undefined) check.problem([], 'a test file has "cases" (with a "ruleset") or "filters", or both');
  return { spec, problems };
}

/** `ruleset`: a path of a JSON ruleset, or a Terraform resource {terraform, resource, vars}; undefined when it has a problem. */
function rulesetSpec(given: unknown, check: SpecChecks): TestFileSpec['ruleset'] {
  if (typeof given === 'string') return check.string(given, ['ruleset']) ? given : undefined;
  if (!check.object(given, ['ruleset'], TF_RULESET, 'a path of a JSON ruleset, or {terraform, resource}')) return undefined;
  const r = given;
  const ok = check.string(r.terraform, ['ruleset', 'terraform'], false) && check.string(r.resource, ['ruleset', 'resource'], false);
  const before = check.problems.length;
  if (ok && !/^cloudflare_ruleset\.[A-Za-z_][A-Za-z0-9_-]*$/.test(r.resource as string)) check.problem(['ruleset', 'resource'], `ruleset.resource is the address of a cloudflare_ruleset resource (cloudflare_ruleset.NAME), not ${JSON.stringify(r.resource)}`);
  if (r.vars !== undefined) {
    if (!isObject(r.vars)) check.problem(['ruleset', 'vars'], `ruleset.vars must be an object of values ({"var.office_cidr": "198.51.100.0/24"}), not ${what(r.vars)}`);
    else for (const [k, x] of Object.entries(r.vars)) if (!['string', 'number', 'boolean'].includes(typeof x)) check.problem(['ruleset', 'vars', k], `ruleset.vars.${k} must be a string, number or boolean, not ${what(x)}`);
  }
  return ok && check.problems.length === before ? (r as unknown as TerraformRulesetSpec) : undefined;
}

/** `lists`: a path of a JSON file, or an object of lists of strings; undefined when it has a problem. */
function listsSpec(given: unknown, check: SpecChecks): TestFileSpec['lists'] {
  if (typeof given === 'string') return check.string(given, ['lists']) ? given : undefined;
  if (!isObject(given)) {
    check.problem(['lists'], `lists must be a path of a JSON file or an object of lists ({"office": ["198.51.100.0/24"]}), not ${what(given)}`);
    return undefined;
  }
  const before = check.problems.length;
  for (const [k, items] of Object.entries(given)) {
    if (!Array.isArray(items) || !items.every((x) => typeof x === 'string')) check.problem(['lists', k], `lists.${k} must be a list of strings, not ${what(items)}`);
  }
  return check.problems.length === before ? (given as Record<string, string[]>) : undefined;
}

/** One of `cases`: a packet, capture or diff case; undefined when it cannot be read (its problems are reported). */
function caseSpec(c: unknown, path: Path, check: SpecChecks): PacketCaseSpec | CaptureCaseSpec | DiffCaseSpec | undefined {
  if (!isObject(c)) return void check.problem(path, `${where(path)} must be an object with "name" and "packet", "capture" or "diff", not ${what(c)}`);
  if ('capture' in c && 'packet' in c) return void check.problem([...path, 'capture'], `${where(path)} has both "packet" and "capture"; give one`, 'key');
  if (('diff' in c || 'base' in c) && !('packet' in c) && !('capture' in c)) return diffCaseSpec(c, path, check);
  return 'capture' in c ? captureCaseSpec(c, path, check) : packetCaseSpec(c, path, check);
}

/** A case of the ruleset's diff against a base ruleset and the figures expected of it. */
function diffCaseSpec(c: Record<string, unknown>, path: Path, check: SpecChecks): DiffCaseSpec | undefined {
  if (!check.object(c, path, DIFF_CASE, 'an object')) return undefined;
  const before = check.problems.length;
  const name = check.string(c.name, [...path, 'name'], false);
  if (c.base === undefined) check.problem(path, `${where(path)} needs "base": the ruleset the one under test is compared with (a JSON ruleset path, or {git: REV})`);
  else if (typeof c.base === 'string') check.string(c.base, [...path, 'base']);
  else if (check.object(c.base, [...path, 'base'], ['git'], 'a path of a JSON ruleset, or {git: REV}')) {
    const rev = c.base.git;
    if (check.string(rev, [...path, 'base', 'git'], false) && !/^[^-\s][^\s:]*$/.test(rev)) check.problem([...path, 'base', 'git'], `${where(path)}.base.git is a revision (a commit, a branch, HEAD~1), not ${what(rev)}`);
  }
  const expect: DiffCaseSpec['expect'] = [];
  const shorthands = Object.keys(DIFF_SHORTHANDS);
  const d = c.diff;
  if (d === undefined) check.problem(path, `${where(path)} needs "diff": what the diff should hold (${shorthands.join(', ')}, or {${DIFF_FIGURES.join(', ')}})`);
  else if (typeof d === 'string') {
    if (d in DIFF_SHORTHANDS) expect.push({ figure: DIFF_SHORTHANDS[d as keyof typeof DIFF_SHORTHANDS], regions: 0, path: [...path, 'diff'] });
    else {
      const guess = suggest(d, shorthands);
      check.problem([...path, 'diff'], `${where(path)}.diff is ${shorthands.join(', ')} or an object of figures, not ${what(d)}${guess ? `; did you mean ${guess}?` : ''}`);
    }
  } else if (check.object(d, [...path, 'diff'], DIFF_FIGURES, `${shorthands.join(', ')} or an object of figures ({allows-added: none})`)) {
    if (Object.keys(d).length === 0) check.problem([...path, 'diff'], `${where(path)}.diff is empty: give ${DIFF_FIGURES.join(', ')}`);
    for (const figure of DIFF_FIGURES) {
      const v = d[figure];
      if (v === undefined) continue;
      const at = [...path, 'diff', figure];
      if (v === 'none') expect.push({ figure, regions: 0, path: at });
      else if (typeof v === 'number' && Number.isInteger(v) && v >= 0) expect.push({ figure, regions: v, path: at });
      else check.problem(at, `${where(at)} is none or a whole number of regions, not ${what(v)}`);
    }
  }
  if (!name || check.problems.length !== before) return undefined;
  return { kind: 'diff', name: c.name as string, base: c.base as DiffCaseSpec['base'], expect, path };
}

/** A case of a capture file and the counts it should give. */
function captureCaseSpec(c: Record<string, unknown>, path: Path, check: SpecChecks): CaptureCaseSpec | undefined {
  if (!check.object(c, path, CAPTURE_CASE, 'an object')) return undefined;
  const name = check.string(c.name, [...path, 'name'], false);
  const capture = check.string(c.capture, [...path, 'capture'], false);
  const counts = c.counts;
  if (counts === undefined) return void check.problem(path, `${where(path)} needs "counts": the figures the capture should give (packets, allow, block, defaultAllowed, rules)`);
  if (!check.object(counts, [...path, 'counts'], COUNTS, 'an object of expected figures')) return undefined;
  if (Object.keys(counts).length === 0) check.problem([...path, 'counts'], `${where(path)}.counts is empty: give packets, allow, block, defaultAllowed or rules`);
  const out: CaptureCaseSpec['counts'] = { rules: [] };
  for (const k of ['packets', 'allow', 'block', 'defaultAllowed'] as const) {
    const n = check.count(counts[k], [...path, 'counts', k]);
    if (n !== undefined) out[k] = n;
  }
  if (counts.rules !== undefined) {
    if (!Array.isArray(counts.rules)) check.problem([...path, 'counts', 'rules'], `${where([...path, 'counts', 'rules'])} must be a list of {rule, matched, decided}, not ${what(counts.rules)}`);
    else
      counts.rules.forEach((r: unknown, j) => {
        const rp = [...path, 'counts', 'rules', j];
        if (!check.object(r, rp, RULE_COUNT, 'an object {rule, matched, decided}')) return;
        if (r.rule === undefined) return void check.problem(rp, `${where(rp)} needs "rule" (an index, ref, id or description)`);
        check.ruleSelector(r.rule, [...rp, 'rule'], false);
        if (r.matched === undefined && r.decided === undefined) check.problem(rp, `${where(rp)} needs "matched" or "decided"`);
        out.rules.push({ rule: r.rule as number | string, matched: check.count(r.matched, [...rp, 'matched']), decided: check.count(r.decided, [...rp, 'decided']), path: rp });
      });
  }
  return name && capture ? { kind: 'capture', name: c.name as string, capture: c.capture as string, counts: out, path } : undefined;
}

/** A case of one packet's field values and the verdict or deciding rule expected of it. */
function packetCaseSpec(c: Record<string, unknown>, path: Path, check: SpecChecks): PacketCaseSpec | undefined {
  if (!check.object(c, path, PACKET_CASE, 'an object')) return undefined;
  const name = check.string(c.name, [...path, 'name'], false);
  if (c.packet === undefined) return void check.problem(path, `${where(path)} needs "packet" (field values) or "capture" (a capture or other traffic file: NDJSON, Logpush lines, Parquet)`);
  if (!isObject(c.packet)) return void check.problem([...path, 'packet'], `${where(path)}.packet must be an object of field values, not ${what(c.packet)}`);
  for (const [k, x] of Object.entries(c.packet)) {
    if (!['string', 'number', 'boolean'].includes(typeof x)) check.problem([...path, 'packet', k], `${where(path)}.packet.${k} must be a number, string or true/false, not ${what(x)}`);
  }
  if (c.verdict === undefined && !('rule' in c)) check.problem(path, `${where(path)} expects nothing: give "verdict" (allow or block) and/or "rule" (the deciding rule)`);
  if (c.verdict !== undefined && c.verdict !== 'allow' && c.verdict !== 'block') {
    const guess = typeof c.verdict === 'string' ? suggest(c.verdict, ['allow', 'block']) : undefined;
    check.problem([...path, 'verdict'], `${where(path)}.verdict is allow or block, not ${what(c.verdict)}${guess ? `; did you mean ${guess}?` : ''}`);
  }
  if ('rule' in c) check.ruleSelector(c.rule, [...path, 'rule'], true);
  if (!name) return undefined;
  const p: PacketCaseSpec = { kind: 'packet', name: c.name as string, packet: c.packet as PacketCaseSpec['packet'], path };
  if (c.verdict !== undefined) p.verdict = c.verdict as 'allow' | 'block';
  if ('rule' in c) p.rule = c.rule as RuleSelector;
  return p;
}

/** One of `filters`: a Logpush filter (or job) and log lines with whether it keeps each. */
function filterTestSpec(f: unknown, path: Path, check: SpecChecks): FilterTestSpec | undefined {
  if (!check.object(f, path, FILTER_TEST, 'an object with "name", "filter" or "job", and "lines"')) return undefined;
  const name = check.string(f.name, [...path, 'name'], false);
  if (f.filter !== undefined && f.job !== undefined) check.problem([...path, 'job'], `${where(path)} has both "filter" and "job"; give one`, 'key');
  else if (f.filter === undefined && f.job === undefined) check.problem(path, `${where(path)} needs "filter" (the filter's JSON text or document) or "job" (a Logpush job)`);
  if (f.filter !== undefined && typeof f.filter !== 'string' && !(isObject(f.filter) && 'where' in f.filter)) {
    check.problem([...path, 'filter'], `${where(path)}.filter must be the filter's JSON text or a filter document {"where": …}, not ${what(f.filter)}`);
  }
  if (f.job !== undefined && typeof f.job !== 'string' && check.object(f.job, [...path, 'job'], TF_JOB, 'a path of a JSON job body, or {terraform, resource}')) {
    const ok = check.string(f.job.terraform, [...path, 'job', 'terraform'], false) && check.string(f.job.resource, [...path, 'job', 'resource'], false);
    if (ok && !/^cloudflare_logpush_job\.[A-Za-z_][A-Za-z0-9_-]*$/.test(f.job.resource as string)) check.problem([...path, 'job', 'resource'], `job.resource is the address of a cloudflare_logpush_job resource (cloudflare_logpush_job.NAME), not ${JSON.stringify(f.job.resource)}`);
  } else if (typeof f.job === 'string') check.string(f.job, [...path, 'job']);
  if (f.dataset !== undefined) check.string(f.dataset, [...path, 'dataset']);
  const lines: FilterLineSpec[] = [];
  if (f.lines === undefined) check.problem(path, `${where(path)} needs "lines": log lines and whether the filter keeps each`);
  else if (!Array.isArray(f.lines) || f.lines.length === 0) check.problem([...path, 'lines'], `${where(path)}.lines must be a non-empty list of {line, kept}, not ${what(f.lines)}`);
  else
    f.lines.forEach((l: unknown, j) => {
      const lp = [...path, 'lines', j];
      if (!check.object(l, lp, LINE, 'an object {line, kept}')) return;
      if (l.name !== undefined) check.string(l.name, [...lp, 'name']);
      if (!isObject(l.line)) check.problem(l.line === undefined ? lp : [...lp, 'line'], l.line === undefined ? `${where(lp)} needs "line" (the log line's fields)` : `${where(lp)}.line must be an object of log fields, not ${what(l.line)}`);
      if (typeof l.kept !== 'boolean') check.problem(l.kept === undefined ? lp : [...lp, 'kept'], l.kept === undefined ? `${where(lp)} needs "kept": true (the filter keeps the line) or false` : `${where(lp)}.kept is true or false, not ${what(l.kept)}`);
      lines.push({ name: l.name as string | undefined, line: l.line as Record<string, unknown>, kept: l.kept as boolean, path: lp });
    });
  return name ? { name: f.name as string, filter: f.filter as FilterTestSpec['filter'], job: f.job as FilterTestSpec['job'], dataset: f.dataset as string | undefined, lines, path } : undefined;
}
