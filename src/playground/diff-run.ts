/**
 * What the diff tab computes, apart from the page: the regions of `diffRulesets` between two ruleset
 * bodies (each with its witness), and how much traffic each region and each pair of deciding rules
 * changes — over the sample packets or a dropped capture (network phases), over the sample requests or a
 * dropped file of NDJSON requests, Logpush http_requests lines or HAR (HTTP phases), read as
 * `rulekit diff --against` reads them. Plain functions, tested without a browser.
 * @module
 */
import { DiffCounter, decisionText, diffRulesets, exampleText, type DiffRegion, type RulesetDiff, type TrafficDiff } from '../diff/index.js';
import { readTrafficRecords, type TrafficRecord } from '../http/index.js';
import { decodePacket, readCaptureBatches } from '../capture/index.js';
import type { Packet } from '../index.js';
import { parseLists } from './run.js';

/** A side of the diff read from its text, or why it cannot be. */
function bodyOf(text: string, side: 'old' | 'new'): { body?: { rules?: unknown; phase?: unknown }; error?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `the ${side} ruleset is not JSON: ${(e as Error).message}` };
  }
  if (typeof v !== 'object' || v === null || !Array.isArray((v as { rules?: unknown }).rules)) return { error: `the ${side} ruleset needs a "rules" array (a ruleset body, as the rules tab edits)` };
  return { body: v as { rules?: unknown; phase?: unknown } };
}

/** One region as the tab lists it. */
export interface RegionRow {
  kind: DiffRegion['kind'];
  change: DiffRegion['change'];
  /** Where: the region's conditions (`tcp.dstport 3389`), or what it covers. */
  where: string;
  old: string;
  new: string;
  /** The witness packet as `field value` pairs (exact regions). */
  witness?: string;
  /** Why the region is unknown. */
  reason?: string;
  /** Changed traffic in this region (when counted). */
  count?: number;
}

/** What the diff tab shows. */
export interface DiffOutcome {
  error?: string;
  diff?: RulesetDiff;
  regions: RegionRow[];
  /** Rules left out of either side, as messages. */
  problems: string[];
}

/** The witness in one line: `ip.src 192.0.2.1, tcp.dstport 3389`. */
export function witnessText(p: Packet | undefined): string | undefined {
  if (!p) return undefined;
  return Object.entries(p)
    .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
}

/** The parsed sides and options, shared by the diff and its counts. */
export function diffSides(oldText: string, newText: string, listsText: string): { old?: { rules?: unknown; phase?: unknown }; new?: { rules?: unknown; phase?: unknown }; lists?: ReturnType<typeof parseLists>['lists']; error?: string } {
  const o = bodyOf(oldText, 'old');
  const n = bodyOf(newText, 'new');
  const { lists, error } = parseLists(listsText);
  return { old: o.body, new: n.body, lists, error: o.error ?? n.error ?? error };
}

/** The regions between two ruleset texts (lists from the rules tab). */
export function runDiff(oldText: string, newText: string, listsText: string): DiffOutcome {
  const sides = diffSides(oldText, newText, listsText);
  if (!sides.old || !sides.new) return { error: sides.error, regions: [], problems: [] };
  const diff = diffRulesets(sides.old, sides.new, { lists: sides.lists });
  return {
    error: sides.error,
    diff,
    problems: diff.diagnostics.map((d) => `${d.severity}: ${d.message}`),
    regions: diff.regions.map((r) => ({
      kind: r.kind,
      change: r.change,
      where: r.conditions.length ? r.conditions.map((c) => c.text).join(', ') : r.reason?.startsWith('too large') ? `some ${diff.unit}s` : `every ${diff.unit}`,
      old: decisionText(r.old),
      new: decisionText(r.new),
      ...(r.witness ? { witness: witnessText(r.witness) } : {}),
      ...(r.kind === 'unknown' ? { reason: r.assumes ? `assuming ${r.assumes.join(' and ')}` : r.reason } : {}),
    })),
  };
}

