/**
 * The checker's words about the network fields, which a user reads in an editor or an API error: IP
 * protocol names (the IANA keyword list, lower case, as ip.proto holds them), `in $list` on fields that are
 * not addresses, and Wireshark's either-port fields. Only behaviour of the network fields and lists.
 */
import { describe, expect, it } from 'vitest';
import { checkExpression } from '../../src/index.js';

const diagnostics = (text: string) => checkExpression(text, {}).diagnostics.map((d) => ({ code: d.code, message: d.message, fix: d.fix, range: d.range }));

describe('ip.proto values', () => {
  it('an unknown name suggests the nearest protocol keyword, with a fix that writes it', () => {
    const [d] = diagnostics('ip.proto == "tpc"');
    expect(d!.code).toBe('unknown-protocol');
    expect(d!.message).toBe('"tpc" is not an IP protocol name (ip.proto is "tcp", "udp", "icmp", "ipv6-icmp", "gre"... in lower case); did you mean "tcp"?');
    expect(d!.fix).toEqual({ title: 'write "tcp"', edits: [{ range: d!.range, newText: '"tcp"' }] });
    expect('ip.proto == "tpc"'.slice(d!.range!.start, d!.range!.end)).toBe('"tpc"');
  });

  it('a name far from every keyword gets no suggestion and no fix; numbers are never suggested', () => {
    const [d] = diagnostics('ip.proto == "zzzzzzzzzz"');
    expect(d!.message).toBe('"zzzzzzzzzz" is not an IP protocol name (ip.proto is "tcp", "udp", "icmp", "ipv6-icmp", "gre"... in lower case)');
    expect(d!.fix).toBeUndefined();
    const [n] = diagnostics('ip.proto == "2555"');
    expect(n!.message).not.toContain('did you mean');
  });

  it('known names in any case: lower case is clean, upper case is fixed', () => {
    expect(diagnostics('ip.proto == "tcp" or ip.proto in {"udp" "gre"}')).toEqual([]);
    const [u] = diagnostics('ip.proto == "UDP"');
    expect([u!.code, u!.message, u!.fix?.edits[0]?.newText]).toEqual(['uppercase-protocol', 'ip.proto values are lower case: "UDP" never matches; write "udp"', '"udp"']);
  });
});

describe('in $list on a field that is not an address', () => {
  it('names the field and its type with the right article', () => {
    const lists = { lists: { partners: ['192.0.2.0/24'] } };
    const message = (text: string) => checkExpression(text, lists).diagnostics.map((d) => [d.code, d.message]);
    expect(message('tcp.dstport in $partners')).toEqual([['operator-type-mismatch', "'in $list' applies to IP fields (IP lists), ip.src.asnum (ASN lists); tcp.dstport is an Int"]]);
    expect(message('cf.colo.name in $partners')).toEqual([['operator-type-mismatch', "'in $list' applies to IP fields (IP lists), ip.src.asnum (ASN lists); cf.colo.name is a String"]]);
    expect(message('tcp.flags.syn in $partners')).toEqual([['operator-type-mismatch', "'in $list' applies to IP fields (IP lists), ip.src.asnum (ASN lists); tcp.flags.syn is a Bool"]]);
    expect(message('ip.src in $partners')).toEqual([]);
    // An unknown field is reported once, as unknown.
    expect(message('ip.srcc in $partners').map(([c]) => c)).toEqual(['unknown-field']);
  });
});

describe("Wireshark's either-port fields", () => {
  it('tcp.port and udp.port name both ports; a name that only ends in .port does not', () => {
    const [tcp] = diagnostics('tcp.port == 22');
    expect([tcp!.code, tcp!.message]).toEqual(['unknown-field', 'unknown field tcp.port; did you mean tcp.dstport or tcp.srcport? (for either port: tcp.dstport == N or tcp.srcport == N)']);
    const [udp] = diagnostics('udp.port == 53');
    expect(udp!.message.startsWith('unknown field udp.port; did you mean udp.dstport or udp.srcport?')).toBe(true);
    for (const text of ['x.tcp.port == 1', 'tcp.port.x == 1', 'ip.port == 1']) {
      const [d] = diagnostics(text);
      expect(d!.code, text).toBe('unknown-field');
      expect(d!.message, text).not.toContain('for either port');
    }
  });
});
