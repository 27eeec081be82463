/**
 * Laws of the whole Rules language over generated expressions with functions, `[ ]` / `[*]` indexing and
 * any()/all(), evaluated on generated request records shaped as the contract with src/http/ says (Maps
 * for Map fields, arrays for Array fields; sometimes values of the wrong JS type, which are missing):
 * the interpreter, the generated matcher and the closure matcher agree; the printed expression parses
 * back to the same tree; both parsers build the same tree.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileExpression, HTTP_SCHEME, interpret, parseExpression, print, shape } from '../../src/expression/index.js';

const RUNS = process.env.CI ? 5_000 : 800;

const word = fc.constantFrom('a', 'A', 'host', 'x-Y', '%41', 'a+b', '', 'é', '/p', 'json');
/** Literals: words, and raw bytes written as escapes (a character cut in two, bytes of no character). */
const lit = fc.oneof(word.map((w) => JSON.stringify(w)), fc.constantFrom('"\\xc3"', '"\\xa9"', '"\\xc3\\xa9"', '"\\x80\\xff"'));
const key = fc.constantFrom('"host"', '"x"', '"a"', '"__proto__"');
const idx = fc.constantFrom('0', '1', '5');

const { str } = fc.letrec<{ str: string }>((tie) => ({
  str: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('http.host', 'http.request.uri.path', 'http.request.body.raw'),
    fc.tuple(key, idx).map(([k, i]) => `http.request.headers[${k}][${i}]`),
    fc.tuple(key).map(([k]) => `http.request.uri.args[${k}][0]`),
    idx.map((i) => `http.request.headers.names[${i}]`),
    tie('str').map((s) => `lower(${s})`),
    tie('str').map((s) => `upper(${s})`),
    fc.tuple(tie('str'), lit).map(([s, l]) => `concat(${s}, ${l})`),
    fc.constantFrom('url_decode(http.request.uri.path)', 'url_decode(http.host, "r")', 'decode_base64(http.host)'),
    fc.tuple(tie('str'), fc.integer({ min: -3, max: 3 })).map(([s, n]) => `substring(${s}, ${n})`),
    tie('str').map((s) => `remove_bytes(${s}, "a")`),
    fc.constantFrom('lookup_json_string(http.request.body.raw, "a")', 'lookup_json_string(http.request.body.raw, "a", 0)'),
    fc.tuple(tie('str'), idx).map(([s, i]) => `split(${s}, "/", 3)[${i}]`),
    fc.tuple(tie('str'), fc.constantFrom('', ', "u"', ', "p"', ', "up"')).map(([s, f]) => `encode_base64(${s}${f})`),
    tie('str').map((s) => `encode_base64(sha256(${s}), "u")`),
    tie('str').map((s) => `sha256(${s})`),
    fc.tuple(tie('str'), fc.integer({ min: -33, max: 33 }), fc.integer({ min: -33, max: 33 })).map(([s, a, b]) => `substring(sha256(${s}), ${a}, ${b})`),
    fc.tuple(tie('str'), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })).map(([s, a, b]) => `concat(substring(${s}, 0, ${a}), substring(${s}, ${b}))`),
  ),
}));
const int = fc.oneof(
  str.map((s) => `len(${s})`),
  fc.constantFrom('cf.threat_score', 'len(http.request.headers.names)', 'lookup_json_integer(http.request.body.raw, "n")'),
);
/** An unpacked value and a comparison on its items. */
const items = fc.oneof(
  fc.constantFrom('http.request.headers.names[*]', 'http.request.headers["x"][*]', 'http.request.uri.args.values[*]'),
  fc.constantFrom('lower(http.request.headers.names[*])[*]', 'url_decode(http.request.uri.args.values[*])[*]', 'http.request.headers[*][0]'),
);
const itemTest = fc.oneof(
  fc.tuple(items, lit).map(([v, l]) => `${v} == ${l}`),
  fc.tuple(items, lit).map(([v, l]) => `${v} contains ${l}`),
  fc.tuple(items, lit, lit).map(([v, a, b]) => `${v} in {${a} ${b}}`),
);
const vector: fc.Arbitrary<string> = fc.oneof(
  itemTest,
  fc.tuple(itemTest, itemTest).map(([a, b]) => `${a} and not ${b}`),
  fc.tuple(itemTest, itemTest).map(([a, b]) => `(${a} or ${b})`),
);
const atom = fc.oneof(
  fc.tuple(str, lit).map(([s, l]) => `${s} == ${l}`),
  fc.tuple(str, lit).map(([s, l]) => `${s} contains ${l}`),
  fc.tuple(str, lit, lit).map(([s, a, b]) => `${s} in {${a} ${b}}`),
  fc.tuple(str, lit).map(([s, l]) => `${s} wildcard ${l}`),
  fc.tuple(str, fc.constantFrom('<', '>=', 'gt', 'le'), lit).map(([s, op, l]) => `${s} ${op} ${l}`),
  fc.tuple(int, fc.constantFrom('==', '>', '<=', '!='), fc.constantFrom('0', '3', '9223372036854775807', '-9223372036854775808')).map(([i, op, n]) => `${i} ${op} ${n}`),
  fc.tuple(fc.constantFrom('starts_with', 'ends_with'), fc.constantFrom('http.host', 'http.request.uri.path'), lit).map(([f, s, l]) => `${f}(${s}, ${l})`),
  fc.tuple(fc.constantFrom('any', 'all'), vector).map(([q, v]) => `${q}(${v})`),
  fc.constantFrom('ssl', 'cidr(ip.src, 24, 64) == 192.0.2.0', 'cidr6(ip.src, 32) == 2001:db8::'),
);
const expression = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small' },
    atom,
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `${a} and ${b}`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `(${a} or ${b})`),
    tie('e').map((a) => `not ${a}`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `(${a} xor ${b})`),
  ),
})).e;

