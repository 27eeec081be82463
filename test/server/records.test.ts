/**
 * The stores write a record's JSON text from the member tables instead of serialising the record: that
 * text must be exactly `JSON.stringify` of the record, whatever the body held; and its compact form (what
 * the stores keep of a version whose rule contents they met before) must expand to that text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newRuleset, replaceRules, rulesetSummary } from '../../src/server/records.js';
import { expandRuleset, rulesetJson, rulesetText, seededId, STORED_RULE_MEMBERS, STORED_RULESET_MEMBERS, type StoredRule, type StoredRuleset } from '../../src/server/store/index.js';
import { RULE_MEMBERS, RULESET_MEMBERS } from '../../src/ruleset/index.js';
import { RecordTexts } from '../../src/server/store/record-text.js';
const compactFormOf = (r: StoredRuleset) => rulesetText(r).form;

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\u2028', '\ud800', 'a"b\\c\n'));
const bodyRule = fc.record(
  { action: text, expression: text, description: text, ref: text, enabled: fc.boolean(), action_parameters: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
  { requiredKeys: [] },
);
const body = fc.record({ name: text, description: text, kind: fc.constant('root'), phase: fc.constant('network_transit'), rules: fc.array(bodyRule, { maxLength: 6 }) }, { requiredKeys: ['rules'] });
/** Ids from a counter, some of them not hex (a test's id source may give any string). */
const ids = (prefix: string) => {
  let n = 0;
  return () => (n % 3 === 2 ? `${prefix}"${n++}` : (n++).toString(16).padStart(32, '0'));
};
const freezeDeep = <T>(v: T): T => {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) freezeDeep(x);
    Object.freeze(v);
  }
  return v;
};
/** The record's text, checked against its compact form: expanded, it gives the same bytes. */
const textOf = (r: StoredRuleset) => {
  const { json: t, form } = rulesetText(r);
  expect(rulesetJson(r)).toBe(t);
  expect(expandRuleset(form.compact, form.parts)).toBe(t);
  expect(form.compact.length).toBeLessThanOrEqual(t.length);
  return t;
};

/** Stored records as any store might hold them (not only as records.ts makes them). */
const storedRule: fc.Arbitrary<StoredRule> = fc.record(
  { id: text, version: text, action: text, action_parameters: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), expression: text, description: text, last_updated: text, ref: text, enabled: fc.boolean() },
  { requiredKeys: ['id', 'version', 'action', 'expression', 'description', 'last_updated', 'ref', 'enabled'] },
);
const storedRuleset: fc.Arbitrary<StoredRuleset> = fc.record({ id: text, name: text, description: text, kind: text, phase: text, version: text, last_updated: text, rules: fc.array(storedRule, { maxLength: 5 }) });
/** A record with its members in the order of the tables (the order records.ts and JSON.parse of a stored text give). */
const inTableOrder = (r: StoredRuleset): StoredRuleset => {
  const rules = r.rules.map((rule) => Object.fromEntries(STORED_RULE_MEMBERS.filter((m) => rule[m.name] !== undefined).map((m) => [m.name, rule[m.name]])) as unknown as StoredRule);
  return Object.fromEntries(STORED_RULESET_MEMBERS.map((k) => [k, k === 'rules' ? rules : r[k]])) as unknown as StoredRuleset;
};

describe('the member tables', () => {
  it('name members the validator knows, with the same JSON types', () => {
    for (const m of STORED_RULE_MEMBERS) expect([m.name, RULE_MEMBERS[m.name]]).toEqual([m.name, m.from === 'server' ? 'string' : m.type]);
    for (const k of STORED_RULESET_MEMBERS) expect(RULESET_MEMBERS[k]).toBeDefined();
  });
});

