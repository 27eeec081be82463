/**
 * What a diff adds up to, for gates and headlines: regions by kind, and the regions that block what was
 * allowed or allow what was blocked. An unknown region counts wherever it may: a gate on "blocks added"
 * fails on a region that may add blocks, as the analysis cannot show it does not.
 * @module
 */
import type { DiffRegion, RulesetDiff } from './types.js';

/** The figures of a diff. */
export interface DiffSummary {
  regions: number;
  exact: number;
  unknown: number;
  /** Regions whose new verdict is block where the old one was not. */
  blocksAdded: number;
  /** Regions whose new verdict is allow where the old one was not. */
  allowsAdded: number;
}

/** A gate on a diff: any change, changes that block, changes that allow, or none. */
export type DiffGate = 'any' | 'blocks-added' | 'allows-added' | 'none';

export const DIFF_GATES: readonly DiffGate[] = ['any', 'blocks-added', 'allows-added', 'none'];

const blocks = (r: DiffRegion) => r.new.verdict === 'block' && r.old.verdict !== 'block';
const allows = (r: DiffRegion) => r.new.verdict === 'allow' && r.old.verdict !== 'allow';

/** The figures of one or more diffs. */
export function diffSummary(diffs: readonly RulesetDiff[]): DiffSummary {
  const regions = diffs.flatMap((d) => d.regions);
  return {
    regions: regions.length,
    exact: regions.filter((r) => r.kind === 'exact').length,
    unknown: regions.filter((r) => r.kind === 'unknown').length,
    blocksAdded: regions.filter(blocks).length,
    allowsAdded: regions.filter(allows).length,
  };
}

/** Whether the diffs fail the gate. */
export function failsGate(summary: DiffSummary, gate: DiffGate): boolean {
  switch (gate) {
    case 'any': return summary.regions > 0;
    case 'blocks-added': return summary.blocksAdded > 0;
    case 'allows-added': return summary.allowsAdded > 0;
    case 'none': return false;
  }
}
