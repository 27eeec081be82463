/**
 * NDJSON is decoded 64 KiB at a time (src/simulation/run.ts `ndjsonLines`): however the input arrives —
 * whole, in chunks larger or smaller than a slice, cut inside a multi-byte character or inside a line —
 * every line is read whole, with its number, and decided as when the file is read in one piece.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simulation, type PacketResult, type SimulationReport } from '../../src/simulation/index.js';

const RULESET = JSON.stringify({
  phase: 'http_request_firewall_custom',
  rules: [
    { action: 'block', expression: 'http.user_agent contains "é🙂"', description: 'odd agents' },
    { action: 'log', expression: 'http.request.uri.path eq "/x"', description: 'x' },
  ],
});

async function all(source: Iterable<Uint8Array>): Promise<{ results: PacketResult[]; report: SimulationReport }> {
  const it = simulation(RULESET, source, {}, true);
  const results: PacketResult[] = [];
  for (;;) {
    const next = await it.next();
    if (next.done) return { results, report: next.value };
    results.push(next.value);
  }
}

/** A Logpush line with a long multi-byte User-Agent (lines cross the 64 KiB slices), or a broken line. */
const lineArb = fc.oneof(
  { weight: 9, arbitrary: fc.record({ pad: fc.integer({ min: 500, max: 4000 }), odd: fc.boolean(), x: fc.boolean() }).map(({ pad, odd, x }) => JSON.stringify({ ClientRequestHost: 'a.example', ClientRequestMethod: 'GET', ClientRequestURI: x ? '/x' : '/y', ClientRequestUserAgent: 'ü'.repeat(pad) + (odd ? 'é🙂' : 'e') })) },
  { weight: 1, arbitrary: fc.constant('{"ClientRequestHost": broken') },
);

describe('NDJSON read in slices', () => {
  it('decides every line as the whole file does, however the bytes are cut', async () => {
    let crossed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { minLength: 12, maxLength: 60, size: "max" }), fc.array(fc.integer({ min: 1, max: 200_000 }), { minLength: 1, maxLength: 8 }), async (lines, cuts) => {
        const bytes = new TextEncoder().encode(lines.join('\n') + '\n');
        if (bytes.length > 64 << 10) crossed++;
        const whole = await all([bytes]);
        const chunks: Uint8Array[] = [];
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const n = cuts[i % cuts.length]!;
          chunks.push(bytes.subarray(at, at + n));
          at += n;
        }
        const cut = await all(chunks);
        expect(cut.results).toEqual(whole.results);
        expect(cut.report.diagnostics).toEqual(whole.report.diagnostics);
        expect(whole.results.length).toBe(lines.filter((l) => !l.includes('broken')).length);
        // The broken lines are named by their own line numbers.
        const broken = lines.flatMap((l, i) => (l.includes('broken') ? [i + 1] : []));
        expect(whole.report.diagnostics.filter((d) => d.code === 'http-invalid-request').map((d) => d.data?.['line'])).toEqual(broken);
        expect(whole.results.filter((r) => r.verdict === 'block').length).toBe(lines.filter((l) => l.includes('é🙂')).length);
      }),
      { numRuns: 40 },
    );
    expect(crossed).toBeGreaterThan(5);
  });
});
