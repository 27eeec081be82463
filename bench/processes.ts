/**
 * Whole-process timing: a command is timed from outside, from its spawn to its exit, so its start-up
 * (Node's, module loading, tshark's dissector registration) counts as the user pays it. Commands compared
 * with each other run interleaved (each round runs every command once, in a rotated order), so the
 * machine's drift hits all of them alike; other processes only add time, so min and lower quartile are
 * the steadiest figures and medians are printed beside them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** One command: the program, its arguments, extra environment. */
export interface Command {
  name: string;
  cmd: string;
  args: readonly string[];
  env?: Record<string, string>;
  /** In {@link runInterleaved}: timed runs of this command (default: the call's `runs`). */
  runs?: number;
  /** In {@link runInterleaved}: untimed runs first (default: the call's `warmup`). */
  warmup?: number;
  /** Measure its peak RSS (see {@link runProcess}). */
  peak?: boolean;
}

/** One finished run. */
export interface ProcessRun {
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident set of the process in MB, when measured (see {@link runProcess}). */
  peakMB?: number;
  /** CPU seconds of the process (user + system), measured with the peak. */
  cpuS?: number;
}

/** Summary of several runs of one command (milliseconds). */
export interface RunStats {
  median: number;
  min: number;
  q1: number;
  max: number;
  runs: number;
  /** The last run (its output, for checks). */
  last: ProcessRun;
}

/** GNU time, when installed: it reports the child's peak RSS (`%M`, KiB) after the child exits. */
const GNU_TIME = '/usr/bin/time';
export const canMeasurePeak = existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true'], { encoding: 'utf8' }).status === 0;
const PEAK_MARK = 'bench-peak-rss-kib:';

/**
 * Run a command to its end and time it. `peak`: wrap it in GNU time for its peak RSS (when installed; adds
 * one fork and exec, about a millisecond, to the time). Throws when it exits with a failure.
 */
export function runProcess(c: Command, opts: { peak?: boolean } = {}): ProcessRun {
  const wrap = opts.peak && canMeasurePeak;
  const [cmd, args] = wrap ? [GNU_TIME, ['-f', `${PEAK_MARK}%M %U %S`, c.cmd, ...c.args]] : [c.cmd, c.args];
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, env: c.env ? { ...process.env, ...c.env } : process.env });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  let stderr = r.stderr;
  let peakMB: number | undefined;
  let cpuS: number | undefined;
  if (wrap) {
    const at = stderr.lastIndexOf(PEAK_MARK);
    if (at >= 0) {
      const [kib, user, sys] = stderr.slice(at + PEAK_MARK.length).trim().split(/\s+/).map(Number);
      peakMB = kib! / 1024;
      cpuS = user! + sys!;
      stderr = stderr.slice(0, at);
    }
  }
  if (r.status !== 0) throw new Error(`${c.name} exited with ${r.status ?? r.signal}: ${stderr.slice(0, 2000)}`);
  return { ms, status: r.status, stdout: r.stdout, stderr, ...(peakMB === undefined ? {} : { peakMB }), ...(cpuS === undefined ? {} : { cpuS }) };
}

/** Median, min, lower quartile and max of a list of milliseconds. */
export function stats(ms: readonly number[], last: ProcessRun): RunStats {
  const xs = [...ms].sort((a, b) => a - b);
  return { median: xs[xs.length >> 1]!, min: xs[0]!, q1: xs[Math.floor((xs.length - 1) / 4)]!, max: xs[xs.length - 1]!, runs: xs.length, last };
}

/**
 * Run each command `runs` times (or its own `runs`) after `warmup` untimed runs (they fill the page cache
 * and the OS's caches of the binaries), interleaved: each round runs the commands in a rotated order, and
 * a command with fewer runs than the rounds has them spread evenly over the rounds (one run: the middle
 * round), so a slow tool run once still meets the same load as the others. `check` sees every timed run.
 */
export function runInterleaved(
  commands: readonly Command[],
  opts: { runs: number; warmup?: number; check?: (i: number, r: ProcessRun) => void },
): { stats: RunStats[]; runs: ProcessRun[][] } {
  commands.forEach((c) => {
    for (let w = 0; w < (c.warmup ?? opts.warmup ?? 1); w++) runProcess(c);
  });
  const counts = commands.map((c) => c.runs ?? opts.runs);
  const rounds = Math.max(...counts);
  // Round of each command's k-th run: k spread evenly over the rounds, centred.
  const due = counts.map((n) => new Set(Array.from({ length: n }, (_, k) => Math.round(((k + 0.5) * rounds) / n - 0.5))));
  const runs: ProcessRun[][] = commands.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < commands.length; j++) {
      const i = (j + round) % commands.length;
      if (!due[i]!.has(round)) continue;
      const r = runProcess(commands[i]!, { peak: commands[i]!.peak });
      opts.check?.(i, r);
      runs[i]!.push(r);
    }
  }
  return { stats: runs.map((rs) => stats(rs.map((r) => r.ms), rs[rs.length - 1]!)), runs };
}
