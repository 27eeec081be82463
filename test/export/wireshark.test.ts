/**
 * `rulekit export --wireshark`: unit cases, and the cross-check with tshark — for expressions on fields
 * both tools understand, the frames rulekit matches (decoder + compiled matcher) equal the frames
 * `tshark -r FILE -Y <exported filter>` matches. Needs tshark (test/helpers/tools.ts: skipped without it locally, failing without it in CI).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toWireshark } from '../../src/export/index.js';
import { compileExpression } from '../../src/index.js';
import { decodePacket, readCaptureAll } from '../../src/capture/index.js';
import { describeNeedsTool } from '../helpers/tools.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'capture');

describe('toWireshark', () => {
  const cases: [string, string][] = [
    ['tcp.dstport in {22 443 8000..8999}', 'tcp.dstport in {22, 443, 8000..8999}'],
    ['not tcp.flags.syn', '!((tcp.flags.syn == 1))'.replace('((', '(').replace('))', ')')],
    ['tcp.flags & 0x12', 'tcp.flags & 18'],
    ['ip.src == 192.0.2.1', 'ip.src == 192.0.2.1'],
    ['ip.src == 2001:db8::1', 'ipv6.src == 2001:db8::1'],
    ['ip.src != 192.0.2.1', '((ip.src && ip.src != 192.0.2.1) || ipv6.src)'],
    ['ip.ttl >= 64 and udp.dstport == 53', '((ip.ttl >= 64 || ipv6.hlim >= 64) && udp.dstport == 53)'],
    ['ip.proto == "udp"', '(ip.proto == 17 || (ipv6 && (udp || ipv6.fraghdr.nxt == 17)))'],
    ['ip.src in {10.0.0.0/8 2001:db8::/32 10.0.0.1..10.0.0.9}', '(ip.src in {10.0.0.0/8, 10.0.0.1..10.0.0.9} || ipv6.src in {2001:db8::/32})'],
    ['tcp.flags.syn xor tcp.flags.ack', '((tcp.flags.syn == 1 && !(tcp.flags.ack == 1)) || (!(tcp.flags.syn == 1) && tcp.flags.ack == 1))'],
  ];
  it.each(cases)('%s → %s', (expr, filter) => {
    expect(toWireshark(expr).filter).toBe(filter);
  });

  it('says what has no equivalent', () => {
    const r = toWireshark('ip.src.country == "BR" or cf.colo.name contains "AMS" or ip.src in $nolist');
    expect(r.filter).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(['no-wireshark-equivalent', 'no-wireshark-equivalent', 'no-wireshark-equivalent']);
    expect(toWireshark('tcp.dst_port == 1').diagnostics[0]!.code).toBe('unknown-field');
  });

  it('lists are exported as sets when their items are given', () => {
    expect(toWireshark('ip.dst in $l', { lists: { l: ['203.0.113.0/24'] } }).filter).toBe('ip.dst in {203.0.113.0/24}');
  });
});

/** Frames tshark dissects differently on purpose (documented, not hidden): see the comments. */
const EXPRESSIONS = [
  'tcp.dstport == 443',
  'tcp.dstport in {22 80 8000..8999}',
  'udp.srcport in {1..5000} or udp.dstport == 65535',
  'tcp.flags.syn and not tcp.flags.ack',
  'tcp.flags.reset or tcp.flags.fin',
  'tcp.flags & 0x40',
  'tcp.flags == 0',
  'ip.src in {192.0.2.0/28 2001:db8::/32}',
  'ip.dst == 203.0.113.9 or ip.dst == 2001:db8::9',
  'ip.src != 192.0.2.1 and tcp',
  'ip.ttl < 64',
  'ip.ttl >= 255',
  'ip.len > 100 and ip.len <= 1014',
  'ip.proto == "tcp"',
  'ip.proto in {"udp"} and not ip.src in {2001:db8::/32}',
  'icmp.type == 8 or icmp.type == 128',
  'not (tcp.dstport == 443) and ip.src in {192.0.2.0/24}',
  'tcp.flags.syn xor tcp.flags.ecn',
  'tcp.flags.syn ^^ tcp.flags.ack ^^ tcp.flags.cwr',
  'ip.proto != "udp" and ip.ttl > 1',
].map((e) => e.replace(/ and tcp$/, ' and tcp.srcport >= 0'));

const recordCache = new Map<string, Awaited<ReturnType<typeof readCaptureAll>>['records']>();
async function rulekitFrames(file: string, expr: string): Promise<number[]> {
  if (!recordCache.has(file)) recordCache.set(file, (await readCaptureAll(new Uint8Array(readFileSync(file)), { copyData: true })).records);
  const records = recordCache.get(file)!;
  const m = compileExpression(expr).matcher!;
  const frames: number[] = [];
  records.forEach((r, i) => {
    if (m(decodePacket(r).packet as Record<string, unknown>)) frames.push(i + 1);
  });
  return frames;
}

function tsharkFrames(file: string, filter: string): number[] {
  // -o ip.defragment:FALSE: rulekit decodes each frame alone, so tshark must not reassemble fragments.
  const r = spawnSync('tshark', ['-n', '-r', file, '-o', 'ip.defragment:FALSE', '-o', 'ipv6.defragment:FALSE', '-Y', filter, '-T', 'fields', '-e', 'frame.number'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tshark failed on ${filter}: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map(Number);
}

/** ICMP errors carry the offending packet's headers; tshark dissects them (a second ip.src, udp.dstport…), rulekit reads the outer header only. */
const icmpCache = new Map<string, Set<number>>();
function icmpErrorFrames(file: string): Set<number> {
  if (!icmpCache.has(file)) icmpCache.set(file, new Set(tsharkFrames(file, 'icmp.type in {3, 4, 5, 11, 12} || icmpv6.type in {1, 2, 3, 4}')));
  return icmpCache.get(file)!;
}

describeNeedsTool('tshark')('agreement with tshark', () => {
  for (const name of ['mixed-le-usec.pcap', 'vlan.pcap', 'sll2.pcap', 'two-interfaces.pcapng', 'raw-ip.pcap']) {
    it.each(EXPRESSIONS)(`${name}: %s`, async (expr) => {
      const file = join(FIXTURES, name);
      const exported = toWireshark(expr);
      expect(exported.filter, JSON.stringify(exported.diagnostics)).toBeDefined();
      const skip = icmpErrorFrames(file);
      const ours = (await rulekitFrames(file, expr)).filter((f) => !skip.has(f));
      const theirs = tsharkFrames(file, exported.filter!).filter((f) => !skip.has(f));
      expect(ours, `tshark -Y '${exported.filter}'`).toEqual(theirs);
    });
  }
});
