/**
 * The ruleset decider on numeric slots (src/engine/slots-codegen.ts) equals the object decider, on
 * generated rulesets over slot fields and generated decoded packets; rulesets that read other fields get
 * no slots decider.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { compileRuleset, ListCatalog, type Packet } from '../../src/index.js';
import { PortableCounter, generateSlotsRuleset } from '../../src/engine/index.js';
import { IP_WORDS, SLOT, SLOT_FIELDS, Slots, geoNameId } from '../../src/capture/index.js';
import { IP_PROTOCOL_NAMES } from '../../src/capture/ip-protocols.js';
import { formatIpAddress, parseIpAddress } from '../../src/net/index.js';
import { compileExpression } from '../../src/expression/index.js';

const lists = ListCatalog.from({ blocklist: ['10.0.0.0/30', '192.0.2.0/24', '2001:db8::/126'], other: ['198.51.100.7'] });

/** A decoded packet in slots, as decodeSlots would leave it. */
function toSlots(p: Packet, s = new Slots()): Slots {
  s.V.fill(NaN);
  for (const [name, kind] of SLOT_FIELDS) {
    const v = (p as Record<string, unknown>)[name];
    if (v === undefined) continue;
    const i = SLOT[name]!;
    if (kind === 'int') s.V[i] = v as number;
    else if (kind === 'bool') s.V[i] = v ? 1 : 0;
    else if (kind === 'proto') s.V[i] = IP_PROTOCOL_NAMES.indexOf(v as string);
    else if (kind === 'geo') s.V[i] = geoNameId(v as string);
    else {
      const a = parseIpAddress(v as string)!;
      s.V[i] = a.family;
      const b = a.bytes;
      if (a.family === 4) s.V[i + 1] = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
      else for (let w = 0; w < 4; w++) s.W[IP_WORDS[name]! + w] = ((b[4 * w]! << 24) | (b[4 * w + 1]! << 16) | (b[4 * w + 2]! << 8) | b[4 * w + 3]!) >>> 0;
    }
  }
  return s;
}

const small = fc.integer({ min: 0, max: 70 });
const v4 = fc.tuple(fc.constantFrom(10, 192, 198), fc.constantFrom(0, 51), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 9 })).map(([a, b, c, d]) => `${a}.${b === 51 ? '51.100' : `0.${c}`}.${d}`);
// IPv6 addresses that differ in their last word and in middle words (the inline range tests compare word by word).
const v6 = fc.oneof(
  fc.tuple(fc.constantFrom('2001:db8::', '::ffff:10.0.0.', 'fe80::'), fc.integer({ min: 0, max: 5 })).map(([p, n]) => `${p}${n}`),
  fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.constantFrom('0', '1', 'ffff')).map(([a, b, c]) => `2001:db8:${a}::${b}:0:0:${c}`),
).map((text) => formatIpAddress(parseIpAddress(text)!));
const ip = fc.oneof(v4, v6);
const proto = fc.constantFrom(1, 6, 17, 58, 47, 143, 200).map((n) => IP_PROTOCOL_NAMES[n]!);
const country = fc.constantFrom('BR', 'US', 'AR', 'T1');
const asn = fc.constantFrom(0, 13335, 64500, 4294967295);
const INTS = ['tcp.srcport', 'tcp.dstport', 'udp.dstport', 'ip.ttl', 'ip.len', 'tcp.flags', 'icmp.type', 'ip.hdr_len'];
const BOOLS = ['tcp.flags.syn', 'tcp.flags.ack', 'tcp.flags.fin', 'sip'];

