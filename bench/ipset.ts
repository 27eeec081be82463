/**
 * `ip.src in $list` membership: `IpSet.has(text)` against
 * - hand-written baselines (bench/ip-ranges.ts for IPv4: merged ranges + binary search, and the same with a
 *   /16 bucket table in front; 4×u32 ranges + binary search for IPv6 here), each with a plain
 *   text-to-number step for the string-in variant and without it for the number-in variant, and
 * - `ipaddr.js` parse + `subnetMatch` over the CIDR list (on 1,000 queries: it scans the list per query).
 * Lists: 10k and 100k random IPv4 CIDRs, 10k random IPv6 CIDRs; 1M random queries, about half of them hits.
 * Every engine's hits must equal IpSet's on the same queries, or the bench throws.
 *
 * Run after `npm run build` (it measures `dist/`, as users run it): `npm run bench -- ipset` (without
 * --expose-gc the retained figures are rough).
 */
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { measureInterleaved, printTable, retainedMB, fmt, type Timing } from './harness.js';
import { prng } from './capture-gen.js';
import { BucketedRangesV4, RangesV4 } from './ip-ranges.js';
import { IpSet } from '../dist/net/ip-set.js';
import { formatIpAddress, ipAddressFromBytes } from '../dist/net/address.js';

// ---------------------------------------------------------------------------------------------------------
// Deterministic data.


const u32 = (rnd: () => number) => Math.floor(rnd() * 4294967296) >>> 0;
const v4Text = (x: number) => `${x >>> 24}.${(x >>> 16) & 0xff}.${(x >>> 8) & 0xff}.${x & 0xff}`;
const maskV4 = (len: number) => (len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0);

interface V4Case {
  cidrs: string[];
  nets: { net: number; len: number }[];
  queries: string[];
  queryNums: Uint32Array;
}

/** `count` random IPv4 CIDRs with prefix lengths 16..32; queries: half inside a random CIDR, half uniform. */
function v4Case(count: number, queries: number, seed: number): V4Case {
  const rnd = prng(seed);
  const nets: { net: number; len: number }[] = [];
  for (let i = 0; i < count; i++) {
    const len = 16 + Math.floor(rnd() * 17);
    nets.push({ net: (u32(rnd) & maskV4(len)) >>> 0, len });
  }
  const queryNums = new Uint32Array(queries);
  const texts: string[] = new Array(queries);
  for (let i = 0; i < queries; i++) {
    let x: number;
    if (rnd() < 0.5) {
      const { net, len } = nets[Math.floor(rnd() * count)]!;
      x = (net | (u32(rnd) & ~maskV4(len))) >>> 0;
    } else x = u32(rnd);
    queryNums[i] = x;
    texts[i] = v4Text(x);
  }
  return { cidrs: nets.map((n) => `${v4Text(n.net)}/${n.len}`), nets, queries: texts, queryNums };
}

interface V6Case {
  cidrs: string[];
  queries: string[];
  queryWords: Uint32Array; // 4 per query
}

/** `count` random IPv6 CIDRs inside 2000::/3 with prefix lengths 24..64; queries as for IPv4. */
function v6Case(count: number, queries: number, seed: number): V6Case {
  const rnd = prng(seed);
  const nets: { w: number[]; len: number }[] = [];
  const maskWords = (w: number[], len: number, fill: boolean, src?: number[]) =>
    w.map((v, i) => {
      const keep = Math.max(0, Math.min(32, len - 32 * i));
      const m = keep === 0 ? 0 : (0xffffffff << (32 - keep)) >>> 0;
      return fill ? ((v & m) | (src![i]! & ~m)) >>> 0 : (v & m) >>> 0;
    });
  for (let i = 0; i < count; i++) {
    const len = 24 + Math.floor(rnd() * 41);
    const w = [((u32(rnd) & 0x1fffffff) | 0x20000000) >>> 0, u32(rnd), u32(rnd), u32(rnd)];
    nets.push({ w: maskWords(w, len, false), len });
  }
  const queryWords = new Uint32Array(queries * 4);
  const texts: string[] = new Array(queries);
  for (let i = 0; i < queries; i++) {
    const r = [u32(rnd), u32(rnd), u32(rnd), u32(rnd)];
    let w: number[];
    if (rnd() < 0.5) {
      const n = nets[Math.floor(rnd() * count)]!;
      w = maskWords(n.w, n.len, true, r);
    } else w = [((r[0]! & 0x1fffffff) | 0x20000000) >>> 0, r[1]!, r[2]!, r[3]!];
    queryWords.set(w, i * 4);
    texts[i] = formatIpAddress(ipAddressFromBytes(w.flatMap((v) => [v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff])));
  }
  const bytesText = (w: number[]) => formatIpAddress(ipAddressFromBytes(w.flatMap((v) => [v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff])));
  return { cidrs: nets.map((n) => `${bytesText(n.w)}/${n.len}`), queries: texts, queryWords };
}

