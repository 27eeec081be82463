/**
 * `rulekit demo` (the offline demo; `npm start` runs `rulekit serve`): a sample ruleset of the
 * network_transit phase, checked and then run over sample packets, printing each verdict and why; then
 * a few broken expressions with their diagnostics, as an editor or CI would show them.
 * @module
 */
import { compileExpression, renderDiagnostics, simulate, validateRuleset, type Ruleset } from '../index.js';

/** The embedded sample ruleset: a skip before a block of all ports (the order a skip needs to take effect). */
export const DEMO_RULESET: Ruleset = {
  name: 'demo network firewall',
  kind: 'root',
  phase: 'network_transit',
  rules: [
    { action: 'block', expression: 'ip.src in $svc.anonymizer or ip.src in $svc.botnetcc', description: 'drop anonymizers and botnet C&C', ref: 'managed-lists' },
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {80 443 8000..8999} and ip.src.country != "KP"', description: 'web traffic', ref: 'web' },
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'udp.dstport == 53 and ip.dst in {192.0.2.53 2001:db8::53}', description: 'our resolvers', ref: 'dns' },
    { action: 'block', expression: 'tcp.flags.syn and not tcp.flags.ack and tcp.dstport in {22 23 3389}', description: 'remote shells', ref: 'shells' },
    { action: 'block', expression: 'tcp.dstport in {1..65535} or udp.dstport in {1..65535}', description: 'block all other ports', ref: 'default-deny' },
  ],
};

/** Lists of the demo. */
export const DEMO_LISTS = { 'svc.anonymizer': ['198.51.100.0/24'], 'svc.botnetcc': ['203.0.113.7', '2001:db8:bad::/48'], 'svc.malware': [] };

/** Sample packets (what a capture decoder produces). */
export const DEMO_PACKETS = [
  { 'ip.src': '192.0.2.10', 'ip.dst': '192.0.2.1', 'ip.proto': 'tcp', 'tcp.dstport': 443, 'tcp.flags.syn': true, 'ip.src.country': 'BR' },
  { 'ip.src': '198.51.100.23', 'ip.dst': '192.0.2.1', 'ip.proto': 'tcp', 'tcp.dstport': 443, 'tcp.flags.syn': true },
  { 'ip.src': '192.0.2.99', 'ip.dst': '192.0.2.53', 'ip.proto': 'udp', 'udp.dstport': 53 },
  { 'ip.src': '2001:db8::7', 'ip.dst': '2001:db8::1', 'ip.proto': 'tcp', 'tcp.dstport': 22, 'tcp.flags.syn': true, 'tcp.flags.ack': false },
  { 'ip.src': '192.0.2.44', 'ip.dst': '192.0.2.1', 'ip.proto': 'udp', 'udp.dstport': 5060 },
  { 'ip.src': '192.0.2.45', 'ip.dst': '192.0.2.1', 'ip.proto': 'icmp', 'icmp.type': 8 },
];

/** Expressions with mistakes, to show the diagnostics. */
export const DEMO_MISTAKES = ['tcp.dst_port in {80, 443} AND ip.src == 10.0.0.0/8', 'ip.geoip.country == "br" or tcp.dstport == 070'];

/** Run the demo, writing to `write`. Returns the exit code. */
export function runDemo(write: (s: string) => void = (s) => process.stdout.write(s)): number {
  const line = (s = '') => write(s + '\n');
  line('rulekit demo — network_transit ruleset on sample packets');
  line('');
  const problems = validateRuleset(DEMO_RULESET, { expression: { lists: DEMO_LISTS } });
  line(`ruleset "${DEMO_RULESET.name}": ${DEMO_RULESET.rules.length} rules, ${problems.filter((d) => d.severity === 'error').length} errors`);
  DEMO_RULESET.rules.forEach((r, i) => line(`  #${i} ${r.action.padEnd(5)} ${r.expression}`));
  line('');
  const { results, summary } = simulate(DEMO_RULESET, DEMO_PACKETS, { lists: DEMO_LISTS });
  line('packet                                         verdict  decided by');
  for (const r of results) {
    const p = DEMO_PACKETS[r.index]!;
    const port = p['tcp.dstport'] ?? p['udp.dstport'];
    const what = `${p['ip.proto']} ${p['ip.src']} → ${p['ip.dst']}${port !== undefined ? ':' + port : ''}`;
    const by = r.decidedBy ? `#${r.decidedBy.index} ${r.decidedBy.description}` : 'no terminating rule (default allow)';
    line(`${what.padEnd(46)} ${r.verdict.padEnd(8)} ${by}`);
  }
  line('');
  line(`allowed ${summary.verdicts.allow}, blocked ${summary.verdicts.block}, default-allowed ${summary.defaultAllowed}`);
  line('');
  line('diagnostics, as `rulekit check` prints them:');
  for (const text of DEMO_MISTAKES) {
    line(renderDiagnostics(text, compileExpression(text).diagnostics, { file: 'expression' }));
  }
  return 0;
}
