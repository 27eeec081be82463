/** Integers beyond ±2^53 inside a set `{…}`: tested as the scalar comparisons are, exactly. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeRuleset, compileExpression, evaluateExpression, HTTP_SCHEME } from '../../src/index.js';
import { doubleBounds } from '../../src/expression/index.js';
import { expressionToSql } from '../../src/sql/index.js';

const opts = { scheme: HTTP_SCHEME };
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Interpreter and compiled matcher on one record; they must agree. */
function run(text: string, v: number): boolean {
  const c = compileExpression(text, opts);
  expect(c.diagnostics.filter((d) => d.severity === 'error'), text).toEqual([]);
  const record = { 'cf.threat_score': v };
  const a = evaluateExpression(c.checked!, record);
  expect(c.matcher!(record), text).toBe(a);
  return a;
}

// 64-bit integers, many near the doubles' gaps beyond 2^53, and doubles a record may hold near them.
const big = fc.oneof(fc.bigInt({ min: I64_MIN, max: I64_MAX }), fc.bigInt({ min: 2n ** 53n - 4n, max: 2n ** 53n + 64n }), fc.bigInt({ min: I64_MAX - 5000n, max: I64_MAX }), fc.constantFrom(I64_MIN, I64_MAX, 2n ** 62n, -(2n ** 60n) - 1n));
const near = (b: bigint) => [doubleBounds(b).atLeast, doubleBounds(b).atMost, Number(b), Number(b) * 2, 0, -1, 2 ** 53, 2 ** 53 + 2];

describe('integers beyond ±2^53 in a set', () => {
  it('are valid, where they were refused before', () => {
    for (const text of ['cf.threat_score in {9223372036854775807}', 'cf.threat_score in {0 9007199254740993 -9223372036854775808}', 'cf.threat_score in {1..9223372036854775807}', 'cf.threat_score in {0x7fffffffffffffff}']) {
      expect(compileExpression(text, opts).diagnostics, text).toEqual([]);
    }
    expect(compileExpression('cf.threat_score in {9223372036854775808}', opts).diagnostics.map((d) => d.code)).toEqual(['invalid-integer']);
    expect(compileExpression('cf.threat_score in {9223372036854775807..1}', opts).diagnostics.map((d) => d.code)).toEqual(['empty-range']);
  });

  it('v in {B} is v == B, and v in {A..B} is v >= A and v <= B, in the interpreter and the compiled matcher', () => {
    fc.assert(
      fc.property(big, big, fc.nat(15), fc.boolean(), (a, b, k, pick) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const v = [...near(a), ...near(b)][k]!;
        expect(run(`cf.threat_score in {${a}}`, v)).toBe(run(`cf.threat_score == ${a}`, v));
        expect(run(`cf.threat_score in {${lo}..${hi}}`, v)).toBe(run(`cf.threat_score >= ${lo} and cf.threat_score <= ${hi}`, v));
        const from = pick ? hi : lo;
        expect(run(`cf.threat_score in {${from}..${hi} 7}`, v)).toBe(run(`(cf.threat_score >= ${from} and cf.threat_score <= ${hi}) or cf.threat_score == 7`, v));
      }),
      { numRuns: 400 },
    );
  });

  it('doubleBounds gives the doubles on each side of an integer', () => {
    fc.assert(
      fc.property(big, (b) => {
        const { atLeast, atMost } = doubleBounds(b);
        expect(BigInt(atLeast) >= b && BigInt(atMost) <= b).toBe(true);
        if (atLeast !== atMost) expect(BigInt(atLeast) > b && BigInt(atMost) < b).toBe(true);
      }),
    );
    expect(doubleBounds(2n ** 53n + 1n)).toEqual({ atLeast: 2 ** 53 + 2, atMost: 2 ** 53 });
    expect(doubleBounds(-(2n ** 53n) - 1n)).toEqual({ atLeast: -(2 ** 53), atMost: -(2 ** 53) - 2 });
    expect(doubleBounds(I64_MAX)).toEqual({ atLeast: 2 ** 63, atMost: 2 ** 63 - 1024 });
  });

  it('SQL writes the set as written, in 64-bit integers (and the scalar comparison no longer throws)', () => {
    expect(expressionToSql('cf.threat_score in {9223372036854775807 1..9007199254740993}', opts).sql).toContain('IN (9223372036854775807)');
    expect(expressionToSql('cf.threat_score in {9223372036854775807 1..9007199254740993}', opts).sql).toContain('BETWEEN 1 AND 9007199254740993');
    expect(expressionToSql('cf.threat_score gt 9223372036854775806', opts).sql).toContain('9223372036854775806');
  });

  it('the analysis reads them as 64-bit integers inside each field\'s domain: no false "matches nothing", shadowing found', () => {
    const http = (rules: object[]) => analyzeRuleset({ phase: 'http_request_firewall_custom', rules });
    // No scalar Int field of the catalog reaches 2^53 (src/expression/field-domains.ts): a value beyond its
    // field's domain matches nothing, and the analysis says so rather than rounding it into the domain.
    expect(http([{ action: 'block', expression: 'cf.threat_score == 4611686018427387904' }]).diagnostics.map((d) => d.code)).toEqual(['rule-never-matches']);
    expect(http([{ action: 'block', expression: 'cf.threat_score in {100 9223372036854775807}' }]).diagnostics).toEqual([]);
    // At the top of a domain, one apart: exact.
    const a = http([{ action: 'block', expression: 'ip.src.asnum in {4294967000..4294967295}' }, { action: 'block', expression: 'ip.src.asnum in {4294967295}' }]);
    expect(a.diagnostics.map((d) => d.code)).toEqual(['rule-redundant']);
    const b = http([{ action: 'block', expression: 'ip.src.asnum in {4294967294}' }, { action: 'block', expression: 'ip.src.asnum in {4294967295}' }]);
    expect(b.diagnostics).toEqual([]);
  });
});
