/**
 * A property that returns early on some inputs (a precondition that does not hold, a parse that fails)
 * proves nothing on those runs. {@link reachCounter} counts the runs that got to the assertion, so the
 * test can fail when too few did: a generator that drifts until nearly every case is discarded turns the
 * property into a quiet pass otherwise.
 */
import { expect } from 'vitest';

export interface ReachCounter {
  /** Call once per run, before the early return. */
  tried(): void;
  /** Call once per run that reached the assertion. */
  reached(): void;
  /** Fail unless at least `minFraction` of the runs reached the assertion (say what the property is). */
  expectAtLeast(minFraction: number, what: string): void;
  readonly counts: { tried: number; reached: number };
}

export function reachCounter(): ReachCounter {
  const counts = { tried: 0, reached: 0 };
  return {
    counts,
    tried: () => void counts.tried++,
    reached: () => void counts.reached++,
    expectAtLeast(minFraction, what) {
      expect(counts.tried, `${what}: the property never ran`).toBeGreaterThan(0);
      const fraction = counts.reached / counts.tried;
      expect(fraction, `${what}: ${counts.reached} of ${counts.tried} runs reached the assertion`).toBeGreaterThanOrEqual(minFraction);
    },
  };
}
