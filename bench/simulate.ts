/**
 * Ruleset simulation (issue 5): a generated capture of 1M packets (mixed TCP/UDP/ICMP, IPv4/IPv6) through
 * a 50-rule ruleset with sets and a 10k-CIDR list.
 * - `rulekit simulate` end to end (the CLI as a user runs it: read, decode only the used fields, decide),
 *   packets/s and peak RSS for 200k and 1M packets (streaming: memory constant in the capture's size);
 * - the compiled ruleset alone on 200k decoded packets, against hand-written closures of the same rules;
 * - `tshark -r FILE -Y EXPR` on one rule's expression (exported with toWireshark) over 100k packets, where
 *   tshark is installed, with the match counts compared.
 * Targets: ≥ 50× tshark's packets/s; compiled ruleset ≤ 1.3× the hand-written closures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, printTable, fmt, ratio } from './harness.js';
import { prng, writeSyntheticPcap } from './capture-gen.js';
import { compileRuleset, IpSet, type Packet, type Rule } from '../dist/index.js';
import { readCaptureAll, decodePacket } from '../dist/capture/index.js';
import { toWireshark } from '../dist/export/index.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

/** 10k CIDRs: 500 cover sources the generator uses (same seed), the rest random. */
export function blocklist(): string[] {
  const rnd = prng(1);
  const pool = Array.from({ length: 4096 }, () => (rnd() * 4294967296) >>> 0);
  const r2 = prng(99);
  const text = (x: number) => `${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
  const out: string[] = [];
  for (let i = 0; i < 500; i++) out.push(`${text(pool[i * 7]! & 0xffffff00)}/24`);
  while (out.length < 10_000) out.push(`${text(((r2() * 4294967296) >>> 0) & 0xfffff000)}/20`);
  return out;
}

type Template = { expr: string; closure: (p: Packet) => boolean };

/** 50 rules from templates; each template has its hand-written closure. */
export function rules(list: IpSet): { rules: Rule[]; closures: { f: (p: Packet) => boolean; terminating: boolean; block: boolean }[] } {
  const num = (p: Packet, k: string) => p[k] as number | undefined;
  const templates: ((i: number) => Template)[] = [
    (i) => ({ expr: `tcp.dstport in {${1000 + i} ${2000 + i} ${3000 + i}..${3010 + i}}`, closure: (p) => { const v = num(p, 'tcp.dstport'); return v === 1000 + i || v === 2000 + i || (v !== undefined && v >= 3000 + i && v <= 3010 + i); } }),
    (i) => ({ expr: `udp.dstport == ${5000 + i} and ip.ttl < ${40 + i}`, closure: (p) => num(p, 'udp.dstport') === 5000 + i && (num(p, 'ip.ttl') ?? 999) < 40 + i }),
    (i) => ({ expr: `ip.dst in {203.0.113.${i}..203.0.113.${i + 2}} and tcp.flags.syn and not tcp.flags.ack`, closure: (p) => { const d = p['ip.dst'] as string | undefined; if (d === undefined || !d.startsWith('203.0.113.')) return false; const o = Number(d.slice(10)); return o >= i && o <= i + 2 && p['tcp.flags.syn'] === true && p['tcp.flags.ack'] !== true; } }),
    (i) => ({ expr: `ip.proto == "icmp" and icmp.type == ${i % 20}`, closure: (p) => p['ip.proto'] === 'icmp' && num(p, 'icmp.type') === i % 20 }),
    (i) => ({ expr: `ip.src in {2001:db8:${i}::/48} or tcp.srcport == ${60000 + i}`, closure: (p) => { const s = p['ip.src'] as string | undefined; return (s !== undefined && s.startsWith(`2001:db8:${i}:`)) || num(p, 'tcp.srcport') === 60000 + i; } }),
  ];
  const out: Rule[] = [];
  const closures: { f: (p: Packet) => boolean; terminating: boolean; block: boolean }[] = [];
  for (let i = 0; i < 47; i++) {
    const t = templates[i % templates.length]!(i);
    out.push({ action: 'block', expression: t.expr, description: `template ${i % templates.length} #${i}` });
    closures.push({ f: t.closure, terminating: true, block: true });
  }
  out.push({ action: 'block', expression: 'ip.src in $blocklist', description: '10k-CIDR list' });
  closures.push({ f: (p) => typeof p['ip.src'] === 'string' && list.has(p['ip.src'] as string), terminating: true, block: true });
  out.push({ action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {80 443 8080}', description: 'web' });
  closures.push({ f: (p) => { const v = num(p, 'tcp.dstport'); return v === 80 || v === 443 || v === 8080; }, terminating: true, block: false });
  out.push({ action: 'block', expression: 'tcp.dstport in {1..1023} or udp.dstport in {1..1023}', description: 'low ports' });
  closures.push({ f: (p) => { const t = num(p, 'tcp.dstport'); const u = num(p, 'udp.dstport'); return (t !== undefined && t >= 1 && t <= 1023) || (u !== undefined && u >= 1 && u <= 1023); }, terminating: true, block: true });
  return { rules: out, closures };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-bench-'));
  const N = Number(process.env.BENCH_PACKETS ?? 1_000_000);
  const files = { big: join(dir, `${N}.pcap`), mid: join(dir, '200k.pcap'), small: join(dir, '100k.pcap') };
  writeSyntheticPcap(files.big, N);
  writeSyntheticPcap(files.mid, 200_000);
  writeSyntheticPcap(files.small, 100_000);
  const list = blocklist();
  const set = IpSet.fromItems(list).set;
  const { rules: rs, closures } = rules(set);
  const rulesetPath = join(dir, 'ruleset.json');
  writeFileSync(rulesetPath, JSON.stringify({ rules: rs }));
  const listsPath = join(dir, 'lists.json');
  writeFileSync(listsPath, JSON.stringify({ blocklist: list }));

  // --- the compiled ruleset alone vs hand-written closures, on 200k decoded packets ---
  const compiled = compileRuleset({ rules: rs }, { lists: { blocklist: list } });
  if (compiled.hasErrors) throw new Error(JSON.stringify(compiled.diagnostics));
  const { records } = await readCaptureAll(new Uint8Array(readFileSync(files.mid)), { copyData: false, timestamps: 'number' });
  const packets = records.map((r) => decodePacket(r, { fields: compiled.fields }).packet as Packet);
  const byHand = (p: Packet): 'allow' | 'block' => {
    for (const c of closures) if (c.f(p)) return c.block ? 'block' : 'allow';
    return 'allow';
  };
  let blockedHand = 0;
  let blockedOurs = 0;
  for (const p of packets) {
    if (byHand(p) === 'block') blockedHand++;
    if (compiled.decide(p).verdict === 'block') blockedOurs++;
  }
  if (blockedHand !== blockedOurs) throw new Error(`verdicts differ: hand-written ${blockedHand} blocked, rulekit ${blockedOurs}`);
  const hand = measure(() => { let b = 0; for (const p of packets) if (byHand(p) === 'block') b++; return b; }, { opsPerCall: packets.length, samples: 5 });
  const ours = measure(() => { let b = 0; for (const p of packets) if (compiled.decide(p).verdict === 'block') b++; return b; }, { opsPerCall: packets.length, samples: 5 });

  // --- end to end (CLI) ---
  const e2e = (file: string) => {
    const r = spawnSync(process.execPath, [CLI, 'simulate', rulesetPath, file, '--lists', listsPath, '--format', 'json', '--no-progress', '--stats'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`rulekit simulate failed: ${r.stderr}`);
    const m = /stats: (\d+) packets in ([\d.]+) s = (\d+) packets\/s; peak RSS ([\d.]+) MB/.exec(r.stderr)!;
    const summary = JSON.parse(r.stdout).summary;
    return { packets: Number(m[1]), pps: Number(m[3]), rss: Number(m[4]), blocked: summary.verdicts.block as number };
  };
  const bigRun = e2e(files.big);
  const midRun = e2e(files.mid);

  // --- tshark on one rule's expression ---
  const probe = rs[0]!.expression;
  const filter = toWireshark(probe).filter!;
  let tshark: { pps: number; matches: number } | undefined;
  if (spawnSync('tshark', ['-v']).status === 0) {
    const t0 = performance.now();
    const r = spawnSync('tshark', ['-n', '-r', files.small, '-Y', filter, '-T', 'fields', '-e', 'frame.number'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const s = (performance.now() - t0) / 1000;
    tshark = { pps: 100_000 / s, matches: r.stdout.split('\n').filter(Boolean).length };
    const probeMatcher = compileRuleset({ rules: [{ action: 'block', expression: probe }] });
    const { records: small } = await readCaptureAll(new Uint8Array(readFileSync(files.small)));
    const ourMatches = small.filter((rec) => probeMatcher.decide(decodePacket(rec).packet as Packet).verdict === 'block').length;
    if (ourMatches !== tshark.matches) throw new Error(`tshark matched ${tshark.matches} packets of '${filter}', rulekit ${ourMatches}`);
  }

  printTable(
    `Ruleset of ${rs.length} rules (sets, a 10k-CIDR list) over generated captures`,
    ['what', 'packets/s', 'ratio', 'notes'],
    [
      ['hand-written closures (200k decoded packets in memory)', fmt(1e9 / hand.median), '1.00×', `${fmt(hand.median)} ns/packet`],
      ['rulekit compiled ruleset (same packets)', fmt(1e9 / ours.median), `${ratio(ours.median, hand.median)} the time of the closures`, `${fmt(ours.median)} ns/packet; ${blockedOurs} blocked = closures`],
      [`rulekit simulate end to end, ${bigRun.packets} packets`, fmt(bigRun.pps), tshark ? `${(bigRun.pps / tshark.pps).toFixed(0)}× tshark` : 'tshark not installed', `peak RSS ${bigRun.rss} MB; ${bigRun.blocked} blocked`],
      [`rulekit simulate end to end, ${midRun.packets} packets`, fmt(midRun.pps), tshark ? `${(midRun.pps / tshark.pps).toFixed(0)}× tshark` : '', `peak RSS ${midRun.rss} MB (memory ${(bigRun.rss / midRun.rss).toFixed(2)}× for ${(bigRun.packets / midRun.packets).toFixed(0)}× the packets)`],
      ...(tshark ? [[`tshark -Y '${filter}' (100k packets)`, fmt(tshark.pps), '1.00×', `${tshark.matches} matches = rulekit`]] : []),
    ],
    ['targets: end to end ≥ 50× tshark; compiled ruleset ≤ 1.3× the hand-written closures'],
  );
}
