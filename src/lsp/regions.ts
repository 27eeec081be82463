/**
 * The places of a document where an expression or a Logpush filter is written: a line of a `.rules`
 * file, a rule's `expression` or a job's `filter` string in a JSON or YAML body, an `expression` inside a
 * Terraform `cloudflare_ruleset`. Each keeps lint's map from its decoded text back to the file, so that
 * completion, hover and formatting work on the decoded text and answer in file offsets.
 * @module
 */
import type { Extracted, OffsetMap, TextItem } from '../lint/index.js';

/** An expression or filter in a file. */
export interface Region {
  kind: 'expression' | 'filter';
  /** Where it is, for people (`line 3`, `/rules/0/expression`, `cloudflare_ruleset.fw.rules[1].expression`). */
  label: string;
  map: OffsetMap;
  /** Re-encodes replacement text for the literal; absent: no edit is offered there. */
  encoder?: TextItem['encoder'];
  /** The Logpush dataset of a filter, when known. */
  dataset?: string;
  /** Terraform interpolations were left out of the decoded text: it cannot be rewritten whole. */
  interpolated: boolean;
  /** File span of the decoded text. */
  start: number;
  end: number;
  /** Pointer of the rule in a ruleset body, for document symbols. */
  rule?: number;
  /** The phase of the expression's ruleset, when known: completion and hover use its field set. */
  phase?: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function region(kind: Region['kind'], label: string, map: OffsetMap, encoder: Region['encoder'], extra: Partial<Region> = {}): Region {
  const n = map.length;
  const start = n ? map.span(0).start : map.after;
  const end = n ? map.span(n - 1).end : map.after;
  return { kind, label, map, encoder, interpolated: false, start, end, ...extra };
}

/** Every region of an extracted document, in file order. */
export function regionsOf(ex: Extracted): Region[] {
  const out: Region[] = [];
  for (const item of ex.items) {
    if (!('value' in item)) {
      out.push(region(item.kind, item.label, item.map, item.encoder, { dataset: item.dataset, phase: item.phase, interpolated: item.holes.length > 0 }));
      continue;
    }
    const body = item.value;
    if (item.kind === 'ruleset' && isObj(body) && Array.isArray(body['rules'])) {
      body['rules'].forEach((rule, i) => {
        if (!isObj(rule) || typeof rule['expression'] !== 'string') return;
        const pointer = `/rules/${i}/expression`;
        const s = item.stringAt(pointer);
        if (s) out.push(region('expression', pointer.slice(item.pointerPrefix.length) || pointer, s.map, s.encoder, { rule: i, phase: typeof body['phase'] === 'string' ? body['phase'] : undefined }));
      });
    } else if (item.kind === 'job' && isObj(body) && typeof body['filter'] === 'string' && body['filter'].trim() !== '') {
      const s = item.stringAt('/filter');
      if (s) out.push(region('filter', '/filter', s.map, s.encoder, { dataset: typeof body['dataset'] === 'string' ? body['dataset'] : undefined }));
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The region whose text holds the file offset (its ends included: a cursor after the last character is in it). */
export function regionAt(regions: readonly Region[], offset: number): Region | undefined {
  return regions.find((r) => r.start <= offset && offset <= r.end);
}

/** The decoded offset of a file offset inside a region: the number of decoded units that end at or before it. */
export function toDecoded(r: Region, offset: number): number {
  let i = 0;
  while (i < r.map.length && r.map.span(i).end <= offset) i++;
  return i;
}

/** The file range of a decoded range. */
export function toFile(r: Region, from: number, to: number): { start: number; end: number } {
  return r.map.toSource({ start: from, end: to });
}
