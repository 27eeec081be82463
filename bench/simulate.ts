/**
 * `rulekit simulate` against `tshark -Y`, both timed as whole processes (bench/processes.ts: from spawn
 * to exit, Node's start-up and tshark's included) on the same generated captures (bench/capture-cache.ts),
 * once with the bench ruleset's first rule alone and once with the whole 50-rule ruleset
 * (bench/ruleset-fixture.ts), which tshark gets as exported by `rulekit export --wireshark`. Every pair is
 * printed as packets/s and as a ratio, with rulekit's peak RSS at each size (memory should not grow
 * with the capture). tshark's and rulekit's counts of blocked packets must agree, or the bench throws.
 * With the first rule, `tcpdump -r FILE -w /dev/null BPF` runs in the same interleaved rounds: libpcap's
 * compiled BPF is the physical anchor for a header-only rule (the issue's target: rulekit ≤ 2.5× tcpdump
 * at 1M packets); the packets it matches are counted once, untimed, from its `-w -` output.
 * A second table times rulekit on the same captures written as pcapng (one Enhanced Packet Block per
 * packet) beside the pcap, in the same interleaved runs.
 *
 * Environment (tshark dissects ~60–80k packets/s with the first rule and ~10k/s with the whole ruleset,
 * so its runs dominate the bench):
 * - BENCH_SIM_SIZES: captures, default `100k,1M,5M` (`10M` too for the memory row; 700 MB of disk);
 * - BENCH_SIM_RUNS: rulekit runs per capture and ruleset (default 5; 3 from 5M packets up);
 * - BENCH_SIM_TSHARK_FIRST_MAX / BENCH_SIM_TSHARK_ALL_MAX: the largest capture tshark runs with the first
 *   rule (default 5M, ~80 s a run there) and with the whole ruleset (default 1M: ~100 s a run there,
 *   ~9 min at 5M); above them its cells say so;
 * - BENCH_SIM_TSHARK_RUNS: tshark runs per cell (default 3 at 100k packets, 1 above).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir, cachedCapture, cachedPcapng, countLabel, parseCount } from './capture-cache.js';
import { printTable, fmt } from './harness.js';
import { CLI_ENTRY } from './paths.js';
import { canMeasurePeak, runInterleaved, type Command, type ProcessRun, type RunStats } from './processes.js';
import { writeFixture, type RuleSpec } from './ruleset-fixture.js';

const env = process.env;
const SIZES = (env.BENCH_SIM_SIZES ?? '100k,1M,5M').split(',').map(parseCount);
const TSHARK_FIRST_MAX = parseCount(env.BENCH_SIM_TSHARK_FIRST_MAX ?? '5M');
const TSHARK_ALL_MAX = parseCount(env.BENCH_SIM_TSHARK_ALL_MAX ?? '1M');
const rulekitRuns = (n: number) => Number(env.BENCH_SIM_RUNS ?? (n >= 5e6 ? 3 : 5));
const tsharkRuns = (n: number) => Number(env.BENCH_SIM_TSHARK_RUNS ?? (n <= 100_000 ? 3 : 1));
/** Files from this size up are read by 2 worker threads by default (src/cli/simulate.ts, 96 MiB). */
const THREADED_BYTES = 96 << 20;

const execFileP = promisify(execFile);

