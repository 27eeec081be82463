import { describe, expect, it } from 'vitest';
import { compileExpression, interpret } from '../../src/expression/index.js';

const lists = { 'svc.anonymizer': ['198.51.100.0/24', '2001:db8:1::/48'], blocklist: ['203.0.113.0/24', '10.0.0.1..10.0.0.9'] };

/** [expression, packet, expected] — each checked with the interpreter, generated code and closures. */
const CASES: [string, Record<string, unknown>, boolean][] = [
  ['tcp.dstport in {80 443 8000..8999}', { 'tcp.dstport': 8500 }, true],
  ['tcp.dstport in {80 443 8000..8999}', { 'tcp.dstport': 9000 }, false],
  ['tcp.dstport in {}', { 'tcp.dstport': 80 }, false],
  // missing fields: every comparison is false, != included; not of it is true
  ['tcp.dstport != 80', { 'udp.dstport': 53 }, false],
  ['tcp.dstport ne 80', {}, false],
  ['not tcp.dstport == 80', { 'udp.dstport': 53 }, true],
  ['not (tcp.dstport == 80)', {}, true],
  ['ip.src in $svc.anonymizer', {}, false],
  ['tcp.dstport != 80', { 'tcp.dstport': 81 }, true],
  // precedence: not > and > xor > or
  ['tcp.flags.syn or tcp.flags.ack and tcp.flags.fin', { 'tcp.flags.syn': true }, true],
  ['not tcp.flags.syn and tcp.flags.ack', { 'tcp.flags.syn': false, 'tcp.flags.ack': true }, true],
  ['tcp.flags.syn xor tcp.flags.ack xor tcp.flags.fin', { 'tcp.flags.syn': true, 'tcp.flags.ack': true, 'tcp.flags.fin': true }, true],
  ['tcp.flags.syn ^^ tcp.flags.ack', { 'tcp.flags.syn': true, 'tcp.flags.ack': true }, false],
  ['tcp.flags.syn || tcp.flags.ack && tcp.flags.fin', { 'tcp.flags.ack': true }, false],
  ['! tcp.flags.syn', {}, true],
  // ints
  ['tcp.flags & 0x02', { 'tcp.flags': 0x12 }, true],
  ['tcp.flags bitwise_and 0x04', { 'tcp.flags': 0x12 }, false],
  ['ip.ttl lt 64', { 'ip.ttl': 63 }, true],
  ['ip.ttl >= 0x40', { 'ip.ttl': 64 }, true],
  ['ip.ttl == 0100', { 'ip.ttl': 64 }, true],
  ['ip.ttl < 64', { 'ip.ttl': '10' }, false],
  // strings
  ['ip.proto == "udp"', { 'ip.proto': 'udp' }, true],
  ['ip.proto in {"tcp" "udp"}', { 'ip.proto': 'icmp' }, false],
  ['cf.colo.name contains "AM"', { 'cf.colo.name': 'AMS' }, true],
  ['cf.colo.name matches "^[A-Z]{3}$"', { 'cf.colo.name': 'AMS' }, true],
  ['cf.colo.name ~ "ms"', { 'cf.colo.name': 'AMS' }, false],
  ['cf.colo.name wildcard "a*s"', { 'cf.colo.name': 'AMS' }, true],
  ['cf.colo.name strict wildcard "a*s"', { 'cf.colo.name': 'AMS' }, false],
  ['cf.colo.name wildcard "a*"', { 'cf.colo.name': 'xa' }, false],
  ['cf.colo.name == "\\x41\\115S"', { 'cf.colo.name': 'AMS' }, true],
  ['cf.colo.name == r#"a"b"#', { 'cf.colo.name': 'a"b' }, true],
  ['cf.colo.name == 41:4d:53', { 'cf.colo.name': 'AMS' }, true],
  ['cf.colo.name > "AMA"', { 'cf.colo.name': 'AMS' }, true],
  ['cf.colo.name == "caf\\xc3\\xa9"', { 'cf.colo.name': 'café' }, true],
  // ips
  ['ip.src == 192.0.2.1', { 'ip.src': '192.0.2.1' }, true],
  ['ip.src == 2001:db8::1', { 'ip.src': '2001:0db8:0:0::1' }, true],
  ['ip.src != 192.0.2.1', { 'ip.src': '192.0.2.2' }, true],
  ['ip.src != 192.0.2.1', { 'ip.src': 'garbage' }, false],
  ['ip.src in {10.0.0.0/8 2001:db8::/32}', { 'ip.src': '10.1.2.3' }, true],
  ['ip.src in {10.0.0.0/8}', { 'ip.src': '::ffff:10.1.2.3' }, false],
  ['ip.src in {::ffff:10.0.0.0/104}', { 'ip.src': '::ffff:10.1.2.3' }, true],
  ['ip.src in {10.0.0.1..10.0.0.9}', { 'ip.src': '10.0.0.5' }, true],
  ['ip.src < 10.0.0.5', { 'ip.src': '10.0.0.4' }, true],
  ['ip.src < 10.0.0.5', { 'ip.src': '::1' }, false],
  ['ip.src in $svc.anonymizer', { 'ip.src': '198.51.100.77' }, true],
  ['ip.src in $svc.anonymizer', { 'ip.src': '2001:db8:1::5' }, true],
  ['ip.dst in $blocklist', { 'ip.dst': '10.0.0.10' }, false],
  ['ip.dst in $blocklist', { 'ip.dst': '10.0.0.9' }, true],
  // derived fields
  ['ip.geoip.country == "BR"', { 'ip.src.country': 'US', 'ip.dst.country': 'BR' }, true],
  ['ip.geoip.country == "BR"', { 'ip.src.country': 'US' }, false],
  ['ip.geoip.country == "BR"', { 'ip.geoip.country': 'BR' }, true],
  ['ip.geoip.asnum == 13335', { 'ip.src.asnum': 13335 }, true],
  ['ip.src.country == "BR"', { 'ip.dst.country': 'BR' }, false],
  // bit_slice
  ['bit_slice(tcp, 0, 16) == 443', { tcp: new Uint8Array([1, 187, 0, 80]) }, true],
  ['bit_slice(tcp, 96, 100) == 5', { tcp: new Uint8Array(12) }, false],
  ['bit_slice(ip, 0, 4) == 4', { ip: new Uint8Array([0x45, 0]) }, true],
  // bools
  ['sip', { sip: true }, true],
  ['sip', { sip: 'yes' }, false],
  ['not sip', {}, true],
];

