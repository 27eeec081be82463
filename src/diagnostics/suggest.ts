/** "Did you mean" suggestions: the closest candidate by edit distance, case-insensitive first. @module */

/** Optimal string alignment distance (Damerau–Levenshtein with adjacent swaps), capped at `max`+1. */
export function editDistance(a: string, b: string, max = 8): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length > 256 || b.length > 256) return max + 1;
  const n = b.length;
  let prev2: number[] = new Array(n + 1).fill(0);
  let prev: number[] = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur: number[] = [i];
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[n]!;
}

/**
 * The candidate closest to `input`: an exact case-insensitive match wins; otherwise the smallest edit
 * distance within about a third of the length (at least 1, at most 4). Undefined when nothing is close.
 */
export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  if (typeof input !== 'string' || input.length === 0 || input.length > 256) return undefined;
  const lower = input.toLowerCase();
  let best: string | undefined;
  let bestD = Math.min(4, Math.max(1, Math.floor(input.length / 3)));
  for (const c of candidates) {
    if (c.toLowerCase() === lower) return c;
    const d = editDistance(lower, c.toLowerCase(), bestD);
    if (d <= bestD && (best === undefined || d < bestD)) {
      best = c;
      bestD = d;
    }
  }
  return best;
}
