/**
 * `rulekit lsp` as an editor meets it: a 200-rule ruleset JSON file open in the real server (the built CLI
 * on stdio, a vscode-languageserver-protocol client), one keystroke at a time — each an incremental
 * `didChange` — timed until the `publishDiagnostics` of that version arrives. Beside it, from the same run
 * and the same sequence of texts: the server's own check in-process (lint's extraction and checks, no
 * analysis), `validateRuleset` of the parsed body, and a request round trip that does no work (the
 * transport's floor). A second table times keystrokes that land while the full check (ruleset analysis,
 * after a pause in typing, on its worker thread) is running. Target: a keystroke's diagnostics within 16 ms (one frame).
 * BENCH_LSP_KEYSTROKES sets the keystrokes (default 400).
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DidChangeTextDocumentNotification, HoverRequest } from 'vscode-languageserver-protocol/node';
import { validateRuleset } from '../dist/index.js';
import { checkExtracted, extractJson } from '../dist/lint/index.js';
import { fileUri, startSession } from '../test/helpers/lsp-client.js';
import { printTable, ratio } from './harness.js';
import { expression } from './lint.js';

const KEYSTROKES = Number(process.env.BENCH_LSP_KEYSTROKES ?? 400);
const RULES = 200;
/** Time between keystrokes (ms): a fast typist. */
const GAP = 25;

/** A 200-rule create body, pretty-printed as people keep them. */
function rulesetText(): string {
  const rules = Array.from({ length: RULES }, (_, i) => ({ action: 'block', description: `rule ${i}`, expression: expression(i) }));
  return JSON.stringify({ name: 'edge firewall', kind: 'root', phase: 'network_transit', rules }, null, 2);
}

/**
 * The keystrokes: at the end of one rule's expression, type ` or udp.dstport == N` and delete it again,
 * a different rule and N each time round (so no state repeats: the validator caches expressions it has
 * seen). Each keystroke is an incremental change of one character.
 */
function keystrokes(text: string, count: number): { offset: number; insert: string; remove: number }[] {
  const out: { offset: number; insert: string; remove: number }[] = [];
  let doc = text;
  for (let round = 0; out.length < count; round++) {
    const rule = (round * 37) % RULES;
    const at = doc.indexOf(`"expression": "${expression(rule)}"`) + `"expression": "${expression(rule)}`.length;
    const suffix = ` or udp.dstport == ${1000 + round}`;
    for (let i = 0; i < suffix.length && out.length < count; i++) out.push({ offset: at + i, insert: suffix[i]!, remove: 0 });
    for (let i = suffix.length; i > 0 && out.length < count; i--) out.push({ offset: at + i - 1, insert: '', remove: 1 });
    doc = text; // every round starts from the original text (its suffix typed and deleted)
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(): Promise<void> {
  const original = rulesetText();
  const strokes = keystrokes(original, KEYSTROKES);
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');

  // In-process, the same texts in the same order.
  const texts: string[] = [];
  let t = original;
  for (const k of strokes) texts.push((t = t.slice(0, k.offset) + k.insert + t.slice(k.offset + k.remove)));
  // Wall time and this thread's CPU time: on a loaded machine the tail of the first is other processes'.
  const quick: number[] = [];
  const validate: number[] = [];
  const quickCpu: number[] = [];
  const validateCpu: number[] = [];
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  for (const text of [original, ...texts]) {
    const c0 = cpu();
    const t0 = performance.now();
    checkExtracted(extractJson(text, false), { analysis: false });
    const t1 = performance.now();
    const c1 = cpu();
    validateRuleset(JSON.parse(text));
    const t2 = performance.now();
    const c2 = cpu();
    quick.push(t1 - t0);
    validate.push(t2 - t1);
    quickCpu.push(c1 - c0);
    validateCpu.push(c2 - c1);
  }
  for (const xs of [quick, validate, quickCpu, validateCpu]) xs.shift();

  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-lsp-'));
  const lsp = await startSession({ cwd: dir, rootPath: dir });
  const uri = fileUri(join(dir, 'ruleset.json'));
  let doc = TextDocument.create(uri, 'json', 1, original);
  const first = lsp.diagnostics(uri, (p) => p.version === 1);
  await lsp.open(uri, 'json', original, 1);
  await first;
  const keystroke = async (k: { offset: number; insert: string; remove: number }) => {
    const version = doc.version + 1;
    const range = { start: doc.positionAt(k.offset), end: doc.positionAt(k.offset + k.remove) };
    doc = TextDocument.update(doc, [{ range, text: k.insert }], version);
    const published = lsp.diagnostics(uri, (p) => p.version === version);
    const t0 = performance.now();
    await lsp.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ range, text: k.insert }] });
    await published;
    return performance.now() - t0;
  };
  const roundTrip: number[] = [];
  const typed: number[] = [];
  for (const k of strokes) {
    typed.push(await keystroke(k));
    const t0 = performance.now();
    await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 0 } });
    roundTrip.push(performance.now() - t0);
    await sleep(GAP);
  }
  // Keystrokes after a pause: the full check (analysis) starts 300 ms after the last change. Each edit
  // keeps the ruleset free of errors (a space typed after an expression, then deleted), so that the full
  // check does analyse it every time.
  const afterPause: number[] = [];
  await keystroke({ offset: 0, insert: original, remove: doc.getText().length });
  for (let i = 0; i < 12; i++) {
    await sleep(300 + ((i * 37) % 120));
    const rule = (i >> 1) * 41 % RULES;
    const end = doc.getText().indexOf(`"expression": "${expression(rule)}`) + `"expression": "${expression(rule)}`.length;
    afterPause.push(await keystroke(i % 2 === 0 ? { offset: end, insert: ' ', remove: 0 } : { offset: end, insert: '', remove: 1 }));
  }
  await lsp.close();

  const row = (name: string, xs: number[], cpuXs?: number[]) => [
    name, median(xs).toFixed(2), p95(xs).toFixed(2), Math.max(...xs).toFixed(1), cpuXs ? `${median(cpuXs).toFixed(2)} / ${p95(cpuXs).toFixed(2)}` : '–', ratio(median(xs), median(validate)),
  ];
  printTable(
    `Diagnostics after one keystroke, ${RULES}-rule ruleset JSON (${(original.length / 1024).toFixed(0)} KB), ${strokes.length} keystrokes, ms`,
    ['what', 'median', 'p95', 'max', 'CPU median / p95', '× validateRuleset (median)'],
    [
      row('validateRuleset(JSON.parse(text)), in-process', validate, validateCpu),
      row('server\'s quick check (extract with positions + checks), in-process', quick, quickCpu),
      row('request round trip doing no work (hover outside any rule), stdio', roundTrip),
      row('didChange → publishDiagnostics, rulekit lsp over stdio', typed),
    ],
    [
      `target: under 16 ms — median ${median(typed) < 16 ? 'met' : 'missed'}, p95 ${p95(typed) < 16 ? 'met' : 'missed'}`,
      `load average at start: ${load} (2 cores shared)`,
      `one keystroke every ${GAP} ms after the previous diagnostics; the full check (analysis) never starts while typing is this fast`,
    ],
  );
  printTable(
    'Keystrokes after a pause of 300–420 ms, while the full check (ruleset analysis) may be running, ms',
    ['keystrokes', 'median', 'max'],
    [[String(afterPause.length), median(afterPause).toFixed(1), Math.max(...afterPause).toFixed(1)]],
    ['analysis runs on a worker thread (src/lsp/full-check.ts): a keystroke that lands during it competes with it for a core, not for the server\'s thread'],
  );
}
