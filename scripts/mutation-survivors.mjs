#!/usr/bin/env node
/**
 * Counts and survivors of mutation runs: `node scripts/mutation-survivors.mjs REPORT...`, where each REPORT
 * is a Stryker JSON report (reports/mutation/mutation.json, reports/folder/<folder>/<file>/mutation.json)
 * or an event-recorder folder (reports/folder/<folder>/<file>/events) of a run that may have been stopped
 * part-way. Prints every surviving and uncovered mutant as `file:line:column status mutator -> replacement`
 * with its source line, then the counts and score per file and in all (score = detected / (detected +
 * survived + no coverage), as Stryker computes it; ignored mutants are left out).
 *
 * A mutant named by more than one REPORT (same file, start and end, mutator and replacement) counts once, with
 * the status of the last REPORT that names it: `node scripts/mutation-survivors.mjs before.json run/events`
 * gives the results of a stopped incremental run over the full report it started from.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/**
 * @typedef {{ file: string, line: number, column: number, end: string, status: string, mutatorName: string, replacement?: string }} Result
 */
/** Mutant results of one report as `{file, line, column, status, mutatorName, replacement}`. @param {string} path @returns {Result[]} */
function read(path) {
  if (statSync(path).isDirectory()) {
    return readdirSync(path)
      .filter((f) => f.endsWith('-onMutantTested.json'))
      .map((f) => JSON.parse(readFileSync(join(path, f), 'utf8')))
      .map((/** @type {any} */ m) => ({ file: relative(process.cwd(), m.fileName), line: m.location.start.line, column: m.location.start.column, end: `${m.location.end.line}:${m.location.end.column}`, status: m.status, mutatorName: m.mutatorName, replacement: m.replacement }));
  }
  const report = JSON.parse(readFileSync(path, 'utf8'));
  return Object.entries(report.files).flatMap(([file, f]) =>
    /** @type {any} */ (f).mutants.map((/** @type {any} */ m) => ({ file, line: m.location.start.line, column: m.location.start.column, end: `${m.location.end.line}:${m.location.end.column}`, status: m.status, mutatorName: m.mutatorName, replacement: m.replacement })),
  );
}

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error('usage: node scripts/mutation-survivors.mjs REPORT.json|EVENTS-DIR ...');
  process.exit(2);
}
/** @type {Map<string, Result>} */
const byMutant = new Map();
for (const m of paths.flatMap(read)) byMutant.set(`${m.file}:${m.line}:${m.column}-${m.end} ${m.mutatorName} ${m.replacement ?? ''}`, m);
const all = [...byMutant.values()];
/** @type {Map<string, string[]>} */
const sources = new Map();
const lineOf = (/** @type {string} */ file, /** @type {number} */ line) => {
  if (!sources.has(file)) {
    try {
      sources.set(file, readFileSync(file, 'utf8').split('\n'));
    } catch {
      sources.set(file, []);
    }
  }
  return (sources.get(file)?.[line - 1] ?? '').trim();
};
for (const m of all.filter((x) => UNDETECTED.has(x.status)).sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column)) {
  console.log(`${m.file}:${m.line}:${m.column} ${m.status} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? '').slice(0, 80)}\n    ${lineOf(m.file, m.line).slice(0, 140)}`);
}
const count = (/** @type {Result[]} */ ms) => {
  /** @type {Record<string, number>} */
  const c = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0 };
  for (const m of ms) {
    if (m.status in c) c[m.status]++;
    else c.other++;
  }
  const detected = c.Killed + c.Timeout;
  const valid = detected + c.Survived + c.NoCoverage;
  return `killed ${c.Killed}, timeout ${c.Timeout}, survived ${c.Survived}, no coverage ${c.NoCoverage}, ignored/other ${c.other}: score ${valid ? ((100 * detected) / valid).toFixed(1) : '-'}%`;
};
const files = [...new Set(all.map((m) => m.file))].sort();
for (const f of files) console.log(`${f}: ${count(all.filter((m) => m.file === f))}`);
console.log(`all: ${count(all)}`);
for (const s of new Set(all.map((m) => m.status))) if (!DETECTED.has(s) && !UNDETECTED.has(s) && s !== 'Ignored') console.log(`(status ${s} counted as other)`);
