/**
 * What a simulation does with the input it is given, held to what the diagnostics table and the
 * expression spec promise (docs/diagnostics.md, docs/expressions.md: a value of the wrong type is a
 * missing field, and every comparison with a missing field is false, `!=` included), and the frame
 * counter (the capture path of `rulekit simulate`) held to tshark's reading of the capture fixtures.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { simulate, compileRuleset, Scheme, type Diagnostic, type Packet } from '../../src/index.js';
import { rulesetProblems, rulesetShapeProblems } from '../../src/ruleset/index.js';
import { PortableCounter, checkPacketValues, MAX_VALUE_DIAGNOSTICS, withGeoIp, readsGeoFields } from '../../src/engine/index.js';
import { geoIpFromCsv, type CaptureRecord } from '../../src/capture/index.js';
import { RE2JS } from 're2js';
import { expectedFromTshark, fixture, goldenRows, readFixture } from '../capture/helpers.js';

const brief = (ds: readonly Diagnostic[]) => ds.map((d) => `${d.code} ${d.severity} ${d.pointer}`);
const block = (expression: string) => ({ rules: [{ action: 'block' as const, expression }] });

describe('rulesetShapeProblems: what a simulation needs of a ruleset value', () => {
  it.each([
    [null, 'null'],
    [[], 'an array'],
    ['{"rules":[]}', 'a string'],
    [7, 'a number'],
    [undefined, 'a undefined'],
  ])('refuses %j as the ruleset (%s)', (value, what) => {
    const ds = rulesetShapeProblems(value);
    expect(brief(ds)).toEqual(['simulation-invalid-ruleset error ']);
    expect(ds[0]!.message).toBe(`the ruleset is ${what}; give an object with "rules": [...]`);
  });

  it('names a missing rules array, and a rules member of the wrong kind', () => {
    expect(rulesetShapeProblems({}).map((d) => [d.pointer, d.message])).toEqual([['/rules', 'the ruleset has no "rules" array']]);
    expect(rulesetShapeProblems({ rules: {} }).map((d) => [d.pointer, d.message])).toEqual([['/rules', '"rules" is a object, not an array of rules']]);
    expect(rulesetShapeProblems({ rules: 'x' }).map((d) => d.message)).toEqual(['"rules" is a string, not an array of rules']);
    expect(rulesetShapeProblems({ rules: null }).map((d) => d.message)).toEqual(['"rules" is null, not an array of rules']);
  });

  it('points at each rule that is not an object or lacks an action or expression string', () => {
    const ds = rulesetShapeProblems({ rules: [null, [], 'block', { action: 'block', expression: 'tcp.dstport == 1' }, {}, { action: 1, expression: 'x' }, { action: 'block', expression: 2 }] });
    expect(ds.map((d) => [d.code, d.pointer, d.message])).toEqual([
      ['simulation-invalid-ruleset', '/rules/0', 'rule 0 is null, not an object'],
      ['simulation-invalid-ruleset', '/rules/1', 'rule 1 is an array, not an object'],
      ['simulation-invalid-ruleset', '/rules/2', 'rule 2 is a string, not an object'],
      ['simulation-invalid-ruleset', '/rules/4/action', 'rule 4 has no "action" string'],
      ['simulation-invalid-ruleset', '/rules/4/expression', 'rule 4 has no "expression" string'],
      ['simulation-invalid-ruleset', '/rules/5/action', 'rule 5 has no "action" string'],
      ['simulation-invalid-ruleset', '/rules/6/expression', 'rule 6 has no "expression" string'],
    ]);
    expect(rulesetShapeProblems(block('tcp.dstport == 1'))).toEqual([]);
  });

  it('takes a ruleset of an HTTP phase and decides request records with it', () => {
    const http = { phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'http.host == "a"' }] };
    expect(rulesetShapeProblems(http)).toEqual([]);
    const r = simulate(http as never, [{ 'http.host': 'a' }, { 'http.host': 'b' }, {}]);
    expect(r.diagnostics).toEqual([]);
    expect(r.summary.packets).toBe(3);
    expect(r.summary.verdicts).toEqual({ allow: 2, block: 1 });
    expect(r.summary.rules.map((x) => [x.index, x.matched, x.decided])).toEqual([[0, 1, 1]]);
    // A network phase is simulated.
    expect(rulesetShapeProblems({ phase: 'network_transit', rules: [] })).toEqual([]);
    expect(rulesetShapeProblems({ phase: 42, rules: [] })).toEqual([]);
  });
});

describe('rulesetProblems: validation before a simulation', () => {
  it('validates a body with a name as a create, one without as an update, and adds the count of errors', () => {
    // An update needs only rules; a create also needs name, kind and phase.
    expect(rulesetProblems({ rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] }, {})).toEqual([]);
    const create = rulesetProblems({ name: 'fw', rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] }, {});
    expect(brief(create)).toEqual(['ruleset-missing-member error ', 'ruleset-missing-member error ', 'simulation-invalid-ruleset error ']);
    expect(create.at(-1)!.message).toBe('the ruleset has 2 error(s); fix them to simulate');
    // A JSON text is read the same way; text that is not JSON is reported by the validator.
    expect(rulesetProblems(JSON.stringify({ name: 'fw', rules: [] }), {}).at(-1)!.message).toBe('the ruleset has 2 error(s); fix them to simulate');
    expect(rulesetProblems('{"rules": [}', {}).map((d) => d.code)).toEqual(['ruleset-invalid-json', 'simulation-invalid-ruleset']);
    // The count is of errors only, warnings left out.
    const mixed = rulesetProblems({ rules: [{ action: 'block', expression: 'ip.geoip.country == "KP"' }, { action: 'block', expression: 'tcp.dstport == 99999' }] }, {});
    expect(mixed.at(-1)!.message).toBe('the ruleset has 1 error(s); fix them to simulate');
    // The simulation's lists reach the validation.
    expect(rulesetProblems({ rules: [{ action: 'block', expression: 'ip.src in $partners' }] }, { lists: { partners: ['192.0.2.0/24'] } })).toEqual([]);
    expect(rulesetProblems({ rules: [{ action: 'block', expression: 'ip.src in $partners' }] }, {}).length).toBeGreaterThan(0);
    // Warnings alone do not stop a simulation.
    const warned = rulesetProblems({ rules: [{ action: 'block', expression: 'ip.geoip.country == "KP"' }] }, {});
    expect(warned.length).toBeGreaterThan(0);
    expect(warned.every((d) => d.severity !== 'error')).toBe(true);
    expect(brief(rulesetProblems({ phase: 'http_request_firewall_custom', rules: [] }, {}))).not.toContain('simulation-http-phase error /phase');
  });
});

describe('simulate: packets that are not packet objects', () => {
  it.each([
    ['a string', 'abc'],
    ['null', null],
    ['a number', 5],
    ['a object', {}],
  ])('refuses packets given as %s', (what, packets) => {
    const r = simulate(block('tcp.dstport == 22'), packets as never);
    expect(brief(r.diagnostics)).toEqual(['simulation-invalid-packet error /packets']);
    expect(r.diagnostics[0]!.message).toBe(`the packets are ${what}; give an array (or any iterable) of packet objects`);
    expect(r.results).toEqual([]);
  });

  it('skips packets that are not objects, keeping the others at their own index', () => {
    const r = simulate(block('tcp.dstport == 22'), [null, { 'tcp.dstport': 22 }, [1], 3, { 'tcp.dstport': 23 }] as never);
    expect(r.diagnostics.map((d) => [d.code, d.pointer, d.message])).toEqual([
      ['simulation-invalid-packet', '/packets/0', 'packet 0 is not an object'],
      ['simulation-invalid-packet', '/packets/2', 'packet 2 is not an object'],
      ['simulation-invalid-packet', '/packets/3', 'packet 3 is not an object'],
    ]);
    expect(r.results.map((x) => [x.index, x.verdict])).toEqual([[1, 'block'], [4, 'allow']]);
    expect(r.summary.packets).toBe(2);
  });

  it('takes any iterable of packets', () => {
    function* gen() {
      yield { 'tcp.dstport': 22 };
      yield { 'tcp.dstport': 80 };
    }
    expect(simulate(block('tcp.dstport == 22'), gen()).results.map((x) => x.verdict)).toEqual(['block', 'allow']);
  });
});

/**
 * A test of `field` that is true for the values given here and false when the field is missing (a Bool
 * field alone: the values given to it here would be true if read as JavaScript truthiness).
 */
