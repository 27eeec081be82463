/**
 * `rulekit test [files]`: the command line around src/ruletest — finding and loading test files and the
 * exit code (0 all pass, 1 a case failed, 2 bad usage or a test file that cannot run).
 * @module
 */
import { SourceText } from '../index.js';
import { findTestFiles, formatProblems, formatResults, loadSuite, runSuite, type SuiteResult, type TestFormat, type TestProblem } from '../ruletest/index.js';
import { UsageError, useColor } from './io.js';

/** Options of `rulekit test`. */
export interface TestCommandOptions {
  format?: TestFormat;
  verbose?: boolean;
  color?: boolean;
  /** Leave durations out of JSON and JUnit reports (golden files). */
  times?: boolean;
}

/** Run `rulekit test`; returns the exit code. */
export async function testCommand(args: string[], options: TestCommandOptions, write: (s: string) => void, note: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let files: string[];
  try {
    files = findTestFiles(args);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new UsageError(`${err.path ?? args.join(' ')}: no such file or directory`);
    throw e;
  }
  if (!files.length) throw new UsageError(`no test files (*.ruletest.yaml, *.ruletest.yml, *.ruletest.json) under ${args.length ? args.join(', ') : 'the working directory'}`);
  const format = options.format ?? 'text';
  const problems: TestProblem[] = [];
  const suites = [];
  for (const f of files) {
    const loaded = await loadSuite(f);
    problems.push(...loaded.problems);
    if (loaded.suite) suites.push(loaded.suite);
  }
  if (problems.length) {
    if (format === 'github') write(formatProblems(problems, 'github'));
    else if (format === 'json') {
      write(JSON.stringify({ ok: false, problems: problems.map((p) => ({ file: p.file, ...(p.text !== undefined && p.range ? position(p.text, p.range.start) : {}), code: p.code, message: p.message })) }, null, 2) + '\n');
    }
    note(formatProblems(problems, 'text'));
    note(`rulekit: ${problems.length} problem(s) in the test files; no test was run\n`);
    return 2;
  }
  const results: SuiteResult[] = [];
  for (const s of suites) results.push(await runSuite(s));
  const color = format === 'text' && useColor(options.color);
  write(formatResults(format, results, { verbose: options.verbose, color, noTimes: options.times === false }));
  return results.some((s) => s.cases.some((c) => !c.ok)) ? 1 : 0;
}

function position(text: string, offset: number): { line: number; column: number } {
  const p = new SourceText(text).position(offset);
  return { line: p.line, column: p.column + 1 };
}
