/**
 * The generated matcher against the interpreter (the reference semantics) and the closure matcher, for
 * every operator of every type, on field values of every JavaScript type a caller may pass. Two things
 * that `compile`'s own behaviour hides are looked at directly: that the generated source is valid
 * JavaScript (a broken source would fall back to closures silently, and every behaviour test would still
 * pass), and that a value of the wrong type is refused as the interpreter refuses it (a missing type test
 * in generated code lets `"5" < 80` or `null >= ""` through).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileExpression, generate, HELPERS, EMPTY_PACKET, HTTP_SCHEME, interpret, type Matcher, type Packet } from '../../src/expression/index.js';

/** The matcher built from the generated source, failing the test (not falling back) when it is invalid. */
function generated(checked: Parameters<typeof generate>[0]): Matcher {
  const g = generate(checked);
  const factory = new Function('k', 'h', 'E', g.source) as (k: unknown[], h: typeof HELPERS, e: Packet) => Matcher;
  return factory(g.constants, HELPERS, EMPTY_PACKET);
}

const many = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + 7 * i).join(' ');

/** One expression per operator and type of the network scheme, and the field it reads. */
const NETWORK: [string, string][] = [
  ...['==', '!=', '<', '<=', '>', '>=', '&', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'bitwise_and'].map((op): [string, string] => [`tcp.dstport ${op} 80`, 'tcp.dstport']),
  ['tcp.dstport in {80 443 1000..2000}', 'tcp.dstport'],
  ['tcp.dstport in {80 443}', 'tcp.dstport'],
  ['tcp.dstport in {}', 'tcp.dstport'],
  [`tcp.dstport in {${many(20, 1)} 5000..6000}`, 'tcp.dstport'],
  [`tcp.dstport in {${many(20, 1)}}`, 'tcp.dstport'],
  ['tcp.dstport in {1000..2000}', 'tcp.dstport'],
  ...['==', '!=', '<', '<=', '>', '>=', 'contains', 'matches', '~', 'wildcard', 'strict wildcard'].map((op): [string, string] => [`cf.colo.name ${op} "b"`, 'cf.colo.name']),
  ['cf.colo.name >= ""', 'cf.colo.name'],
  ['cf.colo.name > ""', 'cf.colo.name'],
  ['cf.colo.name in {"a" "b" ""}', 'cf.colo.name'],
  ['cf.colo.name in {}', 'cf.colo.name'],
  [`cf.colo.name in {${Array.from({ length: 20 }, (_, i) => `"s${i}"`).join(' ')} "5" "80"}`, 'cf.colo.name'],
  ...['==', '!=', '<', '<=', '>', '>='].map((op): [string, string] => [`ip.src ${op} 10.0.0.1`, 'ip.src']),
  ['ip.src in {10.0.0.0/8 2001:db8::/32 192.0.2.1..192.0.2.9}', 'ip.src'],
  ['ip.src in $svc.anonymizer', 'ip.src'],
  ['tcp.flags.syn', 'tcp.flags.syn'],
  ['not tcp.flags.syn', 'tcp.flags.syn'],
  ['ip.src.asnum == 13335', 'ip.src.asnum'],
  ['ip.geoip.asnum == 13335', 'ip.src.asnum'],
  ['ip.geoip.country == "BR"', 'ip.src.country'],
  ['ip.geoip.country in {"BR" "US"}', 'ip.dst.country'],
];

/** Values of every JavaScript type, with the right type and close to the literals above. */
const hostile: unknown[] = [
  undefined, null, true, false, 0, 1, 80, 81, 79, 443, 1500, -1, 1.5, Number.NaN, Infinity, 2 ** 53 + 2, 13335,
  '', 'a', 'b', 'B', 'c', 'ab', 'bb', '5', '80', '80.0', '10.0.0.1', '10.0.0.2', '9.255.255.255', '::1', '2001:db8::1', '192.0.2.5', 'BR', 'US',
  [], ['b'], [80], ['10.0.0.1'], {}, { length: 1 }, 10n, Symbol('s'),
];

