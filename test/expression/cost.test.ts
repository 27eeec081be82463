import { describe, expect, it } from 'vitest';
import { compileExpression, generate, evaluationOrder, nodeCost, print, type LogicalNode } from '../../src/expression/index.js';

const lists = { blocklist: ['203.0.113.0/24'] };

describe('planner cost model', () => {
  it('tests and/or operands cheapest first in generated code, keeping the written order on ties', () => {
    const r = compileExpression('ip.src in $blocklist and cf.colo.name matches "^a" and tcp.dstport == 80 and tcp.srcport == 81', { lists });
    const src = generate(r.checked!).source;
    const at = (needle: string) => src.indexOf(needle);
    expect(at('t === 80')).toBeGreaterThan(-1);
    expect(at('t === 80')).toBeLessThan(at('t === 81'));
    expect(at('t === 81')).toBeLessThan(at('.has(t)'));
    expect(at('.has(t)')).toBeLessThan(at('.test(t)'));
  });

  it('keeps xor operands as written and orders nested groups by their total', () => {
    const r = compileExpression('(ip.src in $blocklist or tcp.dstport == 1) and tcp.flags.syn', { lists });
    const root = r.checked!.ast as LogicalNode;
    const order = evaluationOrder(r.checked!, root);
    expect(print(order[0]!)).toBe('tcp.flags.syn');
    expect(nodeCost(r.checked!, order[0]!)).toBeLessThan(nodeCost(r.checked!, order[1]!));
    const x = compileExpression('ip.src in $blocklist xor tcp.flags.syn', { lists });
    expect(evaluationOrder(x.checked!, x.checked!.ast as LogicalNode)).toBe((x.checked!.ast as LogicalNode).operands);
  });

  it('reordering never changes a verdict (the interpreter keeps the written order)', () => {
    const r = compileExpression('ip.src in $blocklist or tcp.dstport == 80', { lists });
    for (const p of [{}, { 'tcp.dstport': 80 }, { 'ip.src': '203.0.113.9' }, { 'ip.src': 'nope', 'tcp.dstport': 1 }]) {
      expect(r.matcher!(p)).toBe(compileExpression('tcp.dstport == 80 or ip.src in $blocklist', { lists }).matcher!(p));
    }
  });
});