const differs = (field: string) => (field === 'tcp.flags.syn' ? 'tcp.flags.syn' : `${field} != ${field === 'ip.src' ? '192.0.2.1' : field === 'cf.colo.name' ? '"x"' : '1'}`);

describe('simulate: values of the wrong type are missing fields', () => {
  // Each row: a field, a value of the wrong type, and the start of what the warning says about it.
  const WRONG: ReadonlyArray<readonly [string, unknown, string]> = [
    ['tcp.dstport', '22', 'tcp.dstport is a string, not a number (Int)'],
    ['tcp.dstport', 22.5, 'tcp.dstport is 22.5, not a whole number (Int)'],
    ['tcp.dstport', 65536, 'tcp.dstport is 65536, outside 0..65535 (Int)'],
    ['tcp.dstport', -1, 'tcp.dstport is -1, outside 0..65535 (Int)'],
    ['tcp.dstport', Number.NaN, 'tcp.dstport is NaN, not a whole number (Int)'],
    ['tcp.dstport', Infinity, 'tcp.dstport is Infinity, not a whole number (Int)'],
    ['tcp.dstport', null, 'tcp.dstport is a null, not a number (Int)'],
    ['tcp.dstport', [22], 'tcp.dstport is a array, not a number (Int)'],
    ['tcp.flags.syn', 1, 'tcp.flags.syn is a number, not true or false (Bool)'],
    ['tcp.flags.syn', 'true', 'tcp.flags.syn is a string, not true or false (Bool)'],
    ['tcp.flags.syn', Number.NaN, 'tcp.flags.syn is a NaN, not true or false (Bool)'],
    ['tcp.flags.syn', -Infinity, 'tcp.flags.syn is a -Infinity, not true or false (Bool)'],
    ['ip.src', 3232235777, 'ip.src is a number, not an address string (Ip)'],
    ['ip.src', '300.1.1.1', 'ip.src is "300.1.1.1", not an IPv4 or IPv6 address (Ip)'],
    ['ip.src', 'x'.repeat(61), `ip.src is "${'x'.repeat(60)}…", not an IPv4 or IPv6 address (Ip)`],
    ['ip.src', 'y'.repeat(60), `ip.src is "${'y'.repeat(60)}", not an IPv4 or IPv6 address (Ip)`],
    ['cf.colo.name', 5, 'cf.colo.name is a number, not a string (String)'],
  ];

  it.each(WRONG)('%s = %j is taken as missing, with a warning', (field, value, says) => {
    // `!=` on a missing field is false, and `not` of a comparison with it is true.
    const test = differs(field);
    const rules = { rules: [{ action: 'block' as const, expression: test }, { action: 'block' as const, expression: `not (${test})` }] };
    const r = simulate(rules, [{ [field]: value }]);
    expect(r.results.map((x) => x.decidedBy?.index)).toEqual([1]);
    expect(brief(r.diagnostics)).toEqual([`simulation-invalid-value warning /packets/0/${field}`]);
    expect(r.diagnostics[0]!.message).toBe(`packet 0: ${says}; the field is taken as missing`);
    expect(r.diagnostics[0]!.data).toEqual({ field, type: says.slice(says.lastIndexOf('(') + 1, -1) });
  });

  it('accepts the values of the right type, at the ends of their ranges', () => {
    for (const p of [{ 'tcp.dstport': 0 }, { 'tcp.dstport': 65535 }, { 'tcp.flags.syn': true }, { 'ip.src': '2001:db8::1' }, { 'cf.colo.name': '' }] as Packet[]) {
      const field = Object.keys(p)[0]!;
      const r = simulate(block(differs(field)), [p]);
      expect(r.diagnostics, field).toEqual([]);
      expect(r.results[0]!.verdict, field).toBe('block');
    }
  });

  it('checks only the fields the rules read, and leaves the caller\'s packet alone', () => {
    const p = { 'tcp.dstport': 'x', 'ip.src': 5 } as unknown as Packet;
    const r = simulate(block('ip.src == 192.0.2.1'), [p]);
    expect(r.diagnostics.map((d) => d.pointer)).toEqual(['/packets/0/ip.src']);
    expect(p).toEqual({ 'tcp.dstport': 'x', 'ip.src': 5 });
  });

  it(`keeps the first ${MAX_VALUE_DIAGNOSTICS} warnings and counts the rest in one more`, () => {
    const packets = Array.from({ length: MAX_VALUE_DIAGNOSTICS + 30 }, () => ({ 'tcp.dstport': 'x' }) as unknown as Packet);
    const r = simulate(block('tcp.dstport == 1'), packets);
    expect(r.diagnostics.length).toBe(MAX_VALUE_DIAGNOSTICS + 1);
    expect(r.diagnostics[MAX_VALUE_DIAGNOSTICS - 1]!.pointer).toBe(`/packets/${MAX_VALUE_DIAGNOSTICS - 1}/tcp.dstport`);
    const last = r.diagnostics.at(-1)!;
    expect([last.code, last.severity, last.pointer, last.message, last.data]).toEqual(['simulation-invalid-value', 'warning', '', '30 more field value(s) of the wrong type were taken as missing', { more: 30 }]);
    // Exactly at the cap there is no counting warning.
    expect(simulate(block('tcp.dstport == 1'), packets.slice(0, MAX_VALUE_DIAGNOSTICS)).diagnostics.length).toBe(MAX_VALUE_DIAGNOSTICS);
  });

  it('escapes field names in the pointer (RFC 6901) and raw header fields take bytes', () => {
    const scheme = Scheme.of([
      { name: 'a/b~c', type: 'Int', doc: '' },
      { name: 'h', type: 'String', doc: '', rawHeader: true },
    ] as never);
    const out: Diagnostic[] = [];
    const p = { 'a/b~c': 'x', h: 'text', other: 1 } as unknown as Packet;
    const checked = checkPacketValues(p, ['a/b~c', 'h', 'unknown'], { text: 'line 3', pointer: '/p' }, out, scheme);
    expect(out.map((d) => [d.pointer, d.message])).toEqual([
      ['/p/a~1b~0c', 'line 3: a/b~c is a string, not a number (Int); the field is taken as missing'],
      ['/p/h', 'line 3: h is a string, not header bytes (String); the field is taken as missing'],
      ]);
    expect(checked).toEqual({ 'a/b~c': undefined, h: undefined, other: 1 });
    const fine = { h: new Uint8Array([1]) } as unknown as Packet;
    expect(checkPacketValues(fine, ['h'], { text: 'x', pointer: '' }, out, scheme)).toBe(fine);
    const none: Diagnostic[] = [];
    checkPacketValues({ 'a/b~c': 'x' } as unknown as Packet, ['a/b~c'], { text: 'x', pointer: '' }, none, scheme);
    expect(none.map((d) => d.pointer)).toEqual(['']);
  });
});

