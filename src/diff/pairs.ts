/**
 * Which pairs of deciders (an old one, a new one) may decide a packet differently, and the cubes each
 * pair decides: what both match, minus what either side decides before them.
 *
 * Most pairs are told empty without a cube difference. A rule the change leaves alone has the same cubes
 * array on both sides (deciders.ts reads each text once), so:
 * - the deciding rules both sides start with alike decide alike: the pairs start after them;
 * - when the new side decides a's own cubes before b (or the old side b's before a), nothing is left for
 *   the pair.
 *
 * The others are computed by sweeps rather than one by one: a decider's territory (its cubes minus its
 * side's earlier rules) is carried through the other side's rules in order, each taking its part (the
 * pair's cubes) and leaving the rest to the next — one difference per rule of the other side instead of
 * all its earlier rules again for every pair. A rule of the other side that the swept decider's own
 * side has before it (the same cubes) is skipped: the territory holds none of it. The deciders swept are chosen greedily, the one with the
 * most pairs left first: an edit is swept once against the whole other side. On the bench's pair of
 * 200-rule rulesets (bench/diff.ts: 203 pairs left after the pruning above, 119 not empty) the sweeps
 * took the whole diff from about 375 ms to 200 ms (best of 15, before the other speed-ups of the text
 * and the merging); the pairs now take about 22 ms of its 70.
 * @module
 */
import { coalesce, firstOutside, mayOverlap, product, subtractAll, TooComplex, type Cube } from '../analysis/index.js';
import type { Deciders } from './deciders.js';
import type { Decision } from './types.js';

/** One decider of a side: a deciding rule, or the default; the cubes it matches. */
export interface Decider {
  decision: Decision;
  cubes: readonly Cube[];
  /** Its place among its side's deciders. */
  position: number;
}

/** A side's deciders in order, the default last, and where each set of cubes first decides. */
export interface Side {
  deciders: Decider[];
  /** The position of the first decider with these cubes (the same array: the same rule text). */
  firstAt: Map<readonly Cube[], number>;
}

/** A pair of deciders whose outcome differs: the verdict, or only the rule. */
export interface Pair {
  a: Decider;
  b: Decider;
  change: 'verdict' | 'rule';
}

/** The default's cubes, one array for both sides. */
const EVERYTHING: Cube[] = [new Map()];

/** A side's deciders in order, the default last (it decides what no deciding rule matches). */
export function sideOf(side: Deciders): Side {
  const deciders: Decider[] = side.rules.map((r, position) => ({ decision: { verdict: r.verdict, rule: r.ref }, cubes: r.cubes, position }));
  deciders.push({ decision: { verdict: 'allow' }, cubes: EVERYTHING, position: deciders.length });
  const firstAt = new Map<readonly Cube[], number>();
  for (const d of deciders) if (!firstAt.has(d.cubes)) firstAt.set(d.cubes, d.position);
  return { deciders, firstAt };
}

/** Some decider of the side before `position` has exactly these cubes (so they are decided before it). */
function decidesBefore(side: Side, cubes: readonly Cube[], position: number): boolean {
  return (side.firstAt.get(cubes) ?? Infinity) < position;
}

/**
 * The pairs of deciders that may hold a change, old order then new order. `changeOf` says whether a
 * pair's outcome differs. Every pair left out decides no packet, or decides it alike.
 */
export function candidatePairs(old: Side, neu: Side, sameRule: ReadonlyMap<number, number>): Pair[] {
  const shared = sharedPrefix(old, neu, sameRule);
  const pairs: Pair[] = [];
  for (const a of old.deciders.slice(shared)) {
    for (const b of neu.deciders.slice(shared)) {
      const ruleChanged = a.decision.rule !== undefined ? sameRule.get(a.decision.rule.index) !== b.decision.rule?.index : b.decision.rule !== undefined;
      const change = a.decision.verdict !== b.decision.verdict ? 'verdict' : ruleChanged ? 'rule' : undefined;
      if (!change) continue;
      // What a decides, the new side's rules before b already match when one of them is a's rule itself
      // (the same cubes): nothing is left for b; and the other way round.
      if (decidesBefore(neu, a.cubes, b.position) || decidesBefore(old, b.cubes, a.position)) continue;
      if (!a.cubes.some((x) => b.cubes.some((y) => mayOverlap(x, y)))) continue;
      pairs.push({ a, b, change });
    }
  }
  return pairs;
}

/**
 * How many deciding rules both sides start with alike: the same cubes, the same verdict, the same rule
 * by identity.ts. Every packet one of them matches is decided alike on both sides, so no pair with one
 * of them holds a change.
 */
