/**
 * What the diff lenses say: the semantic diff (src/diff) of a ruleset file's base text and its text in the
 * editor, read as `rulekit diff` reads both sides (src/lint/ruleset-sides.ts), with each region and each
 * counted pair of deciding rules put on the rule that the edit made responsible for it, and a title and a
 * detail per rule. Plain data in, plain data out: it runs on the diff worker's thread (./diff-worker.ts).
 *
 * Whose change is a region: its new deciding rule's when that rule was added or edited; else the edited
 * or added new partner of its old deciding rule; else the ruleset's when its old rule was removed; else
 * (rules moved, nothing edited) the new deciding rule's, or the old one's partner.
 * @module
 */
import { decisionText, DiffCounter, diffRulesets, exampleText, type Decision, type DiffExample, type DiffReport, type RulesetDiff, type TrafficDiff } from '../diff/index.js';
import type { ListItems } from '../expression/index.js';
import { pairRulesetSides, rulesetSides, RulesetSideError, type RulesetSide } from '../lint/index.js';

/** One lens: a rule (or a ruleset, for what removed rules change) and what its edit does. */
export interface DiffLens {
  /** File offsets of the rule (or the ruleset) in the new text. */
  start: number;
  end: number;
  /** `rule` of the new side (`index`), or `ruleset` (removed rules, and regions no new rule answers for). */
  target: 'rule' | 'ruleset';
  index?: number;
  /** The lens line: `blocks 3 more · allows 0 more packets of capture.pcap`, `2 regions change: allow → block`. */
  title: string;
  /** The regions with witnesses and counts, as Markdown (hover, the lens's command). */
  detail: string;
  /** The figures of the title: regions (and unknown ones); with traffic, the records blocked, allowed and decided otherwise. */
  figures: { regions: number; unknown: number; traffic?: { blocks: number; allows: number; other: number } };
}

/** What {@link diffLenses} needs. */
export interface DiffLensInput {
  oldText: string;
  newText: string;
  /** The file's path (its kind: JSON, YAML, Terraform) and name in messages. */
  path: string;
  /** How the base is named in messages (`HEAD:rules/fw.json`). */
  oldName: string;
  lists?: ListItems;
  serviceToken?: string;
  /** The traffic to count: its name, and its records read as packets or as requests; absent: regions only. */
  traffic?: { name: string; read(unit: 'packet' | 'request'): Promise<LensTraffic> };
}

/** A traffic file's records, each with its index, and what the indexes count (as `rulekit diff` names examples). */
export interface LensTraffic {
  records: readonly Record<string, unknown>[];
  indexes?: readonly number[];
  examplesAre?: DiffReport['examplesAre'];
}