describe('simulate: country/ASN fields', () => {
  it('warns when the rules read them and no table was given, and fills them from a table', () => {
    const rules = block('ip.src.country == "BR"');
    const noTable = simulate(rules, [{ 'ip.src': '192.0.2.1' }]);
    expect(brief(noTable.diagnostics)).toEqual(['simulation-no-geoip warning ']);
    expect(noTable.diagnostics[0]!.message).toBe('the ruleset reads country/ASN fields but no geoip table was given: those fields are missing unless the packets carry them');
    expect(noTable.results[0]!.verdict).toBe('allow');
    const geo = geoIpFromCsv(readFileSync(fixture('geo.csv'), 'utf8')).lookup!;
    const withTable = simulate(rules, [{ 'ip.src': '192.0.2.1' }, { 'ip.src': '192.0.2.50' }], { geoip: geo });
    expect(withTable.diagnostics).toEqual([]);
    // geo.csv: 192.0.2.0/24 is BR, 192.0.2.48/28 is AR.
    expect(withTable.results.map((x) => x.verdict)).toEqual(['block', 'allow']);
    expect(brief(simulate(block('tcp.dstport == 1'), [{}]).diagnostics)).toEqual([]);
  });
});

/** The packet tshark's row describes, with only the fields tshark shows. */
function tsharkPacket(row: Record<string, string>): Packet {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(expectedFromTshark(row))) if (v !== undefined) out[k] = v;
  return out as Packet;
}

