/**
 * The semantic diff (`diffRulesets`, `DiffCounter`): two 200-rule network rulesets written the way
 * firewall rules are (office and partner networks let through to admin ports, blocked ports and port
 * ranges, blocked sources, SYN floods to addresses, ICMP types, IPv6 prefixes), the new one an edit of a
 * few rules (a port added to a set, a prefix widened, a rule deleted, one inserted, an action changed).
 * The diff is timed beside one `analyzeRuleset` of the new ruleset (target: under 100 ms); its counts
 * over 1M packets beside one simulation of the same packets (target: within 1.5×) — the compiled
 * ruleset run on each packet with its summary, the loop `runSimulation` and `rulekit simulate` run — and
 * beside `simulate()`, which also checks each packet's values and keeps each result.
 *
 * Then the same as users pay it: `rulekit diff OLD NEW --against CAPTURE` beside `rulekit simulate NEW
 * CAPTURE`, whole processes interleaved, on the bench's 1M-packet synthetic capture (bench/capture-cache.ts).
 *
 * With `--engine`, the counts are also made by DuckDB (`countDiffOnEngine`) over the same packets
 * written as NDJSON and as Parquet: one grouped query, the file read by the engine, beside the
 * in-process counts (which here start from packets already in memory).
 *
 * `--before-dist PATH`: another build's `dist/index.js` (main's, built in its own checkout: `git worktree
 * add`, `npm run build`), whose diff and counts are timed in the same run on the same rulesets and
 * packets: before and after side by side, each as a ratio to this run's baseline.
 */
import { analyzeRuleset, compileRuleset, DiffCounter, diffRulesets, simulate, type Ruleset } from '../dist/index.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prng } from './capture-gen.js';
import { measureInterleaved, printTable, ratio, flagValue } from './harness.js';
import { cachedCapture } from './capture-cache.js';
import { CLI_ENTRY } from './paths.js';
import { runInterleaved, type RunStats } from './processes.js';

type Rule = { action: string; expression: string; ref: string; action_parameters?: { ruleset: string } };

const RULES = 200;
const PACKETS = 1_000_000;

/** Seeded helpers: an integer below n, one of a list, an IPv4 address and prefix of a /8 the packets also use. */
function picker(seed: number) {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const addr = () => `${pick([10, 172, 192, 198, 203])}.${int(256)}.${int(256)}.${int(256)}`;
  const prefix = (len: 16 | 20 | 24 | 28) => {
    const [a, b, c] = addr().split('.').map(Number) as [number, number, number];
    const mask = (x: number, bits: number) => (bits >= 8 ? x : bits <= 0 ? 0 : x & (0xff << (8 - bits)));
    return `${a}.${mask(b, len - 8)}.${mask(c, len - 16)}.0/${len}`;
  };
  return { rnd, int, pick, addr, prefix };
}

const ADMIN_PORTS = [22, 3389, 5900, 8443, 9090];

/** The old ruleset: 200 rules, about one in eight a skip of the current ruleset. */
export function oldRules(): Rule[] {
  const { int, pick, prefix } = picker(36);
  const rules: Rule[] = [];
  for (let i = 0; i < RULES; i++) {
    const kind = i % 8;
    let expression: string;
    if (kind === 0) expression = `ip.src in {${prefix(16)} ${prefix(24)}} and tcp.dstport in {${ADMIN_PORTS.slice(0, 2 + int(3)).join(' ')}}`;
    else if (kind === 1) expression = `tcp.dstport in {${1000 + int(5000)} ${6000 + int(3000)} ${10000 + i * 20}..${10010 + i * 20}}`;
    else if (kind === 2) expression = `ip.src in {${prefix(24)} ${prefix(28)} ${prefix(20)}} and ip.proto == "tcp" and tcp.dstport == ${pick([25, 445, 1433, 3306, 6379])}`;
    else if (kind === 3) expression = `ip.proto == "udp" and udp.dstport in {${pick([53, 123, 161, 1900, 11211])} ${20000 + i}} and ip.dst in {${prefix(24)}}`;
    else if (kind === 4) expression = `ip.dst in {203.0.113.${i % 250}/32 ${prefix(28)}} and tcp.flags.syn and not tcp.flags.ack`;
    else if (kind === 5) expression = `ip.proto == "icmp" and icmp.type in {${i % 20} ${(i + 5) % 20}}`;
    else if (kind === 6) expression = `ip.src in {2001:db8:${i.toString(16)}::/48} or tcp.srcport == ${40000 + i}`;
    else expression = `ip.src in {${prefix(20)}} and (tcp.dstport >= ${30000 + i * 10} or udp.dstport >= ${30000 + i * 10})`;
    rules.push(kind === 0 ? { action: 'skip', action_parameters: { ruleset: 'current' }, expression, ref: `r${i}` } : { action: 'block', expression, ref: `r${i}` });
  }
  return rules;
}