// ---------------------------------------------------------------------------------------------------------
// The hand-written IPv6 baseline: merged 4×u32 ranges + binary search (the IPv4 ones live in ip-ranges.ts).

/** Plain IPv6 reader (hex groups and one `::`, no dotted tail) into 4 words; false otherwise. */
const baseWords = new Uint32Array(4);
function baselineParseV6(s: string): boolean {
  const gap = s.indexOf('::');
  let head: string[];
  let tail: string[];
  if (gap >= 0) {
    head = gap === 0 ? [] : s.slice(0, gap).split(':');
    tail = gap + 2 === s.length ? [] : s.slice(gap + 2).split(':');
  } else {
    head = s.split(':');
    tail = [];
  }
  const zeros = 8 - head.length - tail.length;
  if (zeros < 0 || (gap < 0 && zeros !== 0)) return false;
  const g: number[] = [];
  for (const h of head) g.push(parseInt(h, 16));
  for (let i = 0; i < zeros; i++) g.push(0);
  for (const t of tail) g.push(parseInt(t, 16));
  for (let w = 0; w < 4; w++) baseWords[w] = g[2 * w]! * 65536 + g[2 * w + 1]!;
  return true;
}

class BaselineV6 {
  constructor(
    readonly starts: Uint32Array,
    readonly ends: Uint32Array,
  ) {}

  static build(cidrs: string[]): BaselineV6 {
    const rows = cidrs.map((c) => {
      const slash = c.indexOf('/');
      const len = Number(c.slice(slash + 1));
      baselineParseV6(c.slice(0, slash));
      const w = [...baseWords];
      const lo: number[] = [];
      const hi: number[] = [];
      for (let i = 0; i < 4; i++) {
        const keep = Math.max(0, Math.min(32, len - 32 * i));
        const m = keep === 0 ? 0 : (0xffffffff << (32 - keep)) >>> 0;
        lo.push((w[i]! & m) >>> 0);
        hi.push((w[i]! | ~m) >>> 0);
      }
      return [...lo, ...hi];
    });
    const cmp = (a: number[], i: number, b: number[], j: number) => {
      for (let k = 0; k < 4; k++) if (a[i + k] !== b[j + k]) return a[i + k]! - b[j + k]!;
      return 0;
    };
    rows.sort((a, b) => cmp(a, 0, b, 0));
    const out: number[][] = [];
    for (const r of rows) {
      const last = out[out.length - 1];
      // CIDRs nest or are disjoint; merge nested ones (adjacent ones stay apart, which is still correct).
      if (last && cmp(r, 0, last, 4) <= 0) {
        if (cmp(r, 4, last, 4) > 0) for (let k = 4; k < 8; k++) last[k] = r[k]!;
      } else out.push([...r]);
    }
    return new BaselineV6(Uint32Array.from(out.flatMap((r) => r.slice(0, 4))), Uint32Array.from(out.flatMap((r) => r.slice(4))));
  }

