/**
 * Running a loaded test file: each packet through the ruleset's simulation (the same `simulate` as
 * `rulekit simulate`), each capture (or other traffic file `simulate` reads: NDJSON, Logpush lines, Parquet,
 * gzip-compressed or not) through `runSimulation` on this thread, each log line through the
 * compiled filter. Every case gets its checks (expected against actual) and a trace a reader can follow:
 * the rules tried in order — matched or not, the one that decided — or the per-rule figures of a
 * capture, or the regions of a diff against the base ruleset, or the filter's clauses with the one that
 * decided.
 * @module
 */
import { simulate, type SimulationSummary } from '../engine/index.js';
import { runSimulation } from '../simulation/index.js';
import { diffRulesets, diffSummary, type DiffRegion, type RulesetDiff } from '../diff/index.js';
import type { Range } from '../diagnostics/index.js';
import { SourceText } from '../diagnostics/index.js';
import { renderFilterExplanation, type FilterExplanation } from '../logpush/index.js';
import { decideLine, reasonText } from './logfilter.js';
import { key, type LoadedSuite, type RuleInfo } from './load.js';
import type { Path } from './document.js';
import type { DiffFigure } from './spec.js';

/** One expectation of a case, compared. */
export interface CaseCheck {
  /** `verdict`, `rule`, `packets`, `rules[telnet].decided`, `kept`… */
  what: string;
  expected: string;
  actual: string;
  ok: boolean;
  /** Where the expectation is written in the test file (1-based line and column). */
  line?: number;
  column?: number;
}

/** A rule as tried for a packet. */
export interface TraceStep {
  index: number;
  rule: string;
  action: string;
  expression: string;
  /** `disabled` rules are passed over; rules after the deciding one are not tried (not listed). */
  result: 'matched' | 'not matched' | 'disabled';
  decided: boolean;
}

/** The result of one case. */
export interface CaseResult {
  name: string;
  kind: 'packet' | 'capture' | 'diff' | 'line';
  /** For log lines: the filter test they belong to. */
  group?: string;
  ok: boolean;
  checks: CaseCheck[];
  /** The case in the test file (1-based). */
  line: number;
  column: number;
  /** Readable trace, one line each. */
  trace: string[];
  /** What makes the case's figures less than the service's (rules the lines do not decide): shown passing or not. */
  warnings?: string[];
  /** The trace as data: steps for a packet, the summary for a capture, the explanation for a line. */
  detail: { steps: TraceStep[]; notReached: number } | { summary: SimulationSummary } | { diff: RulesetDiff } | { kept: boolean; decidedBy: FilterExplanation[]; explanation: FilterExplanation };
  durationMs: number;
}

/** The results of one test file. */
export interface SuiteResult {
  file: string;
  name: string;
  ruleset?: string;
  cases: CaseResult[];
}

/** A rule as a reader names it: `#1 "telnet and smb"` (ref, else description, else id). */
export function ruleLabel(r: RuleInfo | undefined): string {
  if (!r) return 'none (allowed by default)';
  const name = r.ref ?? r.description ?? r.id;
  return name === undefined ? `#${r.index}` : `#${r.index} ${JSON.stringify(name)}`;
}

