/**
 * Ruleset analysis: the findings on hand-written rulesets, and its two laws on generated ones — a rule
 * reported as never deciding decides no packet (of a large sample plus every witness), and a rule
 * reported live decides its witness — both checked by the simulator, which shares no code with it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTION_CATALOG, analyzeRuleset, compileExpression, simulate, type Rule } from '../../src/index.js';
import { smallPacketArb, smallRuleArb } from '../helpers/rulesets.js';

const codes = (rules: object[], lists = {}) => analyzeRuleset({ rules }, { lists }).diagnostics.map((d) => [d.code, d.pointer]);

describe('findings', () => {
  it('a later rule inside an earlier one with the same action is redundant, with the earlier rule and a witness', () => {
    const a = analyzeRuleset({ rules: [{ action: 'block', expression: 'tcp.dstport in {1..1024}' }, { action: 'block', expression: 'tcp.dstport == 22 and ip.src in {10.0.0.0/8}' }] });
    expect(a.diagnostics).toHaveLength(1);
    expect(a.diagnostics[0]).toMatchObject({ code: 'rule-redundant', pointer: '/rules/1/expression', data: { coveredBy: [0], decidedBy: 0, witness: { 'tcp.dstport': 22, 'ip.src': '10.0.0.0' } } });
    expect(a.rules.map((r) => r.status)).toEqual(['live', 'shadowed']);
  });

  it('a rule behind a skip of another action is unreachable; the covering set is minimal', () => {
    const d = analyzeRuleset({
      rules: [
        { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {80 443}' },
        { action: 'block', expression: 'udp.dstport == 53' },
        { action: 'block', expression: 'tcp.dstport == 443' },
      ],
    }).diagnostics;
    expect(d).toEqual([expect.objectContaining({ code: 'rule-unreachable', pointer: '/rules/2/expression', data: expect.objectContaining({ coveredBy: [0] }) })]);
    expect(d[0]!.message).toContain('rule 0 (skip)');
  });

  it('a rule covered only by several earlier rules together names them all', () => {
    const d = analyzeRuleset({ rules: [{ action: 'block', expression: 'tcp.dstport < 100' }, { action: 'block', expression: 'tcp.dstport >= 100' }, { action: 'block', expression: 'tcp.dstport in {50 150}' }] }).diagnostics;
    expect(d[0]).toMatchObject({ code: 'rule-redundant', data: { coveredBy: [0, 1] } });
  });

  it('disabled rules and skips to other rulesets decide nothing for the rules after them', () => {
    expect(codes([{ action: 'block', expression: 'tcp.dstport == 22', enabled: false }, { action: 'block', expression: 'tcp.dstport == 22' }])).toEqual([]);
    expect(codes([{ action: 'skip', action_parameters: { ruleset: 'other' }, expression: 'tcp.dstport == 22' }, { action: 'block', expression: 'tcp.dstport == 22' }])).toEqual([]);
  });

  it('contradictions: two transports on one packet, disjoint CIDRs, two values of one field — at the smallest part', () => {
    expect(codes([{ action: 'block', expression: 'tcp.dstport in {1..65535} and udp.dstport == 53' }])).toEqual([['rule-never-matches', '/rules/0/expression']]);
    const d = analyzeRuleset({ rules: [{ action: 'block', expression: '(ip.src in {10.0.0.0/8} and ip.src in {192.168.0.0/16}) or tcp.dstport == 1' }] }).diagnostics;
    expect(d).toEqual([expect.objectContaining({ code: 'expression-never-true', range: { start: 1, end: 54 }, rangeIn: 'value' })]);
    expect(codes([{ action: 'block', expression: 'tcp.dstport == 1 and tcp.dstport == 2' }])).toEqual([['rule-never-matches', '/rules/0/expression']]);
    expect(codes([{ action: 'block', expression: 'ip.src.country == "US" and ip.src.country in {"DE" "FR"}' }])).toEqual([['rule-never-matches', '/rules/0/expression']]);
  });

  it('tautologies inside an expression are named', () => {
    const d = analyzeRuleset({ rules: [{ action: 'block', expression: 'udp.dstport == 53 and (tcp.dstport < 10 or not tcp.dstport < 10)' }] }).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['expression-always-true']);
  });

  it('lists are read as address sets; unknown parts stay free and are said to be assumed', () => {
    expect(codes([{ action: 'block', expression: 'ip.src in $bad' }, { action: 'block', expression: 'ip.src in {192.0.2.1}' }], { bad: ['192.0.2.0/24'] })).toEqual([['rule-redundant', '/rules/1/expression']]);
    const a = analyzeRuleset({ rules: [{ action: 'block', expression: 'ip.src in $bad and tcp.dstport == 1' }, { action: 'block', expression: 'tcp.dstport == 1' }] });
    // $bad is unknown here: rule 1 is not claimed shadowed.
    expect(a.diagnostics).toEqual([]);
    const r = analyzeRuleset({ rules: [{ action: 'block', expression: 'tcp.flags & 0x02 and tcp.dstport == 1' }, { action: 'block', expression: 'tcp.flags & 0x02 and tcp.dstport == 1 and ip.ttl < 5' }] });
    expect(r.diagnostics[0]).toMatchObject({ code: 'rule-redundant', data: { assumes: [expect.stringContaining('tcp.flags & 0x02 is true')] } });
  });

  it('never throws on odd input', () => {
    for (const x of [null, {}, { rules: 'x' }, { rules: [null, 1, 'x', { expression: 5 }, { action: 'block' }, { action: 'block', expression: 'tcp.dstport ==' }] }]) {
      expect(() => analyzeRuleset(x as never)).not.toThrow();
    }
  });
});

// Generated rulesets over a few fields, and packets that have one transport each.
const rule = smallRuleArb();
const packet = smallPacketArb;

describe('soundness on generated rulesets (checked by the simulator)', () => {
  it('a rule said never to decide decides no packet; a live rule decides its witness', () => {
    fc.assert(fc.property(fc.array(rule, { minLength: 1, maxLength: 8 }), fc.array(packet, { minLength: 50, maxLength: 50 }), (rules, sample) => {
      const analysis = analyzeRuleset({ rules });
      const witnesses = analysis.rules.flatMap((r) => (r.witness ? [r.witness] : []));
      const sim = simulate({ rules }, [...sample, ...witnesses]);
      for (const r of analysis.rules) {
        if (r.status === 'shadowed' || r.status === 'never') {
          const decided = sim.results.filter((x) => x.decidedBy?.index === r.index);
          expect(decided, `rule ${r.index} (${r.status}) decided ${JSON.stringify(decided[0])}`).toEqual([]);
          if (r.status === 'never') expect(sim.results.filter((x) => x.matched.includes(r.index))).toEqual([]);
        }
        if (r.status === 'shadowed' && r.witness && !r.assumes) {
          // The simulator stops at the deciding rule: whether this one matches is asked of it alone.
          expect(compileExpression(rules[r.index]!.expression).matcher!(r.witness)).toBe(true);
          expect(simulate({ rules }, [r.witness]).results[0]!.decidedBy?.index).toBe(r.decidedBy);
        }
        if (r.status === 'live' && !r.assumes) {
          const one = simulate({ rules }, [r.witness!]).results[0]!;
          const terminating = rules[r.index]!.action === 'block' || rules[r.index]!.action_parameters !== undefined;
          if (terminating) expect(one.decidedBy?.index, `witness ${JSON.stringify(r.witness)} of rule ${r.index}`).toBe(r.index);
          else expect(one.matched).toContain(r.index);
        }
      }
    }), { numRuns: process.env.CI ? 400 : 150 });
  });
});

describe('complexity against the service limits', () => {
  it('warns at 80% of a rule’s characters or regexes, and of the ruleset’s rules; figures per rule', () => {
    const long = `tcp.dstport in {${Array.from({ length: 850 }, (_, i) => i + 1).join(' ')}}`;
    expect(long.length).toBeGreaterThan(3277);
    const regexes = Array.from({ length: 52 }, (_, i) => `cf.colo.name matches "^x${i}"`).join(' or ');
    const a = analyzeRuleset({ rules: [{ action: 'block', expression: long }, { action: 'block', expression: regexes }, { action: 'block', expression: 'udp.dstport == 1' }] });
    expect(a.diagnostics.filter((d) => d.code === 'rule-complexity').map((d) => [d.pointer, d.message.replace(/.*limits: /, '')])).toEqual([
      ['/rules/0/expression', `${long.length} of 4096 characters`],
      ['/rules/1/expression', '52 of 64 regular expressions'],
    ]);
    expect(a.rules[2]!.complexity).toEqual({ length: 16, regexes: 0, cost: expect.any(Number) });
    const many = analyzeRuleset({ rules: Array.from({ length: 161 }, (_, i) => ({ action: 'block', expression: `tcp.dstport == ${i}` })) });
    expect(many.diagnostics.map((d) => d.code)).toEqual(['ruleset-complexity']);
    const fine = analyzeRuleset({ rules: Array.from({ length: 160 }, (_, i) => ({ action: 'block', expression: `tcp.dstport == ${i}` })) });
    expect(fine.diagnostics).toEqual([]);
  });
});

describe('skips that open holes in later blocks', () => {
  it('say which block rule they let packets through and give one, at most three per skip', () => {
    const a = analyzeRuleset({
      rules: [
        { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {8000..8999}' },
        { action: 'block', expression: 'tcp.dstport in {8443 9443} and ip.src in {203.0.113.0/24}' },
        { action: 'block', expression: 'udp.dstport == 53' },
      ],
    });
    const notes = a.diagnostics.filter((d) => d.code === 'rule-skip-overlap');
    expect(notes).toEqual([expect.objectContaining({ severity: 'info', pointer: '/rules/0/expression', data: { blockedBy: 1, witness: { 'tcp.dstport': 8443, 'ip.src': '203.0.113.0' } } })]);
    // The witness is one the skip lets through and the block rule would have blocked.
    const rules: Rule[] = [{ action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {8000..8999}' }, { action: 'block', expression: 'tcp.dstport in {8443 9443} and ip.src in {203.0.113.0/24}' }];
    const w = notes[0]!.data!['witness'] as Record<string, unknown>;
    expect(simulate({ rules }, [w]).results[0]!.decidedBy?.index).toBe(0);
    expect(simulate({ rules: rules.slice(1) }, [w]).results[0]!.decidedBy?.index).toBe(0);
    const many = analyzeRuleset({ rules: [rules[0]!, ...Array.from({ length: 5 }, (_, i) => ({ action: 'block', expression: `tcp.dstport in {${8000 + i} ${20000 + i}}` }))] });
    expect(many.diagnostics.filter((d) => d.code === 'rule-skip-overlap')).toHaveLength(3);
  });
});

describe('the report, word for word', () => {
  it('matches the golden findings and per-rule verdicts of a ruleset with one case of each', async () => {
    const { readFileSync } = await import('node:fs');
    const a = analyzeRuleset({ rules: [
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {80 443}' },
      { action: 'block', expression: 'tcp.dstport in {1..1024}' },
      { action: 'block', expression: 'tcp.dstport == 22' },
      { action: 'block', expression: 'tcp.dstport == 443 and ip.src in {10.0.0.0/8}' },
      { action: 'block', expression: 'tcp.dstport == 1 and udp.dstport == 1' },
      { action: 'block', expression: 'tcp.dstport == 1 and tcp.dstport == 2' },
      { action: 'block', expression: '(ip.src.country == "DE" and ip.src.country == "FR") or udp.dstport == 9' },
      { action: 'block', expression: 'udp.dstport == 7 and (icmp.type < 3 or not icmp.type < 3)' },
      { action: 'block', expression: 'ip.src.country != "DE" and udp.dstport == 5' },
      { action: 'block', expression: 'udp.dstport == 5' },
    ] });
    const text = JSON.stringify(a.diagnostics.map((d) => [d.code, d.pointer, d.message]), null, 1) + '\n'
      + JSON.stringify(a.rules.map((r) => [r.index, r.status, r.witness ?? null, r.coveredBy ?? null, r.decidedBy ?? null])) + '\n';
    expect(text).toBe(readFileSync(new URL('./golden/findings.txt', import.meta.url), 'utf8'));
  });
});

describe('HTTP-phase rulesets', () => {
  const http = (rules: object[]) => analyzeRuleset({ phase: 'http_request_firewall_custom', rules });

  it('are checked with the fields of their phase: plain HTTP fields analyse cleanly', () => {
    const a = http([
      { action: 'block', expression: 'http.host eq "a.example" and http.request.uri.path eq "/admin"' },
      { action: 'block', expression: 'ip.src in {10.0.0.0/8} and http.request.method in {"PUT" "DELETE"}' },
    ]);
    expect(a.rules.map((r) => r.status)).toEqual(['live', 'live']);
    expect(a.diagnostics).toEqual([]);
    expect(a.rules[0]!.witness).toEqual({ 'http.host': 'a.example', 'http.request.uri.path': '/admin' });
    // Without the phase the same rules are not network expressions.
    expect(analyzeRuleset({ rules: [{ action: 'block', expression: 'http.host eq "a.example"' }] }).rules[0]!.status).toBe('invalid');
  });

  it('a shadowed pair on a plain String field is found as for network fields, in requests', () => {
    const a = http([{ action: 'block', expression: 'http.host eq "a"' }, { action: 'block', expression: 'http.host eq "a"' }]);
    expect(a.rules.map((r) => r.status)).toEqual(['live', 'shadowed']);
    expect(a.diagnostics).toEqual([expect.objectContaining({ code: 'rule-redundant', pointer: '/rules/1/expression', data: expect.objectContaining({ coveredBy: [0], decidedBy: 0, witness: { 'http.host': 'a' } }) })]);
    expect(a.diagnostics[0]!.message).toContain('every request it matches');
    const b = http([{ action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'http.host in {"a" "b"}' }, { action: 'block', expression: 'http.host eq "b"' }]);
    expect(b.diagnostics.map((d) => d.code)).toEqual(['rule-unreachable']);
    expect(http([{ action: 'block', expression: 'http.host eq "a"' }, { action: 'block', expression: 'http.host eq "b"' }]).diagnostics).toEqual([]);
  });

  it('rules with functions are left out with an info, never called shadowed, and decide nothing after them', () => {
    const a = http([
      { action: 'block', expression: 'lower(http.host) eq "a"' },
      { action: 'block', expression: 'lower(http.host) eq "a"' },
      { action: 'block', expression: 'http.host eq "a"' },
      { action: 'block', expression: 'starts_with(http.request.uri.path, "/x") and http.host eq "a"' },
    ]);
    expect(a.rules.map((r) => r.status)).toEqual(['unknown', 'unknown', 'live', 'unknown']);
    expect(a.diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([
      ['rule-not-analysed', 'info', '/rules/0/expression'],
      ['rule-not-analysed', 'info', '/rules/1/expression'],
      ['rule-not-analysed', 'info', '/rules/3/expression'],
    ]);
    expect(a.diagnostics[0]!.message).toContain('lower()');
    expect(a.diagnostics[2]!.data).toEqual({ reads: ['starts_with()'] });
  });

  it('rules with indexing and any()/all() are left out the same way', () => {
    const a = http([
      { action: 'block', expression: 'http.request.headers["x-a"][0] eq "1"' },
      { action: 'block', expression: 'any(http.request.headers.names[*] eq "x-a")' },
      { action: 'block', expression: 'all(http.request.headers["x-a"][*] eq "1")' },
      { action: 'block', expression: 'http.request.headers["x-a"][0] eq "1"' },
    ]);
    expect(a.rules.map((r) => r.status)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    expect(a.diagnostics.map((d) => d.data)).toEqual([{ reads: ['indexing [ ]'] }, { reads: ['any()', 'indexing [*]'] }, { reads: ['all()', 'indexing [ ]', 'indexing [*]'] }, { reads: ['indexing [ ]'] }]);
  });

  it('the phase can be given as an option, and a network phase keeps the network fields', () => {
    expect(analyzeRuleset({ rules: [{ action: 'block', expression: 'http.host eq "a"' }] }, { phase: 'http_request_firewall_custom' }).rules[0]!.status).toBe('live');
    expect(analyzeRuleset({ phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 22' }, { action: 'block', expression: 'tcp.dstport == 22' }] }).diagnostics.map((d) => d.code)).toEqual(['rule-redundant']);
  });
});

describe('HTTP-phase actions: every terminating action of the catalog decides, no other does', () => {
  const http = (rules: object[]) => analyzeRuleset({ phase: 'http_request_firewall_custom', rules });
  const terminating = Object.entries(ACTION_CATALOG).filter(([, a]) => a.terminating).map(([n]) => n);
  const other = Object.entries(ACTION_CATALOG).filter(([, a]) => !a.terminating).map(([n]) => n);

  it('the catalog has the Actions reference’s terminating actions', () => {
    expect(terminating).toEqual(expect.arrayContaining(['block', 'challenge', 'js_challenge', 'managed_challenge', 'redirect', 'serve_error']));
    expect(other).toEqual(expect.arrayContaining(['log', 'skip', 'execute', 'rewrite', 'route', 'set_config', 'set_cache_settings', 'compress_response']));
  });

  for (const action of terminating) {
    it(`${action} shadows a later rule it covers (redundant with itself, unreachable for another action)`, () => {
      const same = http([{ action, expression: 'http.host in {"a" "b"}' }, { action, expression: 'http.host eq "a"' }]);
      expect(same.rules.map((r) => r.status)).toEqual(['live', 'shadowed']);
      expect(same.diagnostics.map((d) => d.code)).toEqual(['rule-redundant']);
      expect(same.diagnostics[0]!.message).toContain(action === 'block' ? 'already blocks every request' : `already decides (${action}) every request`);
      const later = action === 'log' ? 'block' : action === 'block' ? 'challenge' : 'block';
      const diff = http([{ action, expression: 'http.host in {"a" "b"}' }, { action: later, expression: 'http.host eq "a"' }]);
      expect(diff.diagnostics.map((d) => [d.code, d.data?.['decidedBy']])).toEqual([['rule-unreachable', 0]]);
      // A skip of the current ruleset before it: the skip's overlap is noted with this action.
      const skip = http([{ action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'http.host eq "a"' }, { action, expression: 'http.host in {"a" "b"}' }]);
      expect(skip.diagnostics.map((d) => d.code)).toEqual(['rule-skip-overlap']);
      expect(skip.diagnostics[0]!.message).toContain(action === 'block' ? 'would block' : `would decide (${action})`);
    });
  }

  for (const action of other) {
    it(`${action} never shadows a later rule`, () => {
      const params = action === 'skip' ? { action_parameters: { phases: ['http_ratelimit'] } } : {};
      const a = http([{ action, ...params, expression: 'http.host in {"a" "b"}' }, { action: 'block', expression: 'http.host eq "a"' }]);
      expect(a.rules.map((r) => r.status)).toEqual(['live', 'live']);
      expect(a.diagnostics).toEqual([]);
    });
  }

  it('skip decides only with "ruleset": "current"', () => {
    for (const action_parameters of [{ ruleset: 'other' }, { products: ['waf'] }, { phases: ['http_ratelimit'] }, undefined]) {
      expect(http([{ action: 'skip', action_parameters, expression: 'http.host eq "a"' }, { action: 'block', expression: 'http.host eq "a"' }]).diagnostics, JSON.stringify(action_parameters)).toEqual([]);
    }
  });

  it('a rate limiting rule or an exposed credentials check decides only part of what it matches: never a shadow', () => {
    const rl = analyzeRuleset({ phase: 'http_ratelimit', rules: [
      { action: 'block', expression: 'http.host eq "a"', ratelimit: { characteristics: ['ip.src'], period: 60, requests_per_period: 10 } },
      { action: 'block', expression: 'http.host eq "a"', ratelimit: { characteristics: ['ip.src'], period: 10, requests_per_period: 1 } },
    ] });
    expect(rl.rules.map((r) => r.status)).toEqual(['live', 'live']);
    expect(rl.diagnostics).toEqual([]);
    const creds = http([
      { action: 'block', expression: 'http.host eq "a"', exposed_credential_check: { username_expression: 'lower(http.host)', password_expression: 'lower(http.host)' } },
      { action: 'block', expression: 'http.host eq "a"' },
    ]);
    expect(creds.diagnostics).toEqual([]);
    // It can itself be shadowed by an earlier rule that decides everything it matches.
    const after = http([{ action: 'block', expression: 'http.host eq "a"' }, { action: 'log', expression: 'http.host eq "a"', exposed_credential_check: {} }]);
    expect(after.rules.map((r) => r.status)).toEqual(['live', 'shadowed']);
  });
});

describe('opaque conditions are one unknown only when they print the same', () => {
  const http = (rules: object[]) => analyzeRuleset({ phase: 'http_request_firewall_custom', rules });

  it('string literals that differ in their spaces are two unknowns: no shadowing claim', () => {
    const a = http([{ action: 'block', expression: 'http.host contains "a  b"' }, { action: 'block', expression: 'http.host contains "a b"' }]);
    expect(a.rules.map((r) => r.status)).toEqual(['live', 'live']);
    expect(a.diagnostics).toEqual([]);
    // The simulator agrees: the second rule decides a request the first lets through.
    const r = simulate({ phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'http.host contains "a  b"' }, { action: 'block', expression: 'http.host contains "a b"' }] } as never, [{ 'http.host': 'xa by' }] as never);
    expect(r.results[0]!.decidedBy?.index).toBe(1);
    const re = http([{ action: 'block', expression: 'http.request.uri.path matches "^/a\\t"' }, { action: 'block', expression: 'http.request.uri.path matches "^/a "' }]);
    expect(re.diagnostics).toEqual([]);
  });

  it('layout and operator spellings outside literals do not matter', () => {
    const a = http([{ action: 'block', expression: 'http.host   contains\n  "a b"' }, { action: 'block', expression: 'http.host contains "a b"' }]);
    expect(a.diagnostics.map((d) => d.code)).toEqual(['rule-redundant']);
    const b = http([{ action: 'block', expression: 'http.request.uri.path ~ "^/x"' }, { action: 'block', expression: 'http.request.uri.path matches "^/x"' }]);
    expect(b.diagnostics.map((d) => d.code)).toEqual(['rule-redundant']);
  });
});

describe('a time budget', () => {
  const ruleset = {
    phase: 'network_transit',
    rules: [
      { action: 'block', expression: 'tcp.dstport in {1..1024}' },
      { action: 'block', expression: 'tcp.dstport == 80' },
      { action: 'block', expression: 'tcp.dstport == 443' },
    ],
  };

  it('past it, the rules left are not analysed and one note says from which rule', () => {
    const r = analyzeRuleset(ruleset, { budgetMs: -1 });
    expect(r.rules.map((x) => x.status)).toEqual([expect.not.stringMatching(/^unknown$/), 'unknown', 'unknown']);
    const stopped = r.diagnostics.filter((d) => d.code === 'analysis-stopped');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ severity: 'info', pointer: '/rules/1/expression', data: { analysed: 1, rules: 3 } });
    expect(stopped[0]!.message).toMatch(/rules 1 to 2 were not analysed/);
    // What the budget cut off: rule 1 is unreachable behind rule 0, and no finding says so.
    expect(r.diagnostics.some((d) => d.code === 'rule-unreachable' || d.code === 'rule-redundant')).toBe(false);
  });

  it('within it, the analysis is the same as without one', () => {
    expect(analyzeRuleset(ruleset, { budgetMs: 60_000 })).toEqual(analyzeRuleset(ruleset));
    expect(analyzeRuleset(ruleset).diagnostics.some((d) => d.code === 'rule-redundant' || d.code === 'rule-unreachable')).toBe(true);
  });
});
