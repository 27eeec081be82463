/**
 * Generated captures kept between bench runs (a 5M-packet file is 351 MB and takes a while to write), in
 * `$BENCH_CACHE_DIR` or `<tmpdir>/rulekit-bench-cache`, never in the repository. A file's name carries a
 * hash of the generator's source (a pcapng's, of its converter's too), so a change to bench/capture-gen.ts
 * or bench/pcapng-gen.ts writes new files instead of reusing stale ones; a file is written under a
 * temporary name and renamed, so an interrupted run leaves no half file behind.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSyntheticPcap } from './capture-gen.js';
import { writePcapngOf } from './pcapng-gen.js';

/** The cache directory (created when missing). */
export function cacheDir(): string {
  const dir = process.env.BENCH_CACHE_DIR ?? join(tmpdir(), 'rulekit-bench-cache');
  mkdirSync(dir, { recursive: true });
  return dir;
}

const hashOf = (file: string) =>
  createHash('sha256')
    .update(readFileSync(new URL(file, import.meta.url)))
    .digest('hex')
    .slice(0, 12);
const generatorHash = hashOf('./capture-gen.ts');
const pcapngHash = hashOf('./pcapng-gen.ts');

/** Path of the generated capture of `packets` packets (default generator options), written if missing. */
export function cachedCapture(packets: number): string {
  const path = join(cacheDir(), `synthetic-${packets}-${generatorHash}.pcap`);
  if (!existsSync(path)) {
    const part = `${path}.${process.pid}.part`;
    writeSyntheticPcap(part, packets);
    renameSync(part, path);
  }
  return path;
}

/** Path of the same capture as pcapng ({@link writePcapngOf}), written if missing. */
export function cachedPcapng(packets: number): string {
  const pcap = cachedCapture(packets);
  const path = `${pcap.replace(/\.pcap$/, '')}-${pcapngHash}.pcapng`;
  if (!existsSync(path)) {
    const part = `${path}.${process.pid}.part`;
    writePcapngOf(pcap, part);
    renameSync(part, path);
  }
  return path;
}

/** `100k`, `1M`, `5M`, `2500000` → a number of packets. */
export function parseCount(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.trim());
  if (!m) throw new Error(`not a packet count: ${JSON.stringify(text)} (e.g. 100k, 1M, 5M)`);
  const scale = m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1;
  return Math.round(Number(m[1]) * scale);
}

/** A packet count as the bench prints it: 100k, 1M, 5M. */
export function countLabel(n: number): string {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 100 === 0) return `${n / 1e3}k`;
  return String(n);
}