/** The counts, and the changed traffic per pair of deciding rules as the drawing shows it. */
export interface DiffCounts extends TrafficDiff {
  /** What was counted: `4 sample packets`, `capture.pcapng`. */
  over: string;
  /**
   * `old → new` per pair, most changed first, with its first example as the CLI prints it: where it is
   * and only the fields the rules of both sides read (`line 3 {"http.request.method":"POST"}`).
   */
  perRule: { label: string; count: number; verdictChanged: boolean; example?: string }[];
  /** Lines of a dropped file that are no request (skipped), as messages. */
  problems?: string[];
}

function countsOf(counter: DiffCounter, over: string, examplesAre?: 'frame' | 'line' | 'entry'): DiffCounts {
  const r = counter.result();
  return {
    ...r,
    over,
    perRule: r.pairs.map((p) => ({ label: `${decisionText(p.old)} → ${decisionText(p.new)}`, count: p.count, verdictChanged: p.old.verdict !== p.new.verdict, ...(p.examples[0] ? { example: exampleText(p.examples[0], examplesAre) } : {}) })),
  };
}

/** Count packets already decoded (the sample packets of the rules tab). */
export function countDiffPackets(oldText: string, newText: string, listsText: string, packets: Packet[], over: string, diff?: RulesetDiff): DiffCounts | undefined {
  const sides = diffSides(oldText, newText, listsText);
  if (!sides.old || !sides.new) return undefined;
  const counter = new DiffCounter(sides.old, sides.new, { lists: sides.lists, diff });
  packets.forEach((p, i) => counter.add(p, i));
  return countsOf(counter, over);
}

/** Count request records (HTTP phases): the sample requests' records, or those of a dropped file. */
export function countDiffRequests(oldText: string, newText: string, listsText: string, records: readonly TrafficRecord[], over: string, diff?: RulesetDiff, examplesAre?: 'line' | 'entry'): DiffCounts | undefined {
  const sides = diffSides(oldText, newText, listsText);
  if (!sides.old || !sides.new) return undefined;
  const counter = new DiffCounter(sides.old, sides.new, { lists: sides.lists, diff });
  for (const r of records) counter.add(r.record, r.index);
  return countsOf(counter, over, examplesAre);
}

/**
 * Count a dropped file of HTTP traffic (NDJSON request objects, Logpush http_requests lines or HAR), read
 * by the library's reader as `rulekit diff --against` reads it; its lines that are no request are skipped
 * and named in `problems`.
 */
export function countDiffTraffic(oldText: string, newText: string, listsText: string, text: string, over: string, diff?: RulesetDiff): DiffCounts | undefined {
  const read = readTrafficRecords(text);
  const counts = countDiffRequests(oldText, newText, listsText, read.records, `${over} (${read.format === 'har' ? 'HAR' : read.format === 'logpush' ? 'Logpush http_requests lines' : 'NDJSON requests'})`, diff, read.indexOf);
  const problems = read.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
  return counts && problems.length ? { ...counts, problems } : counts;
}

/** Count a capture's packets (decoded in the page, as `rulekit diff --against` does). */
export async function countDiffCapture(oldText: string, newText: string, listsText: string, bytes: Uint8Array, over: string, diff?: RulesetDiff): Promise<DiffCounts | undefined> {
  const sides = diffSides(oldText, newText, listsText);
  if (!sides.old || !sides.new) return undefined;
  const counter = new DiffCounter(sides.old, sides.new, { lists: sides.lists, diff });
  const batches = readCaptureBatches(bytes, { copyData: false });
  for (;;) {
    const next = await batches.next();
    if (next.done) break;
    for (const r of next.value) counter.add(decodePacket({ linkType: r.linkType, data: r.data }, { problems: false }).packet as unknown as Packet, r.index);
  }
  return countsOf(counter, over, 'frame');
}
