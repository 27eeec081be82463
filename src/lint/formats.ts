/**
 * The report formats of `rulekit lint`, in the conventions CI already reads: the readable default
 * (file:line:col, severity, code, message, the line with a caret, the fix — src/diagnostics/render.ts,
 * coloured only when asked), JSON, SARIF 2.1.0 (code scanning), GitHub workflow commands (annotations on
 * the pull request) and JUnit XML (test report viewers). Lines and columns are 1-based; columns count
 * UTF-16 code units (SARIF's default `columnKind`). Pure functions of the reports.
 * @module
 */
import { renderDiagnostic, SourceText, type Severity } from '../diagnostics/index.js';
import type { LintDiagnostic } from './check.js';
import type { FileReport } from './run.js';

/** The formats. */
export const LINT_FORMATS = ['text', 'json', 'sarif', 'github', 'junit'] as const;
/** A format name. */
export type LintFormat = (typeof LINT_FORMATS)[number];

/** What the formats need besides the reports. */
export interface FormatOptions {
  /** Findings at or above this severity fail the run (and are JUnit failures). */
  maxSeverity: Severity;
  /** ANSI colour in the text format. */
  color?: boolean;
  /** Tool version for SARIF. */
  version?: string;
  /** Documentation of each code, for SARIF's rule descriptions. */
  codes?: Readonly<Record<string, { severity: Severity; doc: string }>>;
}

const RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1, hint: 0 };

/** True when a diagnostic is at or above the threshold. */
export function atLeast(severity: Severity, threshold: Severity): boolean {
  return RANK[severity] >= RANK[threshold];
}

/** 1-based line and column of both ends of a diagnostic. */
export function lineColumns(src: SourceText, d: LintDiagnostic): { line: number; column: number; endLine: number; endColumn: number } {
  const s = src.position(d.range?.start ?? 0);
  const e = src.position(d.range?.end ?? d.range?.start ?? 0);
  return { line: s.line, column: s.column + 1, endLine: e.line, endColumn: e.column + 1 };
}

/** Counts by severity, and how many `--fix` would fix. */
export function summarize(reports: readonly FileReport[]): { files: number; withProblems: number; errors: number; warnings: number; infos: number; hints: number; fixable: number; fixed: number } {
  const s = { files: reports.length, withProblems: 0, errors: 0, warnings: 0, infos: 0, hints: 0, fixable: 0, fixed: 0 };
  for (const r of reports) {
    if (r.diagnostics.length) s.withProblems++;
    s.fixed += r.fixed.length;
    for (const d of r.diagnostics) {
      if (d.severity === 'error') s.errors++;
      else if (d.severity === 'warning') s.warnings++;
      else if (d.severity === 'info') s.infos++;
      else s.hints++;
      if (d.autofix) s.fixable++;
    }
  }
  return s;
}

/** The readable report. */
export function formatText(reports: readonly FileReport[], options: FormatOptions): string {
  const out: string[] = [];
  for (const r of reports) {
    for (const line of r.fixed) out.push(`fixed ${r.path}:${line}`);
    const src = new SourceText(r.text);
    for (const d of r.diagnostics) out.push(renderDiagnostic(src, d, r.path, { color: options.color }));
  }
  const s = summarize(reports);
  const problems = s.errors + s.warnings + s.infos + s.hints;
  const parts = [`${s.errors} error(s)`, `${s.warnings} warning(s)`, `${s.infos + s.hints} info`];
  out.push(
    `${problems} problem(s) (${parts.join(', ')}) in ${s.withProblems} of ${s.files} file(s)` +
      (s.fixable ? `; ${s.fixable} fixable with --fix` : '') +
      (s.fixed ? `; ${s.fixed} fixed` : ''),
  );
  return out.join('\n') + '\n';
}

