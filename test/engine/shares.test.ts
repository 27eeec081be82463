/**
 * A capture split between worker threads must give the summary of one pass over all of it: each worker
 * counts its share with a `PortableCounter` rebuilt from `CompiledRuleset.portable()` (after a structured
 * clone, as `postMessage` does), and the shares are merged. The oracle is `simulate` over every packet in
 * one go, which shares neither the portable form nor the merge.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileRuleset, simulate, type Packet } from '../../src/index.js';
import { PortableCounter, portableConstants, restoreConstants } from '../../src/engine/index.js';
import { IpSet } from '../../src/net/index.js';

const ruleset = {
  rules: [
    { action: 'skip' as const, action_parameters: { ruleset: 'current' as const }, expression: 'tcp.dstport == 8080', description: 'skip 8080' },
    { action: 'block' as const, expression: 'ip.src in {192.0.2.0/24 2001:db8::/32} and tcp.dstport in {22 23 8080}', ref: 'ssh' },
    { action: 'block' as const, expression: 'cf.colo.name matches "^A[MN]S$"', id: 'colo' },
    { action: 'skip' as const, action_parameters: { ruleset: 'current' as const }, expression: 'udp.dstport == 53' },
    { action: 'block' as const, expression: 'udp.dstport in {1..1023}' },
  ],
};

const packetArb: fc.Arbitrary<Packet> = fc.record(
  {
    'ip.src': fc.constantFrom('192.0.2.1', '198.51.100.9', '2001:db8::5', '2001:db9::1'),
    'tcp.dstport': fc.constantFrom(22, 80, 8080),
    'udp.dstport': fc.constantFrom(53, 123, 5000),
    'cf.colo.name': fc.constantFrom('AMS', 'ANS', 'LHR'),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Packet>;

describe('worker shares of a simulation', () => {
  it('merged portable counters give the summary of one simulation over all packets', () => {
    fc.assert(
      fc.property(fc.array(packetArb, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }), (packets, workers, examplesPerRule) => {
        const whole = simulate(ruleset, packets, { examplesPerRule } as never).summary;
        const main = compileRuleset(ruleset, { examplesPerRule } as never);
        const portable = structuredClone(main.portable()!);
        const per = Math.ceil(packets.length / workers);
        for (let w = 0; w < workers; w++) {
          const counter = new PortableCounter(portable, RE2JS);
          packets.slice(w * per, (w + 1) * per).forEach((p, i) => counter.count(p, w * per + i));
          main.merge(counter.summary());
        }
        expect(main.summary()).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the examples with the lowest indexes when shares arrive out of order', () => {
    const packets: Packet[] = Array.from({ length: 9 }, () => ({ 'udp.dstport': 123 }));
    const whole = simulate(ruleset, packets).summary;
    const main = compileRuleset(ruleset);
    const portable = main.portable()!;
    for (const [from, to] of [[6, 9], [0, 3], [3, 6]] as const) {
      const c = new PortableCounter(portable, RE2JS);
      for (let i = from; i < to; i++) c.count(packets[i]!, i);
      main.merge(c.summary());
    }
    const s = main.summary();
    expect(s).toEqual(whole);
    expect(s.rules[4]!.examples.map((e) => e.index)).toEqual(whole.rules[4]!.examples.map((e) => e.index));
    expect(s.rules[4]!.examples[0]!.index).toBe(0);
    expect(s.packets).toBe(9);
    expect(s.verdicts).toEqual({ allow: 0, block: 9 });
  });

  it('adds default-allowed packets and leaves rows of another ruleset out', () => {
    const main = compileRuleset(ruleset);
    main.merge({ packets: 3, verdicts: { allow: 2, block: 1 }, defaultAllowed: 2, rules: [] });
    main.merge({
      packets: 1,
      verdicts: { allow: 0, block: 1 },
      defaultAllowed: 0,
      rules: Array.from({ length: 7 }, (_, index) => ({ index, action: 'block', matched: 1, decided: index === 4 ? 1 : 0, examples: [] }) as never),
    });
    const s = main.summary();
    expect([s.packets, s.verdicts, s.defaultAllowed]).toEqual([4, { allow: 2, block: 2 }, 2]);
    expect(s.rules.length).toBe(5);
    expect(s.rules.map((r) => [r.matched, r.decided])).toEqual([[1, 0], [1, 0], [1, 0], [1, 0], [1, 1]]);
  });
});

describe('portable constants', () => {
  it('carry IP sets, regexes, sets, arrays, bytes and plain objects through a structured clone', () => {
    const set = IpSet.fromItems(['192.0.2.0/24', '2001:db8::/32']).set;
    const re = RE2JS.compile('^a+$', RE2JS.CASE_INSENSITIVE);
    const bytes = new Uint8Array([1, 2]);
    const nullProto = Object.assign(Object.create(null) as object, { n: 1 });
    const constants = [set, re, new Set(['x', 1]), [1, 'a', null, undefined], bytes, { a: { b: [2] } }, nullProto, 'text', 5, true, null];
    const portable = portableConstants(constants);
    expect(portable).toBeDefined();
    const back = restoreConstants(structuredClone(portable!), RE2JS);
    const backSet = back[0] as IpSet;
    for (const a of ['192.0.2.7', '2001:db8::1', '192.0.3.1', '2001:db9::']) expect(backSet.has(a), a).toBe(set.has(a));
    const backRe = back[1] as RE2JS;
    expect([backRe.matches('AAA'), backRe.matches('ab'), backRe.flags()]).toEqual([true, false, RE2JS.CASE_INSENSITIVE]);
    expect(back.slice(2)).toEqual([new Set(['x', 1]), [1, 'a', null, undefined], bytes, { a: { b: [2] } }, { n: 1 }, 'text', 5, true, null]);
  });

  it('refuse functions, symbols, class instances and nesting deeper than 8', () => {
    class Thing {}
    const deep = (n: number): unknown => (n === 0 ? 1 : [deep(n - 1)]);
    for (const bad of [() => 1, Symbol('s'), new Thing(), new Map(), [[() => 1]], { a: Symbol('x') }, new Set([new Thing()]), deep(10)]) {
      expect(portableConstants([1, bad])).toBeUndefined();
    }
    expect(portableConstants([deep(8)])).toEqual([deep(8)]);
    expect(portableConstants([deep(9)])).toBeUndefined();
  });

  it('a ruleset whose constants cannot cross has no portable form', () => {
    const c = compileRuleset({ rules: [{ action: 'block', expression: 'tcp.dstport == 1' }] });
    expect(c.portable()).toBeDefined();
    expect(c.portable()!.fields).toEqual(['tcp.dstport']);
  });
});

describe('examples of rules that do not decide', () => {
  it('a matching skip to another ruleset keeps its first examplesPerRule packets, as a deciding rule does', () => {
    const rs = {
      rules: [
        { action: 'skip' as const, action_parameters: { ruleset: 'other' as never }, expression: 'tcp.dstport == 22' },
        { action: 'block' as const, expression: 'tcp.dstport == 22 and ip.ttl < 10' },
      ],
    };
    const packets: Packet[] = Array.from({ length: 7 }, (_, i) => ({ 'tcp.dstport': 22, 'ip.ttl': i % 2 === 0 ? 5 : 50, n: i }) as unknown as Packet);
    for (const examplesPerRule of [1, 3]) {
      const s = simulate(rs, packets, { examplesPerRule } as never).summary;
      expect(s.rules[0]!.matched).toBe(7);
      expect(s.rules[0]!.decided).toBe(0);
      expect(s.rules[0]!.examples.map((e) => e.index)).toEqual([0, 1, 2].slice(0, examplesPerRule));
      expect(s.rules[1]!.examples.map((e) => e.index)).toEqual([0, 2, 4].slice(0, examplesPerRule));
      expect(s.rules[0]!.examples[0]!.packet).toEqual(packets[0]);
    }
    // count() with a packet object the caller reuses keeps copies.
    const c = compileRuleset(rs);
    const reused = { 'tcp.dstport': 22, 'ip.ttl': 5 } as Record<string, unknown>;
    c.count(reused as Packet, 0, true);
    reused['ip.ttl'] = 50;
    c.count(reused as Packet, 1, true);
    expect(c.summary().rules[0]!.examples.map((e) => e.packet['ip.ttl'])).toEqual([5, 50]);
  });
});
