/**
 * ReadWaves (the PostgreSQL store's reads of a ruleset): every reader is answered by a read that started
 * after it asked, and readers queued behind one read share the next.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReadWaves } from '../../src/server/store/waves.js';

/** Reads whose ends the test decides: each read answers the number of writes made before it started. */
function harness() {
  let writes = 0;
  const started: { at: number; end: (fail?: boolean) => void }[] = [];
  const read = () => new Promise<number>((resolve, reject) => {
    const at = writes;
    started.push({ at, end: (fail) => (fail ? reject(new Error(`read ${started.length} failed`)) : resolve(at)) });
  });
  return { started, read, write: () => writes++, writes: () => writes };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('read waves', () => {
  it('a reader that arrives while a read is in flight waits for the next one, which answers all that queued', async () => {
    const h = harness();
    const waves = new ReadWaves<number>();
    const first = waves.read('k', h.read);
    expect(h.started).toHaveLength(1);
    h.write();
    const second = waves.read('k', h.read);
    const third = waves.read('k', h.read);
    // Another key is not held up.
    const other = waves.read('other', h.read);
    expect(h.started).toHaveLength(2);
    h.started[0]!.end();
    expect(await first).toBe(0);
    await tick();
    expect(h.started).toHaveLength(3);
    h.started[2]!.end();
    expect(await second).toBe(1);
    expect(await third).toBe(1);
    h.started[1]!.end();
    expect(await other).toBe(1);
    await tick();
    expect(h.started).toHaveLength(3);
  });

  it('a failed read fails its wave only', async () => {
    const h = harness();
    const waves = new ReadWaves<number>();
    const first = waves.read('k', h.read);
    const second = waves.read('k', h.read);
    h.started[0]!.end(true);
    await expect(first).rejects.toThrow(/read 1 failed/);
    await tick();
    h.started[1]!.end();
    expect(await second).toBe(0);
  });

  it('whatever the order of arrivals, writes and read ends: each reader sees every write made before it asked, in one read per wave', async () => {
    const step = fc.constantFrom('read', 'write', 'end');
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
      const h = harness();
      const waves = new ReadWaves<number>();
      const readers: { before: number; answer: Promise<number> }[] = [];
      let ended = 0;
      for (const s of steps) {
        if (s === 'read') readers.push({ before: h.writes(), answer: waves.read('k', h.read) });
        else if (s === 'write') h.write();
        else if (ended < h.started.length) h.started[ended++]!.end();
        await tick();
      }
      // The reads still in flight end, and those they queued start and end after them.
      while (ended < h.started.length) {
        h.started[ended++]!.end();
        await tick();
      }
      for (const r of readers) expect(await r.answer).toBeGreaterThanOrEqual(r.before);
      // At most one read per wave: never more reads than readers, and one in flight at a time.
      expect(h.started.length).toBeLessThanOrEqual(readers.length);
    }), { numRuns: 300 });
  });
});