/** The new ruleset: the old one with five rules edited, as a change under review would be. */
export function newRules(old: readonly Rule[]): Rule[] {
  const rules = old.map((r) => ({ ...r }));
  rules[17]!.expression = rules[17]!.expression.replace('tcp.dstport in {', 'tcp.dstport in {8080 '); // a port added
  rules[58]!.expression = rules[58]!.expression.replace(/\/24\b/, '/22').replace(/\.\d+\.0\/22/, (m) => `.${Number(m.split('.')[1]) & 0xfc}.0/22`); // a prefix widened
  rules[96]!.action = 'block'; // a skip made a block
  delete rules[96]!.action_parameters;
  rules.splice(121, 1); // a rule deleted
  rules.splice(150, 0, { action: 'block', expression: 'ip.proto == "tcp" and tcp.dstport in {2375 2376}', ref: 'docker' }); // one inserted
  return rules;
}

/** 1M packets of the fields the rules read, a third aimed at the rules' addresses and ports. */
export function packets(rules: readonly Rule[]): Record<string, unknown>[] {
  const { rnd, int, pick, addr } = picker(7);
  const ruleAddrs = rules.flatMap((r) => [...r.expression.matchAll(/(\d+\.\d+\.\d+)\.\d+\/\d+/g)].map((m) => `${m[1]}.${1 + int(250)}`));
  const ruleInts = rules.flatMap((r) => [...r.expression.matchAll(/\b\d{2,5}\b/g)].map((m) => Number(m[0]))).filter((n) => n < 65536);
  // Shared strings, as a decoder's would be: packets repeat their hosts.
  const sources = Array.from({ length: 20_000 }, () => (rnd() < 0.35 ? pick(ruleAddrs) : addr()));
  const dests = Array.from({ length: 5_000 }, () => (rnd() < 0.35 ? pick(ruleAddrs) : rnd() < 0.1 ? `203.0.113.${int(256)}` : addr()));
  const port = () => (rnd() < 0.35 ? pick(ruleInts) : rnd() < 0.5 ? pick([80, 443, 22, 53, 8080, 3389]) : int(65536));
  const out: Record<string, unknown>[] = new Array(PACKETS);
  for (let i = 0; i < PACKETS; i++) {
    const proto = rnd() < 0.7 ? 'tcp' : rnd() < 0.85 ? 'udp' : 'icmp';
    const p: Record<string, unknown> = { 'ip.proto': proto, 'ip.src': pick(sources), 'ip.dst': pick(dests) };
    if (proto === 'tcp') Object.assign(p, { 'tcp.srcport': 1024 + int(64000), 'tcp.dstport': port(), 'tcp.flags.syn': rnd() < 0.3, 'tcp.flags.ack': rnd() < 0.8 });
    else if (proto === 'udp') Object.assign(p, { 'udp.srcport': 1024 + int(64000), 'udp.dstport': port() });
    else p['icmp.type'] = int(20);
    out[i] = p;
  }
  return out;
}


const BEFORE_DIST = flagValue('--before-dist');

/** The diff and counts of another build (`--before-dist`). */
type Build = { diffRulesets: typeof diffRulesets; DiffCounter: typeof DiffCounter };

/** The fastest of `rounds` runs of each, interleaved so that load on the machine hits each alike (ms). */
function fastest(fns: readonly (() => unknown)[], rounds: number): number[] {
  const best = fns.map(() => Infinity);
  for (let r = 0; r < rounds; r++) {
    for (const [i, f] of fns.entries()) {
      const t0 = performance.now();
      f();
      best[i] = Math.min(best[i]!, performance.now() - t0);
    }
  }
  return best;
}