/** Run every case of a loaded test file. */
export async function runSuite(suite: LoadedSuite): Promise<SuiteResult> {
  const text = new SourceText(suite.text);
  const position = (path: Path): { line: number; column: number } => {
    const r: Range | undefined = suite.doc.locate(path);
    const p = text.position(r?.start ?? 0);
    return { line: p.line, column: p.column + 1 };
  };
  const out: SuiteResult = { file: suite.file, name: suite.name, cases: [] };
  const rs = suite.ruleset;
  if (rs) out.ruleset = rs.source;
  const options = { lists: suite.lists, geoip: suite.geoip, serviceToken: suite.serviceToken };

  for (const [i, c] of suite.spec.cases.entries()) {
    const started = performance.now();
    const at = position(c.path);
    if (c.kind === 'packet') {
      const r = simulate(rs!.body, [c.packet], options).results[0]!;
      const checks: CaseCheck[] = [];
      if (c.verdict !== undefined) checks.push({ what: 'verdict', expected: c.verdict, actual: r.verdict, ok: c.verdict === r.verdict, ...position([...c.path, 'verdict']) });
      if (c.rule !== undefined) {
        const want = suite.selectors.get(key([...c.path, 'rule']));
        const got = r.decidedBy?.index ?? null;
        checks.push({ what: 'rule', expected: ruleLabel(want === null || want === undefined ? undefined : rs!.rules[want]), actual: ruleLabel(got === null ? undefined : rs!.rules[got]), ok: want === got, ...position([...c.path, 'rule']) });
      }
      const decided = r.decidedBy?.index;
      const matched = new Set(r.matched);
      const steps: TraceStep[] = [];
      for (const rule of rs!.rules) {
        if (decided !== undefined && rule.index > decided) break;
        if (rule.action !== 'skip' && rule.action !== 'block') continue;
        steps.push({ index: rule.index, rule: ruleLabel(rule), action: rule.action, expression: rule.expression, result: !rule.enabled ? 'disabled' : matched.has(rule.index) ? 'matched' : 'not matched', decided: rule.index === decided });
      }
      const notReached = decided === undefined ? 0 : rs!.rules.length - decided - 1;
      const trace = steps.map((s) => `${s.rule} ${s.action}: ${s.result}${s.decided ? `, decided: ${r.verdict}` : s.result === 'matched' && s.action === 'skip' ? ' (skip without ruleset "current": evaluation goes on)' : ''}  [${oneLine(s.expression)}]`);
      if (decided === undefined) trace.push(`no rule decided: allowed by default`);
      else if (notReached) trace.push(`${notReached} later rule(s) not tried`);
      out.cases.push({ name: c.name, kind: 'packet', ok: checks.every((x) => x.ok), checks, ...at, trace, detail: { steps, notReached }, durationMs: performance.now() - started });
    } else if (c.kind === 'diff') {
      const base = suite.bases.get(i)!;
      const diff = diffRulesets(base.body, rs!.body, { lists: suite.lists, serviceToken: suite.serviceToken });
      const s = diffSummary([diff]);
      const figures: Record<DiffFigure, { count: number; holds: (r: DiffRegion) => boolean }> = {
        regions: { count: s.regions, holds: () => true },
        'blocks-added': { count: s.blocksAdded, holds: (r) => r.new.verdict === 'block' && r.old.verdict !== 'block' },
        'allows-added': { count: s.allowsAdded, holds: (r) => r.new.verdict === 'allow' && r.old.verdict !== 'allow' },
        unknown: { count: s.unknown, holds: (r) => r.kind === 'unknown' },
      };
      const regionsText = (n: number) => (n === 0 ? 'none' : `${n} region(s)`);
      const checks: CaseCheck[] = c.expect.map((e) => {
        const f = figures[e.figure];
        // The first region of the figure is named, so a failure says what changed without the trace.
        const first = f.count !== e.regions ? diff.regions.find(f.holds) : undefined;
        return { what: e.figure, expected: regionsText(e.regions), actual: `${regionsText(f.count)}${first ? ` (${first.text})` : ''}`, ok: f.count === e.regions, ...position(e.path) };
      });
      const trace = [`against ${base.source}: ${s.regions ? `${s.regions} region(s) of ${diff.unit}s that change (${s.exact} exact, ${s.unknown} unknown)` : `no ${diff.unit} changes`}`];
      for (const r of diff.regions) trace.push(`${r.kind === 'exact' ? '=' : '?'} ${r.text}${r.kind === 'exact' && r.witness ? `  witness ${JSON.stringify(r.witness)}` : r.reason ? `  (unknown: ${r.reason})` : ''}`);
      for (const d of diff.diagnostics) trace.push(`${d.severity}: ${d.message} [${d.code}]`);
      out.cases.push({ name: c.name, kind: 'diff', ok: checks.every((x) => x.ok), checks, ...at, trace, detail: { diff }, durationMs: performance.now() - started });
    } else {
      const report = await runSimulation(rs!.body as Parameters<typeof runSimulation>[0], suite.captures.get(i)!, { ...options, threads: 0, examplesPerRule: 0, inputName: c.capture });
      const s = report.summary;
      const checks: CaseCheck[] = [];
      const inputErrors = report.diagnostics.filter((d) => d.severity === 'error');
      if (inputErrors.length) checks.push({ what: 'capture', expected: 'a readable capture', actual: inputErrors.map((d) => d.message).join('; '), ok: false, ...position([...c.path, 'capture']) });
      // Rules the lines do not decide (Logpush lines lack a field they read): a figure they could change is
      // not known from these lines, so asserting it fails rather than passing on what the logs cannot tell.
      const missing = report.diagnostics.filter((x) => x.code === 'http-logpush-missing-field');
      const undecided = [...new Set(missing.map((d) => Number(d.data?.['rule'])))].filter(Number.isInteger);
      const firstUndecided = undecided.length ? Math.min(...undecided) : undefined;
      const notDecided = (actual: number) => `${actual}, but rule(s) ${undecided.map((u) => ruleLabel(rs!.rules[u])).join(', ')} are not decided over these lines (see the warning)`;
      const figure = (what: keyof typeof c.counts & string, actual: number) => {
        const expected = c.counts[what as 'packets'];
        if (expected === undefined) return;
        const open = firstUndecided !== undefined && what !== 'packets';
        checks.push({ what, expected: String(expected), actual: open ? notDecided(actual) : String(actual), ok: !open && expected === actual, ...position([...c.path, 'counts', what]) });
      };
      figure('packets', s.packets);
      figure('allow', s.verdicts.allow);
      figure('block', s.verdicts.block);
      figure('defaultAllowed', s.defaultAllowed);
      for (const r of c.counts.rules) {
        const index = suite.selectors.get(key([...r.path, 'rule']))!;
        const rule = s.rules[index];
        for (const what of ['matched', 'decided'] as const) {
          const expected = r[what];
          if (expected === undefined) continue;
          const actual = rule?.[what] ?? 0;
          // A rule after one the lines do not decide may lose lines to it on the service.
          const open = firstUndecided !== undefined && index >= firstUndecided;
          checks.push({ what: `rule ${ruleLabel(rs!.rules[index])} ${what}`, expected: String(expected), actual: open ? notDecided(actual) : String(actual), ok: !open && expected === actual, ...position([...r.path, what]) });
        }
      }
      const trace = s.rules.map((r) => `${ruleLabel(rs!.rules[r.index])} ${r.action}${r.enabled ? '' : ' (disabled)'}: matched ${r.matched}, decided ${r.decided}`);
      trace.push(`packets ${s.packets}: allow ${s.verdicts.allow}, block ${s.verdicts.block}, allowed by default ${s.defaultAllowed}`);
      // Rules the logs cannot decide (a field no Logpush line carries) are named: their figures are not the service's.
      for (const d of missing) trace.push(`${d.severity}: ${d.message} [${d.code}]`);
      const warnings = missing.map((d) => `${d.severity}: ${d.message} [${d.code}]`);
      out.cases.push({ name: c.name, kind: 'capture', ok: checks.every((x) => x.ok), checks, ...at, trace, ...(warnings.length ? { warnings } : {}), detail: { summary: s }, durationMs: performance.now() - started });
    }
  }

  for (const f of suite.filters) {
    for (const [j, l] of f.spec.lines.entries()) {
      const started = performance.now();
      const d = decideLine(f.filter, f.matcher, l.line);
      const shown = (k: boolean) => (k ? 'kept' : 'dropped');
      const checks: CaseCheck[] = [{ what: 'kept', expected: shown(l.kept), actual: shown(d.kept), ok: l.kept === d.kept, ...position([...l.path, 'kept']) }];
      const trace = [`${shown(d.kept)}: ${reasonText(d)}`, ...(f.filter ? renderFilterExplanation(d.explanation).split('\n') : [])];
      out.cases.push({
        name: `${f.spec.name} › ${l.name ?? `line ${j + 1}`}`,
        kind: 'line',
        group: f.spec.name,
        ok: checks[0]!.ok,
        checks,
        ...position(l.path),
        trace,
        detail: { kept: d.kept, decidedBy: d.decidedBy, explanation: d.explanation },
        durationMs: performance.now() - started,
      });
    }
  }
  return out;
}

const oneLine = (s: string) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
};

