/**
 * Literals at the edges of what they can hold, against oracles outside the compiler: Int literals over
 * the whole integer line against each field's width, string literals in every written form against the
 * value they spell, and IP set items (IPv4 and IPv6 addresses, CIDRs of every prefix length, ranges)
 * against ipaddr.js.
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/expression/index.js';
import { reachCounter } from '../helpers/reach.js';
import { edgeInt, escapedLiteral, INT_FIELD_MAX, ip, ipItem, literalOf } from './arbitraries.js';

const errors = (e: string) => compileExpression(e).diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);

describe('Int literals over the whole integer line', () => {
  it('are accepted exactly inside the field width, and compare exactly', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(INT_FIELD_MAX)), edgeInt, (field, n) => {
        const inside = n >= 0 && n <= INT_FIELD_MAX[field]!;
        const text = n < 0 ? `-${-n}` : String(n);
        const r = compileExpression(`${field} == ${text}`);
        if (!inside) {
          expect(r.matcher, `${field} == ${text}`).toBeUndefined();
          expect(r.diagnostics.filter((d) => d.severity === 'error').length).toBeGreaterThan(0);
          expect(compileExpression(`${field} in {${text}}`).matcher).toBeUndefined();
          return;
        }
        expect(errors(`${field} == ${text}`)).toEqual([]);
        const eq = r.matcher!;
        expect(eq({ [field]: n })).toBe(true);
        expect(eq({ [field]: n + 1 })).toBe(false);
        expect(eq({ [field]: n - 1 })).toBe(false);
        const inSet = compileExpression(`${field} in {${n}..${INT_FIELD_MAX[field]}}`).matcher!;
        expect(inSet({ [field]: n })).toBe(true);
        expect(inSet({ [field]: n - 1 })).toBe(false);
        const lt = compileExpression(`${field} < ${n}`).matcher!;
        expect(lt({ [field]: n })).toBe(false);
        if (n > 0) expect(lt({ [field]: n - 1 })).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('the edges themselves', () => {
    for (const [field, max] of Object.entries(INT_FIELD_MAX)) {
      for (const n of [0, 1, max]) expect(errors(`${field} == ${n}`), `${field} == ${n}`).toEqual([]);
      for (const t of [String(max + 1), '-1']) expect(errors(`${field} == ${t}`).length, `${field} == ${t}`).toBeGreaterThan(0);
    }
    expect(errors('tcp.dstport == 65535')).toEqual([]);
    expect(errors('tcp.dstport == 65536')).toEqual(['value-out-of-range']);
    expect(errors('tcp.dstport in {0..65536}')).toEqual(['value-out-of-range']);
    expect(errors('ip.ttl == 0x100')).toEqual(['value-out-of-range']);
  });
});

describe('string literals in every written form', () => {
  it('raw, quoted, \\xHH and \\OOO escapes all spell the same value', () => {
    const value = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 }));
    const reach = reachCounter();
    fc.assert(
      fc.property(value.chain((v) => literalOf(v).map((lit) => [v, lit] as const)), ([v, lit]) => {
        reach.tried();
        const r = compileExpression(`cf.colo.name == ${lit}`);
        // Control characters and a few others are refused as raw text; escapes can write any byte.
        if (!r.matcher) return;
        reach.reached();
        expect(r.matcher({ 'cf.colo.name': v }), lit).toBe(true);
        expect(r.matcher({ 'cf.colo.name': `${v}x` }), lit).toBe(false);
      }),
      { numRuns: 3000 },
    );
    reach.expectAtLeast(0.5, 'literal accepted');
  });

  it('every byte written as \\xHH or \\OOO', () => {
    for (let b = 0; b < 0x80; b++) {
      const ch = String.fromCharCode(b);
      for (const how of [1, 2]) {
        const lit = escapedLiteral(ch, [how]);
        const r = compileExpression(`cf.colo.name == ${lit}`);
        expect(r.diagnostics.filter((d) => d.severity === 'error'), lit).toEqual([]);
        expect(r.matcher!({ 'cf.colo.name': ch }), lit).toBe(true);
      }
    }
    // Bytes that are not UTF-8 become U+FFFD; a multi-byte character can mix nothing else in between.
    expect(compileExpression('cf.colo.name == "\\xc3\\xa9\\303\\251"').matcher!({ 'cf.colo.name': 'éé' })).toBe(true);
    expect(errors('cf.colo.name == "\\400"')).toEqual(['invalid-escape']);
    expect(errors('cf.colo.name == "\\x4"')).toEqual(['invalid-escape']);
  });
});

/** ipaddr.js's answer: is `addr` inside `item` (address, CIDR or `a..b` range)? */
function oracleContains(item: string, addr: string): boolean {
  const a = ipaddr.parse(addr);
  const bytes = (x: ipaddr.IPv4 | ipaddr.IPv6) => x.toByteArray().map((b) => b.toString(16).padStart(2, '0')).join('');
  if (item.includes('..')) {
    const [lo, hi] = item.split('..').map((t) => ipaddr.parse(t));
    if (lo!.kind() !== a.kind()) return false;
    return bytes(lo!) <= bytes(a) && bytes(a) <= bytes(hi!);
  }
  if (item.includes('/')) {
    const [net, len] = ipaddr.parseCIDR(item);
    return net.kind() === a.kind() && a.match([net, len] as never);
  }
  const b = ipaddr.parse(item);
  return b.kind() === a.kind() && bytes(a) === bytes(b);
}

describe('IP sets with IPv4 and IPv6 addresses, CIDRs of every length and ranges', () => {
  it('match what ipaddr.js says', () => {
    const reached = { n: 0 };
    fc.assert(
      fc.property(fc.array(ipItem, { minLength: 1, maxLength: 6 }), fc.array(ip, { minLength: 1, maxLength: 6 }), (items, addrs) => {
        const r = compileExpression(`ip.src in {${items.join(' ')}}`);
        expect(r.diagnostics.filter((d) => d.severity === 'error'), items.join(' ')).toEqual([]);
        // The queries: the given addresses and each item's own ends.
        const queries = [...addrs, ...items.flatMap((i) => (i.includes('/') ? [i.split('/')[0]!] : i.split('..')))];
        for (const q of queries) {
          const want = items.some((i) => oracleContains(i, q));
          if (want) reached.n++;
          expect(r.matcher!({ 'ip.src': q }), `${q} in {${items.join(' ')}}`).toBe(want);
        }
      }),
      { numRuns: 2000 },
    );
    expect(reached.n).toBeGreaterThan(1000);
  });
});