  hasWords(w: ArrayLike<number>, at: number): boolean {
    const s = this.starts;
    let lo = 0;
    let hi = s.length / 4;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let c = 0;
      for (let k = 0; k < 4 && c === 0; k++) c = s[mid * 4 + k]! - w[at + k]!;
      if (c <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return false;
    let c = 0;
    for (let k = 0; k < 4 && c === 0; k++) c = this.ends[(lo - 1) * 4 + k]! - w[at + k]!;
    return c >= 0;
  }

  hasText(ip: string): boolean {
    return baselineParseV6(ip) && this.hasWords(baseWords, 0);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Runner.

interface Row {
  engine: string;
  timing: Timing;
  /** Ratio of lower quartiles to IpSet.has timed on the same queries in the same rounds. */
  vsHas: number;
  queries: number;
  hits: number;
  buildMs: BuildTime | undefined;
  retained: number | undefined;
}

const QUERIES = 1_000_000;
/** Queries per timed call of the fast engines (they walk through all QUERIES over the rounds). */
const CHUNK = 10_000;
/**
 * Queries given to ipaddr.js, which scans the whole CIDR list per query (0.1–1 ms each): every timed call
 * runs all of them, so each sample covers the same queries, and 1,000 is enough for a stable ratio.
 */
const IPADDR_QUERIES = 1_000;
const T0 = performance.now();
const trace = (what: string) => process.env.IPSET_BENCH_TRACE && console.error(`[${((performance.now() - T0) / 1000).toFixed(1)}s] ${what}`);

/** Build time in ms: the median of `times` builds, and the first (cold, before the JIT warms up) one. */
function timeBuild<T>(build: () => T, times = 5): BuildTime {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    build();
    ms.push(performance.now() - t0);
  }
  const cold = ms[0]!;
  ms.sort((a, b) => a - b);
  return { median: ms[ms.length >> 1]!, cold };
}

interface BuildTime {
  median: number;
  cold: number;
}

const settle = async (): Promise<void> => {
  const gc = (globalThis as { gc?: () => void }).gc;
  // Array-buffer backing stores are swept after a GC, not during it: collect, let the sweeper run, again.
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 20));
  }
};

/**
 * Retained memory of what `build` returns: the JS heap delta from `retainedMB` (bench/harness.ts) plus the
 * typed-array backing stores, which live outside the JS heap and which `retainedMB` does not see.
 */
async function retainedWithBuffers<T>(build: () => T): Promise<{ value: T; mb: number; heapMb: number }> {
  const buffers = () => process.memoryUsage().arrayBuffers;
  await settle();
  const ab0 = buffers();
  const r = retainedMB(build);
  await settle();
  return { value: r.value, mb: r.mb + (buffers() - ab0) / 1048576, heapMb: r.mb };
}

function countHits(n: number, has: (i: number) => boolean): number {
  let hits = 0;
  for (let i = 0; i < n; i++) if (has(i)) hits++;
  return hits;
}

/**
 * A timing function of its own for each engine (a fresh function per call), so that every engine's call
 * site stays monomorphic and can be inlined, as it would be in a compiled matcher. Each call runs the next
 * `chunk` of the `n` queries, wrapping around, so repeated calls walk through all of them.
 */
function runLoop(n: number, has: (i: number) => boolean, chunk: number): () => number {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = new Function(
    'has',
    'n',
    'chunk',
    `let at = 0;
     return () => {
       let hits = 0;
       let i = at;
       for (let k = 0; k < chunk; k++) {
         if (has(i)) hits++;
         if (++i === n) i = 0;
       }
       at = i;
       return hits;
     };`,
  );
  return make(has, n, chunk) as () => number;
}

interface Engine {
  engine: string;
  has: (i: number) => boolean;
  buildMs?: BuildTime;
  retained?: number;
}

/**
 * Time the engines interleaved (bench/harness.ts measureInterleaved: each round times every engine once,
 * in a rotated order) on all QUERIES; engines[0] must be IpSet.has, the reference of the ratios.
 */
function timeEngines(name: string, engines: Engine[]): Row[] {
  const hits = engines.map((e) => {
    trace(`${name}: ${e.engine} (hits)`);
    return countHits(QUERIES, e.has);
  });
  hits.forEach((h, i) => {
    if (h !== hits[0]) throw new Error(`${name}: ${engines[i]!.engine} found ${h} hits, ${engines[0]!.engine} ${hits[0]}`);
  });
  trace(`${name}: interleaved timing`);
  const timings = measureInterleaved(
    engines.map((e) => runLoop(QUERIES, e.has, CHUNK)),
    { opsPerCall: CHUNK, rounds: 21, sampleMs: 5, warmupMs: 200 },
  );
  return engines.map((e, i) => ({ engine: e.engine, timing: timings[i]!, vsHas: timings[i]!.q1 / timings[0]!.q1, queries: QUERIES, hits: hits[i]!, buildMs: e.buildMs, retained: e.retained }));
}

/**
 * ipaddr.js (parse + subnetMatch over the CIDR list) on the first IPADDR_QUERIES queries, interleaved with
 * IpSet.has on the same queries, so its ratio is taken between the same queries in the same rounds.
 */
