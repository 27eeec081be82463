/**
 * The semantic diff of two Logpush filters of a dataset: the log lines newly pushed (the new filter
 * keeps them, the old one dropped them) and newly dropped, as conjunctions over the fields the clauses
 * read, each with a witness line both filters are run on (the reference interpreter,
 * src/logpush/filter-eval.ts).
 *
 * A clause on a field the line lacks (or holds as null) is false, `!op` included; on a present value
 * `!op` is `not op` (logpush.md). Exact domains (src/analysis/domains.ts) hold `eq`, `in`, the
 * orderings and their negations on int, string and bool fields; a value of another type than the
 * field's (a numeric string in an int field) is one more value outside every set, so it satisfies every
 * negated clause and no positive one, as the interpreter has it. The rest — `startsWith`, `endsWith`,
 * `contains`, arrays, int-or-string fields — are opaque parts named by the clause: a region that assumes
 * one is unknown.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { checkLogFilter, evaluateLogFilter, OPERATOR_BY_NAME, type FilterClause, type FilterNode, type LogFilter } from '../logpush/index.js';
import { complement, product, TooComplex, MAX_CUBES, type Cube, type Domain, type Interval, type OrderedDomain } from '../analysis/index.js';
import { conditionText } from './cube-text.js';
import type { RegionCondition } from './types.js';

/** A set of log lines whose fate changes: newly pushed, or newly dropped. */
export interface LogFilterRegion {
  kind: 'exact' | 'unknown';
  change: 'pushed' | 'dropped';
  conditions: RegionCondition[];
  /** `ClientCountry "de", EdgeResponseStatus outside {200}: dropped → pushed`. */
  text: string;
  /** A line of the region (exact: the old filter and the new one decide it as `change` says). */
  witness?: Record<string, unknown>;
  assumes?: string[];
  reason?: string;
}

/** The diff of two filters. */
export interface LogFilterDiff {
  dataset: string;
  regions: LogFilterRegion[];
  /** Problems of either filter (`data.side`); with an error there are no regions. */
  diagnostics: Diagnostic[];
}

const INT_MIN = -(1n << 63n);
const INT_MAX = (1n << 63n) - 1n;
/** The key of a value of another type than the field's: above every integer, beside true and false. */
const OTHER_INT = INT_MAX + 1n;
const OTHER_BOOL = 2n;
const INT_UNIVERSE: readonly Interval[] = [[INT_MIN, OTHER_INT]];
const BOOL_UNIVERSE: readonly Interval[] = [[0n, OTHER_BOOL]];
const ATOM: readonly Interval[] = [[0n, 1n]];

const ordered = (values: Interval[], universe: readonly Interval[]): OrderedDomain => ({ kind: 'ordered', values, universe, missing: false });
const atom = (key: string, truth: boolean): Cube => new Map([[`#${key}`, ordered([truth ? [1n, 1n] : [0n, 0n]], ATOM)]]);

