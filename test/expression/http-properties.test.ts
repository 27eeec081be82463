import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileExpression, checkExpression, HTTP_SCHEME, HTTP_FIELDS } from '../../src/expression/index.js';

const RUNS = process.env.CI ? 20_000 : 3_000;

/** Strings made of pieces of the whole Rules language: fields, functions, indexing, strings, operators. */
const piece = fc.oneof(
  fc.constantFrom(...HTTP_FIELDS.map((f) => f.name)),
  fc.constantFrom('any(', 'all(', 'lower(', 'len(', 'concat(', 'bit_slice(', ')', '[', ']', '[*]', '[0]', '["x"]', ' ', ',', '"', '\\"', 'r#"', '"#', '{', '}', ' eq ', ' == ', ' and ', ' not ', ' in ', 'true', '$', ':', '.'),
  fc.string({ maxLength: 6 }),
);
const rulesText = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));

describe('HTTP scheme: laws of check and compile', () => {
  it('never throw; errors and matchers exclude each other; an unsupported construct is info when checked', () => {
    fc.assert(
      fc.property(fc.oneof(rulesText, fc.string({ maxLength: 60 })), (s) => {
        const c = compileExpression(s, { scheme: HTTP_SCHEME });
        expect(c.matcher === undefined).toBe(c.diagnostics.some((d) => d.severity === 'error'));
        const d = checkExpression(s, { scheme: HTTP_SCHEME }).diagnostics;
        for (const x of d) if (x.code === 'unsupported-construct') expect(x.severity).toBe('info');
        // Checking and compiling agree on everything but the severity of the construct.
        expect(d.map((x) => x.code)).toEqual(c.diagnostics.map((x) => x.code));
        for (const x of d) expect(x.range!.start <= x.range!.end && x.range!.end <= s.length).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