describe('the generated matcher agrees with the interpreter and the closures', () => {
  it('for every operator of every type of the network scheme, on values of every JavaScript type', () => {
    const lists = { 'svc.anonymizer': ['10.0.0.0/8', '2001:db8::/32'] };
    for (const [expr, field] of NETWORK) {
      const r = compileExpression(expr, { lists });
      expect(r.diagnostics.filter((d) => d.severity === 'error'), expr).toEqual([]);
      const gen = generated(r.checked!);
      const closures = compileExpression(expr, { lists, codegen: false }).matcher!;
      for (const v of hostile) {
        for (const packet of [{ [field]: v }, { [field]: v, 'ip.dst.country': 'US' }]) {
          const want = interpret(r.checked!, packet);
          const what = `${expr} on ${field} = ${typeof v === 'string' || typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
          expect(gen(packet), what).toBe(want);
          expect(closures(packet), what).toBe(want);
          expect(r.matcher!(packet), what).toBe(want);
        }
      }
    }
  });

  it('NaN is in no Int set, inline or large, by any evaluator', () => {
    for (const expr of ['tcp.dstport in {1000..2000}', `tcp.dstport in {${many(20, 1)} 0..65535}`]) {
      for (const codegen of [true, false]) expect(compileExpression(expr, { codegen }).matcher!({ 'tcp.dstport': Number.NaN }), expr).toBe(false);
      expect(interpret(compileExpression(expr).checked!, { 'tcp.dstport': Number.NaN }), expr).toBe(false);
    }
  });

  it('the raw header bytes read by bit_slice', () => {
    for (const expr of ['bit_slice(tcp, 0, 8) == 5', 'bit_slice(tcp, 4, 12) > 1', 'bit_slice(ip, 0, 4) == 4']) {
      const r = compileExpression(expr);
      expect(r.diagnostics.filter((d) => d.severity === 'error'), expr).toEqual([]);
      const gen = generated(r.checked!);
      for (const v of [...hostile, '\x05\x10', '\x45\x00', new Uint8Array([5, 16])]) {
        const packet = { tcp: v, ip: v };
        expect(gen(packet), `${expr} on ${String(v)}`).toBe(interpret(r.checked!, packet));
      }
    }
  });

  it('for functions, indexing and any()/all() of the Rules language', () => {
    const exprs = [
      'any(http.request.headers.names[*] == "a")',
      'all(http.request.headers.names[*] == "a")',
      'any(http.request.headers.names[*] != "a")',
      'any(http.request.headers.names[*] contains "a")',
      'any(http.request.headers.names[*] < "b")',
      'any(http.request.headers.names[*] >= "b")',
      'any(http.request.headers.names[*] in {"a" "b"})',
      'any(http.request.headers.names[*] matches "^a")',
      'any(not (http.request.headers.names[*] == "a"))',
      'any(http.request.headers.names[*] == "a" and http.request.headers.values[*] == "b")',
      'any(http.request.headers.names[*] == "a" or http.request.headers.values[*] == "b")',
      'any(http.request.headers.names[*] == "a" xor http.request.headers.values[*] == "b")',
      'any(starts_with(http.request.headers.names[*], "x"))',
      'any(len(http.request.headers.names[*])[*] > 1)',
      'any(len(http.request.headers.names[*])[*] in {1 3..5})',
      'any(lower(http.request.headers.names[*])[*] == "x-a")',
      'http.request.headers["a"][0] == "b"',
      'any(http.request.headers["a"][*] == "b")',
      'any(http.request.headers[*][*] == "b")',
      'any(http.request.headers[*][0] == "b")',
      'http.request.headers.names[1] == "b"',
      'lower(http.host) == "a"',
      'len(http.host) > 3',
      'len(http.host) < 3',
      'ends_with(http.host, ".com")',
    ];
    const record = fc.record(
      {
        'http.host': fc.oneof(fc.constantFrom('a', 'A', 'abcd', 'x.com', ''), fc.anything()),
        'http.request.headers.names': fc.oneof(fc.array(fc.constantFrom('a', 'b', 'x-a', 'X-A', 'xyz', '')), fc.anything()),
        'http.request.headers.values': fc.oneof(fc.array(fc.constantFrom('a', 'b', '')), fc.anything()),
        'http.request.headers': fc.oneof(fc.dictionary(fc.constantFrom('a', 'b'), fc.array(fc.constantFrom('a', 'b', ''))).map((d) => new Map(Object.entries(d))), fc.anything()),
      },
      { requiredKeys: [] },
    );
    const compiled = exprs.map((e) => {
      const r = compileExpression(e, { scheme: HTTP_SCHEME });
      expect(r.diagnostics.filter((d) => d.severity === 'error'), e).toEqual([]);
      return { e, r, gen: generated(r.checked!), closures: compileExpression(e, { scheme: HTTP_SCHEME, codegen: false }).matcher! };
    });
    fc.assert(
      fc.property(record, (rec) => {
        for (const { e, r, gen, closures } of compiled) {
          const want = interpret(r.checked!, rec as Packet);
          expect(gen(rec as Packet), e).toBe(want);
          expect(closures(rec as Packet), e).toBe(want);
        }
      }),
      { numRuns: 300 },
    );
  });
});