/** The lenses, or why there are none (a side that cannot be read: a syntax error while typing). */
export interface DiffLensResult {
  lenses: DiffLens[];
  problem?: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A rule as plain text for comparing (key order kept out of it). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/** The lenses of one file's edit. A side that cannot be read gives no lenses and a problem; a traffic file that cannot be read rejects. */
export async function diffLenses(input: DiffLensInput): Promise<DiffLensResult> {
  let olds: RulesetSide[];
  let news: RulesetSide[];
  try {
    news = rulesetSides(input.newText, input.path, input.path);
  } catch (e) {
    if (e instanceof RulesetSideError) return { lenses: [], problem: e.message };
    throw e;
  }
  try {
    olds = rulesetSides(input.oldText, input.oldName, input.path);
  } catch (e) {
    // A base that held no ruleset (or did not parse): every rule of the file is new.
    if (!(e instanceof RulesetSideError)) throw e;
    olds = [];
  }
  const lenses: DiffLens[] = [];
  for (const [o, n] of pairRulesetSides(olds, news)) {
    if (!n) continue; // a ruleset no longer in the file: nowhere to put a lens
    lenses.push(...(await pairLenses(o, n, input)));
  }
  return { lenses: lenses.sort((a, b) => a.start - b.start) };
}

/** Per pair of deciding rules, the changed traffic (from the counts) or the regions (without). */
interface Bucket {
  regions: number[];
  counts: { old: Decision; new: Decision; count: number; example?: DiffExample }[];
}

async function pairLenses(o: RulesetSide | undefined, n: RulesetSide, input: DiffLensInput): Promise<DiffLens[]> {
  const oldRuleset = o?.ruleset ?? { rules: [], ...(n.ruleset.phase !== undefined ? { phase: n.ruleset.phase } : {}) };
  const options = { lists: input.lists, serviceToken: input.serviceToken };
  const diff = diffRulesets(oldRuleset, n.ruleset, options);
  let counts: TrafficDiff | undefined;
  let examplesAre: DiffReport['examplesAre'];
  if (input.traffic) {
    const counter = new DiffCounter(oldRuleset, n.ruleset, { ...options, diff, examples: 1 });
    const read = await input.traffic.read(diff.unit);
    read.records.forEach((r, i) => counter.add(r, read.indexes?.[i] ?? i));
    counts = counter.result();
    examplesAre = read.examplesAre;
  }

  // Which new rules the edit touched, and where each old rule went.
  const newRules = n.ruleset.rules;
  const oldRules = oldRuleset.rules;
  const partnerOfOld = new Map<number, number>();
  const partnerOfNew = new Map<number, number>();
  for (const m of diff.matches) {
    partnerOfOld.set(m.old, m.new);
    partnerOfNew.set(m.new, m.old);
  }
  const changed = (i: number) => !partnerOfNew.has(i) || canonical(newRules[i]) !== canonical(oldRules[partnerOfNew.get(i)!]);
  const removed = oldRules.map((_, i) => i).filter((i) => !partnerOfOld.has(i));
  /** The new rule (index) a change answers to, or -1 for the ruleset. */
  const owner = (oldIndex: number | undefined, newIndex: number | undefined): number => {
    if (newIndex !== undefined && changed(newIndex)) return newIndex;
    const partner = oldIndex !== undefined ? partnerOfOld.get(oldIndex) : undefined;
    if (partner !== undefined && changed(partner)) return partner;
    if (oldIndex !== undefined && partner === undefined) return -1;
    return newIndex ?? partner ?? -1;
  };

  const buckets = new Map<number, Bucket>();
  const bucket = (k: number) => buckets.get(k) ?? (buckets.set(k, { regions: [], counts: [] }), buckets.get(k)!);
  diff.regions.forEach((r, i) => bucket(owner(r.old.rule?.index, r.new.rule?.index)).regions.push(i));
  for (const p of counts?.pairs ?? []) bucket(owner(p.old.rule?.index, p.new.rule?.index)).counts.push({ old: p.old, new: p.new, count: p.count, ...(p.examples[0] ? { example: p.examples[0] } : {}) });
  // Every added or edited rule has a lens, whatever its edit changes; so has the ruleset when rules were removed.
  newRules.forEach((_, i) => changed(i) && bucket(i));
  if (removed.length) bucket(-1);

  const out: DiffLens[] = [];
  for (const [k, b] of buckets) {
    const range = k >= 0 ? n.rangeOf(k) ?? n.range : n.range;
    if (!range) continue;
    const unit = diff.unit;
    const removedText = k < 0 && removed.length ? `removed ${removed.map((i) => ruleName(oldRules[i], i)).join(', ')}: ` : '';
    const traffic = input.traffic ? trafficFigures(b) : undefined;
    const title = removedText + (traffic ? trafficTitle(traffic, unit, input.traffic!.name) : regionsTitle(b, diff));
    const figures = { regions: b.regions.length, unknown: b.regions.filter((i) => diff.regions[i]!.kind === 'unknown').length, ...(traffic ? { traffic } : {}) };
    out.push({ figures, start: range.start, end: range.end, target: k >= 0 ? 'rule' : 'ruleset', ...(k >= 0 ? { index: k } : {}), title, detail: detailOf(b, diff, counts, examplesAre, input, k >= 0 ? `rule ${k}` : n.name) });
  }
  return out;
}

function ruleName(rule: unknown, index: number): string {
  const r = (rule ?? {}) as { ref?: unknown; description?: unknown; id?: unknown };
  const name = [r.ref, r.description, r.id].find((v) => typeof v === 'string' && v !== '');
  return `rule ${index}${name !== undefined ? ` ${JSON.stringify(name)}` : ''}`;
}

/** The records this lens's change blocks that were not blocked, allows that were not allowed, and decides otherwise. */
function trafficFigures(b: Bucket): { blocks: number; allows: number; other: number } {
  let blocks = 0;
  let allows = 0;
  let other = 0;
  for (const c of b.counts) {
    if (c.new.verdict === 'block' && c.old.verdict !== 'block') blocks += c.count;
    else if (c.new.verdict === 'allow' && c.old.verdict !== 'allow') allows += c.count;
    else other += c.count;
  }
  return { blocks, allows, other };
}

/** `blocks 3 more · allows 0 more packets of capture.pcap` (and what else changes), or no change. */
function trafficTitle({ blocks, allows, other }: { blocks: number; allows: number; other: number }, unit: string, name: string): string {
  if (blocks + allows + other === 0) return `no change in traffic of ${name}`;
  return `blocks ${blocks} more · allows ${allows} more ${unit}s of ${name}${other ? ` · ${other} decided otherwise` : ''}`;
}

/** `2 regions change: allow → block` (distinct changes, in the diff's order), or no change. */
function regionsTitle(b: Bucket, diff: RulesetDiff): string {
  if (!b.regions.length) return `no ${diff.unit} changes`;
  const changes = [...new Set(b.regions.map((i) => {
    const r = diff.regions[i]!;
    return r.change === 'rule' ? `${r.new.verdict} by another rule` : `${r.old.verdict} → ${r.new.verdict}`;
  }))];
  const unknown = b.regions.filter((i) => diff.regions[i]!.kind === 'unknown').length;
  return `${plural(b.regions.length, 'region')} change${b.regions.length === 1 ? 's' : ''}: ${changes.join(', ')}${unknown ? ` (${unknown} unknown)` : ''}`;
}

const code = (s: string) => `\`${s.replace(/`/g, 'ˋ')}\``;

