/**
 * The semantic diff of two rulesets: the exact sets of packets (or requests) whose verdict or deciding
 * rule changes.
 *
 * On each side a packet is decided by the first deciding rule it matches, or by nobody (allowed): rule i
 * decides `match_i ∧ ¬match_j` for every earlier deciding rule j, the default decides what no deciding
 * rule matches. A region is what decider a of the old side and decider b of the new side both decide,
 * for each pair whose outcome differs (the verdict, or the rule: identity.ts tells which new rule is
 * which old one), split into cubes (src/analysis/formula.ts): each cube is a conjunction of field
 * conditions, and the cubes of all pairs hold every packet the two sides decide differently.
 *
 * A cube that assumes an opaque part (a regex, a function, a list not given, a rate) may hold no real
 * packet, or only some: it is reported as `unknown`, with what it assumes. A cube without one holds only
 * packets that change: its witness is run through the simulator on both sides and reported `exact` only
 * when both decide it as the pair says. A pair too large to split is one `unknown` region naming its
 * two rules. Nothing that may change is ever left out.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { rulesetShapeProblems } from '../ruleset/index.js';
import { coalesce, firstOutside, mayOverlap, product, subtractAll, TooComplex, witnessOf, type Cube } from '../analysis/index.js';
import type { CompiledRuleset } from '../engine/index.js';
import { compileDeciders, decidersOf, listCatalog, type Deciders, type DiffOptions, type RuleCubeCache } from './deciders.js';
import { matchRules, ruleRefsOf } from './identity.js';
import { describeCube, type FieldTypes } from './cube-text.js';
import { cubeContains } from './cube-contains.js';
import { diffDiagnostic } from './codes.js';
import type { Decision, DiffRegion, RulesetDiff } from './types.js';

/** One decider of a side: a deciding rule, or the default; the cubes it matches and those decided before it. */
interface Decider {
  decision: Decision;
  cubes: readonly Cube[];
  /** Its place among its side's deciders. */
  position: number;
}

/**
 * The cube of each region and the types of its fields, for attributing packets to regions (the regions
 * themselves are plain data); a null cube: a pair too large to split.
 */
const regionCubes = new WeakMap<DiffRegion, { cube: Cube | null; types: FieldTypes }>();

/**
 * Whether a packet lies in a region as far as its fields tell: inside its conjunction (the opaque parts
 * it assumes are not looked at), or anywhere for a pair too large to split. False for a region this
 * module did not make.
 */
export function regionContains(region: DiffRegion, packet: Readonly<Record<string, unknown>>): boolean {
  const held = regionCubes.get(region);
  if (!held) return false;
  return held.cube === null || cubeContains(held.cube, packet, held.types);
}

/** `allow`, `block by rule 3 "web"`: a decision in a region's text. */
export function decisionText(d: Decision): string {
  if (!d.rule) return d.verdict;
  const name = d.rule.ref ?? d.rule.description ?? d.rule.id;
  return `${d.verdict} by rule ${d.rule.index}${name !== undefined ? ` ${JSON.stringify(name)}` : ''}`;
}

/**
 * The regions of packets the two rulesets decide differently. Bodies are `{rules, phase?}` (a create or
 * PUT body; other members ignored). Never throws.
 *
 * ```ts
 * diffRulesets(
 *   { rules: [{ action: 'block', expression: 'tcp.dstport in {22 80}' }] },
 *   { rules: [{ action: 'block', expression: 'tcp.dstport in {22 80 443}' }] },
 * ).regions[0].text; // 'tcp.dstport 443: allow → block by rule 0'
 * ```
 */