/** `rulekit export --wireshark` of each rule's expression (two at a time: they are whole Node processes). */
async function exportRules(specs: readonly RuleSpec[], lists: string): Promise<string[]> {
  const out: string[] = new Array(specs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < specs.length; i = next++) {
      const { stdout } = await execFileP(process.execPath, [CLI_ENTRY, 'export', '--wireshark', specs[i]!.expression, '--lists', lists], { maxBuffer: 1 << 26 });
      out[i] = stdout.trim();
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
}

/**
 * The packets the ruleset blocks, as one display filter. Rules decide in order and the first match wins:
 * a `block` rule blocks unless an earlier `skip` (of the current ruleset) matched, which allows the
 * packet. So the filter is `(b1) || (b2) || … || (!(s1) && ((b3) || … ))`: block rules OR-ed in their
 * order, each skip rule guarding the rules after it. That is exactly rulekit's `block` verdict, so the
 * two tools' counts can be compared; a plain `(r1) || … || (r50)` would count the packets the web `skip`
 * allows too. Fully parenthesised: no reliance on how Wireshark ranks `&&` against `||`.
 */
export function blockedFilter(specs: readonly RuleSpec[], filters: readonly string[]): string {
  let acc: string | undefined;
  for (let i = specs.length - 1; i >= 0; i--) {
    const f = `(${filters[i]})`;
    if (specs[i]!.action === 'block') acc = acc === undefined ? f : `${f} || ${acc}`;
    else if (acc !== undefined) acc = `(!${f} && (${acc}))`;
  }
  return acc ?? 'frame.number == 0';
}

/**
 * A private Wireshark configuration directory whose display-filter macro `${rulekit_ruleset}` is
 * `filter`. The exported ruleset is ~170 kB (the 10k-CIDR list alone is 166 kB) and Linux caps one
 * command-line argument at 128 KiB (MAX_ARG_STRLEN), so `-Y` gets the macro and tshark expands it when it
 * compiles the filter. Every tshark run uses this directory, so none reads a user's preferences.
 */
function wiresharkConfig(dir: string, filter: string): string {
  if (/["\\\n]/.test(filter)) throw new Error('the exported filter has a character the macro file would need escaped');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'dfilter_macros'), `"rulekit_ruleset","${filter}"\n`);
  return dir;
}

interface Cell {
  packets: number;
  rules: 'first rule' | `whole ruleset (${number} rules)`;
  rulekit: RunStats;
  rulekitBlocked: number;
  /** Median of the runs' peak RSS. */
  rulekitPeakMB: number;
  tshark?: RunStats;
  tsharkPeakMB?: number;
  tsharkNote?: string;
  tcpdump?: RunStats;
  tcpdumpMatched?: number;
}

const tsharkInstalled = spawnSync('tshark', ['-v'], { stdio: 'ignore' }).status === 0;
const tcpdumpInstalled = spawnSync('tcpdump', ['--version'], { stdio: 'ignore' }).status === 0;

/** The fixture's first rule, and the same packets as a libpcap filter (written by hand: rulekit has no BPF exporter). */
const FIRST_RULE = 'tcp.dstport in {1000 2000 3000..3010}';
const FIRST_RULE_BPF = 'tcp dst port 1000 or tcp dst port 2000 or tcp dst portrange 3000-3010';

/** Packets in a pcap byte stream (tcpdump's `-w -`): the 24-byte file header, then a 16-byte header and the bytes of each record. */
function pcapRecords(bytes: Buffer): number {
  const little = bytes.readUInt32LE(0) === 0xa1b2c3d4 || bytes.readUInt32LE(0) === 0xa1b23c4d;
  let n = 0;
  for (let at = 24; at + 16 <= bytes.length; n++) at += 16 + (little ? bytes.readUInt32LE(at + 8) : bytes.readUInt32BE(at + 8));
  return n;
}

/** What tcpdump matches in `file` with the first rule's filter (one untimed run). */
function tcpdumpMatched(file: string): number {
  const r = spawnSync('tcpdump', ['-n', '-r', file, '-w', '-', FIRST_RULE_BPF], { maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`tcpdump failed: ${r.stderr.toString()}`);
  return pcapRecords(r.stdout);
}

/** Lines of `-T fields -e frame.number`: one per packet that passed the filter. */
const matchedLines = (r: ProcessRun) => r.stdout.split('\n').filter((l) => l.length > 0).length;

export async function run(): Promise<void> {
  const fixtureDir = join(cacheDir(), `fixture-${process.pid}`);
  try {
    await compare(fixtureDir);
  } finally {
    rmSync(fixtureDir, { recursive: true, force: true });
  }
}

async function compare(fixtureDir: string): Promise<void> {
  const fx = writeFixture(fixtureDir);
  const filters = await exportRules(fx.specs, fx.lists);
  const firstFilter = filters[0]!;
  const wsConfig = wiresharkConfig(join(fixtureDir, 'wireshark'), blockedFilter(fx.specs, filters));
  if (fx.specs[0]!.expression !== FIRST_RULE) throw new Error(`the fixture's first rule is ${fx.specs[0]!.expression}; FIRST_RULE_BPF says ${FIRST_RULE}`);

  const cells: Cell[] = [];
  for (const n of SIZES) {
    const file = cachedCapture(n);
    const simulate = (rules: string, ruleset: string): Command => ({
      name: `rulekit simulate (${rules})`,
      cmd: process.execPath,
      args: [CLI_ENTRY, 'simulate', ruleset, file, '--lists', fx.lists, '--format', 'json', '--no-progress', '--stats'],
    });
    const tshark = (rules: string, display: string): Command => ({
      name: `tshark (${rules})`,
      cmd: 'tshark',
      args: ['-n', '-r', file, '-Y', display, '-T', 'fields', '-e', 'frame.number'],
      env: { WIRESHARK_CONFIG_DIR: wsConfig },
      runs: tsharkRuns(n),
      warmup: 0,
      peak: true,
    });
    const wholeRules = `whole ruleset (${fx.specs.length} rules)` as const;
    const pairs = [
      { rules: 'first rule' as const, rulekit: simulate('first rule', fx.first), tshark: tshark('first rule', firstFilter), max: TSHARK_FIRST_MAX, knob: 'BENCH_SIM_TSHARK_FIRST_MAX' },
      { rules: wholeRules, rulekit: simulate(wholeRules, fx.all), tshark: tshark(wholeRules, '${rulekit_ruleset}'), max: TSHARK_ALL_MAX, knob: 'BENCH_SIM_TSHARK_ALL_MAX' },
    ];
    const withTshark = (p: (typeof pairs)[number]) => tsharkInstalled && n <= p.max;
    // rulekit's two commands, then tshark's where it runs at this size: all interleaved (bench/processes.ts).
    const tcpdump: Command | undefined = tcpdumpInstalled ? { name: 'tcpdump (first rule)', cmd: 'tcpdump', args: ['-n', '-r', file, '-w', '/dev/null', FIRST_RULE_BPF] } : undefined;
    const commands = [...pairs.map((p) => p.rulekit), ...pairs.filter(withTshark).map((p) => p.tshark), ...(tcpdump ? [tcpdump] : [])];
    const tcpdumpAt = tcpdump ? commands.length - 1 : -1;
    const blocked: number[][] = commands.map(() => []);
    const peaks: number[][] = pairs.map(() => []);
    const { stats: timed, runs } = runInterleaved(commands, {
      runs: rulekitRuns(n),
      check: (i, r) => {
        if (i < pairs.length) {
          blocked[i]!.push((JSON.parse(r.stdout) as { summary: { verdicts: { block: number } } }).summary.verdicts.block);
          const m = /peak RSS ([\d.]+) MB/.exec(r.stderr);
          if (!m) throw new Error(`no --stats line from rulekit simulate: ${r.stderr}`);
          peaks[i]!.push(Number(m[1]));
        } else if (i !== tcpdumpAt) blocked[i]!.push(matchedLines(r));
      },
    });
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    let t = pairs.length;
    pairs.forEach((p, i) => {
      const counts = blocked[i]!;
      if (counts.some((b) => b !== counts[0])) throw new Error(`${p.rulekit.name} blocked different counts on the same file`);
      const cell: Cell = { packets: n, rules: p.rules, rulekit: timed[i]!, rulekitBlocked: counts[0]!, rulekitPeakMB: median(peaks[i]!) };
      if (withTshark(p)) {
        const matched = blocked[t]![0]!;
        if (matched !== cell.rulekitBlocked) throw new Error(`${countLabel(n)} packets, ${p.rules}: tshark matched ${matched} packets, rulekit blocked ${cell.rulekitBlocked}`);
        cell.tshark = timed[t]!;
        const tp = runs[t]!.map((r) => r.peakMB).filter((x): x is number => x !== undefined);
        if (tp.length) cell.tsharkPeakMB = Math.max(...tp);
        t++;
      } else cell.tsharkNote = tsharkInstalled ? `not run above ${countLabel(p.max)} packets (${p.knob})` : 'tshark not installed';
      if (tcpdump && p.rules === 'first rule') {
        cell.tcpdump = timed[tcpdumpAt]!;
        cell.tcpdumpMatched = tcpdumpMatched(file);
      }
      cells.push(cell);
    });
  }

  const s = (ms: number) => (ms / 1000).toFixed(2);
  const pps = (n: number, ms: number) => fmt((n * 1000) / ms);
  printTable(
    'rulekit simulate vs tshark -Y: whole processes, same files',
    ['capture', 'rules', 'rulekit s med (min)', 'rulekit packets/s', 'rulekit peak RSS MB', 'tshark s (runs)', 'tshark packets/s', 'rulekit × tshark', 'blocked'],
    cells.map((c) => [
      `${countLabel(c.packets)} packets${statSync(cachedCapture(c.packets)).size >= THREADED_BYTES ? ' (2 threads)' : ''}`,
      c.rules,
      `${s(c.rulekit.median)} (${s(c.rulekit.min)})`,
      pps(c.packets, c.rulekit.median),
      c.rulekitPeakMB.toFixed(1),
      c.tshark ? `${s(c.tshark.median)} (${c.tshark.runs})` : '–',
      c.tshark ? pps(c.packets, c.tshark.median) : c.tsharkNote!,
      c.tshark ? `${(c.tshark.median / c.rulekit.median).toFixed(1)}×` : '–',
      `${c.rulekitBlocked}${c.tshark ? ' = tshark' : ''}`,
    ]),
    [
      `targets at 1M packets, whole process: rulekit ≥ 50× tshark with the first rule, ≥ 300× with the whole ruleset; rulekit's peak RSS flat from 100k to 10M packets`,
      `rulekit peak RSS (whole ruleset): ${cells.filter((c) => c.rules !== 'first rule').map((c) => `${countLabel(c.packets)}: ${c.rulekitPeakMB.toFixed(1)} MB`).join(', ')} (from its --stats line; the process's maxRSS, worker threads included)`,
      ...(cells.some((c) => c.tsharkPeakMB !== undefined) ? [`tshark peak RSS: ${cells.filter((c) => c.tsharkPeakMB !== undefined).map((c) => `${countLabel(c.packets)} ${c.rules === 'first rule' ? 'first rule' : 'whole'}: ${c.tsharkPeakMB!.toFixed(0)} MB`).join(', ')}`] : []),
      `whole process, spawn to exit (Node's start-up and module loading in rulekit's figure, tshark's start-up in its own); rulekit: \`simulate RULESET FILE --lists LISTS --format json --no-progress --stats\`, default threads (2 for files ≥ 96 MiB), ${SIZES.map((n) => `${rulekitRuns(n)} runs at ${countLabel(n)}`).join(', ')}, after one untimed run; tshark's runs are interleaved with rulekit's (every round runs the commands in a rotated order; tshark's fewer runs fall in evenly spread rounds, a single one in the middle round), so both meet the same load; × tshark = tshark's median / rulekit's median`,
      `tshark: \`tshark -n -r FILE -Y FILTER -T fields -e frame.number\`, ${SIZES.filter((n) => n <= Math.max(TSHARK_FIRST_MAX, TSHARK_ALL_MAX)).map((n) => `${tsharkRuns(n)} run${tsharkRuns(n) > 1 ? 's' : ''} at ${countLabel(n)}`).join(', ')}; first rule: \`${firstFilter}\`; whole ruleset: the ${fx.specs.length} rules' \`rulekit export --wireshark\` combined as the packets the ruleset blocks (first match decides, a skip guards the rules after it), ${blockedFilter(fx.specs, filters).length} characters, given as a display-filter macro (one argument may not exceed 128 KiB)`,
      ...(canMeasurePeak ? [] : ['tshark peak RSS not measured (no GNU time at /usr/bin/time)']),
    ],
  );

  const withTcpdump = cells.filter((c) => c.tcpdump);
  if (withTcpdump.length) {
    printTable(
      'rulekit simulate vs tcpdump, the first rule (header-only): whole processes, same files, same rounds',
      ['capture', 'rulekit s med (min)', 'tcpdump s med (min)', 'rulekit × tcpdump (time)', 'rulekit blocked', 'tcpdump matched'],
      withTcpdump.map((c) => [
        `${countLabel(c.packets)} packets`,
        `${s(c.rulekit.median)} (${s(c.rulekit.min)})`,
        `${s(c.tcpdump!.median)} (${s(c.tcpdump!.min)})`,
        `${(c.rulekit.median / c.tcpdump!.median).toFixed(2)}×`,
        String(c.rulekitBlocked),
        `${c.tcpdumpMatched}${c.tcpdumpMatched === c.rulekitBlocked ? ' (equal)' : ' (differs)'}`,
      ]),
      [
        `target (issue 37): rulekit ≤ 2.5× tcpdump at 1M packets; rulekit: \`simulate first-rule.json FILE … --format json\` (${FIRST_RULE}); tcpdump: \`tcpdump -n -r FILE -w /dev/null '${FIRST_RULE_BPF}'\` (libpcap's BPF, written by hand), timed in the rounds above; its matched packets counted once from \`-w -\``,
        `where counts differ, the two filters read different packets: libpcap's \`tcp dst port\` skips IPv6 behind extension headers and tunnelled packets, which rulekit's fields reach`,
      ],
    );
  }

  // The same captures as pcapng: rulekit alone, the whole ruleset, both formats interleaved.
  const rows: string[][] = [];
  for (const n of SIZES) {
    const files = [cachedCapture(n), cachedPcapng(n)];
    const commands: Command[] = files.map((file, i) => ({
      name: i === 0 ? 'pcap' : 'pcapng',
      cmd: process.execPath,
      args: [CLI_ENTRY, 'simulate', fx.all, file, '--lists', fx.lists, '--format', 'json', '--no-progress'],
    }));
    const blocked: number[] = [];
    const { stats: timed } = runInterleaved(commands, {
      runs: rulekitRuns(n),
      check: (_i, r) => void blocked.push((JSON.parse(r.stdout) as { summary: { verdicts: { block: number } } }).summary.verdicts.block),
    });
    if (blocked.some((b) => b !== blocked[0])) throw new Error(`${countLabel(n)} packets: pcap and pcapng blocked different counts (${[...new Set(blocked)].join(', ')})`);
    const [pcap, ng] = timed as [RunStats, RunStats];
    rows.push([
      `${countLabel(n)} packets${statSync(files[1]!).size >= THREADED_BYTES ? ' (2 threads)' : ''}`,
      `${s(pcap.median)} (${s(pcap.min)})`,
      pps(n, pcap.median),
      `${s(ng.median)} (${s(ng.min)})`,
      pps(n, ng.median),
      `${(ng.median / pcap.median).toFixed(2)}×`,
      String(blocked[0]),
    ]);
  }
  printTable(
    'rulekit simulate: the same capture as pcapng and as pcap, whole processes, same run',
    ['capture', 'pcap s med (min)', 'pcap packets/s', 'pcapng s med (min)', 'pcapng packets/s', 'pcapng time ÷ pcap time', 'blocked (both)'],
    rows,
    [
      `the whole ruleset (${fx.specs.length} rules); the pcapng is the pcap rewritten by bench/pcapng-gen.ts (SHB, one IDB, an EPB per packet: 16 more bytes per packet); ${SIZES.map((n) => `${rulekitRuns(n)} runs at ${countLabel(n)}`).join(', ')}, interleaved, after one untimed run`,
    ],
  );
}