function sharedPrefix(old: Side, neu: Side, sameRule: ReadonlyMap<number, number>): number {
  let k = 0;
  // The defaults (last) are never counted: they have no rule.
  while (k < old.deciders.length - 1 && k < neu.deciders.length - 1) {
    const [a, b] = [old.deciders[k]!, neu.deciders[k]!];
    if (a.cubes !== b.cubes || a.decision.verdict !== b.decision.verdict || sameRule.get(a.decision.rule!.index) !== b.decision.rule!.index) break;
    k++;
  }
  return k;
}

/**
 * The cubes each pair decides, merged where they are alike on all fields but one; undefined for a pair
 * too large to split (past the analysis's bounds on cubes and steps).
 */
export function pairCubes(pairs: readonly Pair[], old: Side, neu: Side): Map<Pair, Cube[] | undefined> {
  const out = new Map<Pair, Cube[] | undefined>();
  // The pairs not computed yet, by each of their deciders.
  const open = new Map<Decider, Map<Decider, Pair>>();
  const add = (d: Decider, other: Decider, p: Pair) => {
    let m = open.get(d);
    if (!m) open.set(d, (m = new Map()));
    m.set(other, p);
  };
  for (const p of pairs) {
    add(p.a, p.b, p);
    add(p.b, p.a, p);
  }
  const close = (p: Pair, cubes: Cube[] | undefined) => {
    out.set(p, cubes);
    open.get(p.a)!.delete(p.b);
    open.get(p.b)!.delete(p.a);
  };
  const oldDeciders = new Set(old.deciders);
  for (;;) {
    let best: Decider | undefined;
    let most = 0;
    // Never a default: its territory is everything no rule matches, the costliest to cut; each of its
    // pairs has a rule on the other side to sweep instead.
    for (const [d, m] of open) if (m.size > most && d.decision.rule) [best, most] = [d, m.size];
    if (!best) break;
    const [mine, other] = oldDeciders.has(best) ? [old, neu] : [neu, old];
    const pending = open.get(best)!;
    try {
      sweep(best, mine, other, pending, close);
    } catch (e) {
      if (!(e instanceof TooComplex)) throw e;
      // Too large to sweep: the pairs left are computed one by one (some may still be split).
      for (const p of [...pending.values()]) close(p, pairPieces(p.a, p.b, old, neu));
    }
  }
  return out;
}

/**
 * Carry `d`'s territory on its side through the other side's deciders in order: each pending pair
 * with one of them gets the part of the territory it matches; the rest goes on. Pending pairs the sweep
 * does not reach (the territory is used up) decide nothing.
 */
function sweep(d: Decider, mine: Side, other: Side, pending: Map<Decider, Pair>, close: (p: Pair, cubes: Cube[]) => void): void {
  let rest = subtract(d.cubes, earlierOf(mine, d.position));
  for (const e of other.deciders) {
    if (!pending.size || !rest.length) break;
    // A rule d's side decides before d: the territory holds none of it.
    if (decidesBefore(mine, e.cubes, d.position)) continue;
    const p = pending.get(e);
    // The old decider's cubes first: a region names the old rule's fields before the new one's.
    if (p) close(p, coalesce((d === p.a ? product(rest, e.cubes) : product(e.cubes, rest)).filter(holdsAtoms)));
    const before = rest.length;
    rest = subtract(rest, e.cubes);
    // Merged as it is cut, the territory stays a few cubes for the rules after (the bench's diff: 25% less time).
    if (rest.length > before) rest = coalesce(rest);
  }
  for (const p of [...pending.values()]) close(p, []);
}

/** The cubes of a side's deciders before `position`. */
function earlierOf(side: Side, position: number): Cube[] {
  return side.deciders.slice(0, position).flatMap((d) => d.cubes);
}

/** `xs` minus the union of `ys`, taking only the `ys` that may share packets with some `xs`. */
function subtract(xs: readonly Cube[], ys: readonly Cube[]): Cube[] {
  const cutting = ys.filter((y) => xs.some((x) => mayOverlap(x, y)));
  return cutting.length ? subtractAll(xs, cutting).filter(holdsAtoms) : [...xs];
}

/** One pair on its own: what both match, minus both sides' earlier rules; undefined when too large. */
function pairPieces(a: Decider, b: Decider, old: Side, neu: Side): Cube[] | undefined {
  try {
    const both = product(a.cubes, b.cubes);
    const earlier = [...earlierOf(old, a.position), ...earlierOf(neu, b.position)].filter((y) => both.some((x) => mayOverlap(x, y)));
    // A depth-first search tells an empty pair where the whole difference could grow past the bound.
    if (!firstOutside(both, earlier)) return [];
    return coalesce(subtract(both, earlier));
  } catch (e) {
    if (e instanceof TooComplex) return undefined;
    throw e;
  }
}

/** An opaque part is true or false, never missing: a cube that leaves it neither holds nothing. */
function holdsAtoms(c: Cube): boolean {
  for (const [k, d] of c) if (k.startsWith('#') && d.kind === 'ordered' && !d.values.length) return false;
  return true;
}