async function ipaddrRow(cidrs: string[], queries: string[], setHas: (i: number) => boolean, rounds: number): Promise<Row> {
  let build!: Parameters<typeof ipaddr.subnetMatch>[1];
  const buildMs = timeBuild(() => {
    build = { list: cidrs.map((c) => ipaddr.parseCIDR(c)) };
  }, 1);
  const { mb } = await retainedWithBuffers(() => ({ list: cidrs.map((c) => ipaddr.parseCIDR(c)) }));
  const has = (i: number) => ipaddr.subnetMatch(ipaddr.parse(queries[i]!), build, 'none') === 'list';
  const n = IPADDR_QUERIES;
  const hits = countHits(n, has);
  const want = countHits(n, setHas);
  if (hits !== want) throw new Error(`ipaddr.js found ${hits} hits in ${n} queries, IpSet ${want}`);
  const [set, lib] = measureInterleaved([runLoop(n, setHas, n), runLoop(n, has, n)], { opsPerCall: n, rounds, sampleMs: 1 }) as [Timing, Timing];
  return { engine: `ipaddr.js ${ipaddrVersion} (parse + subnetMatch)`, timing: lib, vsHas: lib.q1 / set.q1, queries: n, hits, buildMs, retained: mb };
}

const ipaddrVersion = (JSON.parse(readFileSync(new URL('../node_modules/ipaddr.js/package.json', import.meta.url), 'utf8')) as { version: string }).version;

function printRows(title: string, rows: Row[], notes: string[]): void {
  printTable(
    title,
    ['engine', 'ns/query med (min–max)', '× IpSet.has', 'Mq/s', 'queries timed', 'hits', 'build ms med (cold)', 'retained MB'],
    rows.map((r) => [
      r.engine,
      `${fmt(r.timing.median)} (${fmt(r.timing.min)}–${fmt(r.timing.max)})`,
      `${r.vsHas >= 100 ? r.vsHas.toFixed(0) : r.vsHas.toFixed(2)}×`,
      1000 / r.timing.median,
      String(r.queries),
      String(r.hits),
      r.buildMs === undefined ? '–' : `${fmt(r.buildMs.median)} (cold ${fmt(r.buildMs.cold)})`,
      r.retained === undefined ? '–' : r.retained.toFixed(3),
    ]),
    notes,
  );
}

const TIMING_NOTE = `timing: the engines interleaved (21 rounds, each engine once per round in a rotated order, ${CHUNK} queries per call), ns/query = median (min–max) of the rounds; ratios are of lower quartiles; ipaddr.js runs its ${IPADDR_QUERIES} queries interleaved with IpSet.has on the same ${IPADDR_QUERIES}, and its ratio is to that`;

async function benchV4(name: string, count: number, seed: number, ipaddrRounds: number): Promise<void> {
  trace(`${name}: data`);
  const c = v4Case(count, QUERIES, seed);
  trace(`${name}: build`);
  const setBuildMs = timeBuild(() => IpSet.fromItems(c.cidrs));
  const { value: built, mb: setMb } = await retainedWithBuffers(() => IpSet.fromItems(c.cidrs));
  const set = built.set;
  if (built.errors.length > 0) throw new Error(`unexpected item errors: ${built.errors[0]!.reason}`);
  const plainBuildMs = timeBuild(() => new RangesV4(c.cidrs));
  const { value: plain, mb: plainMb } = await retainedWithBuffers(() => new RangesV4(c.cidrs));
  const bucketBuildMs = timeBuild(() => new BucketedRangesV4(c.cidrs));
  const { value: bucketed, mb: bucketMb } = await retainedWithBuffers(() => new BucketedRangesV4(c.cidrs));

  const q = c.queries;
  const qn = c.queryNums;
  const PLAIN = 'baseline: merged ranges + binary search';
  const BUCKET = 'baseline: merged ranges + /16 bucket table + binary search';
  const rows = timeEngines(name, [
    { engine: 'IpSet.has (string in)', has: (i) => set.has(q[i]!), buildMs: setBuildMs, retained: setMb },
    { engine: 'IpSet.hasUint32 (uint32 in)', has: (i) => set.hasUint32(qn[i]!) },
    { engine: `${PLAIN} (string in)`, has: (i) => plain.hasText(q[i]!), buildMs: plainBuildMs, retained: plainMb },
    { engine: `${PLAIN} (uint32 in)`, has: (i) => plain.has(qn[i]!) },
    { engine: `${BUCKET} (string in)`, has: (i) => bucketed.hasText(q[i]!), buildMs: bucketBuildMs, retained: bucketMb },
    { engine: `${BUCKET} (uint32 in)`, has: (i) => bucketed.has(qn[i]!) },
  ]);
  trace(`${name}: ipaddr.js`);
  rows.push(await ipaddrRow(c.cidrs, q, (i) => set.has(q[i]!), ipaddrRounds));

  const q1 = (i: number) => rows[i]!.timing.q1;
  printRows(`ip in list: ${name} (${count} CIDRs → ${set.rangeCount4} merged ranges, ${QUERIES} queries)`, rows, [
    `IpSet.has / ${BUCKET} (string in) = ${(q1(0) / q1(4)).toFixed(2)}× (target ≤ 1.50×); / ${PLAIN} (string in) = ${(q1(0) / q1(2)).toFixed(2)}×`,
    `IpSet.hasUint32 / ${BUCKET} (uint32 in) = ${(q1(1) / q1(5)).toFixed(2)}×; / ${PLAIN} (uint32 in) = ${(q1(1) / q1(3)).toFixed(2)}×`,
    `ipaddr.js / IpSet.has = ${rows[6]!.vsHas.toFixed(0)}× on the same ${IPADDR_QUERIES} queries; IpSet index arrays: ${(set.indexBytes / 1048576).toFixed(3)} MB`,
    TIMING_NOTE,
    `build = IpSet.fromItems(CIDR strings), median of 5 and the first, cold one (target ≤ 100 ms); retained = JS heap (retainedMB) + array buffers${(globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc: rough)'}`,
  ]);
}

