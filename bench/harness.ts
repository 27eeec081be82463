/**
 * Tiny benchmark harness shared by every bench: repeated timed samples, median/min/max, and a Markdown
 * table where each figure stands next to its baseline as a ratio. No test asserts a time.
 */
import { performance } from 'node:perf_hooks';

export interface Sample {
  /** Median nanoseconds per operation. */
  median: number;
  min: number;
  max: number;
}

/** Prevents the JIT from discarding results. */
export let sink = 0;
export function consume(v: unknown): void {
  if (v === true) sink++;
  else if (typeof v === 'number') sink += v;
}

/**
 * Time `fn` (which performs `opsPerCall` operations per call) in `samples` samples of about `sampleMs` ms
 * each, after a warm-up. Returns ns per operation.
 */
export function measure(fn: () => unknown, opts: { opsPerCall?: number; samples?: number; sampleMs?: number; warmupMs?: number } = {}): Sample {
  const ops = opts.opsPerCall ?? 1;
  const samples = opts.samples ?? 7;
  const sampleMs = opts.sampleMs ?? 60;
  // Warm-up (at least `warmupMs`, so the JIT has settled) and calibrate how many calls fill one sample.
  const warmupEnd = performance.now() + (opts.warmupMs ?? 250);
  while (performance.now() < warmupEnd) for (let i = 0; i < 100; i++) consume(fn());
  let calls = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) consume(fn());
    const dt = performance.now() - t0;
    if (dt > sampleMs / 4) {
      calls = Math.max(1, Math.round((calls * sampleMs) / Math.max(dt, 0.001)));
      break;
    }
    calls *= 2;
  }
  const results: number[] = [];
  for (let s = 0; s < samples; s++) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) consume(fn());
    const dt = performance.now() - t0;
    results.push((dt * 1e6) / (calls * ops));
  }
  results.sort((a, b) => a - b);
  return { median: results[results.length >> 1]!, min: results[0]!, max: results[results.length - 1]! };
}

/** Samples of one engine from {@link measureInterleaved}. */
export interface Timing extends Sample {
  /** Every sample (ns per operation), in round order. */
  samples: number[];
  /** Lower quartile of the samples. */
  q1: number;
}

/**
 * Interleaved timing for comparisons on a shared machine: each round times every engine once, in a
 * rotated order, so drift (GC, caches, other processes' load) hits every engine alike; a sample is the
 * fastest of three short bursts, since preemption only adds time. Ratios are best taken between lower
 * quartiles (`q1`), which are steadier than medians for the same reason.
 */
export function measureInterleaved(
  fns: readonly (() => unknown)[],
  opts: { opsPerCall?: number; rounds?: number; sampleMs?: number; warmupMs?: number } = {},
): Timing[] {
  const ops = opts.opsPerCall ?? 1;
  const rounds = opts.rounds ?? 21;
  const sampleMs = opts.sampleMs ?? 5;
  const reps = fns.map((f) => {
    const warmupEnd = performance.now() + (opts.warmupMs ?? 0);
    do consume(f());
    while (performance.now() < warmupEnd);
    const t0 = performance.now();
    consume(f());
    const dt = performance.now() - t0;
    return Math.max(1, Math.round(sampleMs / Math.max(dt, 0.0005)));
  });
  const samples: number[][] = fns.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < fns.length; j++) {
      const i = (j + round) % fns.length;
      const f = fns[i]!;
      let best = Infinity;
      for (let b = 0; b < 3; b++) {
        const t0 = performance.now();
        for (let k = 0; k < reps[i]!; k++) consume(f());
        best = Math.min(best, performance.now() - t0);
      }
      samples[i]!.push((best * 1e6) / (reps[i]! * ops));
    }
  }
  return samples.map((raw) => {
    const xs = [...raw].sort((a, b) => a - b);
    return { median: xs[xs.length >> 1]!, min: xs[0]!, max: xs[xs.length - 1]!, q1: xs[Math.floor((xs.length - 1) / 4)]!, samples: raw };
  });
}

/** Format a number with 3 significant digits. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n >= 1000) return n.toFixed(0);
  if (n >= 100) return n.toFixed(1);
  if (n >= 10) return n.toFixed(2);
  return n.toFixed(3);
}

/** Format a ratio like `1.23×`. */
export function ratio(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}×`;
}

/** Print a Markdown table. */
export function printTable(title: string, header: string[], rows: (string | number)[][], notes: string[] = []): void {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]) => `| ${r.map((c, i) => String(c ?? '').padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n### ${title}\n`);
  console.log(line(cells[0]!));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const r of cells.slice(1)) console.log(line(r));
  for (const n of notes) console.log(`\n- ${n}`);
}

/** Retained heap in MB after building something: run `build`, force GC when exposed, return the delta. */
export function retainedMB<T>(build: () => T): { value: T; mb: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const value = build();
  gc?.();
  const after = process.memoryUsage().heapUsed;
  return { value, mb: (after - before) / 1048576 };
}

/** The value of a command-line flag of the bench (`--name VALUE` or `--name=VALUE`), else undefined. */
export function flagValue(name: string): string | undefined {
  const argv = process.argv;
  const at = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (at < 0) return undefined;
  return argv[at]!.includes('=') ? argv[at]!.slice(name.length + 1) : argv[at + 1];
}