/** The domain where a clause's positive operator holds on a present value, or undefined when the domains do not hold it. */
function positiveDomain(c: FilterClause, op: string): Domain | undefined {
  const operands = Array.isArray(c.operand) ? c.operand : [c.operand];
  if (op !== 'eq' && op !== 'in' && op !== 'lt' && op !== 'leq' && op !== 'gt' && op !== 'geq') return undefined;
  if (c.fieldType === 'string' && (op === 'eq' || op === 'in') && operands.every((o) => typeof o === 'string')) {
    return { kind: 'string', cofinite: false, items: new Set(operands as string[]), missing: false };
  }
  if (c.fieldType === 'bool' && op === 'eq' && typeof operands[0] === 'boolean') return ordered([operands[0] ? [1n, 1n] : [0n, 0n]], BOOL_UNIVERSE);
  if (c.fieldType !== 'int' || !operands.every((o) => typeof o === 'number' && Number.isInteger(o))) return undefined;
  if (op === 'eq' || op === 'in') {
    return ordered([...new Set(operands.map((o) => BigInt(o as number)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((k) => [k, k] as Interval), INT_UNIVERSE);
  }
  if (operands.length !== 1) return undefined;
  const v = BigInt(operands[0] as number);
  const values: Interval[] =
    op === 'lt' ? [[INT_MIN, v - 1n]] : op === 'leq' ? [[INT_MIN, v]] : op === 'gt' ? [[v + 1n, INT_MAX]] : [[v, INT_MAX]];
  return ordered(values.filter(([a, b]) => a <= b), INT_UNIVERSE);
}

/** The cubes where a node of a filter is true (`positive`) or false. Throws {@link TooComplex}. */
function filterCubes(n: FilterNode, positive: boolean): Cube[] {
  if (n.kind === 'clause') {
    const info = OPERATOR_BY_NAME.get(n.operator);
    const inner = info ? positiveDomain(n, info.negates ?? n.operator) : undefined;
    if (!info || !inner) return [atom(`${n.key} ${n.operator} ${JSON.stringify(n.value)}`, positive)];
    // True: present, and inside (or, for a negated operator, outside) the positive domain.
    const holds: Domain = info.negates ? { ...complement(inner), missing: false } : inner;
    const d = positive ? holds : complement(holds);
    return [new Map([[n.key, d]])];
  }
  const conj = (n.kind === 'and') === positive;
  if (conj) {
    let acc: Cube[] = [new Map()];
    for (const c of n.children) {
      acc = product(acc, filterCubes(c, positive), false);
      if (!acc.length) break;
    }
    return acc;
  }
  const out = n.children.flatMap((c) => filterCubes(c, positive));
  if (out.length > MAX_CUBES) throw new TooComplex();
  return out;
}

/** The field types of a filter's clauses, by key. */
function fieldTypesOf(filters: readonly LogFilter[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (n: FilterNode): void => {
    if (n.kind === 'clause') out.set(n.key, n.fieldType);
    else n.children.forEach(walk);
  };
  filters.forEach((f) => walk(f.where));
  return out;
}

/** A domain without the key of other types, to print (a value of another type is left unsaid). */
function printable(d: Domain): Domain {
  if (d.kind === 'string') return d;
  const bool = d.universe === BOOL_UNIVERSE;
  const top = bool ? 1n : INT_MAX;
  return { ...d, values: d.values.map(([a, b]) => [a, b < top ? b : top] as Interval).filter(([a, b]) => a <= b), universe: bool ? ATOM : [[INT_MIN, INT_MAX]] };
}

/** Ranges that run to either end of the integers written as orderings: `>= 400` for `400..9223372036854775807`. */
function openEnds(text: string): string {
  return text.replace(new RegExp(`(-?\\d+)\\.\\.${INT_MAX}(?!\\d)`, 'g'), '>= $1').replace(new RegExp(`${INT_MIN}\\.\\.(-?\\d+)`, 'g'), '<= $1');
}

/** A line in the cube, each constrained field given a value of its domain (one of another type when that is all it allows). */
function witnessLine(c: Cube): Record<string, unknown> {
  const line: Record<string, unknown> = {};
  for (const [k, d] of c) {
    if (k.startsWith('#')) continue;
    if (d.kind === 'string') {
      if (!d.cofinite) {
        if (d.items.size) line[k] = [...d.items].sort()[0];
      } else for (let i = 0; ; i++) if (!d.items.has(`x${i}`)) { line[k] = `x${i}`; break; }
      continue;
    }
    const range = d.values[0];
    if (range === undefined) continue;
    // A range open below gives a value people would write (0, or its top) rather than the least integer.
    const first = range[0] === INT_MIN ? (range[1] >= 0n ? 0n : range[1]) : range[0];
    if (d.universe === BOOL_UNIVERSE) line[k] = first === OTHER_BOOL ? 'other' : first === 1n;
    else line[k] = first === OTHER_INT ? 'other' : Number(first < -(2n ** 53n) ? -(2n ** 53n) : first > 2n ** 53n ? 2n ** 53n : first);
  }
  return line;
}

/** Whether a log line lies in a cube on its fields (opaque parts not looked at). */
function lineInCube(c: Cube, line: Readonly<Record<string, unknown>>): boolean {
  for (const [k, d] of c) {
    if (k.startsWith('#')) continue;
    const v = line[k];
    if (v === undefined || v === null) {
      if (!d.missing) return false;
      continue;
    }
    if (d.kind === 'string') {
      if (typeof v === 'string' ? d.items.has(v) === d.cofinite : !d.cofinite) return false;
      continue;
    }
    const key = d.universe === BOOL_UNIVERSE ? (typeof v === 'boolean' ? (v ? 1n : 0n) : OTHER_BOOL) : typeof v === 'number' ? (Number.isInteger(v) ? BigInt(v) : undefined) : OTHER_INT;
    if (key === undefined || !d.values.some(([a, b]) => a <= key && key <= b)) return false;
  }
  return true;
}

const regionCubes = new WeakMap<LogFilterRegion, Cube | null>();

/** The cube of a region (null: filters too large to split, every line); undefined for a region this module did not make. */
export function logRegionCube(region: LogFilterRegion): Cube | null | undefined {
  return regionCubes.get(region);
}

/**
 * Whether a log line lies in a region as far as its fields tell (the opaque parts it assumes are not
 * looked at; a region too large to split holds every line). False for a region this module did not make.
 */
export function logRegionContains(region: LogFilterRegion, line: unknown): boolean {
  const cube = regionCubes.get(region);
  if (cube === undefined || line === null || typeof line !== 'object') return false;
  return cube === null || lineInCube(cube, line as Record<string, unknown>);
}

/**
 * The lines two filters of a dataset push differently. An empty filter (`''`) is that of a job without
 * one: it pushes every line. Never throws; a filter with errors gives its diagnostics (with `data.side`)
 * and no regions.
 *
 * ```ts
 * diffLogFilters('{"where":{"key":"ClientCountry","operator":"eq","value":"de"}}',
 *   '{"where":{"key":"ClientCountry","operator":"in","value":["de","fr"]}}', 'http_requests').regions[0].text;
 * // 'ClientCountry "fr": dropped → pushed'
 * ```
 */
export function diffLogFilters(oldFilter: string, newFilter: string, dataset: string): LogFilterDiff {
  // An empty filter is a job without one, which pushes every line (`null` below).
  const read = (text: string) => (text.trim() === '' ? { filter: null, diagnostics: [] } : checkLogFilter(text, { dataset }));
  const sides = { old: read(oldFilter), new: read(newFilter) };
  const diagnostics = (['old', 'new'] as const).flatMap((side) => sides[side].diagnostics.map((d) => ({ ...d, data: { ...d.data, side } })));
  const o = sides.old.filter;
  const n = sides.new.filter;
  if (o === undefined || n === undefined) return { dataset, regions: [], diagnostics };
  const cubesOf = (f: LogFilter | null, positive: boolean): Cube[] => (f ? filterCubes(f.where, positive) : positive ? [new Map()] : []);
  const pushes = (f: LogFilter | null, line: Record<string, unknown>) => (f ? evaluateLogFilter(f, line) : true);
  const types = fieldTypesOf([o, n].filter((f): f is LogFilter => f !== null));
  const regions: LogFilterRegion[] = [];
  for (const change of ['pushed', 'dropped'] as const) {
    let cubes: Cube[];
    try {
      cubes = change === 'pushed' ? product(cubesOf(o, false), cubesOf(n, true), false) : product(cubesOf(o, true), cubesOf(n, false), false);
    } catch (e) {
      if (!(e instanceof TooComplex)) throw e;
      const region: LogFilterRegion = { kind: 'unknown', change, conditions: [], text: '', reason: 'the filters are too large to split into regions' };
      region.text = `some lines: ${change === 'pushed' ? 'dropped → pushed' : 'pushed → dropped'} (unknown: ${region.reason})`;
      regionCubes.set(region, null);
      regions.push(region);
      continue;
    }
    for (const cube of cubes) {
      if ([...cube].some(([k, d]) => k.startsWith('#') && d.kind === 'ordered' && !d.values.length)) continue;
      const conditions: RegionCondition[] = [];
      const assumes: string[] = [];
      for (const [k, d] of cube) {
        if (k.startsWith('#')) assumes.push(`${k.slice(1)} is ${d.kind === 'ordered' && d.values.some(([a]) => a === 1n) ? 'true' : 'false'}`);
        else {
          const t = types.get(k);
          const text = conditionText(k, printable(d), t === 'int' ? 'Int' : t === 'bool' ? 'Bool' : 'String');
          if (text !== undefined) conditions.push({ field: k, text: t === 'int' ? openEnds(text) : text });
        }
      }
      const witness = witnessLine(cube);
      const region: LogFilterRegion = { kind: 'exact', change, conditions, text: '', witness };
      if (assumes.length) Object.assign(region, { kind: 'unknown', assumes, reason: `it depends on what the analysis does not decide: ${assumes.join('; ')}` });
      else if (pushes(o, witness) !== (change === 'dropped') || pushes(n, witness) !== (change === 'pushed')) {
        Object.assign(region, { kind: 'unknown', reason: 'the filters do not decide its witness as the analysis says' });
      }
      const where = conditions.length ? conditions.map((c) => c.text).join(', ') : 'every line';
      region.text = `${where}: ${change === 'pushed' ? 'dropped → pushed' : 'pushed → dropped'}${region.kind === 'unknown' ? ` (unknown: ${region.assumes ? `assuming ${region.assumes.join(' and ')}` : region.reason})` : ''}`;
      regionCubes.set(region, cube);
      regions.push(region);
    }
  }
  regions.sort((x, y) => (x.kind === y.kind ? 0 : x.kind === 'exact' ? -1 : 1));
  return { dataset, regions, diagnostics };
}
