/**
 * The diff lenses' attribution (src/lsp/diff-lenses.ts), on generated edits of rulesets and generated
 * packets: every region of the diff is on exactly one lens, every packet whose outcome changes is counted
 * on exactly one lens, each added or edited rule has a lens, and an unchanged text has none.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countDiff, diffRulesets } from '../../src/diff/index.js';
import { diffLenses } from '../../src/lsp/diff-lenses.js';
import { rulesetPairArb, smallPacketArb, smallRuleArb } from '../helpers/rulesets.js';

const body = (rules: unknown[]) => JSON.stringify({ name: 'fw', kind: 'root', phase: 'network_transit', rules }, null, 2);
const canonical = (r: unknown) => JSON.stringify(r, Object.keys(r as object).sort());

describe('diff lenses', () => {
  it('put every region and every changed packet on exactly one lens, and a lens on every rule the edit touched', async () => {
    await fc.assert(fc.asyncProperty(rulesetPairArb(smallRuleArb()), fc.array(smallPacketArb, { maxLength: 40 }), async ([oldRules, newRules], packets) => {
      const oldText = body(oldRules);
      const newText = body(newRules);
      const traffic = { name: 'p.ndjson', read: async () => ({ records: packets }) };
      const { lenses, problem } = await diffLenses({ oldText, newText, path: 'fw.json', oldName: 'HEAD:fw.json', traffic });
      expect(problem).toBeUndefined();
      const phase = { phase: 'network_transit' };
      const diff = diffRulesets({ rules: oldRules, ...phase }, { rules: newRules, ...phase });
      const counts = countDiff({ rules: oldRules, ...phase }, { rules: newRules, ...phase }, packets, { diff });
      expect(lenses.reduce((n, l) => n + l.figures.regions, 0)).toBe(diff.regions.length);
      expect(lenses.reduce((n, l) => n + l.figures.traffic!.blocks + l.figures.traffic!.allows + l.figures.traffic!.other, 0)).toBe(counts.changed);
      // Rules added or edited (no partner, or a partner written otherwise) each have their lens.
      const partner = new Map(diff.matches.map((m) => [m.new, m.old]));
      newRules.forEach((r, i) => {
        const o = partner.get(i);
        if (o === undefined || canonical(oldRules[o]) !== canonical(r)) expect(lenses.some((l) => l.target === 'rule' && l.index === i)).toBe(true);
      });
      if (diff.matches.length < oldRules.length) expect(lenses.some((l) => l.target === 'ruleset' && l.title.startsWith('removed rule'))).toBe(true);
      // Each lens sits on its rule's text.
      for (const l of lenses) if (l.target === 'rule') expect(newText.slice(l.start, l.end)).toBe(JSON.stringify(newRules[l.index!], null, 2).replace(/\n/g, '\n    '));
    }), { numRuns: 60 });
  });

  it('an unchanged text has no lenses; a base that holds no ruleset makes every rule new', async () => {
    const text = body([{ action: 'block', expression: 'tcp.dstport == 22', ref: 'ssh' }]);
    expect((await diffLenses({ oldText: text, newText: text, path: 'fw.json', oldName: 'HEAD:fw.json' })).lenses).toEqual([]);
    const fresh = await diffLenses({ oldText: '{}', newText: text, path: 'fw.json', oldName: 'HEAD:fw.json' });
    expect(fresh.lenses.map((l) => [l.index, l.title])).toEqual([[0, '1 region changes: allow → block']]);
  });

  it('a text that does not parse while typing: no lenses, the reason', async () => {
    const r = await diffLenses({ oldText: body([]), newText: '{"rules": [', path: 'fw.json', oldName: 'HEAD:fw.json' });
    expect(r.lenses).toEqual([]);
    expect(r.problem).toMatch(/^fw\.json:1: /);
  });
});
