/** Generated rulesets and NDJSON packet lines for the ruleset SQL tests. */
import fc from 'fast-check';
import type { Rule } from '../../src/ruleset/index.js';
import { rulesetToSql } from '../../src/sql/index.js';
import { expression, LISTS, packet } from '../expression/arbitraries.js';
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


/** A rule the service accepts: a skip ends the current ruleset. */
export const validRuleArb: fc.Arbitrary<Rule> = ruleArb.filter((r) => r.action !== 'log_custom_field').map((r): Rule => (r.action === 'skip' ? { ...r, action_parameters: { ruleset: 'current' } } : { ...r, action_parameters: undefined }));

/**
 * Rules of valid rulesets: three in four have an exact SQL form, so an engine is compared on most runs
 * (about 4 in 10 unfiltered ones hold a rule SQL cannot express: a bit_slice of raw header bytes, matches,
 * a case-insensitive wildcard with letters); the rest are any.
 */
export const validRulesArb: fc.Arbitrary<Rule[]> = fc.oneof(
  { weight: 3, arbitrary: fc.array(validRuleArb, { minLength: 1, maxLength: 6 }).filter((rules) => rulesetToSql({ rules }, { lists: LISTS }).sql !== undefined) },
  { weight: 1, arbitrary: fc.array(validRuleArb, { minLength: 1, maxLength: 6 }) },
);