export async function run(): Promise<void> {
  const before = { phase: 'network_transit', rules: oldRules() } as Ruleset & { rules: Rule[] };
  const after = { phase: 'network_transit', rules: newRules(before.rules) } as Ruleset & { rules: Rule[] };
  const other = BEFORE_DIST ? ((await import(pathToFileURL(resolve(BEFORE_DIST)).href)) as Build) : undefined;
  // One run first: a diff far over its target is timed once, beside one run of each baseline.
  const t0 = performance.now();
  const diff = diffRulesets(before, after);
  const once = performance.now() - t0;
  const exact = diff.regions.filter((r) => r.kind === 'exact').length;
  const fns = [() => diffRulesets(before, after), () => diffRulesets(before, before), () => analyzeRuleset(after)];
  let timed: number[];
  let how: string;
  if (once < 1000) {
    timed = measureInterleaved(fns, { rounds: 9, sampleMs: 300, warmupMs: 500 }).map((t) => t.q1 / 1e6);
    how = 'lower quartile of 9 interleaved rounds';
  } else {
    timed = fastest(fns, 1);
    how = `one run each: the first diff took ${(once / 1000).toFixed(1)} s`;
  }
  const [diffMs, sameMs, analysisMs] = timed as [number, number, number];
  // The other build's diff, once each (it may take seconds), after this build's rounds.
  let otherDiff: ReturnType<typeof diffRulesets> | undefined;
  const otherRows: (string | number)[][] = [];
  if (other) {
    const t1 = performance.now();
    otherDiff = other.diffRulesets(before, after);
    const otherMs = performance.now() - t1;
    const t2 = performance.now();
    other.diffRulesets(before, before);
    const otherSameMs = performance.now() - t2;
    otherRows.push(
      [`before (${BEFORE_DIST}, one run): diffRulesets: ${otherDiff.regions.length} regions (${otherDiff.regions.filter((r) => r.kind === 'exact').length} exact)`, otherMs.toFixed(1), ratio(otherMs, analysisMs), otherMs < 100 ? 'met' : 'missed'],
      ['before (one run): diffRulesets of the old ruleset with itself', otherSameMs.toFixed(1), ratio(otherSameMs, analysisMs), otherSameMs < 100 ? 'met' : 'missed'],
    );
  }
  printTable(`Semantic diff of two 200-rule rulesets (the new one 5 edits away), ms (${how})`, ['', 'ms', 'ratio', '< 100 ms'], [
    [`diffRulesets: ${diff.regions.length} regions (${exact} exact), ${diff.matches.length} rules matched`, diffMs.toFixed(1), ratio(diffMs, analysisMs), diffMs < 100 ? 'met' : 'missed'],
    ['diffRulesets of the old ruleset with itself (no region)', sameMs.toFixed(1), ratio(sameMs, analysisMs), sameMs < 100 ? 'met' : 'missed'],
    ...otherRows,
    ['analyzeRuleset of the new ruleset (baseline)', analysisMs.toFixed(1), '1.00×', ''],
  ]);

  const input = packets(after.rules);
  const outcomes = new Map<string, { changed: number; outside: number }>();
  const counts = (build: Build, d: ReturnType<typeof diffRulesets>, name: string) => () => {
    const counter = new build.DiffCounter(before, after, { diff: d });
    for (let i = 0; i < input.length; i++) counter.add(input[i]!, i);
    const r = counter.result();
    outcomes.set(name, { changed: r.changed, outside: r.outside });
  };
  const simulation = () => {
    const compiled = compileRuleset(after);
    for (let i = 0; i < input.length; i++) compiled.run(input[i]!, i);
    return compiled.summary();
  };
  const simulateApi = () => simulate(after, input).summary;
  const fnsCounts = [counts({ diffRulesets, DiffCounter }, diff, 'this'), simulation, simulateApi, ...(other ? [counts(other, otherDiff!, 'before')] : [])];
  // Five rounds, every function once a round in the same order; the ratio to the simulation is taken round
  // by round and its median reported, so a slow spell of the shared machine moves one round, not one row.
  const rounds = Array.from({ length: 5 }, () => fastest(fnsCounts, 1));
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const [countMs, simMs, apiMs, otherCountMs] = fnsCounts.map((_, i) => med(rounds.map((r) => r[i]!))) as [number, number, number, number | undefined];
  const countRatio = med(rounds.map((r) => r[0]! / r[1]!));
  const perPacket = (ms: number) => ((ms * 1e6) / PACKETS).toFixed(0);
  const outcome = (name: string) => `${outcomes.get(name)!.changed} changed, ${outcomes.get(name)!.outside} outside`;
  printTable(`Counts of the diff over ${PACKETS.toLocaleString('en')} packets, ms (medians of 5 interleaved rounds; ratio: the median of the rounds' ratios)`, ['', 'ms', 'ns/packet', 'ratio', 'within 1.5×'], [
    [`DiffCounter (both rulesets, per region and rule pair): ${outcome('this')}`, countMs.toFixed(0), perPacket(countMs), `${countRatio.toFixed(2)}×`, countRatio <= 1.5 ? 'met' : 'missed'],
    ...(otherCountMs !== undefined ? [[`before: DiffCounter: ${outcome('before')}`, otherCountMs.toFixed(0), perPacket(otherCountMs), ratio(otherCountMs, simMs), otherCountMs <= 1.5 * simMs ? 'met' : 'missed']] : []),
    ['one simulation: compileRuleset(new).run per packet + summary (baseline)', simMs.toFixed(0), perPacket(simMs), '1.00×', ''],
    ['simulate(new, packets): values checked, every result kept', apiMs.toFixed(0), perPacket(apiMs), ratio(apiMs, simMs), ''],
  ], [`before: ${BEFORE_DIST ? `the diff and DiffCounter of ${BEFORE_DIST}` : 'no --before-dist given'}.`]);

  wholeProcesses(before, after);
  if (process.argv.includes('--engine')) await engineCounts(before, after, input, countMs);
}

