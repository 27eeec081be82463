/**
 * `ip.src in $list` membership: `IpSet.has(text)` against
 * - a hand-written baseline kept here (merged ranges + binary search over uint32 words, with a plain
 *   text-to-number step for the string-in variant and without it for the number-in variant), and
 * - `ipaddr.js` parse + `subnetMatch` over the CIDR list (timed on a smaller sample: it scans the list).
 * Lists: 10k and 100k random IPv4 CIDRs, 10k random IPv6 CIDRs; 1M random queries, about half of them hits.
 * Every engine's hits must equal IpSet's on the same queries, or the bench throws.
 *
 * Run after `npm run build` (it measures `dist/`, as users run it):
 * `node --expose-gc --import tsx -e "import('./bench/ipset.ts').then(m=>m.run())"` (without --expose-gc
 * the retained figures are rough).
 */
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { measure, printTable, ratio, retainedMB, fmt, type Sample } from './harness.js';
import { IpSet } from '../dist/net/ip-set.js';
import { formatIpAddress, ipAddressFromBytes } from '../dist/net/address.js';

// ---------------------------------------------------------------------------------------------------------
// Deterministic data.

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
  const rnd = mulberry32(seed);
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
  const rnd = mulberry32(seed);
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
// The hand-written baseline: merged ranges + binary search over uint32 (no bucket table, no validation
// beyond what the bench's well-formed inputs need).

class BaselineV4 {
  constructor(
    readonly starts: Uint32Array,
    readonly ends: Uint32Array,
  ) {}

  static build(cidrs: string[]): BaselineV4 {
    const pairs: [number, number][] = cidrs.map((c) => {
      const slash = c.indexOf('/');
      const len = Number(c.slice(slash + 1));
      const net = baselineParseV4(c.slice(0, slash));
      const m = maskV4(len);
      return [(net & m) >>> 0, ((net & m) | ~m) >>> 0];
    });
    pairs.sort((a, b) => a[0] - b[0]);
    const s: number[] = [];
    const e: number[] = [];
    for (const [a, b] of pairs) {
      if (s.length > 0 && a <= e[e.length - 1]! + 1) e[e.length - 1] = Math.max(e[e.length - 1]!, b);
      else {
        s.push(a);
        e.push(b);
      }
    }
    return new BaselineV4(Uint32Array.from(s), Uint32Array.from(e));
  }

  hasNumber(x: number): boolean {
    const s = this.starts;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && this.ends[lo - 1]! >= x;
  }

  hasText(ip: string): boolean {
    const x = baselineParseV4(ip);
    return x >= 0 && this.hasNumber(x);
  }
}

/** Plain dotted-quad reader (digits and dots, octets ≤ 255); -1 otherwise. */
function baselineParseV4(s: string): number {
  let acc = 0;
  let octet = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      acc = acc * 256 + octet;
      octet = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      octet = octet * 10 + c - 48;
      if (octet > 255) return -1;
    } else return -1;
  }
  return dots === 3 ? acc * 256 + octet : -1;
}

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
  sample: Sample;
  queries: number;
  hits: number;
  buildMs: BuildTime | undefined;
  retained: number | undefined;
}

const QUERIES = 1_000_000;
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

/** ns/query over `n` queries, `chunk` per timed call. */
function timeQueries(n: number, has: (i: number) => boolean, chunk: number, sampleMs = 60): Sample {
  return measure(runLoop(n, has, chunk), { opsPerCall: chunk, samples: 7, sampleMs, warmupMs: 250 });
}

