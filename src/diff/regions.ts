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
import { witnessOf, type Cube } from '../analysis/index.js';
import { candidatePairs, pairCubes, sideOf, type Decider } from './pairs.js';
import type { CompiledRuleset } from '../engine/index.js';
import { compileDeciders, decidersOf, listCatalog, type Deciders, type DiffOptions, type RuleCubeCache } from './deciders.js';
import { matchRules, ruleRefsOf } from './identity.js';
import { describeCube, type FieldTypes } from './cube-text.js';
import { cubeContains } from './cube-contains.js';
import { diffDiagnostic } from './codes.js';
import type { Decision, DiffRegion, RulesetDiff } from './types.js';

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

/** The cube of a region and its fields' types (null cube: a pair too large to split); undefined for a region this module did not make. */
export function regionCube(region: DiffRegion): { cube: Cube | null; types: FieldTypes } | undefined {
  return regionCubes.get(region);
}

/** `allow`, `block by rule 3 "web"`, a match set's `matched by line 3 \`tcp.dstport 22\``: a decision in a region's text. */
export function decisionText(d: Decision): string {
  // The verdicts of a match set (match-sets.ts): a line matched, or none did.
  if (d.verdict === 'unmatched') return 'matched by none';
  if (d.verdict === 'matched' && d.rule) return `matched by line ${d.rule.line ?? d.rule.index + 1} \`${d.rule.expression}\``;
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
  // Compiled when the first witness is confirmed: a diff with no exact region needs no simulator. For a
  // few hundred witnesses, closures: generating and compiling the code took longer than deciding them
  // (the bench's two 200-rule rulesets: 18 ms to 5 ms).
  let compiled: { old: CompiledRuleset; new: CompiledRuleset } | undefined;
  const witnessOptions = { codegen: false, decoder: 'objects' } as const;
  const simulators = () => (compiled ??= { old: compileDeciders(oldRuleset, olds, witnessOptions), new: compileDeciders(newRuleset, news, witnessOptions) });
  const types: FieldTypes = (f) => olds.scheme.get(f)?.type;
  const regions: DiffRegion[] = [];
  const oldSide = sideOf(olds);
  const newSide = sideOf(news);
  const pairs = candidatePairs(oldSide, newSide, sameRule);
  const cubes = pairCubes(pairs, oldSide, newSide);
  for (const p of pairs) {
    const pieces = cubes.get(p);
    if (pieces === undefined) regions.push(tooComplex(p.a, p.b, p.change));
    else for (const piece of pieces) regions.push(pieceRegion(piece, p.a, p.b, p.change));
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
  return `${where}: ${changeText(r.old, r.new)}${tail}`;
}

/** `allow → block by rule 0 "web"`; for a match set, `matched by line 3 \`…\` → by none` (the second "matched" left out). */
export function changeText(old: Decision, neu: Decision): string {
  const o = decisionText(old);
  const n = decisionText(neu);
  return `${o} → ${o.startsWith('matched by ') && n.startsWith('matched by ') ? n.slice('matched '.length) : n}`;
}

/** What keeps a side from being simulated at all (not an object with an array of rule objects). */
export function sideProblems(side: 'old' | 'new', ruleset: unknown): Diagnostic[] {
  return rulesetShapeProblems(ruleset).map((d) => ({ ...d, message: `the ${side} ruleset: ${d.message}`, data: { ...d.data, side } }));
}

function leftOutDiagnostics(side: 'old' | 'new', d: Deciders): Diagnostic[] {
  return d.leftOut.map((r) => diffDiagnostic('diff-rule-left-out', `rule ${r.index} of the ${side} ruleset is left out: ${r.error}`, { pointer: `/rules/${r.index}/expression`, data: { side } }));
}