const FRAME_FIXTURES = ['mixed-le-usec.pcap', 'mixed-nsec.pcap', 'vlan.pcap', 'raw-ipv6.pcap', 'sll.pcap', 'sll2.pcap', 'loopback-null.pcap', 'two-interfaces.pcapng', 'ipv6-ext.pcap'];

/** Rules on fields tshark prints; the last ones read a field without a slot (packet objects are decoded). */
const RULESETS: Record<string, { rules: { action: 'block' | 'skip'; expression: string; action_parameters?: { ruleset: 'current' } }[] }> = {
  slots: {
    rules: [
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.ttl >= 64 and udp.dstport in {1..1023}' },
      { action: 'block', expression: 'tcp.dstport in {443 8443} and ip.src in {192.0.2.0/28 2001:db8::/32}' },
      { action: 'block', expression: 'icmp.type == 8 or ip.len > 1000' },
      { action: 'block', expression: 'udp.dstport == 53 and ip.ttl != 0' },
    ],
  },
  objects: {
    rules: [
      { action: 'block', expression: 'tcp.dstport in {443 8443} and cf.colo.name == "AMS"' },
      { action: 'block', expression: 'ip.dst in {198.51.100.0/24} and cf.colo.name != "x"' },
      { action: 'block', expression: 'udp.srcport > 1000 or ip.ttl < 30' },
    ],
  },
};

