/**
 * Reports of `rulekit test`: readable text (failures with expected vs actual and the trace; `verbose`
 * adds the trace of passing cases), JSON (everything), JUnit XML (one testsuite per test file, one
 * testcase per case, the trace in the failure's body) and GitHub workflow annotations (one per failed
 * expectation, at its line in the test file). Problems that keep files from running are rendered
 * `file:line:col: error[code]: message` with the line and a caret, or as annotations.
 * @module
 */
import { renderDiagnostic, SourceText } from '../diagnostics/index.js';
import type { TestProblem } from './load.js';
import type { CaseResult, SuiteResult } from './run.js';

/** The formats of `rulekit test`. */
export const TEST_FORMATS = ['text', 'json', 'junit', 'github'] as const;
/** A format of `rulekit test`. */
export type TestFormat = (typeof TEST_FORMATS)[number];

/** Options of {@link formatResults}. */
export interface TestReportOptions {
  /** Text: show the trace of passing cases too. */
  verbose?: boolean;
  /** Text: colour (ANSI). */
  color?: boolean;
  /** JSON and JUnit: leave out durations (stable output for golden files). */
  noTimes?: boolean;
}

/** Totals of a run. */
export function totals(suites: readonly SuiteResult[]): { files: number; cases: number; passed: number; failed: number } {
  const cases = suites.flatMap((s) => s.cases);
  const failed = cases.filter((c) => !c.ok).length;
  return { files: suites.length, cases: cases.length, passed: cases.length - failed, failed };
}

/** Render a run in a format. */
export function formatResults(format: TestFormat, suites: readonly SuiteResult[], options: TestReportOptions = {}): string {
  switch (format) {
    case 'text': return formatText(suites, options);
    case 'json': return formatJson(suites, options);
    case 'junit': return formatJunit(suites, options);
    case 'github': return formatGithub(suites);
  }
}

function formatText(suites: readonly SuiteResult[], options: TestReportOptions): string {
  const paint = (code: string, s: string) => (options.color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const lines: string[] = [];
  for (const s of suites) {
    lines.push(`${s.file}${s.name !== s.file ? ` (${s.name})` : ''}${s.ruleset ? ` — ruleset ${s.ruleset}` : ''}`);
    for (const c of s.cases) {
      lines.push(`  ${c.ok ? paint('32', '✓') : paint('31', '✗')} ${c.name}${c.ok ? '' : `  ${s.file}:${c.line}:${c.column}`}`);
      if (!c.ok) {
        const width = Math.max(...c.checks.filter((x) => !x.ok).map((x) => x.what.length));
        for (const x of c.checks.filter((x) => !x.ok)) lines.push(`      ${`${x.what}:`.padEnd(width + 1)} expected ${x.expected}, got ${x.actual}`);
      }
      for (const w of c.warnings ?? []) lines.push(`      ${paint('33', w)}`);
      if (!c.ok || options.verbose) {
        lines.push(`      trace:`);
        // The warnings are shown above already.
        for (const t of c.trace) if (!c.warnings?.includes(t)) lines.push(`        ${t}`);
      }
    }
    lines.push('');
  }
  const t = totals(suites);
  lines.push(`${t.cases} case(s) in ${t.files} file(s): ${paint(t.failed ? '31' : '32', `${t.passed} passed, ${t.failed} failed`)}`);
  return lines.join('\n') + '\n';
}

function formatJson(suites: readonly SuiteResult[], options: TestReportOptions): string {
  const t = totals(suites);
  const strip = (c: CaseResult) => (options.noTimes ? { ...c, durationMs: undefined } : { ...c, durationMs: Math.round(c.durationMs * 1000) / 1000 });
  return JSON.stringify({ ok: t.failed === 0, ...t, suites: suites.map((s) => ({ ...s, cases: s.cases.map(strip) })) }, null, 2) + '\n';
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

function formatJunit(suites: readonly SuiteResult[], options: TestReportOptions): string {
  const t = totals(suites);
  const time = (ms: number) => (options.noTimes ? '' : ` time="${(ms / 1000).toFixed(3)}"`);
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites name="rulekit test" tests="${t.cases}" failures="${t.failed}" errors="0">`];
  for (const s of suites) {
    const failures = s.cases.filter((c) => !c.ok).length;
    const total = s.cases.reduce((n, c) => n + c.durationMs, 0);
    out.push(`  <testsuite name="${xml(s.name)}" tests="${s.cases.length}" failures="${failures}" errors="0" skipped="0"${time(total)} file="${xml(s.file)}">`);
    for (const c of s.cases) {
      const open = `    <testcase classname="${xml(s.file)}" name="${xml(c.name)}" file="${xml(s.file)}" line="${c.line}"${time(c.durationMs)}`;
      if (c.ok) {
        out.push(`${open}/>`);
        continue;
      }
      const failed = c.checks.filter((x) => !x.ok);
      const message = failed.map((x) => `${x.what}: expected ${x.expected}, got ${x.actual}`).join('; ');
      const body = [...failed.map((x) => `${s.file}:${x.line ?? c.line}:${x.column ?? c.column}: ${x.what}: expected ${x.expected}, got ${x.actual}`), 'trace:', ...c.trace.map((l) => `  ${l}`)].join('\n');
      out.push(`${open}>`, `      <failure type="${c.kind === 'line' ? 'kept' : failed[0]!.what.split(' ')[0]}" message="${xml(message)}">${xml(body)}</failure>`, `    </testcase>`);
    }
    out.push(`  </testsuite>`);
  }
  out.push(`</testsuites>`);
  return out.join('\n') + '\n';
}

/** Escapes of workflow command data and properties. */
const ghData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const ghProp = (s: string) => ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function formatGithub(suites: readonly SuiteResult[]): string {
  const lines: string[] = [];
  for (const s of suites) {
    for (const c of s.cases) {
      for (const x of c.checks.filter((x) => !x.ok)) {
        lines.push(`::error file=${ghProp(s.file)},line=${x.line ?? c.line},col=${x.column ?? c.column},title=${ghProp(`rulekit test: ${c.name}`)}::${ghData(`${x.what}: expected ${x.expected}, got ${x.actual}\ntrace:\n${c.trace.map((l) => `  ${l}`).join('\n')}`)}`);
      }
    }
  }
  const t = totals(suites);
  lines.push(`${t.cases} case(s) in ${t.files} file(s): ${t.passed} passed, ${t.failed} failed`);
  return lines.join('\n') + '\n';
}

/** Problems that keep test files from running: compiler-style lines, or GitHub annotations. */
export function formatProblems(problems: readonly TestProblem[], format: TestFormat): string {
  if (format === 'github') {
    return problems
      .map((p) => {
        const pos = p.text !== undefined && p.range ? new SourceText(p.text).position(p.range.start) : undefined;
        return `::error file=${ghProp(p.file)}${pos ? `,line=${pos.line},col=${pos.column + 1}` : ''},title=${ghProp(`rulekit test ${p.code}`)}::${ghData(p.message)}`;
      })
      .join('\n') + '\n';
  }
  return problems.map((p) => (p.text !== undefined && p.range ? renderDiagnostic(p.text, { code: p.code, severity: 'error', message: p.message, range: p.range }, p.file) : `${p.file}: error[${p.code}]: ${p.message}`)).join('\n') + '\n';
}