async function ipaddrRow(cidrs: string[], queries: string[], sampleSize: number, expectedHits: (n: number) => number): Promise<Row> {
  let build!: Parameters<typeof ipaddr.subnetMatch>[1];
  const buildMs = timeBuild(() => {
    build = { list: cidrs.map((c) => ipaddr.parseCIDR(c)) };
  }, 1);
  const { mb } = await retainedWithBuffers(() => ({ list: cidrs.map((c) => ipaddr.parseCIDR(c)) }));
  const has = (i: number) => ipaddr.subnetMatch(ipaddr.parse(queries[i]!), build, 'none') === 'list';
  const hits = countHits(sampleSize, has);
  const want = expectedHits(sampleSize);
  if (hits !== want) throw new Error(`ipaddr.js found ${hits} hits in ${sampleSize} queries, IpSet ${want}`);
  const sample = timeQueries(sampleSize, has, 1, 100);
  return { engine: `ipaddr.js ${ipaddrVersion} (parse + subnetMatch)`, sample, queries: sampleSize, hits, buildMs, retained: mb };
}

const ipaddrVersion = (JSON.parse(readFileSync(new URL('../node_modules/ipaddr.js/package.json', import.meta.url), 'utf8')) as { version: string }).version;

function printRows(title: string, rows: Row[], baselineName: string, notes: string[]): void {
  const base = rows.find((r) => r.engine === baselineName)!;
  printTable(
    title,
    ['engine', 'ns/query med (min–max)', 'vs baseline (string in)', 'Mq/s', 'queries timed', 'hits', 'build ms med (cold)', 'retained MB'],
    rows.map((r) => [
      r.engine,
      `${fmt(r.sample.median)} (${fmt(r.sample.min)}–${fmt(r.sample.max)})`,
      ratio(r.sample.median, base.sample.median),
      1000 / r.sample.median,
      String(r.queries),
      String(r.hits),
      r.buildMs === undefined ? '–' : `${fmt(r.buildMs.median)} (cold ${fmt(r.buildMs.cold)})`,
      r.retained === undefined ? '–' : r.retained.toFixed(3),
    ]),
    notes,
  );
}

async function benchV4(name: string, count: number, seed: number, ipaddrSample: number): Promise<void> {
  trace(`${name}: data`);
  const c = v4Case(count, QUERIES, seed);
  trace(`${name}: build`);
  const rows: Row[] = [];

  const setBuildMs = timeBuild(() => IpSet.fromItems(c.cidrs));
  const { value: built, mb: setMb } = await retainedWithBuffers(() => IpSet.fromItems(c.cidrs));
  const set = built.set;
  if (built.errors.length > 0) throw new Error(`unexpected item errors: ${built.errors[0]!.reason}`);
  const baseBuildMs = timeBuild(() => BaselineV4.build(c.cidrs));
  const { value: base, mb: baseMb } = await retainedWithBuffers(() => BaselineV4.build(c.cidrs));

  const q = c.queries;
  const qn = c.queryNums;
  const hitsOf = (has: (i: number) => boolean) => countHits(QUERIES, has);
  const setHits = hitsOf((i) => set.has(q[i]!));
  const engines: [string, (i: number) => boolean, BuildTime | undefined, number | undefined][] = [
    ['IpSet.has (string in)', (i) => set.has(q[i]!), setBuildMs, setMb],
    ['IpSet.hasUint32 (uint32 in)', (i) => set.hasUint32(qn[i]!), undefined, undefined],
    ['baseline: merged ranges + binary search (string in)', (i) => base.hasText(q[i]!), baseBuildMs, baseMb],
    ['baseline: merged ranges + binary search (uint32 in)', (i) => base.hasNumber(qn[i]!), undefined, undefined],
  ];
  for (const [engine, has, buildMs, retained] of engines) {
    trace(`${name}: ${engine}`);
    const hits = hitsOf(has);
    if (hits !== setHits) throw new Error(`${name}: ${engine} found ${hits} hits, IpSet.has ${setHits}`);
    const sample = timeQueries(QUERIES, has, 10_000);
    rows.push({ engine, sample, queries: QUERIES, hits, buildMs, retained });
  }
  trace(`${name}: ipaddr.js`);
  rows.push(await ipaddrRow(c.cidrs, q, ipaddrSample, (n) => countHits(n, (i) => set.has(q[i]!))));

  const has = rows[0]!.sample.median;
  const hasU = rows[1]!.sample.median;
  const bS = rows[2]!.sample.median;
  const bU = rows[3]!.sample.median;
  printRows(`ip in list: ${name} (${count} CIDRs → ${set.rangeCount4} merged ranges, ${QUERIES} queries)`, rows, engines[2]![0], [
    `IpSet.has / baseline string-in = ${ratio(has, bS)} (target ≤ 1.50×); IpSet.hasUint32 / baseline uint32-in = ${ratio(hasU, bU)}`,
    `ipaddr.js / IpSet.has = ${ratio(rows[4]!.sample.median, has)}; IpSet index arrays: ${(set.indexBytes / 1048576).toFixed(3)} MB`,
    `build = IpSet.fromItems(CIDR strings), median of 5 and the first, cold one (target ≤ 100 ms); retained = JS heap (retainedMB) + array buffers${(globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc: rough)'}`,
  ]);
}

