/**
 * `rulekit analyze RULESET.json`: which rules can never decide and why, which expressions (or parts) are
 * never or always true, each finding with a witness packet; then every rule's verdict. Positions are in
 * the file (the finding's range inside the expression string, mapped through the JSON string when it
 * has no escapes).
 * @module
 */
import { writeFileSync } from 'node:fs';
import { analyzeRuleset, DIAGNOSTIC_CODES, isHttpRuleset, renderDiagnostic, SourceText, type Diagnostic, type RuleAnalysis } from '../index.js';
import { formatReports, type LintDiagnostic } from '../lint/index.js';
import { packetToIpFrame, writePcap } from '../capture/index.js';
import { parseJsonText } from '../json/index.js';
import { readInput, UsageError, useColor } from './io.js';
import { lintExit } from './diagnostics.js';
import { loadLists } from './lists.js';
import { VERSION } from '../version.js';

export interface AnalyzeOptions {
  /** Write the witness packets as a pcap file (raw IP) to this path. */
  witnessPcap?: string;
  lists?: string;
  serviceToken?: string;
  format?: 'text' | 'json' | 'sarif';
  maxWarnings?: number;
  /** Colour the text output (default: on a terminal, unless NO_COLOR). */
  color?: boolean;
}

/** Run the command; returns the exit code (1 when the file is not a ruleset, or past --max-warnings). */
export async function analyzeCommand(path: string, options: AnalyzeOptions, write: (s: string) => void): Promise<number> {
  const input = await readInput(path);
  const text = input.text.charCodeAt(0) === 0xfeff ? ' ' + input.text.slice(1) : input.text;
  const lists = await loadLists(options.lists);
  const parsed = parseJsonText(text, 64);
  if (!parsed.doc) {
    const e = parsed.errors[0];
    throw new UsageError(renderDiagnostic(text, { code: 'ruleset-invalid-json', severity: 'error', message: `the ruleset is not valid JSON: ${e?.message ?? 'unreadable'}`, range: e?.range }, path));
  }
  const doc = parsed.doc;
  const body = doc.value;
  const ruleset = Array.isArray(body) ? { rules: body } : (body as { rules?: unknown });
  if (ruleset === null || typeof ruleset !== 'object' || !Array.isArray(ruleset.rules)) throw new UsageError(`${path}: expected a ruleset body {"rules": [...]} or an array of rules`);
  const prefix = Array.isArray(body) ? '' : '/rules';
  // The witnesses of an HTTP-phase ruleset are requests, which no frame of a capture carries.
  if (options.witnessPcap && isHttpRuleset(ruleset)) throw new UsageError(`${path}: --witness-pcap writes packets; the witnesses of a ${String((ruleset as { phase?: unknown }).phase)} ruleset are HTTP requests (see them with --format json)`);
  const analysis = analyzeRuleset(ruleset, { lists, serviceToken: options.serviceToken });
  // Pointers into the file as given (an array of rules has no /rules prefix), ranges into the file.
  const findings: Diagnostic[] = analysis.diagnostics.map((d) => {
    const pointer = d.pointer?.replace(/^\/rules/, prefix);
    const out: Diagnostic = { ...d, pointer, data: { rule: Number(/\/rules\/(\d+)/.exec(d.pointer ?? '')?.[1] ?? -1), ...d.data } };
    const value = pointer !== undefined ? doc.valueRange(pointer) : undefined;
    const expr = (ruleset.rules as { expression?: unknown }[])[Number(/\/(\d+)\//.exec(d.pointer ?? '')?.[1])]?.expression;
    if (value && d.range && typeof expr === 'string' && value.end - value.start === expr.length + 2) {
      out.data = { ...out.data, documentRange: { start: value.start + 1 + d.range.start, end: value.start + 1 + d.range.end } };
    }
    return out;
  });
  if (options.format === 'json') {
    write(JSON.stringify({ findings, rules: analysis.rules }, null, 2) + '\n');
  } else if (options.format === 'sarif') {
    // The lint command's SARIF writer, on the findings placed in the file (the JSON string's span when
    // the place inside it does not map exactly).
    const diagnostics: LintDiagnostic[] = findings.map((d) => {
      const at = (d.data?.['documentRange'] as Diagnostic['range'] | undefined) ?? (d.pointer !== undefined ? doc.valueRange(d.pointer) : undefined);
      const r: LintDiagnostic = { ...d, where: d.pointer ?? '/' };
      delete r.rangeIn;
      if (at) r.range = at;
      else delete r.range;
      return r;
    });
    write(formatReports('sarif', [{ path, kind: 'json', text, checked: [], diagnostics, fixed: [] }], { maxSeverity: 'error', version: VERSION, codes: DIAGNOSTIC_CODES }));
  } else {
    const src = new SourceText(text);
    for (const d of findings) {
      const docRange = d.data?.['documentRange'] as Diagnostic['range'] | undefined;
      write(renderDiagnostic(src, d.rangeIn === 'value' ? { ...d, range: docRange } : d, path, { color: useColor(options.color) }) + '\n');
    }
    const rules = ruleset.rules as { action?: unknown; description?: unknown }[];
    write(`\nrule  action  cost   status     witness\n`);
    for (const r of analysis.rules) {
      const rule = rules[r.index];
      const action = String(rule?.action ?? '?').padEnd(6);
      const witness = r.witness ? JSON.stringify(r.witness) + (r.assumes ? ` (assuming ${r.assumes.join(', ')})` : '') : '';
      const status = r.status === 'shadowed' ? `shadowed by ${r.coveredBy?.join(', ')}` : r.status;
      const cost = r.complexity ? String(r.complexity.cost).padStart(5) : '    -';
      write(`${String(r.index).padStart(4)}  ${action}  ${cost}  ${status.padEnd(9)}  ${witness}\n`);
    }
    const counts = new Map<string, number>();
    for (const r of analysis.rules) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    const total = analysis.rules.reduce((n, r) => n + (r.complexity?.cost ?? 0), 0);
    write(`\n${path}: ${analysis.rules.length} rule(s): ${[...counts].map(([k, v]) => `${v} ${k}`).join(', ')}; ${findings.length} finding(s); evaluation cost ${Math.round(total)} units (a field compare is 1)\n`);
    if (counts.get('invalid')) write(`  rules marked invalid have expression errors: rulekit validate ${path} shows them\n`);
  }
  if (options.witnessPcap) writeWitnesses(options.witnessPcap, analysis.rules, (s) => process.stderr.write(s));
  return lintExit(findings, options.maxWarnings, (s) => process.stderr.write(s));
}

/**
 * The witnesses as a capture, one frame per rule that has one (in rule order): a live rule's witness is a
 * packet it decides, a shadowed rule's one that it matches and an earlier rule decides. Witnesses that
 * assume the truth of an opaque part, or whose fields no header carries, are named on stderr.
 */
function writeWitnesses(path: string, rules: readonly RuleAnalysis[], note: (s: string) => void): void {
  const frames: Uint8Array[] = [];
  for (const r of rules) {
    if (!r.witness) continue;
    if (r.assumes) {
      note(`rulekit: rule ${r.index}'s witness assumes ${r.assumes.join(', ')}; not written\n`);
      continue;
    }
    const { frame, problems } = packetToIpFrame(r.witness);
    for (const p of problems) note(`rulekit: rule ${r.index}'s witness: ${p}\n`);
    if (frame) frames.push(frame);
  }
  writeFileSync(path, writePcap(frames));
  note(`rulekit: ${frames.length} witness packet(s) written to ${path} (frame N is the Nth rule with a witness)\n`);
}
