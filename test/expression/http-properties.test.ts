import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileExpression, checkExpression, HTTP_SCHEME, HTTP_FIELDS } from '../../src/expression/index.js';

const RUNS = process.env.CI ? 20_000 : 3_000;

/** Strings made of pieces of the whole Rules language: fields, functions, indexing, strings, operators. */
const piece = fc.oneof(
  fc.constantFrom(...HTTP_FIELDS.map((f) => f.name)),
  fc.constantFrom('any(', 'all(', 'lower(', 'len(', 'concat(', 'bit_slice(', 'url_decode(', 'split(', 'cidr(', 'lookup_json_string(', 'regex_replace(', 'is_timed_hmac_valid_v0(', '9223372036854775807', '-1', '"a"', ')', '[', ']', '[*]', '[0]', '["x"]', ' ', ',', '"', '\\"', 'r#"', '"#', '{', '}', ' eq ', ' == ', ' and ', ' not ', ' in ', 'true', '$', ':', '.'),
  fc.string({ maxLength: 6 }),
);
const rulesText = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));

describe('HTTP scheme: laws of check and compile', () => {
  it('never throw; errors and matchers exclude each other; checking and compiling give the same diagnostics', () => {
    fc.assert(
      fc.property(fc.oneof(rulesText, fc.string({ maxLength: 60 })), (s) => {
        const c = compileExpression(s, { scheme: HTTP_SCHEME });
        expect(c.matcher === undefined).toBe(c.diagnostics.some((d) => d.severity === 'error'));
        const d = checkExpression(s, { scheme: HTTP_SCHEME }).diagnostics;
        expect(d).toEqual(c.diagnostics);
        // A matcher never throws either, whatever the record holds.
        c.matcher?.({ 'http.request.headers': new Map([['x', [1, null]]]), 'http.host': 5, 'http.request.headers.names': 'x' });
        for (const x of d) expect(x.range!.start <= x.range!.end && x.range!.end <= s.length).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
