/**
 * Completion, hover and signature help in expressions: tables of inputs with the cursor marked `|`, the
 * labels that must be proposed and the ones that must not, and what an accepted proposal replaces.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { completeExpression, hoverExpression, signatureHelpExpression, type CompletionResult } from '../../src/language/index.js';
import { COMPARE_OPERATORS, COUNTRY_CODES, NETWORK_FIELDS, compileExpression } from '../../src/index.js';
import { cursor } from './cursor.js';

const LISTS = { my_list: ['192.0.2.0/24', '198.51.100.7'] };
const labels = (r: CompletionResult) => r.items.map((i) => i.label);
const apply = (text: string, r: CompletionResult, label: string) => {
  const item = r.items.find((i) => i.label === label)!;
  return text.slice(0, r.from) + (item.insertText ?? item.label) + text.slice(r.to);
};

describe('completeExpression', () => {
  const cases: { input: string; has: string[]; not?: string[]; replaces?: string }[] = [
    { input: 'tcp.d|', has: ['tcp.dstport', 'tcp.srcport', 'ip.src', 'bit_slice', 'not'], not: ['tcp', '==', 'and'], replaces: 'tcp.d' },
    { input: '|', has: ['ip.src', 'tcp.flags.syn', 'ip.src.country', 'not'], not: ['ip', 'udp', '$svc.anonymizer'] },
    { input: 'tcp.d|stport == 80', has: ['tcp.dstport'], replaces: 'tcp.dstport' },
    { input: 'tcp.dstport |', has: ['==', 'eq', '!=', '<', 'ge', '&', 'bitwise_and', 'in'], not: ['contains', 'matches', 'wildcard', 'and', 'tcp.dstport'] },
    { input: 'tcp.dstport co|', has: ['=='], not: ['contains'], replaces: 'co' },
    { input: 'ip.proto |', has: ['==', 'contains', 'matches', 'wildcard', 'strict wildcard', 'in'], not: ['&'] },
    { input: 'ip.src |', has: ['==', 'in'], not: ['contains', '&'] },
    { input: 'ip.src.country strict |', has: ['wildcard'], not: ['=='] },
    { input: 'ip.src in |', has: ['$svc.anonymizer', '$svc.botnetcc', '$svc.malware', '$my_list', '{}'] },
    { input: 'ip.src in $|', has: ['$svc.anonymizer', '$my_list'], not: ['{}'], replaces: '$' },
    { input: 'ip.src in $svc.an|', has: ['$svc.anonymizer'], replaces: '$svc.an' },
    { input: 'tcp.dstport in |', has: ['{}'], not: ['$svc.anonymizer', '$my_list'] },
    { input: 'tcp.dstport in $|', has: [], not: ['$svc.anonymizer'], replaces: '$' },
    { input: 'ip.src.country == |', has: ['"US"', '"DE"', '"T1"'], not: ['"us"', 'ip.src'] },
    { input: 'ip.dst.country in {"US" |}', has: ['"FR"'] },
    { input: 'ip.proto == |', has: ['"tcp"', '"udp"', '"ipv6-icmp"'], not: ['"253"'] },
    { input: 'tcp.dstport == |', has: [], not: ['"US"', 'tcp.dstport'] },
    { input: 'tcp.dstport == 80 |', has: ['and', 'or', 'xor'], not: ['==', 'tcp.dstport'] },
    { input: 'tcp.flags.syn |', has: ['and', 'or', 'xor'], not: ['=='] },
    { input: 'tcp.dstport in {80 443} |', has: ['and', 'or'], not: ['"US"'] },
    { input: 'ip.src in $svc.malware |', has: ['and'] },
    { input: 'not |', has: ['tcp.flags.syn', 'not'] },
    { input: '(tcp.dstport == 80 or |)', has: ['udp.dstport'] },
    { input: 'tcp.dstport == 80 and |', has: ['udp.dstport', 'bit_slice'] },
    { input: 'tcp.dstport == 80 && (ip.src == 1.2.3.4) |', has: ['and', 'or'] },
    { input: 'bit_slice(|', has: ['ip', 'tcp', 'udp', 'icmp'], not: ['tcp.dstport'] },
    { input: 'bit_slice(tcp, |', has: [] },
    { input: 'bit_slice(tcp, 104, 108) |', has: ['==', '&', 'in'], not: ['contains'] },
    { input: 'tcp.dstport == 80 AND |', has: ['ip.src'] },
  ];
  for (const c of cases) {
    it(c.input, () => {
      const { text, offset } = cursor(c.input);
      const r = completeExpression(text, offset, { lists: LISTS });
      for (const l of c.has) expect(labels(r)).toContain(l);
      for (const l of c.not ?? []) expect(labels(r)).not.toContain(l);
      if (c.has.length === 0) expect(r.items).toEqual([]);
      if (c.replaces !== undefined) expect(text.slice(r.from, r.to)).toBe(c.replaces);
      else expect([r.from, r.to]).toEqual([offset, offset]);
    });
  }

  it('inside a string the contents are replaced, quotes kept; outside, the value is quoted', () => {
    const inside = cursor('ip.src.country == "U|" and sip');
    const r = completeExpression(inside.text, inside.offset);
    expect(inside.text.slice(r.from, r.to)).toBe('U');
    expect(apply(inside.text, r, 'US')).toBe('ip.src.country == "US" and sip');
    const open = cursor('ip.proto == "ud|');
    const o = completeExpression(open.text, open.offset);
    expect(apply(open.text, o, 'udp')).toBe('ip.proto == "udp');
    const outside = cursor('ip.src.country == |');
    expect(apply(outside.text, completeExpression(outside.text, outside.offset), '"US"')).toBe('ip.src.country == "US"');
  });

  it('fields carry their type and description from the scheme; a given scheme replaces the network one', () => {
    const { text, offset } = cursor('|');
    const port = completeExpression(text, offset).items.find((i) => i.label === 'tcp.dstport')!;
    const def = NETWORK_FIELDS.find((f) => f.name === 'tcp.dstport')!;
    expect(port).toMatchObject({ kind: 'field', detail: expect.stringContaining(def.type) });
    expect(port.documentation).toContain(def.doc);
    const own = completeExpression('http.h', 6, { scheme: { 'http.host': 'String' } });
    expect(labels(own)).toContain('http.host');
    expect(labels(own)).not.toContain('tcp.dstport');
    expect(labels(completeExpression('http.host ', 10, { scheme: { 'http.host': 'String' } }))).toContain('contains');
  });

  it('the operators proposed for a type are exactly the table\'s, each spelling', () => {
    for (const [type, field] of [['Int', 'tcp.dstport'], ['String', 'ip.proto'], ['Ip', 'ip.src']] as const) {
      const got = new Set(labels(completeExpression(`${field} `, field.length + 1)));
      const want = Object.values(COMPARE_OPERATORS).filter((o) => (o.types as readonly string[]).includes(type)).flatMap((o) => o.spellings);
      expect([...got].filter((l) => l !== 'in').sort()).toEqual([...new Set(want)].sort());
    }
  });

  it('every country code of the catalog is proposed after a country field', () => {
    const r = completeExpression('ip.src.country == ', 18);
    expect(r.items.length).toBe(COUNTRY_CODES.size);
  });

  it('the service token names the managed lists', () => {
    expect(labels(completeExpression('ip.src in ', 10, { serviceToken: 'cf' }))).toContain('$cf.anonymizer');
  });

  it('a proposed field or operator, accepted, makes an expression that checks (field, operator, value)', () => {
    let text = '';
    text = apply(text, completeExpression(text, text.length), 'tcp.dstport');
    text += ' ';
    text = apply(text, completeExpression(text, text.length), 'in');
    text += ' ';
    text = apply(text, completeExpression(text, text.length), '{}');
    expect(text).toBe('tcp.dstport in {}');
    let t2 = 'ip.src.country == ';
    t2 = apply(t2, completeExpression(t2, t2.length), '"DE"') + ' ';
    t2 = apply(t2, completeExpression(t2, t2.length), 'and') + ' not ';
    t2 = apply(t2, completeExpression(t2, t2.length), 'ip.src') + ' in ';
    t2 = apply(t2, completeExpression(t2, t2.length, { lists: LISTS }), '$my_list');
    expect(compileExpression(t2, { lists: LISTS }).diagnostics).toEqual([]);
  });

  it('never throws, and [from, to) stays inside the text and around the cursor (any text, any offset)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.integer({ min: -5, max: 50 }), (text, offset) => {
        const r = completeExpression(text, offset);
        const at = Math.max(0, Math.min(text.length, offset));
        expect(r.from).toBeGreaterThanOrEqual(0);
        expect(r.from).toBeLessThanOrEqual(at);
        expect(r.to).toBeGreaterThanOrEqual(at);
        expect(r.to).toBeLessThanOrEqual(text.length);
        hoverExpression(text, offset);
        signatureHelpExpression(text, offset);
      }),
    );
    expect(completeExpression(null as unknown as string, 0).items).toEqual([]);
    expect(completeExpression('t', 1, { scheme: 7 as never, lists: 'x' as never, serviceToken: 3 as never }).items.length).toBeGreaterThan(0);
  });
});

describe('hoverExpression', () => {
  const cases: { input: string; span: string; says: string[] }[] = [
    { input: 'tcp.dst|port == 80', span: 'tcp.dstport', says: ['**tcp.dstport**', 'Int', 'TCP destination port', '0..65535'] },
    { input: 'tcp.dstport| == 80', span: 'tcp.dstport', says: ['TCP destination port'] },
    { input: 'ip.geoip.country| == "US"', span: 'ip.geoip.country', says: ['Deprecated'] },
    { input: 'tcp.dstport =|= 80', span: '==', says: ['**==**', '`eq`', 'Equal'] },
    { input: 'ip.proto conta|ins "t"', span: 'contains', says: ['Substring'] },
    { input: 'ip.proto strict wild|card "t*"', span: 'wildcard', says: ['**strict wildcard**', 'case-sensitive'] },
    { input: 'ip.proto str|ict wildcard "t*"', span: 'strict', says: ['**strict wildcard**'] },
    { input: 'ip.proto wild|card "t*"', span: 'wildcard', says: ['**wildcard**', 'case-insensitive'] },
    { input: 'sip a|nd tcp.flags.syn', span: 'and', says: ['**and**', '`&&`', 'Binds tighter than `or`, `xor`'] },
    { input: 'sip |or tcp.flags.syn', span: 'or', says: ['**or**', 'Binds loosest'] },
    { input: '|!sip', span: '!', says: ['**not**'] },
    { input: 'ip.src i|n $my_list', span: 'in', says: ['**in**', '$list'] },
    { input: 'ip.src in $my_l|ist', span: '$my_list', says: ['**$my_list**', 'Account list, 2 items'] },
    { input: 'ip.src in $svc.ma|lware', span: '$svc.malware', says: ['Managed list'] },
    { input: 'ip.src in $oth|er', span: '$other', says: ['not among the lists given'] },
    { input: 'bit_sl|ice(tcp, 104, 108) == 5', span: 'bit_slice', says: ['bit_slice(field: raw header', 'Example'] },
  ];
  for (const c of cases) {
    it(c.input, () => {
      const { text, offset } = cursor(c.input);
      const h = hoverExpression(text, offset, { lists: LISTS })!;
      expect(h).toBeDefined();
      expect(text.slice(h.from, h.to)).toBe(c.span);
      for (const s of c.says) expect(h.markdown).toContain(s);
    });
  }
  it('nothing on numbers, unknown fields, spaces', () => {
    for (const m of ['tcp.dstport == 8|0', 'tcp.dst_po|rt == 80', 'tcp.dstport  |  == 80', '|']) {
      const { text, offset } = cursor(m);
      expect(hoverExpression(text, offset), m).toBeUndefined();
    }
  });
});

describe('signatureHelpExpression', () => {
  it('names the function and the argument being written', () => {
    for (const [m, active] of [['bit_slice(|', 0], ['bit_slice(tcp, 1|', 1], ['bit_slice(tcp, 1, (2|', 2], ['bit_slice(tcp, 1, 2, 3|', 2]] as const) {
      const { text, offset } = cursor(m);
      const s = signatureHelpExpression(text, offset)!;
      expect(s.label).toMatch(/^bit_slice\(/);
      expect(s.parameters).toEqual(['field: raw header', 'start_bit: Int', 'end_bit: Int']);
      expect(s.activeParameter, m).toBe(active);
    }
  });
  it('nothing outside a call, or in a call of an unknown function', () => {
    for (const m of ['bit_slice(tcp, 1, 2) == |', 'tcp.dstport == |', 'nosuchfn(|']) {
      const { text, offset } = cursor(m);
      expect(signatureHelpExpression(text, offset), m).toBeUndefined();
    }
  });
});
