/**
 * Hand-written IPv4 set baselines, as a competent engineer would write them without a library: the CIDRs
 * merged into sorted disjoint ranges held in two Uint32Arrays, then
 * - {@link RangesV4.has}: binary search over all the ranges;
 * - {@link BucketedRangesV4.has}: the same ranges plus a /16 bucket table (65,537 uint32 indexes, 256 KiB)
 *   that narrows the binary search to the ranges starting in the query's /16 (usually zero to a few).
 * The IP-set bench measures `IpSet` against both; the decide bench's hand-written decider uses the
 * bucketed one for its 10k-CIDR list, since that is the faster of the two.
 */

const maskV4 = (len: number) => (len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0);

/** Plain dotted-quad reader (digits and dots, octets ≤ 255); -1 otherwise. */
export function parseV4(s: string): number {
  let acc = 0;
  let octet = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      acc = acc * 256 + octet;
      octet = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      octet = octet * 10 + c - 48;
      if (octet > 255) return -1;
    } else return -1;
  }
  return dots === 3 ? acc * 256 + octet : -1;
}

/** IPv4 CIDRs (`a.b.c.d/len`) as sorted, merged, disjoint [start, end] ranges. */
export function mergedRanges(cidrs: readonly string[]): { starts: Uint32Array; ends: Uint32Array } {
  const pairs: [number, number][] = cidrs.map((c) => {
    const slash = c.indexOf('/');
    const len = slash < 0 ? 32 : Number(c.slice(slash + 1));
    const net = parseV4(slash < 0 ? c : c.slice(0, slash));
    const m = maskV4(len);
    return [(net & m) >>> 0, ((net & m) | ~m) >>> 0];
  });
  pairs.sort((a, b) => a[0] - b[0]);
  const s: number[] = [];
  const e: number[] = [];
  for (const [a, b] of pairs) {
    if (s.length > 0 && a <= e[e.length - 1]! + 1) e[e.length - 1] = Math.max(e[e.length - 1]!, b);
    else {
      s.push(a);
      e.push(b);
    }
  }
  return { starts: Uint32Array.from(s), ends: Uint32Array.from(e) };
}

/** Merged ranges + binary search over all of them. */
export class RangesV4 {
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;

  constructor(cidrs: readonly string[]) {
    ({ starts: this.starts, ends: this.ends } = mergedRanges(cidrs));
  }

  has(x: number): boolean {
    const lo = upperBound(this.starts, x, 0, this.starts.length);
    return lo > 0 && this.ends[lo - 1]! >= x;
  }

  hasText(ip: string): boolean {
    const x = parseV4(ip);
    return x >= 0 && this.has(x);
  }
}

/** One past the last index in `[lo, hi)` whose start is at or below `x` (a binary search). */
function upperBound(starts: Uint32Array, x: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Merged ranges + a /16 bucket table: `first[b]` is the number of ranges starting below `b << 16`, so the
 * ranges starting in bucket `b` are `[first[b], first[b + 1])`, and the only other candidate is the one
 * just before them (a range that started earlier and may reach into the bucket).
 */
export class BucketedRangesV4 {
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  readonly first = new Uint32Array(65537);

  constructor(cidrs: readonly string[]) {
    ({ starts: this.starts, ends: this.ends } = mergedRanges(cidrs));
    let r = 0;
    for (let b = 0; b < 65536; b++) {
      const base = b * 65536;
      while (r < this.starts.length && this.starts[r]! < base) r++;
      this.first[b] = r;
    }
    this.first[65536] = this.starts.length;
  }

  has(x: number): boolean {
    const b = x >>> 16;
    const lo = upperBound(this.starts, x, this.first[b]!, this.first[b + 1]!);
    // `lo` is now one past the last range starting at or below x (possibly the one before the bucket).
    return lo > 0 && this.ends[lo - 1]! >= x;
  }

  hasText(ip: string): boolean {
    const x = parseV4(ip);
    return x >= 0 && this.has(x);
  }
}
