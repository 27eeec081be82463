/** Generated rulesets and NDJSON packet lines for the ruleset SQL tests. */
import fc from 'fast-check';
import type { Rule } from '../../src/ruleset/index.js';
import { expression, packet } from '../expression/arbitraries.js';
import { ipish } from './sql-flows.js';

export const ruleArb: fc.Arbitrary<Rule> = fc.record(
  {
    action: fc.constantFrom('block', 'block', 'skip', 'skip', 'log_custom_field') as fc.Arbitrary<Rule['action']>,
    expression,
    enabled: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    action_parameters: fc.constantFrom({ ruleset: 'current' }, { ruleset: 'current' }, {}),
  },
  { requiredKeys: ['action', 'expression'] },
);
/**
 * Packets as NDJSON lines carry them: raw header bytes left out (they have no JSON form), and no lone
 * surrogate (JSON.stringify escapes one as \udXXX; it has no UTF-8 form, and the engines refuse the line).
 */
export const lineArb = fc.tuple(packet, fc.option(ipish), fc.option(ipish)).map(([p, s, d]) => {
  const { ip: _ip, tcp: _tcp, ...rest } = p;
  return JSON.stringify({ ...rest, ...(s !== null ? { 'ip.src': s } : {}), ...(d !== null ? { 'ip.dst': d } : {}) });
}).filter((l) => !/\\ud[89a-f]/i.test(l));

