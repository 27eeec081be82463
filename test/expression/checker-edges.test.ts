/**
 * The checker at the edges the spec draws: the ends of IP ranges in sets, the managed lists under the
 * service token, bit_slice's offsets (at most 32 bits, offsets up to 2040), `in {…}` on a Bool field,
 * and what a message names (a set item that is a range, a value whose left-hand side is not a field).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExpression, compileExpression, HTTP_SCHEME, interpret, parseExpression, Scheme, walk, type AnyNode } from '../../src/expression/index.js';

const problems = (text: string, options = {}) => compileExpression(text, options).diagnostics.map((d) => ({ code: d.code, range: d.range, message: d.message }));
const codes = (text: string, options = {}) => compileExpression(text, options).diagnostics.map((d) => d.code);

describe('IP ranges in sets', () => {
  it('an end that is no address is reported once, as that end, and no matcher is built', () => {
    for (const text of ['ip.src in {10.0.0.1..10.0.0.256}', 'ip.src in {10.0.0.256..10.0.0.1}', 'ip.src in {1.2.3..10.0.0.1}']) {
      const r = compileExpression(text);
      expect(r.diagnostics.map((d) => d.code), text).toEqual(['invalid-ip']);
      expect(r.matcher, text).toBeUndefined();
    }
    expect(problems('ip.src in {10.0.0.1..10.0.0.256}')[0]!.range).toEqual({ start: 21, end: 31 });
    // Both ends wrong: both reported.
    expect(codes('ip.src in {10.0.0.256..10.0.0.257}')).toEqual(['invalid-ip', 'invalid-ip']);
  });

  it('an end that is a CIDR, on either side, is refused: the ends are single addresses', () => {
    for (const text of ['ip.src in {10.0.0.0/8..10.0.0.9}', 'ip.src in {10.0.0.1..10.0.0.0/8}', 'ip.src in {10.0.0.0/8..11.0.0.0/8}']) {
      const r = compileExpression(text);
      expect(r.diagnostics.map((d) => [d.code, d.range]), text).toEqual([['invalid-ip', { start: 11, end: text.length - 1 }]]);
      expect(r.diagnostics[0]!.message, text).toContain('single addresses');
      expect(r.matcher, text).toBeUndefined();
    }
  });

  it('a valid item beside a bad range does not make the set valid', () => {
    expect(compileExpression('ip.src in {192.0.2.1 10.0.0.1..10.0.0.0/8}').matcher).toBeUndefined();
    expect(compileExpression('ip.src in {10.0.0.1..10.0.0.0/8 192.0.2.1}').matcher).toBeUndefined();
    expect(compileExpression('ip.src in {10.0.0.9..10.0.0.1 192.0.2.1}').matcher).toBeUndefined();
  });

  it('a duplicate item that is a range is named as written, low..high', () => {
    expect(problems('ip.src in {10.0.0.1..10.0.0.5 10.0.0.0/8}')[0]!.message).toMatch(/^10\.0\.0\.1\.\.10\.0\.0\.5 is inside 10\.0\.0\.0\/8/);
    expect(problems('tcp.dstport in {1..5 3..4}')[0]!.message).toMatch(/^3\.\.4 is inside 1\.\.5/);
  });
});

describe('lists', () => {
  it('a managed list of the service token needs no catalog entry: only a note that no items were given', () => {
    const r = compileExpression('ip.src in $svc.anonymizer');
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([['list-not-provided', 'info']]);
    expect(r.matcher!({ 'ip.src': '10.0.0.1' })).toBe(false);
    for (const name of ['svc.botnetcc', 'svc.malware']) expect(codes(`ip.src in $${name}`), name).toEqual(['list-not-provided']);
  });

  it('the managed lists follow the service token', () => {
    const cf = { serviceToken: 'cf' };
    expect(codes('ip.src in $cf.anonymizer', cf)).toEqual(['list-not-provided']);
    const r = compileExpression('ip.src in $svc.anonymizer', cf);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['unknown-list']);
    expect(r.diagnostics[0]!.fix!.edits[0]!.newText).toBe('$cf.anonymizer');
  });

  it('a $ without a name is one error, from the lexer', () => {
    expect(codes('ip.src in $')).toEqual(['invalid-list-name']);
    expect(checkExpression('ip.src in $').diagnostics.map((d) => d.code)).toEqual(['invalid-list-name']);
  });
});

describe('bit_slice offsets (spec: at most 32 bits, offsets at most 2040)', () => {
  const ok = (a: number, b: number) => codes(`bit_slice(tcp, ${a}, ${b}) == 1`);
  it('accepts slices inside the limits, up to the edges', () => {
    for (const [a, b] of [[0, 1], [0, 32], [2008, 2040], [2039, 2040], [7, 9]] as const) expect(ok(a, b), `${a}, ${b}`).toEqual([]);
  });

  it('refuses empty, reversed, too wide and too far slices, and negative offsets, naming the slice', () => {
    for (const [a, b, bits] of [[8, 8, 0], [9, 8, 0], [0, 33, 33], [2009, 2041, 32], [2040, 2041, 1], [-8, 8, 16], [-1, 0, 1]] as const) {
      const text = `bit_slice(tcp, ${a}, ${b}) == 1`;
      const r = compileExpression(text);
      expect(r.diagnostics.map((d) => d.code), text).toEqual(['function-arguments']);
      const d = r.diagnostics[0]!;
      expect(d.range, text).toEqual({ start: 15, end: text.indexOf(')') });
      expect(d.message, text).toContain(`bit_slice(tcp, ${a}, ${b})`);
      expect(d.message, text).toContain(`(has ${bits})`);
      expect(d.data, text).toEqual({ start: a, end: b, maxBits: 32, maxOffset: 2040 });
    }
  });

  it('a value compared with bit_slice is an Int of no field: the message does not call the raw header an Int', () => {
    for (const rhs of ['true', '"x"']) {
      const d = compileExpression(`bit_slice(tcp, 0, 8) == ${rhs}`).diagnostics;
      expect(d.map((x) => x.code), rhs).toEqual([rhs === 'true' ? 'boolean-literal' : 'literal-type-mismatch']);
      expect(d[0]!.message, rhs).toContain('this value is an Int');
      expect(d[0]!.message, rhs).not.toContain('tcp is');
    }
  });
});

describe('operators on the wrong type', () => {
  it('in {…} on a Bool field says to use the field as a condition; on another type it does not', () => {
    const d = compileExpression('tcp.flags.syn in {1}').diagnostics;
    expect(d.map((x) => [x.code, x.range])).toEqual([['operator-type-mismatch', { start: 14, end: 16 }]]);
    expect(d[0]!.message).toContain('write tcp.flags.syn or not tcp.flags.syn');
    const onMap = compileExpression('http.request.headers in {"a"}', { scheme: HTTP_SCHEME }).diagnostics;
    for (const x of onMap) expect(x.message).not.toContain(' or not ');
  });
});

describe('walk', () => {
  it('visits every node, set items and both ends of a range included', () => {
    const kinds = (text: string) => {
      const out: string[] = [];
      walk(parseExpression(text).ast! as AnyNode, (n) => void out.push(n.kind === 'literal' ? `literal ${n.text}` : n.kind));
      return out.sort();
    };
    expect(kinds('tcp.dstport in {80 1000..2000}')).toEqual(['field', 'in', 'literal 1000', 'literal 2000', 'literal 80', 'range', 'set'].sort());
    expect(kinds('ip.src in {10.0.0.1..10.0.0.9}').filter((k) => k.startsWith('literal'))).toEqual(['literal 10.0.0.1', 'literal 10.0.0.9']);
  });
});

describe('any() and all() of an Array<Bool> field', () => {
  // No field of the built-in schemes is an Array<Bool>; a scheme of the Rules language may declare one.
  const scheme = Scheme.of([{ name: 'x.flags', type: 'Bool', doc: '', container: 'Array<Boolean>' }], { rulesLanguage: true });
  it('stand for its items: any() is some item true, all() every item true, as with [*]', () => {
    const exprs = ['any(x.flags)', 'all(x.flags)', 'any(x.flags[*])', 'all(x.flags[*])', 'not any(x.flags)', 'any(x.flags) and all(x.flags)'];
    const built = exprs.map((e) => {
      const r = compileExpression(e, { scheme });
      expect(r.diagnostics, e).toEqual([]);
      return { r, closures: compileExpression(e, { scheme, codegen: false }).matcher! };
    });
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 6 }), (flags) => {
        const rec = { 'x.flags': flags };
        const some = flags.some((b) => b);
        const every = flags.every((b) => b);
        const want = [some, every, some, every, !some, some && every];
        built.forEach(({ r, closures }, i) => {
          expect(r.matcher!(rec), `${exprs[i]} on ${JSON.stringify(flags)}`).toBe(want[i]);
          expect(closures(rec), exprs[i]).toBe(want[i]);
          expect(interpret(r.checked!, rec), exprs[i]).toBe(want[i]);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('take exactly one argument', () => {
    for (const e of ['any()', 'any(x.flags, x.flags)', 'all()']) {
      const d = compileExpression(e, { scheme }).diagnostics;
      expect(d.map((x) => x.code), e).toEqual(['function-arguments']);
      expect(d[0]!.message, e).toContain('takes one argument');
    }
  });
});

describe('Int literals outside a field', () => {
  it('are reported with the field range and the value read (hex and octal as their value)', () => {
    for (const [text, value, max] of [['tcp.dstport == 65536', 65536, 65535], ['ip.ttl == 0x100', 256, 255], ['ip.ttl == 0400', 256, 255], ['tcp.dstport in {1 0x10000}', 65536, 65535]] as const) {
      const d = compileExpression(text).diagnostics.filter((x) => x.code === 'value-out-of-range');
      expect(d, text).toHaveLength(1);
      expect(d[0]!.data, text).toEqual({ min: 0, max, value });
      expect(d[0]!.message, text).toBe(`${value} is outside the range of ${text.split(' ')[0]} (0..${max})`);
    }
  });
});