describe('record text', () => {
  it('is JSON.stringify of any stored record (the text writer), and its compact form expands to it', () => {
    fc.assert(fc.property(storedRuleset, (generated) => {
      const r = inTableOrder(generated);
      expect(rulesetJson(r)).toBe(JSON.stringify(r));
      expect(textOf(r)).toBe(JSON.stringify(r));
    }), { numRuns: 300 });
  });

  it('is JSON.stringify of the record a create body makes, frozen or not, again and again', () => {
    fc.assert(fc.property(body, (b) => {
      const made = newRuleset(b, '2026-01-02T03:04:05.678Z', ids('n'));
      expect(textOf(made)).toBe(JSON.stringify(made));
      const random = newRuleset(b, '2026-01-02T03:04:05.678Z');
      expect(textOf(random)).toBe(JSON.stringify(random));
      const frozen = freezeDeep(structuredClone(b));
      for (let i = 0; i < 2; i++) {
        const again = newRuleset(frozen, '2026-01-02T03:04:05.678Z', ids('f'));
        expect(textOf(again)).toBe(JSON.stringify(again));
      }
    }), { numRuns: 300 });
  });

  it('is JSON.stringify of the record a PUT makes: new rules, rules kept by id or ref, changed or not', () => {
    let compared = 0;
    fc.assert(fc.property(body, body, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), fc.boolean(), (first, second, pick, freeze, seeded) => {
      // seeded: the server's own ids (a seed's, see seededId), else a test source's.
      const current = newRuleset(first, '2026-01-02T03:04:05.678Z', seeded ? undefined : ids('c'));
      // Some rules of the PUT name stored rules, by id or (without one) by ref.
      const rules = second.rules.map((r, i) => {
        const stored = current.rules[pick[i] ?? -1];
        if (!stored) return r;
        return i % 2 ? { ...r, id: stored.id } : { ...stored, id: undefined, version: undefined, last_updated: undefined };
      }).map((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>);
      let b: Record<string, unknown> = { ...second, rules };
      if (freeze) b = freezeDeep(b);
      // What a store keeps of the texts it wrote changes none of them (the second PUT finds the first's parts).
      const texts = new RecordTexts();
      for (let i = 0; i < 2; i++) {
        const out = replaceRules(current, b, '2026-02-03T04:05:06.789Z', seeded ? undefined : ids('p'));
        if ('refused' in out) return;
        expect(textOf(out.next)).toBe(JSON.stringify(out.next));
        expect(rulesetText(out.next, texts)).toEqual(rulesetText(out.next));
        compared++;
      }
    }), { numRuns: 300 });
    // A PUT the store refuses returns early: most generated bodies are accepted (two PUTs a run).
    expect(compared).toBeGreaterThan(300);
  });

  it('takes a ruleset’s rule contents from its last record when the rules are the same, and only then', () => {
    const texts = new RecordTexts();
    const b = freezeDeep({ rules: [{ action: 'block', expression: 'tcp.dstport == 23' }, { action: 'skip', expression: 'ip.src == 10.0.0.1', action_parameters: { ruleset: 'current' } }] });
    const first = newRuleset(b, '2026-01-01T00:00:00.000Z');
    const a = rulesetText(first, texts).form;
    const put = (body: Record<string, unknown>, current: StoredRuleset) => {
      const out = replaceRules(current, body, '2026-01-02T00:00:00.000Z');
      if ('refused' in out) throw new Error('refused');
      const form = rulesetText(out.next, texts).form;
      expect(form).toEqual(rulesetText(out.next).form);
      return form;
    };
    const same = put(b, first);
    expect(same.parts).toBe(a.parts);
    expect(same.digest).toBe(a.digest);
    const edited = put({ rules: [b.rules[0], { ...b.rules[1], description: 'partner' }] }, first);
    expect(edited.digest).not.toBe(a.digest);
    expect(put({ rules: [b.rules[0]] }, first).digest).not.toBe(a.digest);
  });

  it('tells apart rules whose members hold the same characters split differently (rules are reused by their members)', () => {
    const variants: Record<string, unknown>[] = [
      { action: 'ab', expression: '', description: '' },
      { action: 'a', expression: 'b', description: '' },
      { action: 'a', expression: '', description: 'b' },
      { action: 'a', expression: '', description: '', ref: 'b' },
      { action: 'a', expression: '', description: '', ref: '' },
      { action: 'a', expression: '', description: '', action_parameters: 'b' },
      { action: 'a', expression: '', description: '', action_parameters: null },
      { action: 'a', expression: '', description: '' },
      { action: 'a', expression: '', description: '', enabled: false },
      { action: 'a', expression: 5, description: '' },
    ];
    for (let round = 0; round < 2; round++) {
      const made = newRuleset({ rules: variants }, '2026-01-02T03:04:05.678Z', ids('m'));
      expect(textOf(made)).toBe(JSON.stringify(made));
      expect(made.rules.map(({ id: _id, ...r }) => r)).toEqual(variants.map((v, i) => ({
        action: v['action'], expression: typeof v['expression'] === 'string' ? v['expression'] : '', description: v['description'], enabled: v['enabled'] ?? true,
        version: '1', last_updated: '2026-01-02T03:04:05.678Z', ref: (v['ref'] as string | undefined) ?? made.rules[i]!.id,
        ...(v['action_parameters'] !== undefined ? { action_parameters: v['action_parameters'] } : {}),
      })));
    }
  });

  it('keeps the id, ref, version and timestamp of a rule sent back unchanged, in the record and its text', () => {
    const current = newRuleset({ rules: [{ action: 'block', expression: 'tcp.dstport == 23', ref: 'telnet' }] }, '2026-01-01T00:00:00.000Z');
    const out = replaceRules(current, freezeDeep({ rules: [{ action: 'block', expression: 'tcp.dstport == 23', ref: 'telnet' }, { action: 'skip', expression: 'ip.src == 10.0.0.1' }] }), '2026-01-02T00:00:00.000Z');
    if ('refused' in out) throw new Error('refused');
    const [kept, added] = out.next.rules;
    expect(kept).toMatchObject({ id: current.rules[0]!.id, ref: 'telnet', version: '1', last_updated: '2026-01-01T00:00:00.000Z' });
    expect(added).toMatchObject({ version: '2', last_updated: '2026-01-02T00:00:00.000Z', ref: added!.id });
    expect(JSON.parse(textOf(out.next))).toEqual(out.next);
  });

  it('writes a rule with the ruleset’s version and timestamp and its id as ref as its id alone in the compact form, and reads both forms', () => {
    const current = newRuleset({ rules: [{ action: 'block', expression: 'tcp.dstport == 23', ref: 'telnet' }] }, '2026-01-01T00:00:00.000Z', ids('a'));
    const out = replaceRules(current, { rules: [{ action: 'block', expression: 'tcp.dstport == 23', ref: 'telnet' }, { action: 'skip', expression: 'ip.src == 10.0.0.1' }] }, '2026-01-02T00:00:00.000Z', ids('b'));
    if ('refused' in out) throw new Error('refused');
    const [kept, added] = out.next.rules;
    const form = compactFormOf(out.next)!;
    const rules = (JSON.parse(form.compact) as { rules: unknown[] }).rules;
    expect(rules).toEqual([[kept!.id, '1', '2026-01-01T00:00:00.000Z', 'telnet'], added!.id]);
    // A row written as [id, null, null, null] (every rule, before the short form) reads the same.
    const long = form.compact.replace(`${JSON.stringify(added!.id)}]`, `[${JSON.stringify(added!.id)},null,null,null]]`);
    expect(long).not.toBe(form.compact);
    expect(expandRuleset(long, form.parts)).toBe(expandRuleset(form.compact, form.parts));
    expect(JSON.parse(expandRuleset(long, form.parts))).toEqual(out.next);
  });

  it('gives new rules the ids of a seed and writes them as 0 in the compact form, the seed after the rules; the masks never change', () => {
    // Stored rows name their ids by these: a change here would read every such row with other ids.
    expect([0, 1, 49].map((i) => seededId('00000000000000000000000000000000', i))).toEqual(['1388a0fbede1521e6cc8e406ccbe4a01', 'f796967069e1781c8937d51c7f69c4cb', 'bfc3fc05392233bf926fb404bba66a4b']);
    expect(seededId('0123456789abcdeffedcba9876543210', 1)).toBe('f6b5d317e04ab5f377eb6f84093df6db');
    expect(() => seededId('0123', 0)).toThrow(/not a rule id seed/);
    const rules = Array.from({ length: 50 }, (_, i) => ({ action: 'block', expression: `tcp.dstport == ${i}`, description: 'd' }));
    const current = newRuleset({ name: 'n', kind: 'root', phase: 'network_transit', rules }, '2026-01-01T00:00:00.000Z');
    const out = replaceRules(current, { rules: [{ ...rules[0], id: current.rules[0]!.id }, ...rules.slice(1)] }, '2026-01-02T00:00:00.000Z');
    if ('refused' in out) throw new Error('refused');
    for (const r of [current, out.next]) {
      const form = compactFormOf(r)!;
      const compact = JSON.parse(form.compact) as { rules: unknown[]; seed: string };
      expect(compact.seed).toMatch(/^[0-9a-f]{32}$/);
      r.rules.forEach((rule, i) => {
        if (compact.rules[i] === 0) expect(rule.id).toBe(seededId(compact.seed, i));
      });
      expect(textOf(r)).toBe(JSON.stringify(r));
      // 50 ids of 32 hex digits would be ~1.75 KB of the row alone.
      expect(form.compact.length).toBeLessThan(450);
    }
    expect((JSON.parse(compactFormOf(current)!.compact) as { rules: unknown[] }).rules).toEqual(Array(50).fill(0));
    // The rule kept by id is written with its id and version; the others are the seed's.
    const put = JSON.parse(compactFormOf(out.next)!.compact) as { rules: unknown[] };
    expect(put.rules[0]).toEqual([current.rules[0]!.id, '1', '2026-01-01T00:00:00.000Z', null]);
    expect(put.rules.slice(1)).toEqual(Array(49).fill(0));
    // Ids of records are unique (seeds drawn from the CSPRNG, the masks a bijection of the index).
    expect(new Set([...current.rules, ...out.next.rules].map((r) => r.id)).size).toBe(99);
  });

  it('makes plain records: members in the service’s order, rules as data, a summary without them', () => {
    const body = { name: 'n', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 23', ref: 'telnet' }, { action: 'skip', expression: 'ip.src == 10.0.0.1', action_parameters: { ruleset: 'current' } }] };
    const made = newRuleset(body, '2026-01-01T00:00:00.000Z');
    expect(textOf(made)).toContain('"telnet"');
    expect(rulesetSummary(made)).toEqual({ id: made.id, name: 'n', description: '', kind: 'root', phase: 'network_transit', version: '1', last_updated: '2026-01-01T00:00:00.000Z' });
    expect(made.rules.map((r) => [r.ref, r.version])).toEqual([['telnet', '1'], [made.rules[1]!.id, '1']]);
    expect(Object.keys(made)).toEqual(['id', 'name', 'description', 'kind', 'phase', 'version', 'last_updated', 'rules']);
    expect(Object.keys(made.rules[1]!)).toEqual(['id', 'version', 'action', 'expression', 'description', 'last_updated', 'ref', 'enabled', 'action_parameters']);
    expect(structuredClone(made)).toEqual(JSON.parse(textOf(made)));
  });
});