describe.each(FRAME_FIXTURES)('frameCounter over %s', (name) => {
  it.each(Object.keys(RULESETS))('decides every frame as the ruleset does on tshark\'s fields (%s)', async (kind) => {
    const { records } = await readFixture(name);
    const rows = goldenRows(name);
    expect(records.length).toBe(rows.length);
    const ruleset = RULESETS[kind]!;
    const colo = { name: 'AMS' };
    const oracle = simulate(ruleset, rows.map((row) => ({ ...tsharkPacket(row), ...(kind === 'objects' ? { 'cf.colo.name': colo.name } : {}) }) as Packet));
    expect(oracle.diagnostics).toEqual([]);

    const compiled = compileRuleset(ruleset);
    expect(compiled.slotsDecider !== undefined).toBe(kind === 'slots');
    const count = compiled.frameCounter({ colo });
    const decided = records.map((r: CaptureRecord) => {
      // The frame in the middle of a larger buffer, as the record loops hand it over.
      const bytes = new Uint8Array(r.data.length + 7);
      bytes.set(r.data, 3);
      return count(bytes, 3, 3 + r.data.length, r.linkType, r.index);
    });
    expect(decided).toEqual(oracle.results.map((x) => x.decidedBy?.index ?? -1));
    const summary = compiled.summary();
    expect(summary.packets).toBe(records.length);
    expect(summary.verdicts).toEqual(oracle.summary.verdicts);
    // Examples are the frames decoded (from their own bytes, not the buffer around them).
    summary.rules.forEach((rule, i) => {
      expect(rule.matched, `rule ${i}`).toBe(oracle.summary.rules[i]!.matched);
      expect(rule.examples.map((e) => e.index)).toEqual(oracle.summary.rules[i]!.examples.map((e) => e.index));
      for (const e of rule.examples) {
        const want: Record<string, unknown> = {};
        const got: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(tsharkPacket(rows[e.index]!))) {
          if (!compiled.fields.has(k)) continue;
          want[k] = v;
          got[k] = (e.packet as Record<string, unknown>)[k];
        }
        expect(Object.keys(want).length).toBeGreaterThan(0);
        expect(got, `example ${e.index} of rule ${i}`).toEqual(want);
      }
    });

    // A portable counter rebuilt from the compiled ruleset (a worker's) counts the same.
    const portable = compiled.portable();
    expect(portable).toBeDefined();
    const worker = new PortableCounter(structuredClone(portable!), RE2JS);
    const workerCount = worker.frameCounter({ colo });
    expect(records.map((r) => workerCount(r.data, 0, r.data.length, r.linkType, r.index))).toEqual(decided);
    expect(worker.summary()).toEqual(summary);
  });
});