export function diffRulesets(oldRuleset: { rules?: unknown; phase?: unknown }, newRuleset: { rules?: unknown; phase?: unknown }, options: DiffOptions = {}): RulesetDiff {
  const shape = [...sideProblems('old', oldRuleset), ...sideProblems('new', newRuleset)];
  if (shape.length) return { unit: 'packet', regions: [], matches: [], diagnostics: shape };
  const lists = listCatalog(options);
  // One cache for both sides: a rule the change leaves alone has the same cubes array on both.
  const cache: RuleCubeCache = new Map();
  const olds = decidersOf(oldRuleset, options, lists, cache);
  const news = decidersOf(newRuleset, options, lists, cache);
  const unit = olds.http ? 'request' : 'packet';
  const diagnostics: Diagnostic[] = [...leftOutDiagnostics('old', olds), ...leftOutDiagnostics('new', news)];
  const matches = [...matchRules(ruleRefsOf(oldRuleset), ruleRefsOf(newRuleset))].map(([o, n]) => ({ old: o, new: n }));
  if (olds.http !== news.http) {
    diagnostics.unshift(diffDiagnostic('diff-field-sets-differ', `the old ruleset reads ${olds.http ? 'HTTP requests' : 'packets'} and the new one ${news.http ? 'HTTP requests' : 'packets'}: no ${unit} is decided by both`));
    return { unit, regions: [], matches, diagnostics };
  }
  const sameRule = new Map(matches.map((m) => [m.old, m.new]));
  // Compiled when the first witness is confirmed: a diff with no exact region needs no simulator.
  let compiled: { old: CompiledRuleset; new: CompiledRuleset } | undefined;
  const simulators = () => (compiled ??= { old: compileDeciders(oldRuleset, olds), new: compileDeciders(newRuleset, news) });
  const types: FieldTypes = (f) => olds.scheme.get(f)?.type;
  const regions: DiffRegion[] = [];
  const oldSide = sideDeciders(olds);
  const newSide = sideDeciders(news);
  const shared = sharedPrefix(olds, news, sameRule);
  for (const a of oldSide.deciders.slice(shared)) {
    for (const b of newSide.deciders.slice(shared)) {
      const ruleChanged = a.decision.rule?.index !== undefined ? sameRule.get(a.decision.rule.index) !== b.decision.rule?.index : b.decision.rule !== undefined;
      const change = a.decision.verdict !== b.decision.verdict ? 'verdict' : ruleChanged ? 'rule' : undefined;
      if (!change) continue;
      // What a decides, the other side's rules before b already match when one of them is a's rule
      // itself (the same cubes): nothing is left for b, and the other way round.
      if (decidesBefore(newSide, a.cubes, b.position) || decidesBefore(oldSide, b.cubes, a.position)) continue;
      const pieces = pairPieces(a, b, earlierCubes(oldSide, newSide, shared, a.position, b.position));
      if (pieces === undefined) {
        regions.push(tooComplex(a, b, change));
        continue;
      }
      for (const piece of pieces) regions.push(pieceRegion(piece, a, b, change));
    }
  }
  const rank = (r: DiffRegion) => (r.kind === 'exact' ? 0 : 2) + (r.change === 'verdict' ? 0 : 1);
  regions.sort((x, y) => rank(x) - rank(y));
  return { unit, regions, matches, diagnostics };

  function pieceRegion(piece: Cube, a: Decider, b: Decider, change: DiffRegion['change']): DiffRegion {
    const { conditions, assumes } = describeCube(piece, types);
    const witness = witnessOf(piece, olds.scheme).packet;
    const region: DiffRegion = { kind: 'exact', change, old: a.decision, new: b.decision, conditions, text: '', witness };
    if (assumes.length) {
      region.kind = 'unknown';
      region.assumes = assumes;
      region.reason = `it depends on what the analysis does not decide: ${assumes.join('; ')}`;
    } else {
      const seen = { old: simulators().old.decide(witness), new: simulators().new.decide(witness) };
      const agrees = (d: Decision, v: { verdict: string; decidedBy?: { index: number } }) => v.verdict === d.verdict && v.decidedBy?.index === d.rule?.index;
      if (!agrees(a.decision, seen.old) || !agrees(b.decision, seen.new)) {
        region.kind = 'unknown';
        const said = (v: { verdict: string; decidedBy?: { index: number } }) => `${v.verdict}${v.decidedBy ? ` by rule ${v.decidedBy.index}` : ''}`;
        region.reason = `the simulator decides its witness ${said(seen.old)} → ${said(seen.new)}, not as the analysis says`;
      }
    }
    region.text = regionText(region, unit);
    regionCubes.set(region, { cube: piece, types });
    return region;
  }

  function tooComplex(a: Decider, b: Decider, change: DiffRegion['change']): DiffRegion {
    const name = (d: Decision, side: string) => (d.rule ? `rule ${d.rule.index} of the ${side} ruleset` : `the ${side} ruleset's default`);
    const region: DiffRegion = {
      kind: 'unknown',
      change,
      old: a.decision,
      new: b.decision,
      conditions: [],
      text: '',
      reason: `too large to split into regions: the ${unit}s decided by ${name(a.decision, 'old')} and by ${name(b.decision, 'new')}`,
    };
    region.text = regionText(region, unit);
    regionCubes.set(region, { cube: null, types });
    return region;
  }
}

