/**
 * Start-up, whole processes: a bare `node -e 0`, importing the library, `rulekit check` of one
 * expression and `rulekit simulate` of a 14-packet capture through a one-rule ruleset (what a simulation
 * pays before its first packet), each timed from spawn to exit (bench/processes.ts), interleaved, printed
 * as milliseconds over `node -e 0` and as a multiple of it. The entry points are bench/paths.ts's
 * LIBRARY_ENTRY and CLI_ENTRY. Targets: the import ≤ 30 ms above `node -e 0`; `rulekit check` ≤ 2×
 * `node -e 0`. BENCH_STARTUP_RUNS sets the runs per command (default 15).
 *
 * NODE_EXTRA_CA_CERTS, when set, makes every Node process parse that certificate file at start (a system
 * bundle: ~80% of `node -e 0`'s instructions), which flatters every ratio: the table says when it is set.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printTable } from './harness.js';
import { CLI_ENTRY, LIBRARY_ENTRY } from './paths.js';
import { runInterleaved, type Command } from './processes.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);

export async function run(): Promise<void> {
  const node = process.execPath;
  const root = fileURLToPath(new URL('..', import.meta.url));
  const shown = (p: string) => relative(root, p);
  const ruleset = join(mkdtempSync(join(tmpdir(), 'rulekit-startup-')), 'ruleset.json');
  writeFileSync(ruleset, JSON.stringify({ name: 'startup', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 80' }] }));
  const capture = join(root, 'test', 'fixtures', 'capture', 'ipv6-ext.pcap');
  const commands: Command[] = [
    { name: 'node -e 0', cmd: node, args: ['-e', '0'] },
    { name: `node -e "import('<abs>/${shown(LIBRARY_ENTRY)}')"`, cmd: node, args: ['-e', `import(${JSON.stringify(pathToFileURL(LIBRARY_ENTRY).href)})`] },
    { name: `node ${shown(CLI_ENTRY)} check 'tcp.dstport == 80'`, cmd: node, args: [CLI_ENTRY, 'check', 'tcp.dstport == 80'] },
    { name: `node ${shown(CLI_ENTRY)} simulate <one rule> ${shown(capture)}`, cmd: node, args: [CLI_ENTRY, 'simulate', ruleset, capture] },
  ];
  // Three untimed rounds: the page cache and V8's code cache of each entry point warm up first.
  const { stats } = runInterleaved(commands, { runs: RUNS, warmup: 3 });
  const bare = stats[0]!;
  printTable(
    `Start-up, whole processes (ms, ${RUNS} runs each, interleaved)`,
    ['command', 'median', 'min', 'over node -e 0 (median; min)', '× node -e 0 (median; min)'],
    commands.map((c, i) => {
      const t = stats[i]!;
      return [
        c.name,
        t.median.toFixed(1),
        t.min.toFixed(1),
        i === 0 ? '–' : `+${(t.median - bare.median).toFixed(0)} ms; +${(t.min - bare.min).toFixed(0)} ms`,
        i === 0 ? '1.00×' : `${(t.median / bare.median).toFixed(2)}×; ${(t.min / bare.min).toFixed(2)}×`,
      ];
    }),
    [
      'targets: importing the library ≤ 30 ms over node -e 0; rulekit check of one expression ≤ 2× node -e 0',
      'timed from spawn to exit; each round runs every command once in a rotated order, after 3 untimed rounds',
      process.env['NODE_EXTRA_CA_CERTS']
        ? `NODE_EXTRA_CA_CERTS is set (${process.env['NODE_EXTRA_CA_CERTS']}): every process above parses it at start, node -e 0 included`
        : 'NODE_EXTRA_CA_CERTS is not set',
    ],
  );
}