/** A decoded packet: each slot field present or missing, with values the decoder can produce. */
const packet: fc.Arbitrary<Packet> = fc.record(
  {
    ...Object.fromEntries(INTS.map((f) => [f, small])),
    ...Object.fromEntries(BOOLS.map((f) => [f, fc.boolean()])),
    'ip.proto': proto,
    'ip.src': ip,
    'ip.dst': ip,
    'ip.src.country': country,
    'ip.dst.country': country,
    'ip.src.asnum': asn,
    'ip.dst.asnum': asn,
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Packet>;

const predicate = fc.oneof(
  fc.tuple(fc.constantFrom(...INTS), fc.constantFrom('==', '!=', '<', '>=', '&'), small).map(([f, o, v]) => `${f} ${o} ${v}`),
  fc.tuple(fc.constantFrom(...INTS), fc.array(fc.oneof(small.map(String), fc.tuple(small, small).map(([a, b]) => `${Math.min(a, b)}..${Math.max(a, b)}`)), { maxLength: 15 })).map(([f, xs]) => `${f} in {${xs.join(' ')}}`),
  fc.constantFrom(...BOOLS),
  fc.tuple(fc.constantFrom('ip.src.country', 'ip.dst.country'), fc.constantFrom('==', '!=', 'contains', 'matches', '<'), country).map(([f, o, v]) => `${f} ${o} "${v}"`),
  fc.tuple(fc.constantFrom('ip.src.country', 'ip.dst.country'), fc.array(country, { maxLength: 3 })).map(([f, xs]) => `${f} in {${xs.map((x) => `"${x}"`).join(' ')}}`),
  fc.tuple(fc.constantFrom('ip.src.asnum', 'ip.dst.asnum'), fc.constantFrom('==', '!=', '<', '>='), asn).map(([f, o, v]) => `${f} ${o} ${v}`),
  fc.tuple(fc.constantFrom('==', '!=', 'contains', 'matches', '<', '>='), fc.constantFrom('tcp', 'udp', 'icmp', 'ipv6-icmp', 'c', '^i', 'gre', '200')).map(([o, v]) => `ip.proto ${o} "${v}"`),
  fc.array(fc.constantFrom('"tcp"', '"udp"', '"ethernet"', '"x"'), { maxLength: 4 }).map((xs) => `ip.proto in {${xs.join(' ')}}`),
  fc.tuple(fc.constantFrom('ip.src', 'ip.dst'), fc.constantFrom('==', '!=', '<', '>=', '>'), ip).map(([f, o, v]) => `${f} ${o} ${v}`),
  fc.tuple(fc.constantFrom('ip.src', 'ip.dst'), fc.array(fc.oneof(ip, fc.constantFrom('10.0.0.0/31', '192.0.0.0/16', '2001:db8::/125', '10.0.0.1..10.0.0.5', '2001:db8:2::/48', '2001:db8:1::2:0:0:1..2001:db8:3::1:0:0:0', '2001:db8::1:0:0:1', '2001:db8::/64', '2001:db8::/32', '2001:db7::1..2001:db9::5', '::..::ffff:10.0.0.3', '::/0')), { maxLength: 4 })).map(([f, xs]) => `${f} in {${xs.join(' ')}}`),
  fc.tuple(fc.constantFrom('ip.src', 'ip.dst'), fc.constantFrom('$blocklist', '$other')).map(([f, l]) => `${f} in ${l}`),
);
const expression: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    predicate,
    tie('e').map((x) => `not (${x})`),
    fc.tuple(fc.constantFrom('and', 'or', 'xor'), fc.array(tie('e'), { minLength: 2, maxLength: 3 })).map(([op, xs]) => xs.map((x) => `(${x})`).join(` ${op} `)),
  ),
})).e;
const rule = fc.record({ action: fc.constantFrom('block' as const, 'skip' as const), expression, enabled: fc.boolean(), target: fc.constantFrom('current', 'other') });

describe('ruleset decider on slots', () => {
  it('equals the object decider (deciding rule and every match), here and rebuilt for a worker thread', () => {
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 6 }), fc.array(packet, { minLength: 1, maxLength: 8 }), (rs, packets) => {
        const ruleset = { rules: rs.map((r) => ({ action: r.action, expression: r.expression, enabled: r.enabled, ...(r.action === 'skip' ? { action_parameters: { ruleset: r.target } } : {}) })) };
        const c = compileRuleset(ruleset, { lists });
        expect(c.hasErrors).toBe(false);
        expect(c.slotsDecider).toBeDefined();
        const portable = c.portable()!;
        expect(portable.slots).toBeDefined();
        const worker = new PortableCounter(portable, RE2JS);
        const s = new Slots();
        packets.forEach((p, index) => {
          const want = c.decide(p);
          toSlots(p, s);
          const matched: number[] = [];
          const i = c.slotsDecider!(s.V, s.W, matched);
          if (i >= 0) matched.push(i);
          expect(i).toBe(want.decidedBy?.index ?? -1);
          expect(matched).toEqual(want.matched);
          expect(worker.slotsDecider!(s.V, s.W)).toBe(i);
          worker.countSlots(s.V, s.W, index, () => ({ ...p }));
        });
        // counting on slots gives the object path's summary, examples included
        const objects = compileRuleset(ruleset, { lists });
        packets.forEach((p, index) => objects.count(p, index));
        expect(worker.summary()).toEqual(objects.summary());
      }),
      { numRuns: 1500 },
    );
  });

  it('is built only when every rule reads slot fields directly', () => {
    const has = (expr: string) => compileRuleset({ rules: [{ action: 'block', expression: 'tcp.dstport == 1' }, { action: 'block', expression: expr }] }).slotsDecider !== undefined;
    expect(has('ip.src in {10.0.0.0/8} and tcp.flags.syn')).toBe(true);
    expect(has('ip.src.country == "BR" and ip.dst.asnum in {64500..64510}')).toBe(true);
    expect(has('ip.geoip.country == "BR"')).toBe(false);
    expect(has('ip.geoip.asnum == 13335')).toBe(false);
    expect(has('cf.colo.name == "ams"')).toBe(false);
    expect(has('bit_slice(tcp, 104, 112) == 2')).toBe(false);
    expect(compileRuleset({ rules: [{ action: 'block', expression: 'sip' }] }, { codegen: false }).slotsDecider).toBeUndefined();
  });

  it('embeds user text only through string literals and reads each slot once', () => {
    const checked = (e: string) => compileExpression(e).checked!;
    const g = generateSlotsRuleset([
      { index: 0, checked: checked('ip.proto == "x\\"y" or ip.proto contains "${a}"'), matcher: () => false, terminating: true },
      { index: 1, checked: checked('ip.proto != "u" and tcp.dstport == 3'), matcher: () => false, terminating: true },
      { index: 2, checked: checked('ip.proto == r#"a\u2028b\u2029"#'), matcher: () => false, terminating: true },
    ])!;
    expect(g.source.match(/V\[\d+\]/g)).toHaveLength(2);
    expect(g.source).toContain('"x\\"y"');
    // The source as it is: line separators only as escapes, inside and outside literals.
    expect(g.source).toContain('"a\\u2028b\\u2029"');
    expect(g.source).not.toMatch(/[\u2028\u2029]/);
    expect(g.source.replace(/"(?:[^"\\\n]|\\.)*"/g, '""')).not.toMatch(/[`$]/);
  });
});
