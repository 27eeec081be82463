/**
 * The ruleset the decide and simulate benches run: 50 rules from five templates (port sets and ranges,
 * port + TTL, an IPv4 destination range with TCP flags, ICMP type, an IPv6 /48 or a source port), a
 * 10k-CIDR block list, a `skip` of web ports and a low-ports catch-all. Each rule is written once, as a
 * {@link RuleSpec}: its expression for rulekit and tshark, and the numbers the hand-written decider
 * (bench/hand-decider.ts) tests, so the two cannot drift apart.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from './capture-gen.js';
import type { Rule } from '../dist/index.js';

/** What the hand-written decider tests for one rule (numbers only). */
export type RuleTest =
  /** tcp.dstport equal to one of `ports` or within [lo, hi]. */
  | { kind: 'tcp-dstport'; ports: number[]; lo: number; hi: number }
  /** udp.dstport == port and ip.ttl < ttlBelow. */
  | { kind: 'udp-dstport-ttl'; port: number; ttlBelow: number }
  /** IPv4 destination within [lo, hi] (uint32), SYN set, ACK clear. */
  | { kind: 'dst4-syn'; lo: number; hi: number }
  /** IPv4 ICMP of this type. */
  | { kind: 'icmp4-type'; type: number }
  /** IPv6 source in 2001:db8:<group>::/48, or tcp.srcport == port. */
  | { kind: 'src6-or-tcp-srcport'; group: number; port: number }
  /** IPv4 source in the block list. */
  | { kind: 'src4-list' }
  /** tcp.dstport or udp.dstport within [lo, hi]. */
  | { kind: 'dstport-range'; lo: number; hi: number };

/** One rule: as the ruleset says it, and as the hand-written decider tests it. */
export interface RuleSpec {
  action: 'block' | 'skip';
  expression: string;
  description: string;
  test: RuleTest;
}

/** 10k CIDRs: 500 cover sources the capture generator uses (same seed), the rest random /20s. */
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

const TEST_NET_3 = ((203 << 24) | (0 << 16) | (113 << 8)) >>> 0;

/** The 50 rules, in order. */
export function ruleSpecs(): RuleSpec[] {
  const templates: ((i: number) => Omit<RuleSpec, 'action' | 'description'>)[] = [
    (i) => ({ expression: `tcp.dstport in {${1000 + i} ${2000 + i} ${3000 + i}..${3010 + i}}`, test: { kind: 'tcp-dstport', ports: [1000 + i, 2000 + i], lo: 3000 + i, hi: 3010 + i } }),
    (i) => ({ expression: `udp.dstport == ${5000 + i} and ip.ttl < ${40 + i}`, test: { kind: 'udp-dstport-ttl', port: 5000 + i, ttlBelow: 40 + i } }),
    (i) => ({ expression: `ip.dst in {203.0.113.${i}..203.0.113.${i + 2}} and tcp.flags.syn and not tcp.flags.ack`, test: { kind: 'dst4-syn', lo: TEST_NET_3 + i, hi: TEST_NET_3 + i + 2 } }),
    (i) => ({ expression: `ip.proto == "icmp" and icmp.type == ${i % 20}`, test: { kind: 'icmp4-type', type: i % 20 } }),
    // The group is hexadecimal in the address, so `${i}` reads as hex.
    (i) => ({ expression: `ip.src in {2001:db8:${i}::/48} or tcp.srcport == ${60000 + i}`, test: { kind: 'src6-or-tcp-srcport', group: parseInt(String(i), 16), port: 60000 + i } }),
  ];
  const out: RuleSpec[] = [];
  for (let i = 0; i < 47; i++) out.push({ action: 'block', description: `template ${i % templates.length} #${i}`, ...templates[i % templates.length]!(i) });
  out.push({ action: 'block', expression: 'ip.src in $blocklist', description: '10k-CIDR list', test: { kind: 'src4-list' } });
  out.push({ action: 'skip', expression: 'tcp.dstport in {80 443 8080}', description: 'web', test: { kind: 'tcp-dstport', ports: [80, 443, 8080], lo: 1, hi: 0 } });
  out.push({ action: 'block', expression: 'tcp.dstport in {1..1023} or udp.dstport in {1..1023}', description: 'low ports', test: { kind: 'dstport-range', lo: 1, hi: 1023 } });
  return out;
}

/** A ruleset body (`{"rules": [...]}`) of these specs. */
export function rulesetBody(specs: readonly RuleSpec[]): { rules: Rule[] } {
  return {
    rules: specs.map((s): Rule => ({
      action: s.action,
      ...(s.action === 'skip' ? { action_parameters: { ruleset: 'current' } } : {}),
      expression: s.expression,
      description: s.description,
    })),
  };
}

/** Write `ruleset.json` (all rules), `first-rule.json` (the first alone) and `lists.json` into `dir`. */
export function writeFixture(dir: string): { all: string; first: string; lists: string; specs: RuleSpec[]; list: string[] } {
  mkdirSync(dir, { recursive: true });
  const specs = ruleSpecs();
  const list = blocklist();
  const paths = { all: join(dir, 'ruleset.json'), first: join(dir, 'first-rule.json'), lists: join(dir, 'lists.json') };
  writeFileSync(paths.all, JSON.stringify(rulesetBody(specs)));
  writeFileSync(paths.first, JSON.stringify(rulesetBody(specs.slice(0, 1))));
  writeFileSync(paths.lists, JSON.stringify({ blocklist: list }));
  return { ...paths, specs, list };
}