/** The Markdown behind a lens: its regions with witnesses (or why unknown), and the counted traffic. */
function detailOf(b: Bucket, diff: RulesetDiff, counts: TrafficDiff | undefined, examplesAre: DiffReport['examplesAre'], input: DiffLensInput, what: string): string {
  const out = [`**rulekit diff** against ${code(input.oldName)}: ${what}`, ''];
  const traffic = new Map((counts?.regions ?? []).map((r) => [r.region, r.count]));
  if (!b.regions.length) out.push(`No ${diff.unit}s change.`);
  for (const i of b.regions) {
    const r = diff.regions[i]!;
    const n = traffic.get(i);
    out.push(`- ${r.kind === 'exact' ? 'exact' : '**unknown**'}: ${r.text}${counts ? ` — ${plural(n ?? 0, diff.unit)} of ${input.traffic!.name}` : ''}`);
    if (r.kind === 'exact' && r.witness) out.push(`  - witness ${code(JSON.stringify(r.witness))}`);
    else if (r.reason) out.push(`  - ${r.reason}`);
  }
  if (counts && b.counts.length) {
    out.push('', `Traffic of ${input.traffic!.name}:`);
    for (const c of b.counts) out.push(`- ${plural(c.count, diff.unit)}: ${decisionText(c.old)} → ${decisionText(c.new)}${c.example ? `, e.g. ${code(exampleText(c.example, examplesAre))}` : ''}`);
  }
  return out.join('\n');
}