async function benchV6(name: string, count: number, seed: number, ipaddrRounds: number): Promise<void> {
  trace(`${name}: data`);
  const c = v6Case(count, QUERIES, seed);
  trace(`${name}: build`);
  const setBuildMs = timeBuild(() => IpSet.fromItems(c.cidrs));
  const { value: built, mb: setMb } = await retainedWithBuffers(() => IpSet.fromItems(c.cidrs));
  const set = built.set;
  if (built.errors.length > 0) throw new Error(`unexpected item errors: ${built.errors[0]!.reason}`);
  const baseBuildMs = timeBuild(() => BaselineV6.build(c.cidrs));
  const { value: base, mb: baseMb } = await retainedWithBuffers(() => BaselineV6.build(c.cidrs));
  const q = c.queries;
  const w = c.queryWords;
  const rows = timeEngines(name, [
    { engine: 'IpSet.has (string in)', has: (i) => set.has(q[i]!), buildMs: setBuildMs, retained: setMb },
    { engine: 'IpSet.hasWords (4×u32 in)', has: (i) => set.hasWords(w[4 * i]!, w[4 * i + 1]!, w[4 * i + 2]!, w[4 * i + 3]!) },
    { engine: 'baseline: 4×u32 ranges + binary search (string in)', has: (i) => base.hasText(q[i]!), buildMs: baseBuildMs, retained: baseMb },
    { engine: 'baseline: 4×u32 ranges + binary search (words in)', has: (i) => base.hasWords(w, 4 * i) },
  ]);
  trace(`${name}: ipaddr.js`);
  rows.push(await ipaddrRow(c.cidrs, q, (i) => set.has(q[i]!), ipaddrRounds));
  const q1 = (i: number) => rows[i]!.timing.q1;
  printRows(`ip in list: ${name} (${count} CIDRs → ${set.rangeCount6} merged ranges, ${QUERIES} queries)`, rows, [
    `IpSet.has / baseline string-in = ${(q1(0) / q1(2)).toFixed(2)}× (target ≤ 1.50×); IpSet.hasWords / baseline words-in = ${(q1(1) / q1(3)).toFixed(2)}×`,
    `ipaddr.js / IpSet.has = ${rows[4]!.vsHas.toFixed(0)}× on the same ${IPADDR_QUERIES} queries; IpSet index arrays: ${(set.indexBytes / 1048576).toFixed(3)} MB`,
    TIMING_NOTE,
  ]);
}

/** Print the IP-set tables. */
export async function run(): Promise<void> {
  // ipaddr.js rounds: each of its calls runs 1,000 queries over the whole list (~0.1 s at 10k CIDRs, ~1 s at 100k).
  await benchV4('IPv4 10k', 10_000, 1, 7);
  await benchV4('IPv4 100k', 100_000, 2, 3);
  await benchV6('IPv6 10k', 10_000, 3, 7);
}