const strings = fc.array(word, { maxLength: 3 });
const record = fc.record(
  {
    'http.host': fc.oneof(word, fc.constant(5 as unknown)),
    'http.request.uri.path': word,
    'http.request.body.raw': fc.oneof(word, fc.constantFrom('{"a":"host","n":3}', '{"a":["x"]}', '[1', '{"n":1.5}')),
    'http.request.headers': fc.oneof(
      fc.array(fc.tuple(fc.constantFrom('host', 'x', 'a', '__proto__'), strings), { maxLength: 3 }).map((e) => new Map(e) as unknown),
      fc.constant({ host: ['a'] } as unknown),
    ),
    'http.request.headers.names': fc.oneof(strings, fc.constant([1, 'a'] as unknown)),
    'http.request.uri.args': fc.array(fc.tuple(fc.constantFrom('host', 'x', 'a'), strings), { maxLength: 2 }).map((e) => new Map(e)),
    'http.request.uri.args.values': strings,
    'cf.threat_score': fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(2 ** 63)),
    ssl: fc.boolean(),
    'ip.src': fc.constantFrom('192.0.2.7', '2001:db8::1', 'nonsense'),
  },
  { requiredKeys: [] },
);

describe('the Rules language: functions and indexing', () => {
  it('generated expressions check without errors', () => {
    fc.assert(
      fc.property(expression, (e) => {
        const r = compileExpression(e, { scheme: HTTP_SCHEME });
        expect(r.diagnostics.filter((d) => d.severity === 'error'), e).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it('interpreter = generated matcher = closures, on records of every shape', () => {
    fc.assert(
      fc.property(expression, fc.array(record, { minLength: 1, maxLength: 4 }), (e, recs) => {
        const r = compileExpression(e, { scheme: HTTP_SCHEME });
        const closures = compileExpression(e, { scheme: HTTP_SCHEME, codegen: false }).matcher!;
        for (const rec of recs) {
          const want = interpret(r.checked!, rec);
          expect(r.matcher!(rec), e).toBe(want);
          expect(closures(rec), e).toBe(want);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('printed then parsed gives the same tree; both parsers build the same tree', () => {
    fc.assert(
      fc.property(expression, (e) => {
        const fast = parseExpression(e).ast!;
        const slow = parseExpression(e, { parser: 'chevrotain' }).ast!;
        expect(shape(fast)).toEqual(shape(slow));
        expect(shape(parseExpression(print(fast)).ast)).toEqual(shape(fast));
      }),
      { numRuns: RUNS },
    );
  });
});