async function benchV6(name: string, count: number, seed: number, ipaddrSample: number): Promise<void> {
  trace(`${name}: data`);
  const c = v6Case(count, QUERIES, seed);
  trace(`${name}: build`);
  const rows: Row[] = [];
  const setBuildMs = timeBuild(() => IpSet.fromItems(c.cidrs));
  const { value: built, mb: setMb } = await retainedWithBuffers(() => IpSet.fromItems(c.cidrs));
  const set = built.set;
  if (built.errors.length > 0) throw new Error(`unexpected item errors: ${built.errors[0]!.reason}`);
  const baseBuildMs = timeBuild(() => BaselineV6.build(c.cidrs));
  const { value: base, mb: baseMb } = await retainedWithBuffers(() => BaselineV6.build(c.cidrs));
  const q = c.queries;
  const w = c.queryWords;
  const setHits = countHits(QUERIES, (i) => set.has(q[i]!));
  const engines: [string, (i: number) => boolean, BuildTime | undefined, number | undefined][] = [
    ['IpSet.has (string in)', (i) => set.has(q[i]!), setBuildMs, setMb],
    ['IpSet.hasWords (4×u32 in)', (i) => set.hasWords(w[4 * i]!, w[4 * i + 1]!, w[4 * i + 2]!, w[4 * i + 3]!), undefined, undefined],
    ['baseline: 4×u32 ranges + binary search (string in)', (i) => base.hasText(q[i]!), baseBuildMs, baseMb],
    ['baseline: 4×u32 ranges + binary search (words in)', (i) => base.hasWords(w, 4 * i), undefined, undefined],
  ];
  for (const [engine, has, buildMs, retained] of engines) {
    trace(`${name}: ${engine}`);
    const hits = countHits(QUERIES, has);
    if (hits !== setHits) throw new Error(`${name}: ${engine} found ${hits} hits, IpSet.has ${setHits}`);
    const sample = timeQueries(QUERIES, has, 10_000);
    rows.push({ engine, sample, queries: QUERIES, hits, buildMs, retained });
  }
  trace(`${name}: ipaddr.js`);
  rows.push(await ipaddrRow(c.cidrs, q, ipaddrSample, (n) => countHits(n, (i) => set.has(q[i]!))));
  const has = rows[0]!.sample.median;
  printRows(`ip in list: ${name} (${count} CIDRs → ${set.rangeCount6} merged ranges, ${QUERIES} queries)`, rows, engines[2]![0], [
    `IpSet.has / baseline string-in = ${ratio(has, rows[2]!.sample.median)} (target ≤ 1.50×); IpSet.hasWords / baseline words-in = ${ratio(rows[1]!.sample.median, rows[3]!.sample.median)}`,
    `ipaddr.js / IpSet.has = ${ratio(rows[4]!.sample.median, has)}; IpSet index arrays: ${(set.indexBytes / 1048576).toFixed(3)} MB`,
  ]);
}

/** Print the IP-set tables. */
export async function run(): Promise<void> {
  await benchV4('IPv4 10k', 10_000, 1, 2_000);
  await benchV4('IPv4 100k', 100_000, 2, 200);
  await benchV6('IPv6 10k', 10_000, 3, 2_000);
}
