/**
 * The baseline of the decide bench: the bench ruleset decided by hand, as a competent engineer would
 * write it for Ethernet frames without a library. One function reads the header fields straight from
 * the frame's bytes into local numbers (addresses as uint32, the IPv6 source's first two words, ports,
 * TTL, flag bits; -1 for a field the packet does not have), then tests the rules kind by kind (each kind's
 * parameters in a Float64Array, in rule order), only the kinds whose fields the packet has, and keeps the
 * lowest matching rule index: the first rule that matches decides. The 10k-CIDR list is merged ranges
 * with a /16 bucket table (bench/ip-ranges.ts). Nothing is allocated per packet.
 *
 * It decodes less than rulekit: Ethernet with VLAN tags only, no IPv6 extension headers, no options or
 * problem reports — enough for the generated captures, and a baseline that is only faster for it.
 */
import { BucketedRangesV4 } from './ip-ranges.js';
import type { RuleSpec } from './ruleset-fixture.js';

/** The rules of one kind, in rule order: their indexes and their parameters (`stride` per rule). */
class Group {
  readonly index: Int32Array;
  readonly p: Float64Array;
  constructor(specs: readonly RuleSpec[], kind: RuleSpec['test']['kind'], stride: number, params: (t: RuleSpec['test']) => number[]) {
    const picked = specs.map((s, i) => [s, i] as const).filter(([s]) => s.test.kind === kind);
    this.index = Int32Array.from(picked.map(([, i]) => i));
    this.p = new Float64Array(picked.length * stride).fill(-2);
    picked.forEach(([s], j) => params(s.test).forEach((v, k) => (this.p[j * stride + k] = v)));
  }
}