describe('evaluation', () => {
  it.each(CASES)('%s on %j → %s', (expr, packet, expected) => {
    const r = compileExpression(expr, { lists });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(interpret(r.checked!, packet)).toBe(expected);
    expect(r.matcher!(packet)).toBe(expected);
    expect(compileExpression(expr, { lists, codegen: false }).matcher!(packet)).toBe(expected);
  });

  it('non-object packets are packets without fields', () => {
    const r = compileExpression('not tcp.dstport == 80');
    for (const p of [null, undefined, 42, 'x']) expect(r.matcher!(p as never)).toBe(true);
  });

  it('the README example', () => {
    const r = compileExpression('tcp.dstport in {80 443} and not ip.src in $svc.anonymizer', { lists: { 'svc.anonymizer': ['198.51.100.0/24'] } });
    expect(r.diagnostics).toEqual([]);
    expect(r.matcher!({ 'tcp.dstport': 443, 'ip.src': '192.0.2.1' })).toBe(true);
    expect(r.matcher!({ 'tcp.dstport': 443, 'ip.src': '198.51.100.1' })).toBe(false);
  });

  it('a custom scheme', () => {
    const r = compileExpression('http.host == "example.com" and http.port in {80 443}', { scheme: { 'http.host': 'String', 'http.port': 'Int' } });
    expect(r.matcher!({ 'http.host': 'example.com', 'http.port': 443 })).toBe(true);
    expect(compileExpression('tcp.dstport == 80', { scheme: { 'http.host': 'String' } }).diagnostics[0]!.code).toBe('unknown-field');
  });
});