describe('frameCounter: country/ASN from a table', () => {
  it.each(['ip.src.country == "AR"', 'ip.dst.country == "AR"', 'ip.src.asnum == 64500', 'ip.dst.asnum == 64510', 'ip.src.country == "BR" and tcp.dstport == 443'])(
    '%s decides as on tshark\'s addresses with the same table',
    async (expression) => {
      const geo = geoIpFromCsv(readFileSync(fixture('geo.csv'), 'utf8')).lookup!;
      const name = 'mixed-le-usec.pcap';
      const { records } = await readFixture(name);
      const rows = goldenRows(name);
      const oracle = simulate(block(expression), rows.map(tsharkPacket), { geoip: geo });
      const compiled = compileRuleset(block(expression));
      expect(compiled.slotsDecider).toBeDefined();
      const count = compiled.frameCounter({ geoip: geo });
      const decided = records.map((r) => count(r.data, 0, r.data.length, r.linkType, r.index));
      expect(decided).toEqual(oracle.results.map((x) => x.decidedBy?.index ?? -1));
      expect(decided.filter((d) => d === 0).length, 'some frame matched').toBeGreaterThan(0);
      expect(decided.filter((d) => d === -1).length, 'some frame did not').toBeGreaterThan(0);
    },
  );
});

describe('withGeoIp and the fields a compiled ruleset reads', () => {
  const geo = () => geoIpFromCsv(readFileSync(fixture('geo.csv'), 'utf8')).lookup!;

  it('fills only what the packet lacks, on a copy, per side', () => {
    const p = { 'ip.src': '192.0.2.1', 'ip.src.country': 'XX', 'ip.dst': '198.51.100.7', 'ip.dst.asnum': 1 } as Packet;
    const before = { ...p };
    const out = withGeoIp(p, geo());
    expect(out).toEqual({ ...before, 'ip.src.asnum': 64500, 'ip.dst.country': 'DE' });
    expect(p).toEqual(before);
    // Nothing to add: the packet itself.
    const full = { 'ip.src': '192.0.2.1', 'ip.src.country': 'XX', 'ip.src.asnum': 1 } as Packet;
    expect(withGeoIp(full, geo())).toBe(full);
    const unknown = { 'ip.src': '10.0.0.1', 'ip.dst': 5 } as unknown as Packet;
    expect(withGeoIp(unknown, geo())).toBe(unknown);
    // A table row with a country and no ASN adds only the country (geo.csv: 203.0.113.0/25 is JP, no ASN).
    expect(withGeoIp({ 'ip.dst': '203.0.113.1' } as Packet, geo())).toEqual({ 'ip.dst': '203.0.113.1', 'ip.dst.country': 'JP' });
    expect(withGeoIp({ 'ip.dst': '203.0.113.9' } as Packet, geo())).toEqual({ 'ip.dst': '203.0.113.9', 'ip.dst.asnum': 64520 });
  });

  it('reads country and ASN fields, derived ones included', () => {
    expect(readsGeoFields(new Set(['tcp.dstport', 'ip.src']))).toBe(false);
    for (const f of ['ip.src.country', 'ip.dst.asnum', 'ip.geoip.country']) expect(readsGeoFields(new Set(['tcp.dstport', f])), f).toBe(true);
    expect([...compileRuleset(block('ip.geoip.country == "DE"')).fields].sort()).toEqual(['ip.dst.country', 'ip.geoip.country', 'ip.src.country']);
    expect([...compileRuleset(block('ip.geoip.asnum == 1')).fields].sort()).toEqual(['ip.geoip.asnum', 'ip.src.asnum']);
    // ip.geoip.country matches either side's country (docs/expressions.md).
    const r = simulate(block('ip.geoip.country == "DE"'), [{ 'ip.src': '192.0.2.1', 'ip.dst': '198.51.100.7' }, { 'ip.src': '192.0.2.1', 'ip.dst': '192.0.2.2' }], { geoip: geo() });
    expect(r.results.map((x) => x.verdict)).toEqual(['block', 'allow']);
  });
});