/** A decider of Ethernet frames: the index of the deciding rule, or -1 when none matches. */
export function handDecider(specs: readonly RuleSpec[], list: readonly string[]): (d: Uint8Array) => number {
  type T<K extends string> = Extract<RuleSpec['test'], { kind: K }>;
  const tcpDstRules = new Group(specs, 'tcp-dstport', 5, (t) => { const u = t as T<'tcp-dstport'>; return [...u.ports, ...[-2, -2, -2].slice(u.ports.length), u.lo, u.hi]; });
  const udpDstTtl = new Group(specs, 'udp-dstport-ttl', 2, (t) => [(t as T<'udp-dstport-ttl'>).port, (t as T<'udp-dstport-ttl'>).ttlBelow]);
  const dst4Syn = new Group(specs, 'dst4-syn', 2, (t) => [(t as T<'dst4-syn'>).lo, (t as T<'dst4-syn'>).hi]);
  const icmp4 = new Group(specs, 'icmp4-type', 1, (t) => [(t as T<'icmp4-type'>).type]);
  const src6OrPort = new Group(specs, 'src6-or-tcp-srcport', 2, (t) => [(t as T<'src6-or-tcp-srcport'>).group, (t as T<'src6-or-tcp-srcport'>).port]);
  const src4List = new Group(specs, 'src4-list', 0, () => []);
  const portRange = new Group(specs, 'dstport-range', 2, (t) => [(t as T<'dstport-range'>).lo, (t as T<'dstport-range'>).hi]);
  const covered = tcpDstRules.index.length + udpDstTtl.index.length + dst4Syn.index.length + icmp4.index.length + src6OrPort.index.length + src4List.index.length + portRange.index.length;
  if (covered !== specs.length) throw new Error('a rule kind the hand-written decider does not know');
  const blocked = new BucketedRangesV4(list);
  const NONE = specs.length;

  return (d) => {
    const len = d.length;
    if (len < 14) return -1;
    let type = (d[12]! << 8) | d[13]!;
    let o = 14;
    while ((type === 0x8100 || type === 0x88a8) && len >= o + 4) {
      type = (d[o + 2]! << 8) | d[o + 3]!;
      o += 4;
    }
    let v4 = false;
    let proto: number;
    let ttl: number;
    let src4 = 0;
    let dst4 = 0;
    let s0 = 0;
    let s1 = 0;
    let t = -1;
    if (type === 0x0800) {
      if (len < o + 20) return -1;
      v4 = true;
      ttl = d[o + 8]!;
      proto = d[o + 9]!;
      src4 = ((d[o + 12]! << 24) | (d[o + 13]! << 16) | (d[o + 14]! << 8) | d[o + 15]!) >>> 0;
      dst4 = ((d[o + 16]! << 24) | (d[o + 17]! << 16) | (d[o + 18]! << 8) | d[o + 19]!) >>> 0;
      // Ports only in the first fragment.
      if ((((d[o + 6]! & 0x1f) << 8) | d[o + 7]!) === 0) t = o + (d[o]! & 15) * 4;
    } else if (type === 0x86dd) {
      if (len < o + 40) return -1;
      proto = d[o + 6]!;
      ttl = d[o + 7]!;
      s0 = ((d[o + 8]! << 24) | (d[o + 9]! << 16) | (d[o + 10]! << 8) | d[o + 11]!) >>> 0;
      s1 = ((d[o + 12]! << 24) | (d[o + 13]! << 16) | (d[o + 14]! << 8) | d[o + 15]!) >>> 0;
      t = o + 40;
    } else return -1;
    let tcpSrc = -1;
    let tcpDst = -1;
    let udpDst = -1;
    let syn = false;
    let ack = false;
    let icmpType = -1;
    if (t >= 0) {
      if (proto === 6) {
        if (len >= t + 14) {
          tcpSrc = (d[t]! << 8) | d[t + 1]!;
          tcpDst = (d[t + 2]! << 8) | d[t + 3]!;
          syn = (d[t + 13]! & 0x02) !== 0;
          ack = (d[t + 13]! & 0x10) !== 0;
        }
      } else if (proto === 17) {
        if (len >= t + 4) udpDst = (d[t + 2]! << 8) | d[t + 3]!;
      } else if (proto === 1 && v4) {
        if (len > t) icmpType = d[t]!;
      }
    }
    // Each kind's rules in rule order, only when the packet has the fields they test; a rule after
    // the best match so far cannot decide, so each loop stops there.
    let best = NONE;
    if (tcpDst >= 0) {
      const { index, p } = tcpDstRules;
      for (let j = 0; j < index.length && index[j]! < best; j++) {
        const q = j * 5;
        if (tcpDst === p[q] || tcpDst === p[q + 1] || tcpDst === p[q + 2] || (tcpDst >= p[q + 3]! && tcpDst <= p[q + 4]!)) best = index[j]!;
      }
    }
    if (udpDst >= 0) {
      const { index, p } = udpDstTtl;
      for (let j = 0; j < index.length && index[j]! < best; j++) if (udpDst === p[2 * j] && ttl < p[2 * j + 1]!) best = index[j]!;
    }
    if (v4 && syn && !ack) {
      const { index, p } = dst4Syn;
      for (let j = 0; j < index.length && index[j]! < best; j++) if (dst4 >= p[2 * j]! && dst4 <= p[2 * j + 1]!) best = index[j]!;
    }
    if (icmpType >= 0) {
      const { index, p } = icmp4;
      for (let j = 0; j < index.length && index[j]! < best; j++) if (icmpType === p[j]) best = index[j]!;
    }
    if (tcpSrc >= 0 || s0 === 0x20010db8) {
      const { index, p } = src6OrPort;
      for (let j = 0; j < index.length && index[j]! < best; j++) if ((s0 === 0x20010db8 && s1 >>> 16 === p[2 * j]) || tcpSrc === p[2 * j + 1]) best = index[j]!;
    }
    if (v4 && src4List.index.length > 0 && src4List.index[0]! < best && blocked.has(src4)) best = src4List.index[0]!;
    if (tcpDst >= 0 || udpDst >= 0) {
      const { index, p } = portRange;
      for (let j = 0; j < index.length && index[j]! < best; j++) {
        const lo = p[2 * j]!;
        const hi = p[2 * j + 1]!;
        if ((tcpDst >= lo && tcpDst <= hi) || (udpDst >= lo && udpDst <= hi)) best = index[j]!;
      }
    }
    return best === NONE ? -1 : best;
  };
}