/** `tcp.dstport 443, ip.src outside {10.0.0.0/8}: allow → block by rule 0 "web"`. */
export function regionText(r: DiffRegion, unit: 'packet' | 'request'): string {
  const where = r.conditions.length ? r.conditions.map((c) => c.text).join(', ') : r.reason?.startsWith('too large') ? `some ${unit}s` : `every ${unit}`;
  const tail = r.kind === 'unknown' ? (r.assumes ? ` (unknown: assuming ${r.assumes.join(' and ')})` : ` (unknown: ${r.reason})`) : '';
  return `${where}: ${decisionText(r.old)} → ${decisionText(r.new)}${tail}`;
}

/** A side's deciders in order, the default last, and where each set of cubes first decides. */
interface Side {
  deciders: Decider[];
  /** The position of the first decider with these cubes (the same array: the same rule text, see deciders.ts). */
  firstAt: Map<readonly Cube[], number>;
}

/** The default's cubes, one array for both sides. */
const EVERYTHING: Cube[] = [new Map()];

/** A side's deciders in order, the default last (it decides what no deciding rule matches). */
function sideDeciders(side: Deciders): Side {
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
 * How many deciding rules both sides start with alike: the same cubes, the same verdict, the same rule
 * by identity.ts. Every packet one of them matches is decided alike on both sides, so no pair with one
 * of them holds a change, and the diff starts after them (an edit deep in a long ruleset is cheap).
 */
function sharedPrefix(olds: Deciders, news: Deciders, sameRule: ReadonlyMap<number, number>): number {
  let k = 0;
  while (k < olds.rules.length && k < news.rules.length) {
    const [a, b] = [olds.rules[k]!, news.rules[k]!];
    if (a.cubes !== b.cubes || a.verdict !== b.verdict || sameRule.get(a.ref.index) !== b.ref.index) break;
    k++;
  }
  return k;
}

/** The cubes decided before old decider `a` or new decider `b`: the shared prefix once, then each side's rules after it, each set once. */
function earlierCubes(oldSide: Side, newSide: Side, shared: number, a: number, b: number): Cube[] {
  const seen = new Set<readonly Cube[]>();
  const out: Cube[] = [];
  const add = (d: Decider) => {
    if (seen.has(d.cubes)) return;
    seen.add(d.cubes);
    out.push(...d.cubes);
  };
  for (let i = 0; i < a; i++) add(oldSide.deciders[i]!);
  for (let i = shared; i < b; i++) add(newSide.deciders[i]!);
  return out;
}

/**
 * The cubes both deciders decide: what both match, minus what either side decides before them (`earlier`).
 * Empty when they share nothing; undefined when that is too large to tell.
 */
function pairPieces(a: Decider, b: Decider, earlier: readonly Cube[]): Cube[] | undefined {
  if (!a.cubes.some((x) => b.cubes.some((y) => mayOverlap(x, y)))) return [];
  try {
    const both = product(a.cubes, b.cubes);
    if (!both.length) return [];
    const before = earlier.filter((y) => both.some((x) => mayOverlap(x, y)));
    if (!firstOutside(both, before)) return [];
    return coalesce(subtractAll(both, before).filter(holdsAtoms));
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

/** What keeps a side from being simulated at all (not an object with an array of rule objects). */
export function sideProblems(side: 'old' | 'new', ruleset: unknown): Diagnostic[] {
  return rulesetShapeProblems(ruleset).map((d) => ({ ...d, message: `the ${side} ruleset: ${d.message}`, data: { ...d.data, side } }));
}

function leftOutDiagnostics(side: 'old' | 'new', d: Deciders): Diagnostic[] {
  return d.leftOut.map((r) => diffDiagnostic('diff-rule-left-out', `rule ${r.index} of the ${side} ruleset is left out: ${r.error}`, { pointer: `/rules/${r.index}/expression`, data: { side } }));
}