/** `rulekit diff --against` beside `rulekit simulate` over one capture: what a user pays, start-up included. */
function wholeProcesses(before: Ruleset, after: Ruleset): void {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-diff-'));
  try {
    const [oldFile, newFile] = [join(dir, 'old.json'), join(dir, 'new.json')];
    writeFileSync(oldFile, JSON.stringify(before));
    writeFileSync(newFile, JSON.stringify(after));
    const capture = cachedCapture(PACKETS);
    const packetsOf: number[] = [];
    const { stats } = runInterleaved([
      { name: 'diff', cmd: process.execPath, args: [CLI_ENTRY, 'diff', oldFile, newFile, '--against', capture, '--format', 'json'] },
      { name: 'simulate', cmd: process.execPath, args: [CLI_ENTRY, 'simulate', newFile, capture, '--format', 'json', '--no-progress'] },
    ], {
      runs: 5,
      check: (i, r) => {
        const out = JSON.parse(r.stdout) as Record<string, unknown>;
        if (i === 1) packetsOf.push((out['summary'] as { packets: number }).packets);
      },
    });
    const [d, sim] = stats as [RunStats, RunStats];
    printTable(`rulekit diff --against vs rulekit simulate, whole processes, the same ${PACKETS.toLocaleString('en')}-packet capture (medians of 5 interleaved runs)`, ['command', 's med (min)', 'ratio', 'within 1.5×'], [
      ['rulekit diff old.json new.json --against capture.pcap --format json', `${(d.median / 1000).toFixed(2)} (${(d.min / 1000).toFixed(2)})`, ratio(d.median, sim.median), d.median <= 1.5 * sim.median ? 'met' : 'missed'],
      ['rulekit simulate new.json capture.pcap --format json (baseline)', `${(sim.median / 1000).toFixed(2)} (${(sim.min / 1000).toFixed(2)})`, '1.00×', ''],
    ], [`the two 200-rule rulesets above; the synthetic capture of bench/capture-cache.ts (${packetsOf[0]} packets read by simulate); start-up and reading the capture in both`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The counts on DuckDB over the packets as NDJSON and as Parquet, beside the in-process counts. */
async function engineCounts(before: Ruleset, after: Ruleset, input: readonly Record<string, unknown>[], inProcessMs: number): Promise<void> {
  const { countDiffOnEngine, simulateOnEngine } = await import('../dist/simulation/index.js');
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-diff-'));
  try {
    const ndjson = join(dir, 'flows.ndjson');
    const parquet = join(dir, 'flows.parquet');
    writeFileSync(ndjson, input.map((p) => JSON.stringify(p)).join('\n') + '\n');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const columns = `{"ip.proto": 'VARCHAR', "ip.src": 'VARCHAR', "ip.dst": 'VARCHAR', "tcp.srcport": 'BIGINT', "tcp.dstport": 'BIGINT', "tcp.flags.syn": 'BOOLEAN', "tcp.flags.ack": 'BOOLEAN', "udp.srcport": 'BIGINT', "udp.dstport": 'BIGINT', "icmp.type": 'BIGINT'}`;
    await con.run(`COPY (SELECT * FROM read_json('${ndjson}', columns = ${columns})) TO '${parquet}' (FORMAT parquet)`);
    con.closeSync();
    db.closeSync();
    const rows: (string | number)[][] = [];
    for (const [name, file] of [['NDJSON', ndjson], ['Parquet', parquet]] as const) {
      const t0 = performance.now();
      const r = await countDiffOnEngine(before as never, after as never, [file], { engine: 'duckdb' });
      const ms = performance.now() - t0;
      const t1 = performance.now();
      await simulateOnEngine(JSON.stringify(after), [file], { engine: 'duckdb' });
      const simMs = performance.now() - t1;
      rows.push([`countDiffOnEngine, DuckDB, ${name}: ${r.counts?.changed ?? 'no'} changed, ${r.counts?.outside ?? '-'} outside`, ms.toFixed(0), ratio(ms, inProcessMs), ratio(ms, simMs)]);
      rows.push([`simulateOnEngine of the new ruleset, DuckDB, ${name}`, simMs.toFixed(0), ratio(simMs, inProcessMs), '1.00×']);
    }
    rows.push(['DiffCounter in process, packets in memory (baseline)', inProcessMs.toFixed(0), '1.00×', '']);
    printTable(`Counts of the diff over ${input.length.toLocaleString('en')} packets on DuckDB, ms (one run each)`, ['', 'ms', 'ratio', 'to one engine simulation'], rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