/** The JSON report: files with their diagnostics (positions 1-based), and totals. */
export function formatJson(reports: readonly FileReport[], options: FormatOptions): string {
  const files = reports.map((r) => {
    const src = new SourceText(r.text);
    return {
      path: r.path,
      kind: r.kind,
      checked: r.checked.length,
      fixed: r.fixed,
      diagnostics: r.diagnostics.map((d) => {
        const lc = lineColumns(src, d);
        return {
          code: d.code,
          severity: d.severity,
          message: d.message,
          ...(d.where !== undefined ? { where: d.where } : {}),
          ...(d.pointer ? { pointer: d.pointer } : {}),
          ...(d.range ? { range: d.range, ...lc } : {}),
          ...(d.fix ? { fix: { title: d.fix.title, applicable: d.autofix === true, edits: d.fix.edits } } : {}),
          ...(d.data ? { data: d.data } : {}),
        };
      }),
    };
  });
  return JSON.stringify({ files, summary: { ...summarize(reports), maxSeverity: options.maxSeverity } }, null, 2) + '\n';
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note', hint: 'note' };

/** A path as a relative URI reference. */
function uri(path: string): string {
  return path
    .replace(/\\/g, '/')
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** SARIF 2.1.0: one run, the codes as rules, a result per diagnostic with its region and applicable fix. */
export function formatSarif(reports: readonly FileReport[], options: FormatOptions): string {
  const ruleIds: string[] = [];
  const index = new Map<string, number>();
  for (const r of reports) {
    for (const d of r.diagnostics) {
      if (!index.has(d.code)) {
        index.set(d.code, ruleIds.length);
        ruleIds.push(d.code);
      }
    }
  }
  const rules = ruleIds.map((id) => {
    const info = options.codes?.[id];
    return {
      id,
      shortDescription: { text: info?.doc ?? id },
      defaultConfiguration: { level: SARIF_LEVEL[info?.severity ?? 'warning'] },
    };
  });
  const results = reports.flatMap((r) => {
    const src = new SourceText(r.text);
    const artifactLocation = { uri: uri(r.path), uriBaseId: '%SRCROOT%' };
    return r.diagnostics.map((d) => {
      const lc = lineColumns(src, d);
      const region = d.range
        ? { startLine: lc.line, startColumn: lc.column, endLine: lc.endLine, endColumn: lc.endColumn, snippet: { text: src.lineText(lc.line) } }
        : { startLine: 1 };
      const result: Record<string, unknown> = {
        ruleId: d.code,
        ruleIndex: index.get(d.code),
        level: SARIF_LEVEL[d.severity],
        message: { text: d.fix ? `${d.message} (fix: ${d.fix.title})` : d.message },
        locations: [{ physicalLocation: { artifactLocation, region }, ...(d.where ? { logicalLocations: [{ fullyQualifiedName: d.where }] } : {}) }],
      };
      if (d.fix && d.fix.edits.length && d.autofix) {
        result['fixes'] = [
          {
            description: { text: d.fix.title },
            artifactChanges: [
              {
                artifactLocation,
                replacements: d.fix.edits.map((e) => {
                  const s = src.position(e.range.start);
                  const t = src.position(e.range.end);
                  return {
                    deletedRegion: { startLine: s.line, startColumn: s.column + 1, endLine: t.line, endColumn: t.column + 1 },
                    insertedContent: { text: e.newText },
                  };
                }),
              },
            ],
          },
        ];
      }
      return result;
    });
  });
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'rulekit', version: options.version ?? '0.0.0', informationUri: 'https://www.npmjs.com/package/rulekit', rules } },
        originalUriBaseIds: { '%SRCROOT%': { description: { text: 'The directory rulekit lint ran in' } } },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

/** GitHub Actions workflow commands: an annotation per diagnostic (`::error file=…,line=…::message`). */
export function formatGithub(reports: readonly FileReport[]): string {
  const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const level: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice', hint: 'notice' };
  const out: string[] = [];
  for (const r of reports) {
    const src = new SourceText(r.text);
    for (const d of r.diagnostics) {
      const lc = lineColumns(src, d);
      const props = [`file=${prop(r.path)}`, `line=${lc.line}`];
      if (d.range) {
        props.push(`endLine=${lc.endLine}`);
        // GitHub takes a column span only within one line.
        if (lc.endLine === lc.line) props.push(`col=${lc.column}`, `endColumn=${lc.endColumn}`);
        else props.push(`col=${lc.column}`);
      }
      props.push(`title=${prop(`rulekit ${d.code}`)}`);
      out.push(`::${level[d.severity]} ${props.join(',')}::${data(d.fix ? `${d.message} (fix: ${d.fix.title})` : d.message)}`);
    }
  }
  return out.length ? out.join('\n') + '\n' : '';
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/**
 * JUnit XML: a test suite per file, a test case per value checked (a file-level case for diagnostics about
 * the file itself); a case fails on diagnostics at or above the threshold, lower ones go to system-out.
 */
export function formatJunit(reports: readonly FileReport[], options: FormatOptions): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  for (const r of reports) {
    const src = new SourceText(r.text);
    const cases = new Map<string, LintDiagnostic[]>();
    for (const label of r.checked) cases.set(label, []);
    for (const d of r.diagnostics) {
      const key = d.where ?? '(file)';
      if (!cases.has(key)) cases.set(key, []);
      cases.get(key)!.push(d);
    }
    if (cases.size === 0) cases.set('(file)', []);
    let suiteFailures = 0;
    const body: string[] = [];
    for (const [name, ds] of cases) {
      const failing = ds.filter((d) => atLeast(d.severity, options.maxSeverity));
      const other = ds.filter((d) => !atLeast(d.severity, options.maxSeverity));
      const line = (d: LintDiagnostic) => {
        const lc = lineColumns(src, d);
        return `${r.path}:${lc.line}:${lc.column}${d.pointer ? ` ${d.pointer}` : ''}: ${d.severity}[${d.code}]: ${d.message}${d.fix ? ` (fix: ${d.fix.title})` : ''}`;
      };
      let tc = `    <testcase classname="${xml(r.path)}" name="${xml(name)}"`;
      if (!failing.length && !other.length) tc += '/>';
      else {
        tc += '>\n';
        if (failing.length) {
          const first = failing[0]!;
          tc += `      <failure type="${xml(first.code)}" message="${xml(first.message)}">${xml(failing.map(line).join('\n'))}</failure>\n`;
        }
        if (other.length) tc += `      <system-out>${xml(other.map(line).join('\n'))}</system-out>\n`;
        tc += '    </testcase>';
      }
      if (failing.length) suiteFailures++;
      body.push(tc);
    }
    tests += cases.size;
    failures += suiteFailures;
    suites.push(`  <testsuite name="${xml(r.path)}" tests="${cases.size}" failures="${suiteFailures}" errors="0" skipped="0">\n${body.join('\n')}\n  </testsuite>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rulekit lint" tests="${tests}" failures="${failures}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** Format reports. */
export function formatReports(format: LintFormat, reports: readonly FileReport[], options: FormatOptions): string {
  switch (format) {
    case 'text': return formatText(reports, options);
    case 'json': return formatJson(reports, options);
    case 'sarif': return formatSarif(reports, options);
    case 'github': return formatGithub(reports);
    case 'junit': return formatJunit(reports, options);
  }
}
