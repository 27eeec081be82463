/**
 * Answer slabs hand out regions holding the UTF-8 bytes of an answer's pieces, reuse a region's memory only
 * after it is given back, and say when they have no room (the answer then goes another way).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerSlabs, type Region } from '../../src/server/answer-slabs.js';

const piece = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '\u2028', '\ud800', '\udc00\ud800', '😀', 'é'));

describe('AnswerSlabs', () => {
  it('holds the bytes of Buffer.from(pieces joined), and no region is written over before it is given back', () => {
    // Small slabs, so that slabs fill, start over and are reused many times in a run.
    fc.assert(fc.property(fc.array(fc.tuple(fc.array(piece, { maxLength: 4 }), fc.nat(5)), { maxLength: 60 }), (steps) => {
      const slabs = new AnswerSlabs(1024, 3);
      const out: { region: Region; expected: Buffer }[] = [];
      for (const [pieces, releases] of steps) {
        const region = slabs.encode(pieces);
        const expected = Buffer.from(pieces.join(''));
        if (region) {
          expect(region.bytes.equals(expected)).toBe(true);
          out.push({ region, expected });
        } else {
          // No region only when the pieces could need more than a quarter of a slab, every slab holds
          // regions, or a surrogate pair is split between two pieces.
          const most = 3 * pieces.reduce((n, p) => n + p.length, 0);
          const split = pieces.some((p, i) => i > 0 && /[\ud800-\udbff]$/.test(pieces.slice(0, i).join('')) && /^[\udc00-\udfff]/.test(p));
          expect(most > 256 || out.length > 0 || split).toBe(true);
        }
        // Every region still out holds its bytes; some are given back (not in the order they were made).
        for (const o of out) expect(o.region.bytes.equals(o.expected)).toBe(true);
        for (let k = 0; k < releases && out.length; k++) out.splice((k * 7) % out.length, 1)[0]!.region.release();
      }
    }), { numRuns: 300 });
  });

  it('reuses a slab once its regions are given back, and says no room while all are held', () => {
    const slabs = new AnswerSlabs(1000, 2);
    const held: Region[][] = [[], []];
    // Fill both slabs with regions of 80 bytes (each could need 240: a slab takes them while 240 fit).
    let slab = 0;
    for (;;) {
      const r = slabs.encode(['x'.repeat(80)]);
      if (!r) break;
      if (held[slab]!.length && r.bytes.buffer !== held[slab]![0]!.bytes.buffer) slab++;
      held[slab]!.push(r);
    }
    expect(held.map((h) => h.length)).toEqual([10, 10]);
    expect(held[0]![0]!.bytes.buffer).not.toBe(held[1]![0]!.bytes.buffer);
    // Regions of the first slab given back, one of them twice (the second call does nothing): still no
    // room until the last of them is back.
    for (const r of held[0]!.slice(1)) r.release();
    held[0]![1]!.release();
    expect(slabs.encode(['z'.repeat(80)])).toBeUndefined();
    held[0]![0]!.release();
    const c = slabs.encode(['z'.repeat(80)])!;
    expect(c.bytes.buffer).toBe(held[0]![0]!.bytes.buffer);
    expect(c.bytes.toString()).toBe('z'.repeat(80));
    for (const r of held[1]!) expect(r.bytes.toString()).toBe('x'.repeat(80));
    // Pieces that could need more than a quarter of a slab are never put in one.
    expect(new AnswerSlabs(1200, 2).encode(['w'.repeat(101)])).toBeUndefined();
    // Nor pieces that split a surrogate pair.
    expect(new AnswerSlabs().encode(['a\ud83d', '\ude00b'])).toBeUndefined();
    expect(new AnswerSlabs().encode(['a\ud83d\ude00', 'b'])!.bytes.toString()).toBe('a😀b');
  });
});