describe('compileRuleset: which rules take part', () => {
  it('leaves out disabled rules, rules of other actions and rules with expression errors, and reports the errors at the rule', () => {
    const c = compileRuleset({
      rules: [
        { action: 'block', expression: 'tcp.dstport == 1', enabled: false, id: 'off' },
        { action: 'log_custom_field' as never, expression: 'true' },
        { action: 'block', expression: 'tcp.dstprot == 2', ref: 'typo' },
        { action: 'block', expression: 'tcp.dstport == 3', description: 'three' },
      ],
    });
    expect(c.diagnostics.map((d) => [d.code, d.pointer, d.rangeIn])).toEqual([['unknown-field', '/rules/2/expression', 'value']]);
    expect(c.hasErrors).toBe(true);
    expect([...c.fields]).toEqual(['tcp.dstport']);
    expect([1, 2, 3].map((port) => c.decide({ 'tcp.dstport': port, 'tcp.dstprot': 2 } as Packet).decidedBy?.index)).toEqual([undefined, undefined, 3]);
    expect(c.decide({ 'tcp.dstport': 3 }).decidedBy).toEqual({ index: 3, action: 'block', description: 'three' });
    expect(c.summary().rules.map((r) => [r.index, r.enabled, r.expression, r.id, r.ref])).toEqual([
      [0, false, 'tcp.dstport == 1', 'off', undefined],
      [1, true, 'true', undefined, undefined],
      [2, true, 'tcp.dstprot == 2', undefined, 'typo'],
      [3, true, 'tcp.dstport == 3', undefined, undefined],
    ]);
    expect(compileRuleset({ rules: [] }).hasErrors).toBe(false);
    expect(compileRuleset(null as never).summary().rules).toEqual([]);
  });

  it('keeps examplesPerRule examples per rule (3 by default), the first packets that matched', () => {
    const packets = Array.from({ length: 6 }, (_, i) => ({ 'tcp.dstport': 22, n: i }) as unknown as Packet);
    expect(simulate(block('tcp.dstport == 22'), packets).summary.rules[0]!.examples.map((e) => e.index)).toEqual([0, 1, 2]);
    expect(simulate(block('tcp.dstport == 22'), packets, { examplesPerRule: 5 }).summary.rules[0]!.examples.map((e) => e.index)).toEqual([0, 1, 2, 3, 4]);
    expect(simulate(block('tcp.dstport == 22'), packets, { examplesPerRule: 0 }).summary.rules[0]!.examples).toEqual([]);
  });

  it('decides on slots only when asked for automatically and every field has a slot', () => {
    expect(compileRuleset(block('tcp.dstport == 22')).slotsDecider).toBeDefined();
    expect(compileRuleset(block('tcp.dstport == 22'), { decoder: 'objects' }).slotsDecider).toBeUndefined();
    expect(compileRuleset(block('tcp.dstport == 22'), { codegen: false }).slotsDecider).toBeUndefined();
    expect(compileRuleset(block('cf.colo.name == "AMS"')).slotsDecider).toBeUndefined();
    expect(compileRuleset(block('tcp.dstport == 22'), { codegen: false }).portable()).toBeUndefined();
  });

  it('takes lists as items or as a catalog, with the service token', () => {
    const items = { 'cf.anonymizer': ['198.51.100.0/24'] };
    const r = simulate(block('ip.src in $cf.anonymizer'), [{ 'ip.src': '198.51.100.1' }, { 'ip.src': '192.0.2.1' }], { lists: items, serviceToken: 'cf' });
    expect(r.diagnostics).toEqual([]);
    expect(r.results.map((x) => x.verdict)).toEqual(['block', 'allow']);
  });
});
